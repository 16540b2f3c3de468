"""OCO learners: be-the-leader, FTL on the alternating sequence, bounds, and agreement with plain reference loops."""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab.errors import ConfigError, DomainError
from onlinelab.geometry.domains import Simplex
from onlinelab.geometry.linalg import softmax
from tests.ball_reference import ball_min


def test_ftl_alternating_is_about_T_over_2_and_ftl_plus_nonpositive():
    """theory §2/A5: FTL pays 1 every round after the first (centre start: ¼), comparator 499.5 → 499.75;
    FTL+ −499.5."""
    res = ol.simulate("ftl-alternating", {"ftl": ol.make_learner("ftl"), "ftl+": ol.make_learner("ftl+"),
                                          "br": ol.make_learner("bestresp+")}, T=1000)
    final = res.final("regret")
    assert final["ftl"].iloc[0] == pytest.approx(0.25 + 999 - 499.5, abs=1e-9)
    assert final["ftl+"].iloc[0] == pytest.approx(-499.5, abs=1e-9)
    assert final["br"].iloc[0] <= 1e-12


@pytest.mark.parametrize("env", ["experts-stochastic", "experts-adversarial"])
def test_prescient_learners_have_nonpositive_regret_and_all_stay_under_bounds(env):
    """Every applicable bound is checked by the simulator (a violation raises BoundViolationWarning → error)."""
    learners = {"ftl+": ol.make_learner("ftl+"), "bestresp+": ol.make_learner("bestresp+"),
                "hedge": ol.make_learner("ftrl", regularizer="entropy"),
                "ftrl-euclid": ol.make_learner("ftrl", regularizer="euclidean"),
                "omd-euclid": ol.make_learner("omd", regularizer="euclidean"),
                "omd-entropy": ol.make_learner("omd", regularizer="entropy"),
                "ftrl+": ol.make_learner("ftrl+", regularizer="entropy"),
                "omd+": ol.make_learner("omd+", regularizer="euclidean")}
    res = ol.simulate(ol.make_environment(env, d=6), learners, T=400, replicates=3, seed=1)
    final = res.final("regret")
    assert (final[["ftl+", "bestresp+"]] <= 1e-9).all()
    b = res.bounds()
    assert b.holds.all() and not b.violated.any()
    assert set(b.learner) == set(learners)


def test_hedge_matches_plain_loop():
    """ftrl(entropy) on the simplex = Hedge: p_t ∝ exp(−η Σ_{s<t} ℓ_s); regret recomputed independently."""
    eta, T = 0.3, 200
    res = ol.simulate(ol.make_environment("experts-adversarial", d=5), [ol.make_learner("ftrl", regularizer="entropy",
                                                                                        eta=eta)], T=T, seed=4)
    env = ol.make_environment("experts-adversarial", d=5)
    env.reset(ol.core.rng.BatchRNG.from_seed(4, "environment", "experts-adversarial(d=5)", 1), T)
    S, total = np.zeros(5), 0.0
    for t in range(1, T + 1):
        g = env.emit(t, None).G[0]
        total += softmax(-eta * S) @ g
        S += g
    assert res.final("regret").iloc[0] == pytest.approx(total - S.min(), abs=1e-9)


def test_spectral_ftrl_entropy_is_meg_and_omd_log_barrier_is_logdet():
    """One code path: entropy on eigenvalues = MEG; log-barrier OMD on the spectraplex = full-information log-det."""
    env = ol.make_environment("spiked-covariance", d=4)
    res = ol.simulate(env, {"meg": ol.make_learner("meg", eta=0.2),
                            "ftrl": ol.make_learner("ftrl", regularizer="von-neumann", eta=0.2),
                            "logdet": ol.make_learner("logdet-omd", sampler="full", eta=0.1),
                            "omd": ol.make_learner("omd", regularizer="log-det", gamma=0.1)}, T=150, replicates=2)
    f = res.final("regret")
    assert np.allclose(f["meg"], f["ftrl"], atol=1e-9)
    assert np.allclose(f["logdet"], f["omd"], atol=1e-8)


def test_frobenius_ftrl_lazy_and_greedy_match_plain_loops():
    """Lazy W_t = Π(−η S_{t−1}), greedy W_{t+1} = Π(W_t − η L_t); Π via eigh + sort-based simplex projection."""
    def proj(Y):
        y, V = np.linalg.eigh(Y)
        u = np.sort(y)[::-1]
        css = np.cumsum(u)
        rho = np.nonzero(u + (1 - css) / np.arange(1, len(u) + 1) > 0)[0][-1] + 1
        p = np.maximum(y + (1 - css[rho - 1]) / rho, 0)
        return (V * p) @ V.T
    eta, T, d = 0.2, 60, 3
    env = ol.make_environment("switching", d=d, block=7)
    res = ol.simulate(env, {"lazy": ol.make_learner("ftrl", eta=eta, domain="spectraplex"),
                            "greedy": ol.make_learner("omd", gamma=eta, domain="spectraplex")}, T=T, seed=2)
    env.reset(ol.core.rng.BatchRNG.from_seed(2, "environment", "switching(d=3, block=7)", 1), T)
    S, W, lazy, greedy = np.zeros((d, d)), np.eye(d) / d, 0.0, 0.0
    for t in range(1, T + 1):
        L = env.emit(t, None).dense()[0]
        lazy += np.sum((proj(-eta * S) if t > 1 else np.eye(d) / d) * L)
        greedy += np.sum(W * L)
        W, S = proj(W - eta * L), S + L
    comp = np.linalg.eigvalsh(S)[0]
    f = res.final("regret")
    assert f["lazy"].iloc[0] == pytest.approx(lazy - comp, abs=1e-9)
    assert f["greedy"].iloc[0] == pytest.approx(greedy - comp, abs=1e-9)


def test_spectral_learners_under_their_bounds():
    res = ol.simulate(ol.make_environment("switching", d=4), {
        "frob-lazy": ol.make_learner("ftrl", domain="spectraplex"),
        "frob-greedy": ol.make_learner("omd", domain="spectraplex"),
        "meg-ftrl": ol.make_learner("ftrl", regularizer="entropy"),
        "ftl+": ol.make_learner("ftl+")}, T=500, replicates=2)
    assert not res.bounds().violated.any() and res.bounds().holds.all()


def test_bad_input_errors():
    with pytest.raises(DomainError, match="'entropy' regulariser is not defined on the ball"):
        ol.simulate(ol.make_environment("experts-stochastic", d=3), [ol.make_learner("ftrl", regularizer="entropy",
                                                                                     domain="ball:1")], T=3)
    with pytest.raises(ConfigError, match="eta must be > 0"):
        ol.make_learner("ftrl", eta=0.0)
    with pytest.raises(ConfigError, match="gamma must be > 0"):
        ol.make_learner("omd", gamma=-1)
    with pytest.raises(ConfigError, match=r"weights must be positive"):
        ol.make_learner("ftl", weights=[1.0, -2.0])
    with pytest.raises(ConfigError, match="weights must be > 0"):
        ol.make_learner("omd", weights=0)
    with pytest.raises(DomainError, match="one is spectral"):
        ol.simulate(ol.make_environment("experts-stochastic", d=3), [ol.make_learner("ftl", domain="spectraplex")], T=2)
    with pytest.raises(DomainError, match=r"^learner 'ftl\+' is prescient \(it sees the loss before playing\) but "
                       r"environment 'top-direction\(d=3\)' is adaptive; learners that fit: "):
        ol.simulate(ol.make_environment("top-direction", d=3), [ol.make_learner("ftl+")], T=2)

    class NoOracle:
        shape = (1, 3)
    lrn = ol.make_learner("ftl")
    ctx = ol.Context(d=3, T=2, replicates=1, domain="simplex")
    state = lrn.init(ctx, None)
    with pytest.raises(DomainError, match="needs a leader oracle"):
        lrn.update(state, lrn.act(state, None), ol.Feedback("full", loss=NoOracle()), None)
    omd = ol.make_learner("omd")
    with pytest.raises(DomainError, match="needs a first-order oracle"):
        omd.update(omd.init(ctx, None), ol.Play(np.ones((1, 3)) / 3), ol.Feedback("full", loss=NoOracle()), None)
    assert Simplex(3).n == 3


def test_quadratic_ball_learners_under_bounds_and_comparator_exact():
    """Convex quadratics on the ball: linearised FTRL/OMD under their bounds (every replicate: the bounds are
    pointwise), FTL+ ≤ 0; the comparator equals the exact minimum of the summed quadratic over the ball, computed
    here by the secular equation (tests/ball_reference.py)."""
    env = ol.make_environment("quadratic-ball", d=3)
    res = ol.simulate(env, {"ftrl": ol.make_learner("ftrl"), "omd": ol.make_learner("omd"),
                            "ftl": ol.make_learner("ftl"), "ftl+": ol.make_learner("ftl+")}, T=200, replicates=2)
    b = res.bounds()
    assert b.holds.all() and not b.violated.any()
    assert all(m["pointwise"] for m in res.meta["bounds"])
    assert (res.final("regret")["ftl+"] <= 1e-9).all()
    env.reset(ol.core.rng.BatchRNG.from_seed(0, "environment", "quadratic-ball(d=3)", 2), 200)
    A, bsum = 0, 0
    for t in range(1, 201):
        q = env.emit(t, None)
        A, bsum = A + q.A, bsum + q.b
    comp = res.final("comparator_loss")["ftl"].to_numpy()
    for r in range(2):
        want, x = ball_min(A[r], bsum[r])
        assert comp[r] == pytest.approx(want, abs=1e-9)
