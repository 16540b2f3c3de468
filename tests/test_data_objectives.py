"""Convex losses on the breast-cancer data: oracles vs finite differences, conjugates by Fenchel–Young, f⋆ against
a dual certificate and scikit-learn, online learners under their bounds, the game's chain and rate (SPEC §3.3–3.4)."""
import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from sklearn.linear_model import LogisticRegression

import onlinelab as ol
from environments.datasets import LogisticData
from onlinelab.data_losses import DataLoss
from onlinelab.datasets import DataObjective, Margin, Risk, load_data
from onlinelab.domains import Box, Euclidean
from onlinelab.errors import ConfigError, DomainError
from onlinelab.recoveries import data_gd, play_recovery

RNG = np.random.default_rng(11)
LOSSES = ["logistic", "huber"]


def fd_grad(fun, x, h=1e-6):
    """Central differences, one coordinate at a time (error O(h²) ≈ 1e-12 for these smooth-enough losses)."""
    g = np.zeros_like(x)
    for i in range(x.shape[1]):
        e = np.zeros_like(x)
        e[:, i] = h
        g[:, i] = (fun(x + e) - fun(x - e)) / (2 * h)
    return g


@pytest.mark.parametrize("loss", LOSSES)
def test_oracle_gradients_match_finite_differences(loss):
    f = DataObjective(loss, lam=0.05)
    x = RNG.uniform(-1, 1, size=(3, f.n))
    assert np.abs(f.grad(x) - fd_grad(f.value, x)).max() < 1e-7
    ell = DataLoss(f.risk, RNG.integers(0, f.risk.N, size=(3, 5)), lam=0.05, domain=Box(f.n, -2, 2))
    assert np.abs(ell.gradient(x) - fd_grad(ell.mixed_value, x)).max() < 1e-7
    assert np.all(np.linalg.norm(ell.gradient(x), axis=1) <= np.sqrt(ell.statistics()["fro_sq"]))


@pytest.mark.parametrize("loss", LOSSES)
def test_scalar_conjugate_fenchel_young(loss):
    """φ*(φ'(z)) = zφ'(z) − φ(z) (equality at the gradient), and φ*(u) = sup_z uz − φ(z) by a scalar solver."""
    m = Margin(loss, delta=0.7)
    z = np.linspace(-6, 6, 41)
    assert np.abs(m.conjugate(m.dphi(z)) - (z * m.dphi(z) - m.phi(z))).max() < 1e-12
    lo, hi = (-1.0, 0.0) if loss == "logistic" else (-0.7, 0.7)
    for u in np.linspace(lo, hi, 9)[1:-1]:
        best = -minimize_scalar(lambda s: m.phi(s) - u * s, bounds=(-40, 40), method="bounded",
                                options={"xatol": 1e-12}).fun
        assert m.conjugate(u) == pytest.approx(best, abs=1e-9)
    assert np.isinf(m.conjugate(hi + 0.1))


@pytest.mark.parametrize("loss", LOSSES)
def test_objective_conjugate_over_the_box(loss):
    """At y = ∇f(x), x ∈ K, the inner solve reaches the Fenchel–Young value ⟨x, y⟩ − f(x); elsewhere it is a sup."""
    f = DataObjective(loss, lam=0.05, domain="box:-2:2")
    x = RNG.uniform(-1.5, 1.5, size=(2, f.n))
    y = f.grad(x)
    assert np.abs(f._conjugate(y) - (np.einsum("ri,ri->r", x, y) - f.value(x))).max() < 1e-9
    ybar = y.mean(axis=0, keepdims=True) + 0.01
    probes = RNG.uniform(-2, 2, size=(200, f.n))
    assert f.conjugate(ybar)[0] >= np.max(probes @ ybar[0] - f.value(probes)) - 1e-12


@pytest.mark.parametrize("loss", LOSSES)
def test_exact_minimum_matches_dual_certificate(loss):
    """x⋆ is interior, so f⋆ = max_u dual(u) (strong duality), attained at u_i = φ'(z_i⋆); any feasible u is below."""
    f = DataObjective(loss, lam=0.02)
    fstar, xstar = f.minimum()
    assert np.abs(xstar).max() < 2.0 - 1e-6
    c, rho = f._c, f._rho
    ustar = f.risk.margin.dphi(xstar[None] @ f.risk.At.T - f.risk.o)
    assert f.risk.dual_value(ustar, c, rho)[0] == pytest.approx(fstar, abs=1e-10)
    u = np.clip(ustar + 0.05 * RNG.normal(size=ustar.shape), *((-1, 0) if loss == "logistic" else (-1, 1)))
    assert f.risk.dual_value(u, c, rho)[0] <= fstar + 1e-12


def test_logistic_minimum_matches_scikit_learn():
    """sklearn minimises C Σ log(1 + e^{−y a·w}) + ½‖w‖²: the same problem with C = 1/(λN), no intercept."""
    lam = 0.02
    f = DataObjective("logistic", lam=lam)
    A, y = load_data()
    clf = LogisticRegression(C=1 / (lam * len(y)), fit_intercept=False, tol=1e-12, max_iter=10000).fit(A, y)
    assert f.value(clf.coef_)[0] == pytest.approx(f.minimum()[0], abs=1e-10)


@pytest.mark.parametrize("env", ["logistic-data", "huber-data"])
def test_online_learners_under_their_bounds_and_comparator_exact(env):
    T, R = 120, 2
    e = ol.make_environment(env, batch=4)
    res = ol.simulate(e, {"ftrl": ol.make_learner("ftrl"), "omd": ol.make_learner("omd"),
                          "ftl+": ol.make_learner("ftl+")}, T=T, replicates=R, seed=3, checkpoints=[10, T])
    b = res.bounds()
    assert b.holds.all() and not b.violated.any() and {"ftrl", "omd"} <= set(b.learner)
    assert (res.final("regret")["ftl+"] <= 1e-9).all()
    # the comparator: Σ_t ℓ_t = Σ_i c_i φ_i + (Tλ/2)‖x‖²; recompute the weights and minimise with a bound-free solver
    e.reset(ol.rng.BatchRNG.from_seed(3, "environment", env + "(batch=4)", R), T)
    c = sum(e.emit(t, None).c for t in range(1, T + 1))
    comp = res.final("comparator_loss")["ftrl"].to_numpy()
    risk = Risk(Margin(e.loss_name), *load_data())
    for r in range(R):
        if env == "logistic-data":
            A, y = load_data()
            w = LogisticRegression(C=1 / (T * e.lam), fit_intercept=False, tol=1e-12, max_iter=10000).fit(
                A, y, sample_weight=c[r]).coef_
        else:
            w = risk.argmin(c[r:r + 1], np.array([T * e.lam]), Euclidean(risk.n))
        assert np.abs(w).max() < e.radius
        assert comp[r] == pytest.approx(risk.value(w, c[r:r + 1], np.array([T * e.lam]))[0], abs=1e-7)


@pytest.mark.parametrize("loss,T", [("logistic", 1000), ("huber", 300)])
def test_game_gd_on_data_chain_and_rate_bound(loss, T):
    res = play_recovery(data_gd(loss, T=T), T=T, checkpoints=[10, 30, 100, T])
    assert res.meta["game"]["breaches"] == []
    m = res.metrics.pivot_table(index="t", columns="metric", values="value")
    assert (m["suboptimality"] <= m["gap"] + 1e-9).all() and (m["gap"] <= m["regret"] + 1e-9).all()
    assert (m["suboptimality"] >= -1e-12).all()
    assert (m["suboptimality"] <= m["bound:gd-RG/sqrt(T)"]).all()


def test_bad_input_is_a_clear_error():
    with pytest.raises(DomainError, match="closed form only for linear losses, got DataLoss"):
        ol.simulate(ol.make_environment("logistic-data"), [ol.make_learner("ftrl+")], T=2)
    with pytest.raises(DomainError, match="offers no gradient oracle"):
        f = DataObjective("logistic")
        ol.game.play_game(f, ol.make_learner("omd", domain=f.domain.spec), ol.make_learner("omd"), T=2)

    class ValueOnly(DataLoss):
        gradient = None                                   # a loss that offers values but no first-order oracle

    class Env(LogisticData):
        def emit(self, t, history):
            loss = super().emit(t, history)
            return ValueOnly(loss.risk, loss.idx, loss.lam, loss.domain)
    with pytest.raises(DomainError, match="omd needs a first-order oracle but the loss ValueOnly has no gradient"):
        ol.simulate(Env(), [ol.make_learner("omd")], T=2)
    with pytest.raises(ConfigError, match="loss must be one of"):
        DataObjective("hinge")
    with pytest.raises(ConfigError, match="lam must be ≥ 0"):
        ol.make_environment("huber-data", lam=-1.0)
    with pytest.raises(DomainError, match="minimised over ℝⁿ or a box"):
        DataObjective("logistic", domain="ball:1").minimum()
