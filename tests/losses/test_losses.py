"""Every loss method against the same quantity computed from the dense matrix with plain numpy."""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core.protocol import EigenPlay
from tests.conftest import random_spectraplex_eig


def _losses(rng, R=3, d=5):
    x1 = rng.standard_normal((R, d))
    xk = rng.standard_normal((R, d, 3))
    a = rng.standard_normal((R, d, d))
    return [ol.DenseLoss(a + np.swapaxes(a, 1, 2)), ol.FactoredLoss(x1, coef=-1.0),
            ol.FactoredLoss(xk, coef=[1.0, -0.5, 2.0]), ol.FactoredLoss(xk, coef=0.7)]


@pytest.mark.parametrize("which", range(4))
def test_loss_methods_agree_with_dense_numpy(which):
    rng = np.random.default_rng(which)
    loss = _losses(rng)[which]
    L = loss.dense()
    R, d = loss.shape
    np.testing.assert_allclose(L, np.swapaxes(L, 1, 2), atol=1e-12)
    w = rng.standard_normal((R, d))
    np.testing.assert_allclose(loss.quad(w), [w[r] @ L[r] @ w[r] for r in range(R)], rtol=1e-12)
    lam, U = random_spectraplex_eig(rng, R, d)
    W = np.stack([U[r] @ np.diag(lam[r]) @ U[r].T for r in range(R)])
    expected = [np.trace(W[r] @ L[r]) for r in range(R)]
    np.testing.assert_allclose(loss.mixed_value(EigenPlay(lam, U)), expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(loss.mixed_value(W), expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(loss.in_basis(U), [U[r].T @ L[r] @ U[r] for r in range(R)], atol=1e-12)
    ev = np.linalg.eigvalsh(L)
    np.testing.assert_allclose(loss.spectral_norm(), np.abs(ev).max(axis=1), rtol=1e-12)
    np.testing.assert_allclose(loss.frobenius_sq(), (L ** 2).sum(axis=(1, 2)), rtol=1e-12)
    np.testing.assert_allclose(loss.min_eigenvalue(), ev[:, 0], atol=1e-12)
    np.testing.assert_allclose(loss.max_eigenvalue(), ev[:, -1], atol=1e-12)
    stats = loss.statistics()
    np.testing.assert_allclose(stats["spec_sq"], np.abs(ev).max(axis=1) ** 2, rtol=1e-12)


def test_eigenplay_dense_and_top_vector():
    rng = np.random.default_rng(0)
    lam, U = random_spectraplex_eig(rng, 2, 4)
    play = EigenPlay(lam, U)
    W = play.dense()
    for r in range(2):
        ev, vec = np.linalg.eigh(W[r])
        assert abs(abs(vec[:, -1] @ play.top_vector()[r]) - 1) < 1e-10


def test_comparator_is_lambda_min_of_the_sum():
    rng = np.random.default_rng(1)
    losses = [_losses(rng)[k] for k in (0, 1, 2, 0)]
    comp = losses[0].comparator(3, 5)
    total = np.zeros((3, 5, 5))
    for loss in losses:
        comp.add(loss)
        total += loss.dense()
    np.testing.assert_allclose(comp.value(), np.linalg.eigvalsh(total)[:, 0], rtol=1e-12)
    np.testing.assert_allclose(comp.pooled_value(), np.linalg.eigvalsh(total.mean(axis=0))[0], rtol=1e-12)
