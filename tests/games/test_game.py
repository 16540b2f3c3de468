"""The Fenchel game: GD reproduces a plain PGD loop (Theorem 6.20), the duality chain,
and empirical rates (theory §3.3–3.5)."""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab.errors import ConfigError, DomainError
from onlinelab.games.game import play_game
from onlinelab.games.recoveries import frank_wolfe, gd_averaging, make_recovery, nesterov, play_recovery
from onlinelab.geometry.domains import Ball, Euclidean
from onlinelab.losses.fenchel import NormDistance, Quadratic


def slope(t, y):
    return np.polyfit(np.log(np.asarray(t, float)), np.log(np.asarray(y, float)), 1)[0]


@pytest.mark.parametrize("domain", [Euclidean(4), Ball(4, 0.6)], ids=["unconstrained", "ball"])
def test_game_gd_reproduces_plain_projected_gradient_descent(domain):
    """x_{t+1} = Π_K(x_t − γ∇f(x_t)); the game's averaged iterate x̄_t must equal the plain loop's average (Theorem
    6.20).  Both sum the same floating-point iterates, so they agree to rounding: 1e-13."""
    rng = np.random.default_rng(3)
    M = rng.standard_normal((4, 4))
    A, b = M @ M.T + 0.1 * np.eye(4), rng.standard_normal(4) * 3
    f = Quadratic(domain, A, b)
    gamma, T, x1 = 0.05, 300, np.zeros(4)
    x_player = ol.make_learner("omd", gamma=gamma, z0=list(x1), domain=domain.spec)
    res = play_game(f, x_player, ol.make_learner("bestresp+"), T=T, checkpoints=[50, 100, T])
    x, xs = x1.copy(), []
    for _ in range(T):
        xs.append(x)
        if domain.kind == "ball":          # plain projection onto the ball of radius 0.6, written out here
            x = x - gamma * (A @ x + b)
            x = x * min(1.0, 0.6 / np.linalg.norm(x))
        else:
            x = x - gamma * (A @ x + b)
    xs = np.array(xs)
    assert sorted(res.x_avg) == [50, 100, T]
    for t in (50, 100, T):
        assert np.abs(res.x_avg[t][0] - xs[:t].mean(axis=0)).max() < 1e-13
    assert np.allclose(res.meta["game"]["x_avg"], res.x_avg[T], rtol=0, atol=0)
    if domain.kind == "ball":
        assert np.linalg.norm(xs, axis=1).max() == pytest.approx(0.6)   # the constraint was active


def test_gd_averaging_rate_and_bounds():
    """Non-smooth f = G‖x − c‖ with horizon-tuned γ: f(x̄_T) ≈ RG/(2√T) (T = k(k+1) keeps the final oscillation
    symmetric), under RG/√T; slope of log suboptimality vs log T within ±0.15 of −1/2."""
    Ts, subs = [110, 420, 1640, 6480], []
    for T in Ts:
        res = play_recovery(gd_averaging(n=3, T=T), T=T, checkpoints=[T])
        assert res.meta["game"]["breaches"] == []
        b = res.bounds()
        assert not b.violated.any()
        sub = res.final("suboptimality").iloc[0]
        assert sub <= 1.0 / np.sqrt(T)                               # RG/√T with R = G = 1
        subs.append(sub)
    assert abs(slope(Ts, subs) + 0.5) <= 0.15


def test_frank_wolfe_rate():
    """FW on ½‖x‖² over Δ_{2T}: between ½(1/t − 1/n) and 2LD²/(t+1); slope within ±0.15 of −1."""
    T = 600
    res = play_recovery(frank_wolfe(T=T), T=T)
    c = res.curve("suboptimality")
    c = c[c.t >= 10]
    assert np.all(c["mean"] >= 0.5 * (1 / c.t - 1 / (2 * T)) - 1e-12)
    assert not res.bounds().violated.any() and res.meta["game"]["breaches"] == []
    assert abs(slope(c.t, c["mean"]) + 1) <= 0.15


def test_nesterov_rate():
    """Optimistic FTL vs OMD+ with α_t = t: slope of log suboptimality within ±0.15 of −2 over t ∈ [20, 1000]."""
    res = play_recovery(nesterov(), T=1000)
    c = res.curve("suboptimality")
    c = c[c.t >= 20]
    assert res.meta["game"]["breaches"] == []
    assert abs(slope(c.t, c["mean"]) + 2) <= 0.15


def test_smooth_gd_shifted_average_bound():
    """γ = 1/L on ½xᵀAx + bᵀx over ℝⁿ: plain loop x ← x − (Ax + b)/L; the logged shifted-average suboptimality equals
    f((1/t)Σ_{s=2}^{t+1} x_s) − f⋆ with f⋆ = −½bᵀA⁻¹b (to 1e-12) and is ≤ LR²/(2t) at every checkpoint."""
    rec = make_recovery("smooth", n=4)
    T, ckpts = 400, [1, 2, 5, 10, 50, 100, 400]
    res = play_recovery(rec, T=T, checkpoints=ckpts)
    b = res.bounds()
    assert b.holds.all() and not b.violated.any() and all(m["pointwise"] for m in res.meta["bounds"])
    A, bvec = rec.f.A, rec.f.b
    L = np.linalg.eigvalsh(A)[-1]
    xstar = -np.linalg.solve(A, bvec)
    fstar, R = -0.5 * bvec @ np.linalg.solve(A, bvec), np.linalg.norm(xstar)   # x₁ = 0 (the domain's centre)
    x, nxt = np.zeros(4), []
    for _ in range(T):
        x = x - (A @ x + bvec) / L
        nxt.append(x)                                  # x_2, x_3, …, x_{T+1}
    nxt = np.array(nxt)
    got = res.curve("suboptimality_shifted").set_index("t")["mean"]
    for t in ckpts:
        xb = nxt[:t].mean(axis=0)
        want = 0.5 * xb @ A @ xb + bvec @ xb - fstar
        assert got[t] == pytest.approx(want, abs=1e-12)
        assert want <= L * R * R / (2 * t)


def test_chain_holds_for_other_pairings_and_result_api(tmp_path):
    """suboptimality ≤ gap ≤ sum of average regrets for several player pairs; save/load/plot work."""
    f = NormDistance(Ball(3, 1.0), center=[0.2, -0.1, 0.3], scale=2.0)
    pairs = [("ftrl", "ftl+"), ("omd", "ftl+"), ("ftrl+", "ftl")]
    for xname, yname in pairs:
        x = ol.make_learner(xname, domain="ball:1")
        order = "y-first" if xname.endswith("+") else "x-first"
        res = play_game(f, x, ol.make_learner(yname), T=200, replicates=2, order=order)
        for _t, df in res.metrics[res.metrics.metric.isin(["suboptimality", "gap", "regret"])].groupby("t"):
            v = df.pivot(index="replicate", columns="metric", values="value")
            assert np.all(v.suboptimality <= v.gap + 1e-9) and np.all(v.gap <= v.regret + 1e-9)
    s = res.summary()
    assert {"suboptimality", "gap", "regret"} <= set(s.columns)
    path = res.save(tmp_path / "game")
    back = ol.load_run(path)
    assert back.metrics.equals(res.metrics) and type(back).__name__ == "GameResult"
    fig, axes = res.plot()
    assert type(fig).__name__ == "Figure" and axes.shape == (1,)


def test_game_bad_input():
    f = NormDistance(Ball(3, 1.0), center=[0.0, 0.0, 0.0])
    with pytest.raises(ConfigError, match="only the second mover"):
        play_game(f, ol.make_learner("bestresp+"), ol.make_learner("ftl"), T=3, order="x-first")
    with pytest.raises(DomainError, match="no gradient oracle"):
        play_game(f, ol.make_learner("omd", domain="ball:1"), ol.make_learner("omd"), T=3)
    with pytest.raises(ConfigError, match="weights must be > 0"):
        play_game(f, ol.make_learner("omd", domain="ball:1"), ol.make_learner("bestresp+"), T=3, weights=-1.0)
    with pytest.raises(ConfigError, match="order must be one of"):
        play_game(f, ol.make_learner("omd"), ol.make_learner("bestresp+"), T=3, order="x-last")
    with pytest.raises(ol.errors.UnknownNameError, match="did you mean 'nesterov'"):
        make_recovery("nesterow")


def test_game_result_checks_pointwise_bounds_replicate_by_replicate():
    """Suboptimality 0.1 and 0.9 (mean 0.5) under a curve 0.6: a pointwise bound is violated, one in expectation not."""
    from onlinelab.bounds.base import Bound
    from onlinelab.runs.game_result import GameResult, game_frame
    rows = {"suboptimality": [np.array([0.1, 0.9])]}
    for pointwise, violated in ((True, True), (False, False)):
        b = Bound("c", "test", "0.6", {}, lambda s: np.full((2, 1), 0.6), pointwise=pointwise)
        res = GameResult(game_frame("x vs y", "f", [10], rows, [b]), {"T": 10, "replicates": 2}, [b])
        assert res.meta["bounds"][0]["violated"] is violated
        assert res.meta["bounds"][0]["worst_ratio"] == pytest.approx(0.9 / 0.6 if pointwise else 0.5 / 0.6)
