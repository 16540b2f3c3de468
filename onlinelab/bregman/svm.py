"""The soft-margin SVM by its dual: projected gradient on the box,
with the primal–dual gap as a certificate (theory §9).

Primal (notes 2.43): P(w) = Σ_i max(0, 1 − y_i⟨x_i, w⟩) + (α/2)‖w‖².  Writing max(0, z) = max_{λ∈[0,1]} λz
and exchanging min and max (the minimax theorem; the Lagrangian is convex–concave and the box is
compact) gives the dual (notes 2.47–2.48)

    min_{λ ∈ [0,1]^s} D(λ) = (1/2α)‖XᵀYλ‖² − ⟨λ, 1⟩,     ŵ(λ) = (1/α) Σ λ_i y_i x_i,

solved here by projected gradient (ISTA with G the box's indicator) or FISTA, step α/‖XᵀY‖².
For every λ in the box, P(ŵ(λ)) + D(λ) ≥ P(ŵ) − P⋆ ≥ 0: the *gap* certifies the primal point, and it
closes at the solution.  scikit-learn's ``LinearSVC(loss="hinge", C=1/α, fit_intercept=False)``
minimises P/α, so its weights are ŵ.  Data: the breast-cancer set of `onlinelab.losses.datasets`
(standardised, an intercept column, rows of unit norm; ±1 labels).

>>> w, lam, res = svm_dual(alpha=1.0, iters=400, accelerated=True)
>>> gap = res.curve("gap")["mean"]
>>> res.breaches, bool(gap.iloc[-1] < 1e-2 * gap.iloc[0])
([], True)
"""
from __future__ import annotations

import numpy as np

from onlinelab.bregman.composite import prox_gradient
from onlinelab.bregman.loop import single_blas
from onlinelab.core import validation as v
from onlinelab.errors import ConfigError


class SVMDual:
    """The SVM dual D(λ) on [0,1]^s as a composite problem for `onlinelab.bregman.composite.ProxGradient`.

    Parameters
    ----------
    X : array-like
        Samples (s, n).
    y : array-like
        Labels in {−1, +1} (s,).
    alpha : float
        Ridge weight α > 0 (C = 1/α in scikit-learn's convention).
    """

    name = "svm-dual"
    has_G = True

    def __init__(self, X, y, alpha: float = 1.0):
        X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
        if X.ndim != 2 or y.shape != (X.shape[0],):
            raise ConfigError(f"X must be (samples, features) and y (samples,), got {X.shape} and {y.shape}")
        if not np.all(np.isin(y, (-1.0, 1.0))):
            raise ConfigError(f"SVM labels must be −1 or +1, got {sorted(set(np.unique(y).tolist()))[:5]}; map them "
                              "with y = 2*(y == positive) − 1")
        if not np.all(np.isfinite(X)):
            raise ConfigError("X must be finite; remove or impute NaN/inf first")
        self.alpha = v.positive_float("alpha", alpha)
        self.Z = y[:, None] * X
        self.n = X.shape[0]                              # the dual variable has one entry per sample
        self.L = float(np.linalg.norm(self.Z, 2) ** 2 / self.alpha)

    @classmethod
    def breast_cancer(cls, alpha: float = 1.0):
        """The problem on the bundled breast-cancer data (`onlinelab.losses.datasets.load_data`)."""
        from onlinelab.losses.datasets import load_data
        return cls(*load_data("breast-cancer"), alpha=alpha)

    def weights(self, lam):
        """ŵ(λ) = (1/α) Σ λ_i y_i x_i."""
        return lam @ self.Z / self.alpha

    def F(self, lam):
        u = lam @ self.Z
        return 0.5 * np.sum(u * u, axis=1) / self.alpha - lam.sum(axis=1)

    def grad(self, lam):
        return (lam @ self.Z) @ self.Z.T / self.alpha - 1.0

    def G(self, lam):
        return np.zeros(lam.shape[0])

    def prox(self, v_, step):
        return np.clip(v_, 0.0, 1.0)

    def primal(self, w):
        """P(w) = Σ hinge + (α/2)‖w‖² per row of w."""
        return np.maximum(0.0, 1.0 - w @ self.Z.T).sum(axis=1) + 0.5 * self.alpha * np.sum(w * w, axis=1)

    def extra(self, lam) -> dict:
        P = self.primal(self.weights(lam))
        return {"primal": P, "gap": P + self.F(lam)}

    def describe(self) -> dict:
        return {"problem": f"svm-dual {self.Z.shape[0]}x{self.Z.shape[1]} α={self.alpha:g}"}


@single_blas
def svm_dual(X=None, y=None, alpha: float = 1.0, iters: int = 500, *, accelerated: bool = False,
             t_rule: str = "recursive", checkpoints=None, reference: bool = True):
    """Soft-margin SVM by projected gradient (or FISTA) on its dual; returns ``(w, λ, result)``.

    Metrics: ``suboptimality`` D(λ^k) − D⋆ (with its rate curve), ``gap`` P(ŵ(λ^k)) + D(λ^k) (the
    certificate), ``primal`` and ``objective`` D(λ^k).

    Parameters
    ----------
    X : array-like or None, default None
        Samples (s, n); None for the bundled breast-cancer data.
    y : array-like or None, default None
        Labels ±1; None with ``X = None``.
    alpha : float, default 1.0
        Ridge weight α (C = 1/α).
    iters : int, default 500
        Iterations.
    accelerated : bool, default False
        FISTA instead of projected gradient.
    t_rule : {"recursive", "linear"}, default "recursive"
        FISTA's t_k rule.
    checkpoints : int, list of int or None, default None
        Iterations at which metrics are logged.
    reference : bool, default True
        Compute D⋆ (``suboptimality`` and the rate curve need it).
    """
    if (X is None) != (y is None):
        raise ConfigError("pass both X and y, or neither (for the bundled breast-cancer data)")
    problem = SVMDual.breast_cancer(alpha) if X is None else SVMDual(X, y, alpha)
    lam, res = prox_gradient(problem, iters, accelerated=accelerated, t_rule=t_rule, checkpoints=checkpoints,
                             reference=reference)
    res.meta["iteration"]["headline"] = ["suboptimality", "gap", "primal"] if reference else ["gap", "primal"]
    return problem.weights(lam[None])[0], lam, res


