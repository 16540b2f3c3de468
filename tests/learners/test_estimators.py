"""Unbiasedness of the bandit-PCA estimators (theory §1.3, App. A1): exact enumeration and Monte Carlo.

Exact enumeration lists every outcome of the sampler with its probability, builds w from
the formulas of theory §1.3 (independently of the sampler code), evaluates ℓ = wᵀLw, and feeds the
sampler's own estimator; E[L̃] must equal L and E[w wᵀ] must equal Ŵ to rounding.

Monte Carlo runs the real sampler (N = 4000 replicates × 60 rounds of independent draws)
and compares the sample mean of every entry of L̃ with L.  Tolerance: 5 standard errors of
the mean, entrywise (SE = sample std / √N); with d² = 16 entries a correct estimator fails
with probability < 16·5.7e-7 ≈ 1e-5.  Here SE ≤ 0.006 for ‖L‖₂ = 1, so any entrywise bias
above 0.03 is caught; the power tests below plant the two classic slips (a dropped factor
2 or ½) and check that they fail.
"""
import itertools

import numpy as np
import pytest

from onlinelab.core.rng import BatchRNG
from onlinelab.learners.bandit_sampling import DenseSampler, SparseSampler
from tests.conftest import random_spectraplex_eig, random_symmetric


def _instance(seed, d=3):
    rng = np.random.default_rng(seed)
    lam, U = random_spectraplex_eig(rng, 1, d, spread=1.5)
    return lam[0], U[0], random_symmetric(rng, d)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dense_exact_enumeration(seed):
    lam, U, L = _instance(seed)
    d = len(lam)
    outcomes = []  # (prob, w, info for one replicate)
    for i in range(d):
        outcomes.append((0.5 * lam[i], U[:, i], dict(B=True, I=i, s=np.ones(d))))
    for signs in itertools.product([-1.0, 1.0], repeat=d):
        s = np.array(signs)
        w = U @ (s * np.sqrt(lam))
        outcomes.append((0.5 / 2 ** d, w, dict(B=False, I=0, s=s)))
    n = len(outcomes)
    probs = np.array([o[0] for o in outcomes])
    W = np.stack([o[1] for o in outcomes])
    info = {"B": np.array([o[2]["B"] for o in outcomes]), "I": np.array([o[2]["I"] for o in outcomes]),
            "s": np.stack([o[2]["s"] for o in outcomes]), "lam_hat": np.tile(lam, (n, 1))}
    ell = np.einsum("ri,ij,rj->r", W, L, W)
    est = U @ DenseSampler().estimate(info, ell).dense() @ U.T
    np.testing.assert_allclose(probs.sum(), 1.0, atol=1e-15)
    np.testing.assert_allclose(np.einsum("r,rij->ij", probs, est), L, atol=1e-12)
    np.testing.assert_allclose(np.einsum("r,ri,rj->ij", probs, W, W), U @ np.diag(lam) @ U.T, atol=1e-14)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sparse_exact_enumeration(seed):
    lam, U, L = _instance(seed, d=4)
    d = len(lam)
    rows = []
    for i in range(d):
        for j in range(d):
            for sigma in (-1.0, 1.0):
                p = lam[i] * lam[j] * 0.5
                w = U[:, i] if i == j else (U[:, i] + sigma * U[:, j]) / np.sqrt(2)
                rows.append((p, w, i, j, sigma))
    probs = np.array([r[0] for r in rows])
    W = np.stack([r[1] for r in rows])
    info = {"I": np.array([r[2] for r in rows]), "J": np.array([r[3] for r in rows]),
            "sigma": np.array([r[4] for r in rows]), "lam_hat": np.tile(lam, (len(rows), 1))}
    ell = np.einsum("ri,ij,rj->r", W, L, W)
    est = U @ SparseSampler().estimate(info, ell).dense() @ U.T
    np.testing.assert_allclose(np.einsum("r,rij->ij", probs, est), L, atol=1e-13)
    np.testing.assert_allclose(np.einsum("r,ri,rj->ij", probs, W, W), U @ np.diag(lam) @ U.T, atol=1e-14)


def _draws(sampler, plant=None, d=4, R=4000, rounds=60):
    """Sampled w and L̃ (in the standard basis) for N = R·rounds draws; ``plant`` mutates the eigen-estimate."""
    lam, U, L = _instance(11, d=d)
    rng = BatchRNG.from_seed(5, "learner", "mc-" + sampler.name, R)
    ws, ests = [], []
    for _ in range(rounds):
        w, info = sampler.sample(np.tile(lam, (R, 1)), np.broadcast_to(U, (R, d, d)), rng)
        e = sampler.estimate(info, np.einsum("ri,ij,rj->r", w, L, w))
        e = e.dense() if plant is None else plant(e, info)
        ws.append(w)
        ests.append(U @ e @ U.T)
    return lam, U, L, np.concatenate(ws), np.concatenate(ests)


def _max_z(samples, target):
    n = len(samples)
    return float((np.abs(samples.mean(axis=0) - target) / (samples.std(axis=0, ddof=1) / np.sqrt(n))).max())


@pytest.mark.parametrize("sampler", [DenseSampler(), SparseSampler()], ids=["dense", "sparse"])
def test_monte_carlo_unbiased(sampler):
    lam, U, L, w, est = _draws(sampler)
    np.testing.assert_allclose(np.linalg.norm(w, axis=1), 1.0, atol=1e-12)
    assert _max_z(est, L) < 5.0
    assert _max_z(w[:, :, None] * w[:, None, :], U @ np.diag(lam) @ U.T) < 5.0


def _dense_without_factor_two(e, info):
    m = e.dense()
    r = np.flatnonzero(info["B"])
    m[r, info["I"][r], info["I"][r]] *= 0.5
    return m


def _sparse_without_half(e, info):
    unit = np.eye(e.diag.shape[1])
    ei, ej = unit[e.i], unit[e.j]
    return e.dense() + e.off[:, None, None] * (ei[:, :, None] * ej[:, None, :] + ej[:, :, None] * ei[:, None, :])


@pytest.mark.parametrize("sampler, plant", [(DenseSampler(), _dense_without_factor_two),
                                            (SparseSampler(), _sparse_without_half)], ids=["dense", "sparse"])
def test_monte_carlo_catches_planted_slips(sampler, plant):
    _, _, L, _, est = _draws(sampler, plant=plant)
    assert _max_z(est, L) > 5.0
