"""Composite first-order methods: gradient descent, proximal gradient (ISTA) and FISTA,
with last-iterate rate curves (theory §9).

E = F + G with F convex and L-smooth and G convex with a cheap prox; iterates are batched (R, n).

* ISTA  w^{k+1} = prox_{τG}(w^k − τ∇F(w^k)), τ ≤ 1/L: E(w^k) − E⋆ ≤ ‖w⁰ − ŵ‖²/(2τk) [std];
  with G = 0 (gradient descent) the notes' Theorem 2.3 curve D_J(ŵ, w⁰)/k, J = ‖·‖²/(2τ) − E, is no
  larger and is drawn too.
* FISTA (t_k rule ``"recursive"`` or ``"linear"``): E(w^k) − E⋆ ≤ 2‖w⁰ − ŵ‖²/(τ(k+1)²) [std].

Problems (`Lasso`, `LeastSquares`, `HuberLasso`, and the SVM dual of
`onlinelab.bregman.svm`) give F, ∇F, L, G and prox_{τG}.  E⋆ and ŵ come from a reference
solve (FISTA with restart until the step ‖w − prox_{τG}(w − τ∇F(w))‖ ≤ tol·max(1, ‖w⁰‖…)).
The LASSO data are scikit-learn's bundled diabetes set (442 × 10, never downloaded), target centred.

>>> w, res = prox_gradient(Lasso.diabetes(alpha=100.0), iters=300, accelerated=True)
>>> res.breaches, int(res.final("nnz").iloc[0]), bool(res.final("suboptimality").iloc[0] < 1e-6)
([], 5, True)
"""
from __future__ import annotations

from functools import cache

import numpy as np

from onlinelab.bounds.base import Bound
from onlinelab.bregman.loop import iterate, single_blas
from onlinelab.bregman.prox import huber, soft_threshold
from onlinelab.core import validation as v
from onlinelab.errors import ConfigError
from onlinelab.geometry.momentum import Momentum, restarted_fista, t_value


@cache
def diabetes() -> tuple[np.ndarray, np.ndarray]:
    """(X, y): scikit-learn's bundled diabetes features (442 × 10, already centred and scaled) and the centred
    target."""
    from sklearn.datasets import load_diabetes
    X, y = load_diabetes(return_X_y=True)
    y = y - y.mean()
    X.flags.writeable = y.flags.writeable = False
    return X, y


def _design(X, y):
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ConfigError(f"X must be (samples, features) and y (samples,), got {X.shape} and {y.shape}")
    if not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
        raise ConfigError("X and y must be finite; remove or impute NaN/inf first")
    return X, y


class LeastSquares:
    """F(w) = ½‖Xw − y‖², G = 0: plain gradient descent's problem (theory §9, notes Theorem 2.3).

    Parameters
    ----------
    X : array-like
        Design (samples, features).
    y : array-like
        Targets (samples,).
    """

    name = "least-squares"
    has_G = False

    def __init__(self, X, y):
        self.X, self.y = _design(X, y)
        self.n = self.X.shape[1]
        self.L = float(np.linalg.norm(self.X, 2) ** 2)

    @classmethod
    def diabetes(cls, **kw):
        """The problem on scikit-learn's diabetes data (keyword arguments as the class takes)."""
        return cls(*diabetes(), **kw)

    def F(self, w):
        r = w @ self.X.T - self.y
        return 0.5 * np.sum(r * r, axis=1)

    def grad(self, w):
        return (w @ self.X.T - self.y) @ self.X

    def G(self, w):
        return np.zeros(w.shape[0])

    def prox(self, v, step):
        return v

    def extra(self, w) -> dict:
        return {}

    def describe(self) -> dict:
        return {"problem": f"{self.name} {self.X.shape[0]}x{self.n}"}


class Lasso(LeastSquares):
    """The LASSO (notes 2.20): F = ½‖Xw − y‖², G = α‖w‖₁, prox = soft-thresholding at τα.

    scikit-learn's ``Lasso(alpha=α')`` minimises (1/2s)‖Xw − y‖² + α'‖w‖₁: the same minimiser for α' = α/s.

    Parameters
    ----------
    X : array-like
        Design (samples, features).
    y : array-like
        Targets (samples,).
    alpha : float
        ℓ₁ weight α > 0.
    """

    name = "lasso"
    has_G = True

    def __init__(self, X, y, alpha: float):
        super().__init__(X, y)
        self.alpha = v.positive_float("alpha", alpha)

    def G(self, w):
        return self.alpha * np.abs(w).sum(axis=1)

    def prox(self, v, step):
        return soft_threshold(v, step * self.alpha)

    def extra(self, w) -> dict:
        return {"nnz": np.count_nonzero(w, axis=1)}

    def describe(self) -> dict:
        return {"problem": f"lasso {self.X.shape[0]}x{self.n} α={self.alpha:g}"}


class HuberLasso(LeastSquares):
    """The Huber-smoothed LASSO (notes 2.27): F = ½‖Xw − y‖² + α Σ|w_j|_μ, G = 0, plain gradient descent.

    |z|_μ = z²/(2μ) for |z| ≤ μ, |z| − μ/2 beyond, so ‖w‖₁ − nμ/2 ≤ Σ|w_j|_μ ≤ ‖w‖₁: the smoothed minimiser
    ŵ_μ is within αnμ/2 of the LASSO optimum in the LASSO objective (``lasso_objective``), and L = ‖X‖² + α/μ.

    Parameters
    ----------
    X : array-like
        Design (samples, features).
    y : array-like
        Targets (samples,).
    alpha : float
        ℓ₁ weight α > 0.
    mu : float
        Smoothing μ > 0.
    """

    name = "huber-lasso"

    def __init__(self, X, y, alpha: float, mu: float):
        super().__init__(X, y)
        self.alpha, self.mu = v.positive_float("alpha", alpha), v.positive_float("mu", mu)
        self.L += self.alpha / self.mu

    def F(self, w):
        return super().F(w) + self.alpha * huber(w, self.mu).sum(axis=1) / self.mu

    def grad(self, w):
        return super().grad(w) + self.alpha * np.clip(w / self.mu, -1.0, 1.0)

    def extra(self, w) -> dict:
        return {"lasso_objective": super().F(w) + self.alpha * np.abs(w).sum(axis=1)}

    def describe(self) -> dict:
        return {"problem": f"huber-lasso {self.X.shape[0]}x{self.n} α={self.alpha:g} μ={self.mu:g}"}


class ProxGradient:
    """ISTA / gradient descent (``accelerated=False``) or FISTA on a composite problem, for `iterate`.

    Parameters
    ----------
    problem : object
        F, ∇F, L, G, prox (e.g. `Lasso`).
    step : float or None, default None
        τ; None for 1/L.
    accelerated : bool, default False
        FISTA instead of ISTA.
    t_rule : {"recursive", "linear"}, default "recursive"
        FISTA's t_k rule.
    w0 : array-like or None, default None
        Start (n,) or (R, n); None for zeros.
    reference : bool, default True
        Solve for E⋆ and ŵ first (the suboptimality metric and the curves need them).
    tol : float, default 1e-12
        The reference stops when the step is below tol·max(1, ‖∇F(w⁰)‖)·τ.
    """

    headline = ("suboptimality", "objective")

    def __init__(self, problem, step=None, accelerated: bool = False, t_rule: str = "recursive", w0=None,
                 reference: bool = True, tol: float = 1e-12):
        self.problem = problem
        self.tau = 1.0 / problem.L if step is None else v.positive_float("step", step)
        self.accelerated = v.boolean("accelerated", accelerated)
        self.t_rule = Momentum(t_rule).rule
        w0 = np.zeros(problem.n) if w0 is None else np.asarray(w0, dtype=float)
        self.w0 = np.atleast_2d(w0)
        if self.w0.ndim != 2 or self.w0.shape[1] != problem.n or not np.all(np.isfinite(self.w0)):
            raise ConfigError(f"w0 must be a finite vector of length {problem.n} (or (R, {problem.n})), got shape "
                              f"{np.shape(w0)}")
        self.replicates = self.w0.shape[0]
        kind = "fista" if self.accelerated else ("ista" if problem.has_G else "gd")
        self.name = f"{kind}-{self.t_rule}" if self.accelerated else kind
        self.tol = v.positive_float("tol", tol)
        self.ref = self.solve_reference() if reference else None

    def energy(self, w):
        return self.problem.F(w) + self.problem.G(w)

    def mapping(self, y):
        return self.problem.prox(y - self.tau * self.problem.grad(y), self.tau)

    def solve_reference(self, max_iter: int = 200000) -> dict:
        """ŵ and E⋆ by restarted FISTA (see `onlinelab.geometry.momentum.restarted_fista`)."""
        g0 = np.sqrt(np.sum(self.problem.grad(self.w0) ** 2, axis=1))
        target = self.tol * np.maximum(1.0, g0) * self.tau
        tau = self.tau
        self.tau = min(tau, 1.0 / self.problem.L)                   # the reference always takes a safe step
        w, norm, k = restarted_fista(self.mapping, self.w0, target, max_iter)
        self.tau = tau
        return {"w_hat": w, "E_star": self.energy(w), "iterations": k, "step_norm": norm.tolist(),
                "converged": bool(np.all(norm <= target)), "target": target.tolist(), "max_iter": max_iter}

    def init(self):
        return (self.w0.copy(), self.w0.copy(), 0, 1.0)       # (w^k, y^k, k, t_{k+1})

    def step(self, st, k, data=None):
        w, y, kk, t = st
        wn = self.mapping(y)
        if not self.accelerated:
            return (wn, wn, kk + 1, t)
        t_next = t_value(kk + 2, self.t_rule, t)
        return (wn, wn + (t - 1.0) / t_next * (wn - w), kk + 1, t_next)

    def metrics(self, st) -> dict:
        w = st[0]
        E = self.energy(w)
        out = {"objective": E, **self.problem.extra(w)}
        if self.ref is not None:
            out["suboptimality"] = E - self.ref["E_star"]
        return out

    def rates(self) -> list:
        if self.ref is None:
            return []
        w0, wh, tau = self.w0, self.ref["w_hat"], self.tau
        D2 = np.sum((w0 - wh) ** 2, axis=1)[:, None]
        ok = {f"τ = {tau:.4g} ≤ 1/L = {1 / self.problem.L:.4g}": tau <= 1 / self.problem.L * (1 + 1e-12),
              "E⋆, ŵ from a converged reference solve": self.ref["converged"]}
        if self.accelerated:
            return [("suboptimality", Bound("fista-2/(tau(k+1)^2)", "theory §9 FISTA [std]", "2‖w⁰ − ŵ‖²/(τ(k+1)²)", ok,
                                            lambda s: 2 * D2 / (tau * (s.t[None, :] + 1.0) ** 2), pointwise=True))]
        out = [("suboptimality", Bound("prox-grad-1/(2tau k)", "theory §9 ISTA / GD [std]", "‖w⁰ − ŵ‖²/(2τk)", ok,
                                       lambda s: D2 / (2 * tau * s.t[None, :]), pointwise=True))]
        if not self.problem.has_G:                 # notes Thm 2.3: D_J(ŵ, w⁰)/k with J = ‖·‖²/(2τ) − E
            p = self.problem
            DE = p.F(wh) - p.F(w0) - np.sum(p.grad(w0) * (wh - w0), axis=1)
            DJ = (D2[:, 0] / (2 * tau) - DE)[:, None]
            out.append(("suboptimality", Bound("gd-DJ/k", "theory §9 notes Theorem 2.3 [std]", "D_J(ŵ, w⁰)/k", ok,
                                               lambda s: DJ / s.t[None, :], pointwise=True)))
        return out

    def describe(self) -> dict:
        return {"name": self.name, **self.problem.describe(),
                "params": {"step": self.tau, "accelerated": self.accelerated, "t_rule": self.t_rule},
                "reference": None if self.ref is None else {k: self.ref[k] for k in REF_KEYS}}


REF_KEYS = ("iterations", "converged", "step_norm", "target", "max_iter")   # what describe() reports of the reference


@single_blas
def prox_gradient(problem, iters: int = 500, *, accelerated: bool = False, t_rule: str = "recursive", step=None,
                  w0=None, checkpoints=None, reference: bool = True, tol: float = 1e-12):
    """Run ISTA/GD or FISTA on ``problem`` for ``iters`` iterations; returns ``(w, result)`` (w: (n,) or (R, n)).

    Metrics: ``suboptimality`` E(w^k) − E⋆, ``objective`` and the problem's own (``nnz`` for the LASSO,
    ``lasso_objective`` for the Huber-smoothed one, ``gap`` for the SVM dual); rate curves as in the module
    docstring, checked at every checkpoint.

    Parameters
    ----------
    problem : object
        A problem of this module (or `onlinelab.bregman.svm.SVMDual`).
    iters : int, default 500
        Iterations.
    accelerated : bool, default False
        FISTA instead of ISTA / gradient descent.
    t_rule : {"recursive", "linear"}, default "recursive"
        FISTA's t_k rule.
    step : float or None, default None
        τ; None for 1/L.
    w0 : array-like or None, default None
        Start; None for zeros.
    checkpoints : int, list of int or None, default None
        Iterations at which metrics are logged.
    reference : bool, default True
        Compute E⋆ and ŵ (needed for ``suboptimality`` and the curves).
    tol : float, default 1e-12
        Relative tolerance of the reference solve.
    """
    method = ProxGradient(problem, step, accelerated, t_rule, w0, reference, tol)
    res = iterate(method, iters, checkpoints=checkpoints)
    w = res.final_state[0]
    return (w[0] if w0 is None or np.ndim(w0) == 1 else w), res
