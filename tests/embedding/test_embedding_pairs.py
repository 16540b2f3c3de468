"""The pair structure of the supergradient (theory §5.6): ‖Vᵀx_ij‖² from the points' Gram matrix in O(r²k).

Against the plain X·V on the unit differences written out here, within the rounding bound of
UnitPairs' docstring, and the game played on points against a plain Algorithm 1 loop."""
from __future__ import annotations

import numpy as np

from onlinelab.embedding.bounds import paper_eta
from onlinelab.embedding.dual import dual_value
from onlinelab.embedding.game import play_embedding_game
from onlinelab.embedding.pairs import UnitPairs, unit_differences
from onlinelab.experiment.kinds.embedding import digit_points

EPS = np.finfo(float).eps


def _plain_differences(pts):
    """(p_i − p_j)/‖p_i − p_j‖ for i < j, in the order of np.triu_indices, without centring."""
    r = len(pts)
    rows = [(pts[i] - pts[j]) / np.linalg.norm(pts[i] - pts[j]) for i in range(r) for j in range(i + 1, r)]
    return np.array(rows)


def _rho(pts):
    """ρ = max (‖p_i‖ + ‖p_j‖)/D_ij over pairs, for the centred points (UnitPairs' docstring)."""
    P = pts - pts.mean(axis=0)
    i, j = np.triu_indices(len(P), 1)
    norms = np.linalg.norm(P, axis=1)
    return np.max((norms[i] + norms[j]) / np.linalg.norm(P[i] - P[j], axis=1))


def test_pair_path_equals_x_times_v_within_the_rounding_bound():
    rng = np.random.default_rng(0)
    cases = [rng.standard_normal((30, 8)), rng.standard_normal((25, 6)) + 1e3,        # far from the origin
             rng.standard_normal((20, 5)) * np.array([1e-3, 1, 1, 1e3, 1]), digit_points(5, 60, 0)]
    for pts in cases:
        X = _plain_differences(pts)
        pairs = UnitPairs.from_points(pts)
        rho = _rho(pts)
        assert np.abs(pairs.X - X).max() <= 4 * EPS * rho             # centring moves each difference by ~ε‖p‖
        for k in (1, 3):
            V = np.linalg.qr(rng.standard_normal((pts.shape[1], k)))[0]
            want = np.sum((X @ V) ** 2, axis=1)
            got = pairs.captured(V)
            assert got.min() >= 0
            assert np.abs(got - want).max() <= (pts.shape[1] + k) * EPS * rho ** 2
    assert np.abs(got - want).max() <= 1e-14                             # the digits (ρ² ≈ 18): far below it


def test_rows_without_points_use_x_times_v():
    X = unit_differences(np.random.default_rng(1).standard_normal((9, 4)))
    V = np.linalg.qr(np.random.default_rng(2).standard_normal((4, 2)))[0]
    pairs = UnitPairs.from_rows(X)
    assert UnitPairs.from_rows(pairs) is pairs
    assert np.array_equal(pairs.captured(V), np.einsum("ij,ij->i", X @ V, X @ V))


def test_game_on_points_equals_a_plain_algorithm_1_loop():
    """The game fed points (pair path) against Algorithm 1 on X·V, while the eigengap stays positive."""
    pts = np.random.default_rng(0).standard_normal((14, 6))
    X, k, T = _plain_differences(pts), 2, 60
    eta = paper_eta(X.shape[0], T) * 5
    lam, lams, eps, P = np.full(len(X), 1 / len(X)), [], [], np.zeros((6, 6))
    for _ in range(T):
        w, U = np.linalg.eigh(X.T @ (lam[:, None] * X))
        assert w[-k] - w[-k - 1] > 1e-6
        c = np.sum((X @ U[:, -k:]) ** 2, axis=1)
        P += U[:, -k:] @ U[:, -k:].T / T
        lams.append(lam)
        eps.append(1 - c.min())
        y = lam - eta * c
        lo, hi = y.min() - 1, y.max()
        for _ in range(200):                                             # projection by bisection
            th = (lo + hi) / 2
            lo, hi = (th, hi) if np.maximum(y - th, 0).sum() > 1 else (lo, th)
        lam = np.maximum(y - (lo + hi) / 2, 0)
    res = play_embedding_game(UnitPairs.from_points(pts), k, T=T, eta=eta, solver="dense",
                              checkpoints=list(range(1, T + 1)))
    h = res.history()
    assert np.abs(h["distortion_best"].to_numpy() - np.minimum.accumulate(eps)).max() <= 1e-12
    lam_bar = np.cumsum(lams, axis=0) / np.arange(1, T + 1)[:, None]
    assert np.abs(h["dual"].to_numpy() - [dual_value(X, lb, k) for lb in lam_bar]).max() <= 1e-12
    assert np.abs(res.solution["lambda_average"] - lam_bar[-1]).max() <= 1e-12
    assert np.abs(res.solution["projector"] - P).max() <= 1e-12                 # P̄ = (1/T) Σ V_t V_tᵀ


def test_history_read_from_the_arrays_equals_the_pivot_of_the_table():
    """The game hands its arrays to the result; a result rebuilt from the table alone pivots it (theory §5.6)."""
    import pandas as pd

    from onlinelab.embedding.bounds import centred_bound, ld_bound
    from onlinelab.embedding.result import EmbeddingResult

    X = unit_differences(np.random.default_rng(3).standard_normal((10, 4)))
    res = play_embedding_game(X, 2, T=30, eta=0.05, checkpoints=7)
    meta = {k: val for k, val in res.meta.items() if k != "bounds"}          # the bound checks are redone
    again = EmbeddingResult(res.metrics, meta, [ld_bound(len(X), 0.05), centred_bound(len(X), 0.05, 30)])
    pd.testing.assert_frame_equal(res.history(), again.history())
    assert again.meta["bounds"] == res.meta["bounds"] and len(again.meta["bounds"]) == 2
