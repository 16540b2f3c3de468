"""ISTA / FISTA / gradient descent and the SVM dual (theory §9) against scikit-learn's Lasso and LinearSVC,
closed-form rates on a diagonal quadratic, and the rate curves at every iteration."""
import numpy as np
import pytest
from sklearn.linear_model import Lasso as SkLasso
from sklearn.svm import LinearSVC

from onlinelab.bregman.composite import HuberLasso, Lasso, LeastSquares, ProxGradient, diabetes, prox_gradient
from onlinelab.bregman.svm import SVMDual, svm_dual
from onlinelab.errors import ConfigError
from onlinelab.geometry.momentum import t_value
from onlinelab.losses.datasets import load_data


def sk_lasso(alpha):
    X, y = diabetes()
    return SkLasso(alpha=alpha / len(y), fit_intercept=False, tol=1e-14, max_iter=10 ** 6).fit(X, y).coef_


@pytest.mark.parametrize("accelerated,rule", [(False, "recursive"), (True, "recursive"), (True, "linear")])
def test_lasso_minimum_equals_sklearn(accelerated, rule):
    """scikit-learn minimises (1/2s)‖Xw − y‖² + α'‖w‖₁: the same minimiser for α' = α/s (theory §9)."""
    prob = Lasso.diabetes(alpha=300.0)
    w, res = prox_gradient(prob, iters=400, accelerated=accelerated, t_rule=rule, checkpoints=range(1, 401))
    ref = sk_lasso(300.0)
    assert np.abs(w - ref).max() < 1e-6 * np.abs(ref).max()
    # E⋆ of the library's reference equals the objective at scikit-learn's minimiser
    E_sk = prob.F(ref[None]) + prob.G(ref[None])
    assert res.meta["iteration"]["method"]["reference"]["converged"]
    assert float(res.final("objective").iloc[0]) == pytest.approx(float(E_sk[0]), rel=1e-12)
    assert res.breaches == [] and res.bounds().holds.all() and not res.bounds().violated.any()


def test_gradient_descent_last_iterate_curves_hold_and_DJ_is_tighter():
    X, y = diabetes()
    prob = LeastSquares(X, y)
    _, res = prox_gradient(prob, iters=200, checkpoints=range(1, 201))
    what = res.bounds().set_index("bound")
    assert list(what.index) == ["prox-grad-1/(2tau k)", "gd-DJ/k"] and not what.violated.any()
    std, dj = res.curve("bound:prox-grad-1/(2tau k)")["mean"], res.curve("bound:gd-DJ/k")["mean"]
    sub = res.curve("suboptimality")["mean"]
    assert np.all(sub <= dj * (1 + 1e-9) + 1e-9) and np.all(dj <= std * (1 + 1e-12))
    # E⋆ independently: the normal equations
    w_ls = np.linalg.lstsq(X, y, rcond=None)[0]
    assert res.meta["iteration"]["method"]["reference"]["converged"]
    assert float(res.final("objective").iloc[0] - res.final("suboptimality").iloc[0]) == pytest.approx(
        float(prob.F(w_ls[None])[0]), rel=1e-10)


class DiagonalQuadratic:
    """F(w) = ½Σ λ_j w_j², λ_j = j/n, started at w⁰_j = λ_j^{-1/2}: λ_j w_j² has a flat spectrum, so
    F(w^k) ≈ Σ_{λ ≲ 1/k} 1/n ∝ 1/k for gradient descent and ∝ 1/k² for FISTA (k ≪ √n)."""

    name, has_G, L = "diagonal", False, 1.0

    def __init__(self, n):
        self.lam, self.n = np.arange(1, n + 1) / n, n

    def F(self, w):
        return 0.5 * np.sum(self.lam * w * w, axis=1)

    def grad(self, w):
        return self.lam * w

    def G(self, w):
        return np.zeros(w.shape[0])

    def prox(self, v, step):
        return v

    def extra(self, w):
        return {}

    def describe(self):
        return {"problem": "diagonal"}


@pytest.mark.parametrize("accelerated,rule,slope", [(False, "recursive", -1.0), (True, "recursive", -2.0),
                                                    (True, "linear", -2.0)])
def test_empirical_slopes(accelerated, rule, slope):
    p = DiagonalQuadratic(10 ** 5)
    _, res = prox_gradient(p, iters=200, accelerated=accelerated, t_rule=rule, w0=1 / np.sqrt(p.lam),
                           reference=False, checkpoints=range(1, 201))
    c = res.curve("objective")          # E⋆ = 0 at ŵ = 0
    sel = c.t >= 20
    fit = np.polyfit(np.log(c.t[sel]), np.log(c["mean"][sel]), 1)[0]
    assert abs(fit - slope) <= 0.15


def test_fista_t_rules():
    for rule in ("recursive", "linear"):
        t = [t_value(1, rule)]
        for k in range(2, 200):
            t.append(t_value(k, rule, t[-1]))
        t = np.array(t)
        k = np.arange(1, 200)
        assert np.all(t >= (k + 1) / 2 - 1e-12) and np.all(t[1:] ** 2 - t[1:] <= t[:-1] ** 2 + 1e-9)
    assert t_value(2, "recursive", 1.0) == pytest.approx((1 + 5 ** 0.5) / 2)      # so the notes' t_k ≥ k is false


def test_huber_lasso_is_within_alpha_n_mu_over_2_of_the_lasso():
    X, y = diabetes()
    alpha = 300.0
    ref = sk_lasso(alpha)
    lasso = Lasso(X, y, alpha)
    E_star = float((lasso.F(ref[None]) + lasso.G(ref[None]))[0])
    dists = []
    for mu in (10.0, 1.0, 0.1):
        m = ProxGradient(HuberLasso(X, y, alpha, mu))
        w = m.ref["w_hat"]
        excess = float((lasso.F(w) + lasso.G(w))[0]) - E_star
        assert -1e-9 <= excess <= alpha * X.shape[1] * mu / 2          # ‖w‖₁ − nμ/2 ≤ H_μ(w) ≤ ‖w‖₁
        dists.append(np.linalg.norm(w[0] - ref))
    assert dists[0] > dists[1] > dists[2]
    _, res = prox_gradient(HuberLasso(X, y, alpha, 1.0), iters=150, checkpoints=range(1, 151))
    assert res.breaches == [] and not res.bounds().violated.any()


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")   # liblinear never meets tol=1e-12
@pytest.mark.parametrize("alpha", [1.0, 0.2])
def test_svm_dual_matches_linearsvc_and_the_gap_closes(alpha):
    A, y = load_data()
    # liblinear's dual coordinate descent, seeded (its order is random); it agrees with our reference to ~5e-9
    sk = LinearSVC(loss="hinge", C=1 / alpha, fit_intercept=False, tol=1e-12, max_iter=10 ** 6,
                   random_state=0).fit(A, y).coef_[0]
    m = ProxGradient(SVMDual(A, y, alpha), tol=1e-10)
    w_hat = SVMDual(A, y, alpha).weights(m.ref["w_hat"])[0]
    assert np.abs(w_hat - sk).max() < 1e-4 * np.abs(sk).max()
    w, lam, res = svm_dual(alpha=alpha, iters=600, accelerated=True, checkpoints=range(1, 601))
    gap = res.curve("gap")["mean"].to_numpy()
    assert np.all(gap >= -1e-9) and gap[-1] < 1e-3 * gap[0]
    # the certificate: P is α-strongly convex, so ‖w − ŵ‖² ≤ 2·gap/α
    assert np.sum((w - sk) ** 2) <= 2 * gap[-1] / alpha + 1e-8
    assert np.all((lam >= 0) & (lam <= 1)) and res.breaches == [] and not res.bounds().violated.any()


def test_plain_projected_gradient_curve_holds_every_iteration():
    _, _, res = svm_dual(alpha=0.5, iters=150, checkpoints=range(1, 151))
    assert res.bounds().holds.all() and res.breaches == []


def test_a_step_above_one_over_L_makes_the_curve_inapplicable():
    prob = Lasso.diabetes(alpha=300.0)
    _, res = prox_gradient(prob, iters=20, step=1.5 / prob.L)
    assert not res.bounds().holds.any() and "τ =" in res.bounds().failed_assumptions.iloc[0]


@pytest.mark.parametrize("call,match", [
    (lambda: SVMDual(np.ones((3, 2)), np.array([0, 1, 1])), "labels must be −1 or \\+1"),
    (lambda: svm_dual(X=np.ones((3, 2))), "pass both X and y"),
    (lambda: Lasso(np.ones((3, 2)), np.ones(4), 1.0), "X must be \\(samples, features\\)"),
    (lambda: Lasso(np.ones((3, 2)), np.ones(3), -1.0), "alpha"),
    (lambda: prox_gradient(Lasso.diabetes(alpha=1.0), w0=np.ones(3)), "w0 must be a finite vector of length 10"),
    (lambda: prox_gradient(Lasso.diabetes(alpha=1.0), accelerated=True, t_rule="nesterov"), "t_rule"),
])
def test_bad_input(call, match):
    with pytest.raises(ConfigError, match=match):
        call()
