"""Matrix completion, Algorithms 10/11 batch and online (theory §6), against cvxpy solves, a plain loop
written here, and exact recovery of a random low-rank matrix."""
import numpy as np
import pytest

from onlinelab.bregman.completion import MatrixCompletion, RecommenderStream, complete_matrix, complete_stream
from onlinelab.errors import ConfigError
from tests.cvx_reference import SOLVER, cvxpy

CVX_TOL = 5e-5        # Clarabel's solution error on these sizes (see tests/bregman/test_bregman_rpca.py)


def lowrank(seed, n=12, s=10, r=2, p=0.7):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, r)) @ rng.normal(size=(r, s)) / np.sqrt(r)
    return X, rng.random(X.shape) < p


def cvx_completion(X, mask, gamma):
    cp = cvxpy()
    L = cp.Variable(X.shape)
    M = mask.astype(float)
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(L) + gamma * cp.normNuc(L)), [cp.multiply(M, L) == M * X])
    prob.solve(**SOLVER)
    return L.value, prob.value


def plain_alg10(X, mask, gamma, K, tau=1.0):
    z = b = np.where(mask, X, 0.0)
    for _ in range(K):
        U, sv, Vt = np.linalg.svd(tau * z, full_matrices=False)
        L = (U * np.maximum(sv - gamma, 0)) @ Vt
        z = z - (np.where(mask, L, 0.0) - b)
    return L


def test_solution_and_optimum_equal_cvxpy():
    X, mask = lowrank(0)
    gamma = 4.0
    m = MatrixCompletion(np.where(mask, X, np.nan), gamma=gamma)
    Lc, pstar = cvx_completion(X, mask, gamma)
    assert m.ref["converged"] and np.abs(m.ref["parts"][0][0] - Lc).max() < CVX_TOL
    assert m.ref["G_star"][0] == pytest.approx(-pstar / 1.0, rel=1e-8)          # G⋆ = −P⋆/τ
    assert m.ref["G_star_lower"][0] <= m.ref["G_star"][0] + 1e-9
    # Algorithm 11 gets there: its gap after 1500 iterations is tiny, and G_τ's optimum pins the solution
    L, res = complete_matrix(np.where(mask, X, np.nan), gamma=gamma, iters=1500, checkpoints=[1500])
    assert res.final("dual_gap").iloc[0] < 1e-6 and np.abs(L - Lc).max() < 1e-3


@pytest.mark.parametrize("seed", [1, 2])
def test_rate_curves_hold_at_every_iteration(seed):
    X, mask = lowrank(seed, p=0.5)
    _, pstar = cvx_completion(X, mask, 3.0)
    for accelerated, rule in ((False, "recursive"), (True, "recursive"), (True, "linear")):
        K = 120
        _, res = complete_matrix(np.where(mask, X, 0.0), mask=mask, gamma=3.0, accelerated=accelerated, t_rule=rule,
                                 iters=K, checkpoints=range(1, K + 1), tau=0.8)
        b = res.bounds()
        assert b.holds.all() and not b.violated.any() and res.breaches == []
        gap, curve = res.curve("dual_gap")["mean"].to_numpy(), res.curve(f"bound:{b.bound.iloc[0]}")["mean"].to_numpy()
        assert np.all(gap <= curve * (1 + 1e-9))
        # G_τ⋆ from cvxpy: the logged gap is measured from (at most 1e-6 above) the true optimum
        assert res.meta["iteration"]["method"]["reference"]["G_star"][0] == pytest.approx(-pstar / 0.8, rel=1e-7)


def test_iterates_match_a_plain_loop_and_online_with_everything_revealed():
    X, mask = lowrank(3)
    L, _ = complete_matrix(np.where(mask, X, np.nan), gamma=2.5, accelerated=False, iters=25, reference=False)
    assert np.abs(L - plain_alg10(X, mask, 2.5, 25)).max() < 1e-10
    # an online stream that reveals every training entry in round 1 is Algorithm 10 on that mask
    stream = RecommenderStream(X, batch=X.size, holdout=0.3, seed=4)
    Lo, res = complete_stream(X, batch=X.size, gamma=2.5, rounds=25, holdout=0.3, seed=4)
    assert np.abs(Lo - plain_alg10(X, ~stream.test[0], 2.5, 25)).max() < 1e-10
    assert res.final("seen").iloc[0] == pytest.approx(0.7, abs=0.01)


def test_exact_recovery_of_a_random_low_rank_matrix():
    """20×20 of rank 2 from 80 % of its entries: nuclear-norm completion recovers it (γ large enough)."""
    X, mask = lowrank(1, n=20, s=20, r=2, p=0.8)
    L, res = complete_matrix(np.where(mask, X, np.nan), gamma=100.0, iters=1500, truth=X, reference=False,
                             checkpoints=[1500])
    assert np.linalg.norm(L - X) / np.linalg.norm(X) < 1e-6
    assert int(res.final("rank").iloc[0]) == 2


def test_online_stream_learns_the_held_out_entries():
    X, _ = lowrank(5, n=30, s=25, r=2)
    _, res = complete_stream(X, batch=20, gamma=50.0, rounds=400, holdout=0.2, seed=0)
    rmse = res.curve("heldout_rmse").set_index("t")["mean"]
    baseline = np.sqrt(np.mean(X ** 2))          # predicting 0 everywhere
    assert rmse.iloc[0] > 0.5 * baseline and rmse.iloc[-1] < 1e-3 * baseline
    assert res.final("seen").iloc[0] == pytest.approx(0.8, abs=0.01)


@pytest.mark.parametrize("kwargs,match", [
    ({"M_observed": np.eye(3), "mask": np.ones((3, 4), bool)}, "mask has shape \\(3, 4\\) but M_observed"),
    ({"M_observed": np.eye(3), "mask": np.zeros((3, 3), bool)}, "observes no entry"),
    ({"M_observed": np.full((3, 3), np.nan)}, "observes no entry"),
    ({"M_observed": np.where(np.eye(3) > 0, np.inf, 1.0), "mask": np.ones((3, 3), bool)}, "non-finite entry"),
    ({"M_observed": np.eye(3), "tau": 1.5}, "tau = 1.5 is above its limit 1"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        complete_matrix(**{"iters": 2, "gamma": 1.0, **kwargs})
