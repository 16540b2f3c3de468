"""Convex losses on the breast-cancer data: oracles vs finite differences, conjugates by Fenchel–Young, f⋆ against
a dual certificate and scikit-learn, online learners under their bounds, the game's chain and rate (theory §3.3–3.4)."""
import numpy as np
import pytest
from scipy.optimize import minimize, minimize_scalar
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

import onlinelab as ol
from onlinelab.environments.datasets import LogisticData
from onlinelab.errors import ConfigError, DomainError
from onlinelab.games.game import play_game
from onlinelab.games.recoveries import data_gd, play_recovery
from onlinelab.geometry.domains import Box
from onlinelab.losses.data import DataLoss
from onlinelab.losses.datasets import DataObjective, Margin, Risk, load_data

LOSSES = ["logistic", "huber"]
H = 1e-6   # finite-difference step, see fd_grad


def ref_risk(loss, c, rho, delta=1.0, s=None):
    """x ↦ (F(x), ∇F(x)) for F(x) = Σ_i c_i φ(z_i(x)) + (ρ/2)‖x‖² − ⟨s, x⟩, written here from the definitions
    (logistic φ(z) = log(1 + e^{−z}), z_i = y_i a_i·x; Huber φ(r) = r²/2 or δ(|r| − δ/2), r_i = a_i·x − y_i)."""
    A, y = load_data()
    s = np.zeros(A.shape[1]) if s is None else s

    def fg(x):
        if loss == "logistic":
            z = y * (A @ x)
            val, dz = np.logaddexp(0.0, -z), -expit(-z) * y
        else:
            r = A @ x - y
            val = np.where(np.abs(r) <= delta, 0.5 * r * r, delta * (np.abs(r) - 0.5 * delta))
            dz = np.clip(r, -delta, delta)
        return c @ val + 0.5 * rho * x @ x - s @ x, A.T @ (c * dz) + rho * x - s
    return fg


def ref_argmin(fg, n, bounds=None):
    """L-BFGS-B on the test's own objective, projected-gradient tolerance 1e-12."""
    res = minimize(fg, np.zeros(n), jac=True, method="L-BFGS-B", bounds=bounds,
                   options={"ftol": 0.0, "gtol": 1e-12, "maxiter": 20000, "maxcor": 30})
    return res.x


def no_huber_kink_in_stencil(A, o, x, delta=1.0):
    """True when no residual a_i·x − o_i is within H of ±δ: every stencil point x ± H e_j (|a_ij| ≤ 1) then lies
    on one quadratic piece of each φ, so the central difference has no truncation error at all."""
    return np.min(np.abs(np.abs(x @ A.T - o) - delta)) > H


def fd_grad(fun, x, h=H):
    """Central differences, one coordinate at a time.  Error ≤ h²/6·max|f⁽³⁾| + ε·max|f|/h: with h = 1e-6 the
    rounding term is ≈ 2e-10·max(1, |f|) and the truncation term ≤ 1e-12 (logistic: |φ⁽³⁾| ≤ 0.1 on unit rows;
    Huber: zero when no kink lies in the stencil, checked by the caller), so 1e-9·max(1, |f|) is a safe tolerance
    (a larger h would cross Huber kinks, a smaller one would let rounding dominate)."""
    g = np.zeros_like(x)
    for i in range(x.shape[1]):
        e = np.zeros_like(x)
        e[:, i] = h
        g[:, i] = (fun(x + e) - fun(x - e)) / (2 * h)
    return g


@pytest.mark.parametrize("loss", LOSSES)
def test_oracle_gradients_match_finite_differences(loss):
    rng = np.random.default_rng(11)
    f = DataObjective(loss, lam=0.05)
    x = rng.uniform(-1, 1, size=(3, f.n))
    if loss == "huber":
        assert no_huber_kink_in_stencil(f.risk.At, f.risk.o, x)
    scale = max(1.0, np.abs(f.value(x)).max())
    assert np.abs(f.grad(x) - fd_grad(f.value, x)).max() < 1e-9 * scale
    ell = DataLoss(f.risk, rng.integers(0, f.risk.N, size=(3, 5)), lam=0.05, domain=Box(f.n, -2, 2))
    scale = max(1.0, np.abs(ell.mixed_value(x)).max())
    assert np.abs(ell.gradient(x) - fd_grad(ell.mixed_value, x)).max() < 1e-9 * scale
    assert np.all(np.linalg.norm(ell.gradient(x), axis=1) <= np.sqrt(ell.statistics()["fro_sq"]))


@pytest.mark.parametrize("loss", LOSSES)
def test_data_loss_is_lambda_strongly_convex_as_its_curvature_statistic_says(loss):
    """FTL's bound reads λ_t from the 'curvature' statistic: it is λ, and ℓ((x+z)/2) ≤ (ℓ(x) + ℓ(z))/2 − λ‖x − z‖²/8
    (midpoint form of λ-strong convexity) on random pairs of the box."""
    rng = np.random.default_rng(12)
    f = DataObjective(loss, lam=0.05)
    ell = DataLoss(f.risk, rng.integers(0, f.risk.N, size=(200, 5)), lam=0.05, domain=Box(f.n, -2, 2))
    assert np.array_equal(ell.statistics()["curvature"], np.full(200, 0.05))
    x, z = rng.uniform(-2, 2, size=(2, 200, f.n))
    mid = ell.mixed_value(0.5 * (x + z))
    assert np.all(mid <= 0.5 * (ell.mixed_value(x) + ell.mixed_value(z)) - 0.05 * np.sum((x - z) ** 2, axis=1) / 8
                  + 1e-12 * np.abs(mid).max())


@pytest.mark.parametrize("loss", LOSSES)
def test_scalar_conjugate_fenchel_young(loss):
    """φ*(φ'(z)) = zφ'(z) − φ(z) (equality at the gradient), and φ*(u) = sup_z uz − φ(z) by a scalar solver."""
    m = Margin(loss, delta=0.7)
    z = np.linspace(-6, 6, 41)
    assert np.abs(m.conjugate(m.dphi(z)) - (z * m.dphi(z) - m.phi(z))).max() < 1e-12
    lo, hi = (-1.0, 0.0) if loss == "logistic" else (-0.7, 0.7)
    for u in np.linspace(lo, hi, 9)[1:-1]:
        best = -minimize_scalar(lambda s, u=u: m.phi(s) - u * s, bounds=(-40, 40), method="bounded",
                                options={"xatol": 1e-12}).fun
        assert m.conjugate(u) == pytest.approx(best, abs=1e-9)
    assert np.isinf(m.conjugate(hi + 0.1))


@pytest.mark.parametrize("loss", LOSSES)
def test_objective_conjugate_over_the_box(loss):
    """At y = ∇f(x), x ∈ K, the inner solve reaches the Fenchel–Young value ⟨x, y⟩ − f(x); at another ȳ it equals
    sup_{x∈K} ⟨x, ȳ⟩ − f(x) computed here by L-BFGS-B with bounds on the test's own objective.  Both solves stop at a
    projected gradient ≤ 1e-12 of a 0.05-strongly convex function, so each is within ~‖g‖²/(2λ) ≈ 1e-23 of the sup
    plus rounding: 1e-8 is comfortable, and it is checked both ways (equality)."""
    rng = np.random.default_rng(13)
    f = DataObjective(loss, lam=0.05, domain="box:-2:2")
    x = rng.uniform(-1.5, 1.5, size=(2, f.n))
    y = f.grad(x)
    assert np.abs(f._conjugate(y) - (np.einsum("ri,ri->r", x, y) - f.value(x))).max() < 1e-9
    ybar = y.mean(axis=0) + 0.1
    fg = ref_risk(loss, np.full(f.risk.N, 1.0 / f.risk.N), 0.05, s=ybar)
    xs = ref_argmin(fg, f.n, bounds=[(-2.0, 2.0)] * f.n)
    assert np.abs(xs).max() == 2.0                                  # the box is active at this ȳ
    assert f.conjugate(ybar[None])[0] == pytest.approx(-fg(xs)[0], abs=1e-8)


@pytest.mark.parametrize("loss", LOSSES)
def test_exact_minimum_matches_dual_certificate(loss):
    """x⋆ is interior, so f⋆ = max_u dual(u) (strong duality), attained at u_i = φ'(z_i⋆); any feasible u is below."""
    f = DataObjective(loss, lam=0.02)
    fstar, xstar = f.minimum()
    assert np.abs(xstar).max() < 2.0 - 1e-6
    c, rho = f._c, f._rho
    ustar = f.risk.margin.dphi(xstar[None] @ f.risk.At.T - f.risk.o)
    assert f.risk.dual_value(ustar, c, rho)[0] == pytest.approx(fstar, abs=1e-10)
    lo, hi = (-1, 0) if loss == "logistic" else (-1, 1)
    u = np.clip(ustar + 0.05 * np.random.default_rng(14).normal(size=ustar.shape), lo, hi)
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
    e.reset(ol.core.rng.BatchRNG.from_seed(3, "environment", env + "(batch=4)", R), T)
    c = sum(e.emit(t, None).c for t in range(1, T + 1))
    comp = res.final("comparator_loss")["ftrl"].to_numpy()
    risk = Risk(Margin(e.loss_name), *load_data())
    for r in range(R):
        if env == "logistic-data":
            A, y = load_data()
            w = LogisticRegression(C=1 / (T * e.lam), fit_intercept=False, tol=1e-12, max_iter=10000).fit(
                A, y, sample_weight=c[r]).coef_
            assert np.abs(w).max() < e.radius
            assert comp[r] == pytest.approx(risk.value(w, c[r:r + 1], np.array([T * e.lam]))[0], abs=1e-7)
        else:   # the weighted Huber-margin risk written in the test, minimised by L-BFGS-B (gtol 1e-12) over ℝⁿ
            fg = ref_risk("huber", c[r], T * e.lam)
            w = ref_argmin(fg, risk.n)
            assert np.abs(w).max() < e.radius                      # interior: the box minimum is the ℝⁿ one
            assert comp[r] == pytest.approx(fg(w)[0], abs=1e-8)


@pytest.mark.parametrize("loss", LOSSES)
def test_data_gd_assumptions_R_and_G_hold(loss):
    """The data-gd curve assumes ‖x₁ − x⋆‖ ≤ R (x₁ = 0) and ‖∇f‖₂ ≤ G on K = [−2, 2]ⁿ: x⋆ from the test's own
    L-BFGS-B solve (0.01-strongly convex, gtol 1e-12 ⇒ ‖x − x⋆‖ ≤ 1e-10), gradients from the test's own formula at
    random points of the box, random corners and the corners aligned with each sample (where ‖∇f‖ is largest)."""
    rec = data_gd(loss, T=100)
    f, (R, G) = rec.f, (float(np.linalg.norm(rec.f.minimum()[1])), rec.f.G)
    fg = ref_risk(loss, np.full(f.risk.N, 1.0 / f.risk.N), 0.01)
    xstar = ref_argmin(fg, f.n, bounds=[(-2.0, 2.0)] * f.n)
    assert np.linalg.norm(xstar) == pytest.approx(R, abs=1e-8)
    rng = np.random.default_rng(15)
    A, _ = load_data()
    pts = np.concatenate([rng.uniform(-2, 2, size=(300, f.n)), 2.0 * rng.choice([-1.0, 1.0], size=(300, f.n)),
                          2.0 * np.sign(A[:100]), -2.0 * np.sign(A[:100])])
    gmax = max(np.linalg.norm(fg(p)[1]) for p in pts)
    assert gmax <= G


@pytest.mark.parametrize("loss,T", [("logistic", 1000), ("huber", 300)])
def test_game_gd_on_data_chain_and_rate_bound(loss, T):
    res = play_recovery(data_gd(loss, T=T), T=T, checkpoints=[10, 30, 100, T])
    assert res.meta["game"]["breaches"] == []
    m = res.metrics.pivot_table(index="t", columns="metric", values="value")
    assert (m["suboptimality"] <= m["gap"] + 1e-9).all() and (m["gap"] <= m["regret"] + 1e-9).all()
    assert (m["suboptimality"] >= -1e-12).all()
    assert (m["suboptimality"] <= m["bound:gd-RG/sqrt(T)"]).all()


def test_bad_input_is_a_clear_error():
    with pytest.raises(DomainError, match=r"^learner 'ftrl\+' needs the linear oracle of its losses but environment "
                                          r"'logistic-data' emits losses without it \(loss_offers = \['leader'\]\); "
                                          r"learners that fit: "):
        ol.simulate(ol.make_environment("logistic-data"), [ol.make_learner("ftrl+")], T=2)
    with pytest.raises(DomainError, match="offers no gradient oracle"):
        f = DataObjective("logistic")
        play_game(f, ol.make_learner("omd", domain=f.domain.spec), ol.make_learner("omd"), T=2)

    class ValueOnly(DataLoss):
        gradient = None                                   # a loss that offers values but no first-order oracle

    class Env(LogisticData):
        def emit(self, t, history):
            loss = super().emit(t, history)
            return ValueOnly(loss.risk, loss.idx, loss.lam, loss.domain)
    with pytest.raises(DomainError, match="omd needs a first-order oracle but the loss ValueOnly has no gradient"):
        ol.simulate(Env(), [ol.make_learner("omd")], T=2)
    with pytest.raises(ConfigError, match="loss must be one of"):
        DataObjective("exponential")          # (hinge is a loss now: the SVM of theory §9)
    with pytest.raises(ConfigError, match="lam must be ≥ 0"):
        ol.make_environment("huber-data", lam=-1.0)
    with pytest.raises(DomainError, match="minimised over ℝⁿ or a box"):
        DataObjective("logistic", domain="ball:1").minimum()
