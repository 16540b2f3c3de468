"""Near-isometric embedding by Lagrange duality (theory §5): the game against a plain Algorithm 1, the
supergradient, the simplex projection, the bracket, the Theorem 2.1 counterexample, bad input."""
from __future__ import annotations

import numpy as np
import pytest

from onlinelab.embedding.bounds import paper_eta, paper_ratio_claim, ratio_bound
from onlinelab.embedding.dual import captured, dual_value, max_distortion, supergradient, top_k
from onlinelab.embedding.embed import NearIsometricEmbedding
from onlinelab.embedding.game import play_embedding_game
from onlinelab.embedding.pairs import unit_differences
from onlinelab.errors import ConfigError
from onlinelab.geometry.domains import Simplex


def _bisection_projection(y):
    """Independent reference: Π_Δ(y) = max(y − θ, 0) with Σ = 1, θ found by bisection."""
    lo, hi = y.min() - 1.0, y.max()
    for _ in range(200):
        th = (lo + hi) / 2
        lo, hi = (th, hi) if np.maximum(y - th, 0).sum() > 1 else (lo, th)
    return np.maximum(y - (lo + hi) / 2, 0)


def _plain_algorithm_1(X, k, T, eta):
    """The source's Algorithm 1, written out: λ¹ = 𝟏/n, λ ← Π_Δ(λ + η∇g(λ)), best iterate tracked."""
    n = X.shape[0]
    lam = np.full(n, 1.0 / n)
    lams, eps, gaps = [], [], []
    for _ in range(T):
        M = X.T @ np.diag(lam) @ X
        w, U = np.linalg.eigh((M + M.T) / 2)
        V = U[:, ::-1][:, :k]
        gaps.append(w[::-1][k - 1] - w[::-1][k])
        grad = -np.sum((X @ V) ** 2, axis=1)                       # Lemma 4
        lams.append(lam)
        eps.append(1 - np.min(np.sum((X @ V) ** 2, axis=1)))
        lam = _bisection_projection(lam + eta * grad)
    return np.array(lams), np.array(eps), np.array(gaps)


def _instance(r=14, d=6, seed=0):
    return unit_differences(np.random.default_rng(seed).standard_normal((r, d)))


def test_game_iterates_equal_a_plain_algorithm_1_loop():
    X, k, T = _instance(), 2, 60
    eta = paper_eta(X.shape[0], T) * 5
    lams, eps, gaps = _plain_algorithm_1(X, k, T, eta)
    assert gaps.min() > 1e-6                                       # the eigengap stays positive: V_t is unique
    res = play_embedding_game(X, k, T=T, eta=eta, solver="dense", checkpoints=list(range(1, T + 1)))
    h = res.history()
    assert np.abs(h["distortion_best"].to_numpy() - np.minimum.accumulate(eps)).max() <= 1e-12
    lam_bar = np.cumsum(lams, axis=0) / np.arange(1, T + 1)[:, None]
    g_bar = np.array([dual_value(X, lb, k) for lb in lam_bar])
    assert np.abs(h["dual"].to_numpy() - g_bar).max() <= 1e-12
    assert np.abs(res.solution["lambda_average"] - lam_bar[-1]).max() <= 1e-12
    assert np.abs(res.solution["lambda_best"] - lams[int(np.argmin(eps))]).max() <= 1e-12


def test_lemma_4_supergradient_matches_finite_differences():
    X, k = _instance(r=10, d=5, seed=1), 2
    lam = np.random.default_rng(2).dirichlet(np.ones(X.shape[0]))
    mu, V = top_k(X, lam, k + 1)
    assert mu[k - 1] - mu[k] > 1e-3                                # differentiable here
    grad = supergradient(X, V[:, :k])
    h = 1e-6                                                        # central differences: error O(h²·‖∇²g‖) ≪ 1e-7
    fd = np.array([(dual_value(X, lam + h * e, k) - dual_value(X, lam - h * e, k)) / (2 * h)
                   for e in np.eye(X.shape[0])])
    assert np.abs(fd - grad).max() <= 1e-7
    # a supergradient everywhere (concavity): g(λ') ≤ g(λ) + ⟨∇, λ' − λ⟩
    rng = np.random.default_rng(3)
    g0 = dual_value(X, lam, k)
    for _ in range(50):
        lam2 = rng.dirichlet(np.ones(X.shape[0]))
        assert dual_value(X, lam2, k) <= g0 + grad @ (lam2 - lam) + 1e-12


def test_simplex_projection_reads_rho_as_an_index():
    """theory §5: ρ in the projection is an index; read as the value printed in the source it is wrong."""
    rng = np.random.default_rng(0)
    wrong = 0
    cases = [rng.standard_normal(rng.integers(2, 21)) for _ in range(3000)]
    Y = np.full((3000, 20), -np.inf)
    for r, y in enumerate(cases):
        Y[r, :len(y)] = y
    lo, hi = np.min(np.where(np.isfinite(Y), Y, np.inf), axis=1) - 1, Y.max(axis=1)
    for _ in range(100):                                              # vectorised bisection, independent reference
        th = (lo + hi) / 2
        over = np.maximum(Y - th[:, None], 0).sum(axis=1) > 1
        lo, hi = np.where(over, th, lo), np.where(over, hi, th)
    for r, y in enumerate(cases):
        ref = np.maximum(y - (lo[r] + hi[r]) / 2, 0)
        assert np.abs(Simplex(len(y)).project(y[None])[0] - ref).max() <= 1e-12
        u = -np.sort(-y)
        css = np.cumsum(u)
        rho = np.max(u + (1 - css) / np.arange(1, len(u) + 1))      # as printed: the maximal *value*
        m = int(np.floor(rho))
        printed = np.maximum(y + (1 - (css[m - 1] if m >= 1 else 0.0)) / rho, 0)
        wrong += not np.allclose(printed, ref, atol=1e-9)
    assert wrong > 1500                                              # wrong in most cases (2437 of 3000 here)


def test_bracket_holds_and_brackets_the_true_optimum_in_the_plane():
    """d = 2, k = 1: p⋆ = min_θ max_i sin²(θ − φ_i) by a 2·10⁵-point grid (error ≤ π/2·10⁻⁵ since |d/dθ| ≤ 1)."""
    theta = np.linspace(0, np.pi, 200_001)
    for seed in range(8):
        X = unit_differences(np.random.default_rng(seed).standard_normal((7, 2)))
        res = play_embedding_game(X, 1, T=200, eta=0.05, checkpoints=10)
        assert res.meta["game"]["breaches"] == []
        h = res.history()
        V = np.stack([np.cos(theta), np.sin(theta)])
        grid = float((1 - (X @ V) ** 2).max(axis=0).min())           # ≥ p⋆ ≥ grid − 1.6e-5
        assert (h["dual"] <= grid + 1e-12).all() and (h["dual_best"] <= grid + 1e-12).all()
        assert (h["distortion"] >= grid - 1.6e-5).all()
        assert (h["dual"] <= h["distortion_projector"] + 1e-12).all()
        assert (h["gap"] <= h["regret"] + 1e-12).all()
        assert res.violations().empty


def test_bracket_and_rate_curves_on_random_instances():
    for seed in range(6):
        X = _instance(r=12, d=5, seed=seed)
        res = play_embedding_game(X, 2, T=80, eta=paper_eta(X.shape[0], 80))
        h = res.history()
        assert res.meta["game"]["breaches"] == []
        assert (h["regret"] <= h["bound:centred"]).all() and (h["regret"] <= h["bound:LD/sqrt(T)"]).all()
        assert (h["bound:centred"] < h["bound:LD/sqrt(T)"]).all()
        assert res.violations().empty


def test_estimator_outputs_the_better_of_best_and_average():
    pts = np.random.default_rng(5).standard_normal((16, 6))
    emb = NearIsometricEmbedding(3, T=100).fit(pts)
    X = unit_differences(pts)
    V = emb.components_
    assert np.allclose(V.T @ V, np.eye(3), atol=1e-12)
    h = emb.history.iloc[-1]
    assert emb.max_distortion_ == pytest.approx(min(h["distortion_best"], h["distortion_average"]), abs=1e-12)
    assert emb.max_distortion_ == pytest.approx(max_distortion(X, V), abs=1e-12)
    assert emb.dual_bound_ <= emb.max_distortion_
    Y = emb.transform(pts)                                            # distortion of the embedded pairs, directly
    i, j = np.triu_indices(len(pts), 1)
    ratio = np.sum((Y[i] - Y[j]) ** 2, axis=1) / np.sum((pts[i] - pts[j]) ** 2, axis=1)
    assert 1 - ratio.min() == pytest.approx(emb.max_distortion_, abs=1e-12)
    emb2 = NearIsometricEmbedding(3, T=100).fit(differences=pts[i] - pts[j])
    assert np.allclose(emb2.components_, V)


def test_matrix_free_solver_matches_dense_eigenpairs_along_the_run():
    """Each warm-started LOBPCG solve agrees with eigh: Ritz values to 1e-12, subspaces to ‖residual‖/gap.

    (Whole trajectories may part later: where μ_k ≈ μ_{k+1} the best response itself is ill-conditioned.)"""
    X = unit_differences(np.random.default_rng(7).standard_normal((30, 40)))
    k, T, eta = 3, 25, 0.02
    lams, _, gaps = _plain_algorithm_1(X, k, T, eta)
    warm = None
    for lam, gap in zip(lams, gaps, strict=True):
        mu, V = top_k(X, lam, k)
        mu2, V2, warm = top_k(X, lam, k, solver="lobpcg", warm=warm, tol=1e-10)
        assert np.abs(mu - mu2).max() <= 1e-12
        assert np.linalg.norm(V @ V.T - V2 @ V2.T) <= 2 * np.sqrt(k) * 1e-8 / gap    # 100·tol/gap, Davis–Kahan
    free = play_embedding_game(X, k, T=T, eta=eta, solver="lobpcg")
    dense = play_embedding_game(X, k, T=T, eta=eta, solver="dense")
    assert free.meta["game"]["breaches"] == [] and free.violations().empty
    assert abs(free.final("dual_best").iloc[0] - dense.final("dual_best").iloc[0]) <= 1e-3


def test_theorem_2_1_counterexample_and_valid_replacement():
    """k ≥ rank X: d̂⋆ = 0 (tr M(λ) = 1 = the top-k sum), yet the source's bound needs d̂⋆ ≥ 1 − σ₁²/n > 0."""
    rng = np.random.default_rng(0)
    basis = np.linalg.qr(rng.standard_normal((5, 2)))[0]
    pts = rng.standard_normal((9, 2)) @ basis.T                        # rank-2 data in ℝ⁵, k = 2
    X = unit_differences(pts)
    sigma1_sq = np.linalg.svd(X, compute_uv=False)[0] ** 2
    claimed_dual_floor = 1 - sigma1_sq / X.shape[0]
    assert claimed_dual_floor > 0.1
    for _ in range(20):
        assert abs(dual_value(X, rng.dirichlet(np.ones(X.shape[0])), 2)) <= 1e-12
    emb = NearIsometricEmbedding(2, T=30).fit(pts)
    assert abs(emb.dual_bound_) <= 1e-12 and emb.max_distortion_ <= 1e-12   # p⋆ = 0: the span is found
    assert np.isfinite(paper_ratio_claim(X)) and ratio_bound(X, 2) == np.inf
    # the replacement for k < rank X: ε_ALG/p⋆ ≤ ε_ALG/dual_bound ≤ (1 − Σ_{i≤k} σ_i²/n)⁻¹
    for seed in range(5):
        pts = np.random.default_rng(seed).standard_normal((12, 5))
        X = unit_differences(pts)
        s2 = np.linalg.svd(X, compute_uv=False) ** 2
        emb = NearIsometricEmbedding(2, T=60).fit(pts)
        assert ratio_bound(X, 2) == pytest.approx(1 / (1 - s2[:2].sum() / X.shape[0]), rel=1e-12)
        assert emb.dual_bound_ >= dual_value(X, np.full(X.shape[0], 1 / X.shape[0]), 2) - 1e-15
        assert emb.max_distortion_ / emb.dual_bound_ <= ratio_bound(X, 2) + 1e-12


@pytest.mark.parametrize("points, k, match", [
    (np.ones((1, 4)), 2, "at least two rows"),
    (np.array([[0.0, 1, 2], [0.0, 1, 2], [1, 0, 0]]), 1, "duplicate rows"),
    (np.random.default_rng(0).standard_normal((5, 3)), 3, "below the data's dimension"),
    (np.array([[0.0, np.nan, 1], [1, 2, 3], [0, 0, 1]]), 1, "non-finite"),
    (np.arange(6.0), 1, "2-D array"),
])
def test_bad_input_is_a_clear_error(points, k, match):
    with pytest.raises(ConfigError, match=match):
        NearIsometricEmbedding(k, T=5).fit(points)


def test_bad_hyper_parameters_are_clear_errors():
    pts = np.random.default_rng(0).standard_normal((5, 3))
    with pytest.raises(ConfigError, match="eta"):
        NearIsometricEmbedding(1, eta="fast").fit(pts)
    with pytest.raises(ConfigError, match="solver"):
        NearIsometricEmbedding(1, solver="arpack").fit(pts)
    with pytest.raises(ConfigError, match="exactly one"):
        NearIsometricEmbedding(1).fit(pts, differences=pts)
    with pytest.raises(ConfigError, match="not fitted"):
        NearIsometricEmbedding(1).transform(pts)
    with pytest.raises(ConfigError, match="zero row"):
        NearIsometricEmbedding(1).fit(differences=np.zeros((2, 3)))
    assert captured(unit_differences(pts), np.eye(3)[:, :1]).shape == (10,)


def test_projector_sum_folds_its_buffer_and_keeps_it_small():
    """Σ V_s V_sᵀ over many more rounds than the buffer holds (d = 5, k = 2: two rounds a fold, 7 rounds) equals
    the plain sum, and the buffer stays d × (d // k)·k whatever the number of rounds."""
    from onlinelab.embedding.game import ProjectorSum
    rng = np.random.default_rng(3)
    plays = [np.linalg.qr(rng.standard_normal((5, 2)))[0] for _ in range(7)]
    acc = ProjectorSum(5, 2)
    for V in plays:
        acc.add(V)
    assert acc.W.shape == (5, 4)
    np.testing.assert_allclose(acc.value(), sum(V @ V.T for V in plays), rtol=0, atol=1e-14)
    np.testing.assert_allclose(acc.value(), sum(V @ V.T for V in plays), rtol=0, atol=1e-14)   # value() is idempotent
