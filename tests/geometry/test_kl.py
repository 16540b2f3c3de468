"""KL-UCB's index (onlinelab.geometry.kl, theory §10): the vectorised Newton solve matches a scalar bisection to 1e-10
on random and extreme means and levels; the Gaussian index is the closed form; the relative entropies are the
textbook formulas."""
import math

import numpy as np

from onlinelab.geometry.kl import kl_bernoulli, kl_gaussian, kl_ucb_bernoulli, kl_ucb_gaussian


def kl(p: float, q: float) -> float:
    """Bernoulli relative entropy written out, 0·ln 0 = 0."""
    out = 0.0 if p == 0 else p * math.log(p / q)
    return out + (0.0 if p == 1 else (1 - p) * math.log((1 - p) / (1 - q)))


def bisection(p: float, level: float) -> float:
    """max{q ∈ [p, 1] : kl(p, q) ≤ level}, by halving [p, 1] until the midpoint stops moving (about 1e-16)."""
    if p >= 1.0:
        return 1.0
    lo, hi = p, 1.0
    while True:
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            return lo
        if kl(p, mid) <= level:
            lo = mid
        else:
            hi = mid


def test_matches_a_scalar_bisection_to_1e_10():
    rng = np.random.default_rng(0)
    n = 4000
    p = rng.random(n)
    p[:200], p[200:400] = 0.0, 1.0                              # the closed-form entries
    p[400:800] = rng.random(400) * 1e-6                         # means near 0 and near 1
    p[800:1200] = 1 - rng.random(400) * 1e-6
    p[1200:1600] = rng.integers(0, 50, 400) / 50                # empirical means of few pulls
    level = np.exp(rng.uniform(-12, 3.5, n))                    # ln t/N from t/N ~ 1e5 down to N ~ 1e5
    q = kl_ucb_bernoulli(p, level)
    ref = np.array([bisection(a, b) for a, b in zip(p, level, strict=True)])
    assert np.max(np.abs(q - ref)) <= 1e-10
    assert np.all(q >= p) and np.all(q <= 1.0)


def test_index_is_on_the_level_set():
    """Where the root is inside (p, 1), kl(p, U) = level to rounding: U is the largest q with kl ≤ level."""
    rng = np.random.default_rng(1)
    p, level = rng.uniform(0.05, 0.95, 500), rng.uniform(1e-4, 0.5, 500)
    q = kl_ucb_bernoulli(p, level)
    inside = q < 1 - 1e-9
    np.testing.assert_allclose(kl_bernoulli(p[inside], q[inside]), level[inside], rtol=1e-9, atol=1e-13)


def test_shapes_and_closed_forms():
    q = kl_ucb_bernoulli(np.full((3, 4), 0.25), 0.1)
    assert q.shape == (3, 4) and np.ptp(q) == 0
    assert kl_ucb_bernoulli(0.3, 0.0) == 0.3                     # level 0: the mean itself
    np.testing.assert_allclose(kl_ucb_bernoulli(0.0, 2.0), 1 - math.exp(-2.0), rtol=0, atol=1e-15)


def test_gaussian_index_is_the_closed_form():
    rng = np.random.default_rng(2)
    mean, level, sigma = rng.normal(size=200), rng.uniform(0, 5, 200), 0.7
    U = kl_ucb_gaussian(mean, level, sigma)
    np.testing.assert_allclose(U, mean + sigma * np.sqrt(2 * level), rtol=0, atol=1e-14)
    np.testing.assert_allclose(kl_gaussian(mean, U, sigma), level, rtol=1e-12, atol=1e-14)   # on the level set


def test_relative_entropies():
    assert kl_bernoulli(0.2, 0.2) == 0.0
    np.testing.assert_allclose(kl_bernoulli(0.2, 0.5), 0.2 * math.log(0.4) + 0.8 * math.log(1.6), rtol=1e-15)
    assert np.isinf(kl_bernoulli(0.2, 1.0))
    assert kl_gaussian(1.0, 3.0, sigma=2.0) == 0.5


def test_an_index_does_not_depend_on_the_entries_solved_beside_it():
    """Each entry's Newton iteration stops at its own tolerance: solved among 80 others (whose iterations end later)
    it is bit for bit the entry solved alone.  Before, every entry stepped until the slowest converged, and about
    1 % of the indices changed in the last bits with the number of replicates."""
    rs = np.random.default_rng(0)
    for _ in range(40):
        p = rs.random((8, 10))
        level = rs.exponential(0.3, (8, 10)) * rs.uniform(0.001, 1, (8, 1))
        together = kl_ucb_bernoulli(p, level)
        alone = np.array([[kl_ucb_bernoulli(p[i, j:j + 1], level[i, j:j + 1])[0] for j in range(10)]
                          for i in range(8)])
        np.testing.assert_array_equal(together, alone)


def test_a_level_below_rounding_gives_the_mean():
    """p + √(level/2) rounds to p: the Newton step would divide by q − p = 0; the index is p (kl(p, p) = 0 ≤ level)."""
    p = np.array([0.5, 0.3, 0.7])
    np.testing.assert_array_equal(kl_ucb_bernoulli(p, np.full(3, 1e-40)), p)
