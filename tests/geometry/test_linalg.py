"""The β solve (theory §1.4, App. A2) against a bracketing root finder, and the spectral helpers."""
import numpy as np
import pytest
from scipy.optimize import brentq

from onlinelab.geometry.linalg import normalised_inverse, orthonormality_error, reorthonormalise, softmax, solve_shift


def _brent_root(c):
    return brentq(lambda s: np.sum(1.0 / (c + s)) - 1.0, 1.0, float(len(c)), xtol=1e-15, rtol=1e-15, maxiter=500)


@pytest.mark.parametrize("d", [2, 3, 7, 16, 39])
def test_shift_matches_brent_on_extreme_spectra(d):
    rng = np.random.default_rng(d)
    rows = 400
    # spreads up to e^15 (App. A2), plus degenerate cases: all equal, one huge outlier
    spread = rng.uniform(0, 15, rows)
    a = np.exp(spread[:, None] * rng.random((rows, d)))
    a[0] = 1.0
    a[1] = np.r_[1.0, np.full(d - 1, 1e12)]
    c = a - a.min(axis=1, keepdims=True)
    s, steps = solve_shift(c)
    ref = np.array([_brent_root(row) for row in c])
    np.testing.assert_allclose(s, ref, rtol=1e-13, atol=0)
    assert steps.max() <= 9  # theory appendix A2: at most 9 Newton steps
    assert np.all((s >= 1.0) & (s <= d))


def test_normalised_inverse_trace_one_and_order():
    rng = np.random.default_rng(7)
    a = np.exp(15 * rng.random((2000, 12)))
    lam = normalised_inverse(a)
    assert np.max(np.abs(lam.sum(axis=1) - 1.0)) < 1e-14
    assert np.all(lam > 0)
    # (a + β)^{-1} reverses the order of a, in every row
    assert np.all(np.diff(np.take_along_axis(lam, np.argsort(a, axis=1), axis=1), axis=1) <= 0)


def test_newton_steps_are_few_for_typical_spectra():
    rng = np.random.default_rng(1)
    d = 16
    a = 1.0 / np.clip(rng.dirichlet(np.ones(d), size=5000), 1e-12, None)
    _, steps = solve_shift(a - a.min(axis=1, keepdims=True))
    assert np.median(steps) <= 6


def test_softmax_max_shift_survives_huge_arguments():
    h = np.array([[1000.0, 999.0, -1e6]])
    p = softmax(h)
    np.testing.assert_allclose(p[0, :2], [1 / (1 + np.exp(-1)), np.exp(-1) / (1 + np.exp(-1))], rtol=1e-14)
    assert p[0, 2] == 0.0


def test_reorthonormalise_repairs_drift_and_keeps_good_bases():
    rng = np.random.default_rng(3)
    Q = np.linalg.qr(rng.standard_normal((5, 6, 6)))[0]
    assert reorthonormalise(Q) is Q  # untouched when already orthonormal
    noisy = Q + 1e-6 * rng.standard_normal(Q.shape)
    fixed = reorthonormalise(noisy)
    assert orthonormality_error(fixed).max() < 1e-12
    assert np.abs(fixed - Q).max() < 1e-5  # the nearest orthonormal matrix, not an arbitrary one
