"""Convex objectives on a real data set, with a first-order oracle and conjugates
(theory §3.3–3.4, docs/theory/03-oco-fenchel.md).

The data ship with scikit-learn (``load_breast_cancer``: 569 tumours, 30 features; never
downloaded).  `load_data` standardises the features, appends an intercept and scales
every row to unit norm, so each sample's gradient is bounded by the scalar loss's slope.

Every objective here is a weighted *empirical risk*
``F(x) = Σ_i c_i φ(ã_i·x − o_i) + (ρ/2)‖x‖²`` with a scalar convex loss φ (`Margin`):

* ``logistic`` φ(z) = log(1 + e^{−z}) on margins z = y_i a_i·x (ã_i = y_i a_i, o_i = 0), |φ'| ≤ 1, φ'' ≤ ¼;
  φ*(u) = (−u)log(−u) + (1+u)log(1+u) on [−1, 0];
* ``huber``    φ(r) = r²/2 for |r| ≤ δ, δ(|r| − δ/2) beyond, on residuals r = a_i·x − y_i; |φ'| ≤ δ, φ'' ≤ 1;
  φ*(u) = u²/2 on [−δ, δ];
* ``hinge``    φ(z) = max(0, 1 − z) on margins (the soft-margin SVM, theory §9), subgradient −1 for z < 1,
  |φ'| ≤ 1, not smooth; φ*(u) = u on [−1, 0].  Its argmin is solved through the dual box-QP
  (`onlinelab.losses.hinge.hinge_argmin`), since L-BFGS-B is not meant for kinks.

`Risk` evaluates F, ∇F and argmin_K F − ⟨s, ·⟩ (scipy L-BFGS-B, bounds for a box, gradient
tolerance 1e-12) for rows of weights; `DataObjective` is the full-data risk (c_i = 1/N,
ρ = λ) as a `onlinelab.losses.fenchel.ConvexFunction` for `onlinelab.games.game.play_game`, its
conjugate over K by that inner solve.  The per-sample conjugates φ* give a dual certificate
(`Risk.dual_value`): weak duality bounds f⋆ from below, so an exact solver's f⋆ is checked
independently.  Online losses (a random mini-batch per round) live in `onlinelab.losses.data`.

>>> import numpy as np
>>> f = DataObjective("logistic", lam=0.1)
>>> f.n, round(float(f.value(np.zeros((1, f.n)))[0]), 6)       # log 2 at the origin
(31, 0.693147)
"""
from __future__ import annotations

from functools import cache

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit

from onlinelab.core import validation as v
from onlinelab.errors import ConfigError, DomainError
from onlinelab.geometry.linalg import rows_at
from onlinelab.geometry.specs import make_domain
from onlinelab.losses.fenchel import ConvexFunction
from onlinelab.losses.vector import sup_norm

DATASETS = ("breast-cancer",)


@cache
def load_data(name: str = "breast-cancer") -> tuple[np.ndarray, np.ndarray]:
    """(A, y): standardised features plus an intercept, rows of unit norm (N, n); labels y ∈ {−1, +1}."""
    v.choice("dataset", name, DATASETS)
    from sklearn.datasets import load_breast_cancer  # bundled with scikit-learn: no download
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    A = np.hstack([X, np.ones((X.shape[0], 1))])
    A /= np.linalg.norm(A, axis=1, keepdims=True)
    A.flags.writeable = False
    y = (2.0 * y - 1.0)
    y.flags.writeable = False
    return A, y


class Margin:
    """A scalar convex loss φ with φ', φ* and the constants the bounds need (slope ≤ ``lip``, φ'' ≤ ``smooth``)."""

    def __init__(self, name: str, delta: float = 1.0):
        self.name = v.choice("loss", name, ("logistic", "huber", "hinge"))
        self.delta = v.positive_float("delta", delta)
        self.lip, self.smooth = {"logistic": (1.0, 0.25), "huber": (self.delta, 1.0), "hinge": (1.0, np.inf)}[name]

    def design(self, A, y):
        """(Ã, o) with z_i = ã_i·x − o_i the loss's argument (margins or residuals)."""
        return (A * y[:, None], np.zeros_like(y)) if self.name in ("logistic", "hinge") else (A, y)

    def phi(self, z):
        if self.name == "logistic":
            return np.logaddexp(0.0, -z)
        if self.name == "hinge":
            return np.maximum(0.0, 1.0 - z)
        a = np.abs(z)
        return np.where(a <= self.delta, 0.5 * z * z, self.delta * (a - 0.5 * self.delta))

    def dphi(self, z):
        if self.name == "hinge":
            return np.where(z < 1.0, -1.0, 0.0)
        return -expit(-z) if self.name == "logistic" else np.clip(z, -self.delta, self.delta)

    def conjugate(self, u):
        """φ*(u) = sup_z uz − φ(z); +inf outside its domain."""
        u = np.asarray(u, dtype=float)
        if self.name == "logistic":
            inside = (u >= -1) & (u <= 0)
            p = np.clip(-u, 0.0, 1.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                ent = np.where(p > 0, p * np.log(p), 0.0) + np.where(p < 1, (1 - p) * np.log1p(-p), 0.0)
            return np.where(inside, ent, np.inf)
        if self.name == "hinge":
            return np.where((u >= -1 - 1e-12) & (u <= 1e-12), u, np.inf)
        return np.where(np.abs(u) <= self.delta * (1 + 1e-12), 0.5 * u * u, np.inf)


class Risk:
    """F(x) = Σ_i c_i φ(ã_i·x − o_i) + (ρ/2)‖x‖² − ⟨s, x⟩, batched over rows of weights c (R, N), ρ (R,), s (R, n)."""

    def __init__(self, margin: Margin, A, y):
        self.margin = margin
        self.At, self.o = margin.design(np.asarray(A, dtype=float), np.asarray(y, dtype=float))
        self.N, self.n = self.At.shape

    def _z(self, x):
        return rows_at(np.asarray(x, dtype=float), self.At.T) - self.o   # row by row: bits independent of R

    def value(self, x, c, rho, s=None):
        x = np.asarray(x, dtype=float)
        out = np.einsum("ri,ri->r", c, self.margin.phi(self._z(x))) + 0.5 * rho * np.einsum("ri,ri->r", x, x)
        return out if s is None else out - np.einsum("ri,ri->r", s, x)

    def grad(self, x, c, rho, s=None):
        x = np.asarray(x, dtype=float)
        g = rows_at(c * self.margin.dphi(self._z(x)), self.At) + rho[:, None] * x
        return g if s is None else g - s

    def argmin(self, c, rho, domain, s=None, tol: float = 1e-12) -> np.ndarray:
        """argmin over K (ℝⁿ or a box) per row, by L-BFGS-B to a projected-gradient tolerance ``tol``."""
        if domain.kind not in ("euclidean", "box"):
            raise DomainError(f"the data objectives are minimised over ℝⁿ or a box, got the {domain.describe()}; "
                              "use domain 'box:lo:hi' or 'euclidean'")
        c, rho = np.atleast_2d(c), np.broadcast_to(np.asarray(rho, dtype=float), (np.atleast_2d(c).shape[0],))
        s = np.zeros((c.shape[0], self.n)) if s is None else np.asarray(s, dtype=float)
        if self.margin.name == "hinge" and np.all(rho > 0):
            from onlinelab.losses.hinge import hinge_argmin
            return hinge_argmin(self.At, c, rho, s, domain, 1e-9)
        bounds = [(domain.lo, domain.hi)] * self.n if domain.kind == "box" else None
        out = np.empty((c.shape[0], self.n))
        for r in range(c.shape[0]):
            args = (c[r:r + 1], rho[r:r + 1], s[r:r + 1])

            def fg(x, args=args):  # this row's data, bound now
                return float(self.value(x[None], *args)[0]), self.grad(x[None], *args)[0]
            res = minimize(fg, domain.project(np.zeros((1, self.n)))[0], jac=True, method="L-BFGS-B", bounds=bounds,
                           options={"ftol": 0.0, "gtol": tol, "maxiter": 20000, "maxcor": 30})
            out[r] = res.x
        return out

    def dual_value(self, u, c, rho) -> np.ndarray:
        """Weak-duality lower bound on min_{ℝⁿ} F (s = 0, ρ > 0): −Σ c_i(φ*(u_i) + u_i o_i) − ‖Σ c_i u_i ã_i‖²/(2ρ)."""
        w = c * u
        return -np.einsum("ri,ri->r", c, self.margin.conjugate(u) + u * self.o) - \
            np.sum(rows_at(w, self.At) ** 2, axis=1) / (2 * rho)


class DataObjective(ConvexFunction):
    """f(x) = (1/N)Σ φ(ã_i·x − o_i) + (λ/2)‖x‖² on a box (default [−5, 5]ⁿ): the game's f with an exact f⋆."""

    def __init__(self, loss: str = "logistic", lam: float = 0.01, domain: str = "box:-5:5", delta: float = 1.0,
                 dataset: str = "breast-cancer"):
        A, y = load_data(dataset)
        lam = v.real("lam", lam)
        if lam < 0:
            raise ConfigError(f"lam must be ≥ 0 (a ridge weight), got {lam!r}")
        super().__init__(make_domain(domain, A.shape[1]))
        self.risk, self.lam = Risk(Margin(loss, delta), A, y), lam
        self.name = f"{loss}-{dataset}"
        self._c, self._rho = np.full((1, self.risk.N), 1.0 / self.risk.N), np.array([lam])
        m = self.risk.margin
        self.G = float(m.lip * np.linalg.norm(self.risk.At, axis=1).max() + lam * sup_norm(self.domain))
        self.L = float(m.smooth * np.linalg.norm(self.risk.At, 2) ** 2 / self.risk.N + lam)
        self._min = None

    def _rows(self, x):
        R = np.asarray(x).shape[0]
        return np.broadcast_to(self._c, (R, self.risk.N)), np.broadcast_to(self._rho, (R,))

    def value(self, x):
        return self.risk.value(x, *self._rows(x))

    def _grad(self, x):
        return self.risk.grad(x, *self._rows(x))

    def _conjugate(self, y):
        """f*(y) = ⟨x_y, y⟩ − f(x_y) with x_y = argmin_K f − ⟨y, ·⟩ (inner L-BFGS-B solve)."""
        x = self.risk.argmin(*self._rows(y), self.domain, s=y)
        return np.einsum("ri,ri->r", x, y) - self.value(x)

    def minimum(self):
        if self._min is None:
            x = self.risk.argmin(self._c, self._rho, self.domain)
            self._min = (float(self.value(x)[0]), x[0])
        return self._min[0], self._min[1].copy()
