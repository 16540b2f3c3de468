"""Convex objectives for the Fenchel game: value, (sub)gradient, conjugate over K, exact minimum
(theory §3.3, docs/theory/03-oco-fenchel.md).

A `ConvexFunction` f on a vector domain K gives the game its payoff
g(x, y) = ⟨x, y⟩ − f*(y) with f*(y) = sup_{x∈K} ⟨x, y⟩ − f(x) (the conjugate *restricted to K*,
so sup_y g(x, y) = f(x) on K).  Each subclass states how its conjugate is computed:

* `Quadratic` ½xᵀAx + bᵀx: f* and f⋆ by `onlinelab.losses.vector.quadratic_argmin`
  (exact on ℝⁿ and balls, accelerated projected gradient to machine precision elsewhere);
* `NormDistance` G‖x − c‖₂ with c ∈ K: f*(y) = ⟨c, y⟩ for ‖y‖ ≤ G (closed form), f⋆ = 0;
* `DataObjective` (`onlinelab.losses.datasets`): logistic / Huber on a real data set, box K, L-BFGS-B.

The conjugate at a point the function itself returned as a gradient is exact by
Fenchel–Young, f*(∇f(x)) = ⟨x, ∇f(x)⟩ − f(x): the last few (gradient → point) pairs are
remembered, so the y-player's per-round conjugates cost nothing.

The game's y-player faces ``ConjugateLoss`` ℓ(y) = f*(y) − ⟨x_t, y⟩; follow-the-leader over
such losses plays ∇f(x̄) at the weighted average x̄ (`ConjugateTerms`).

>>> import numpy as np
>>> from onlinelab.geometry.domains import Ball
>>> f = NormDistance(Ball(2, 1.0), center=[0.5, 0.0], scale=2.0)
>>> f.value(np.array([[0.5, 1.0]])), f.minimum()[0]
(array([2.]), 0.0)
"""
from __future__ import annotations

import numpy as np

from onlinelab.errors import DomainError
from onlinelab.losses.vector import QuadTerms


class ConvexFunction:
    """Base: subclasses set ``domain``, ``G`` (Lipschitz bound on K), ``L`` (smoothness, inf if none).

    Parameters
    ----------
    domain : Domain
        The convex set K on which f is defined.
    """

    name = "convex"
    _cache_size = 8

    def __init__(self, domain):
        self.domain = domain
        self.n = domain.n
        self._witness: dict = {}

    # --- subclass API ---------------------------------------------------------------
    def value(self, x) -> np.ndarray:
        raise NotImplementedError

    def _grad(self, x) -> np.ndarray:
        raise NotImplementedError

    def _conjugate(self, y) -> np.ndarray:
        raise NotImplementedError

    def minimum(self) -> tuple[float, np.ndarray]:
        """(f⋆, x⋆) from an exact solver."""
        raise NotImplementedError

    # --- shared ------------------------------------------------------------------------
    def grad(self, x) -> np.ndarray:
        """A (sub)gradient at each row of x; remembered so that f*(∇f(x)) is exact later.

        Parameters
        ----------
        x : numpy.ndarray
            Points of K, one per row, shape ``(R, n)``.
        """
        x = np.asarray(x, dtype=float)
        g = self._grad(x)
        if len(self._witness) >= self._cache_size:
            self._witness.pop(next(iter(self._witness)))
        self._witness[g.tobytes()] = (x, self.value(x))
        return g

    def conjugate(self, y) -> np.ndarray:
        """f*(y) = sup_{x∈K} ⟨x, y⟩ − f(x) per row (Fenchel–Young when y was returned by `grad`).

        Parameters
        ----------
        y : numpy.ndarray
            Dual points, one per row, shape ``(R, n)``.
        """
        y = np.asarray(y, dtype=float)
        hit = self._witness.get(y.tobytes())
        if hit is not None:
            x, fx = hit
            return np.einsum("ri,ri->r", x, y) - fx
        return self._conjugate(y)

    def describe(self) -> str:
        return f"{self.name} on {self.domain.spec} (n = {self.n})"


class Quadratic(ConvexFunction):
    """f(x) = ½xᵀAx + bᵀx on K, A symmetric PSD (n × n, shared by the replicates).

    Parameters
    ----------
    domain : Domain
        The convex set K.
    A : array-like
        Symmetric positive semi-definite matrix, ``(n, n)``.
    b : array-like
        Linear term, ``(n,)``.
    """

    name = "quadratic"

    def __init__(self, domain, A, b):
        super().__init__(domain)
        self.A = np.asarray(A, dtype=float)
        self.b = np.asarray(b, dtype=float).reshape(-1)
        if self.A.shape != (self.n, self.n) or self.b.shape != (self.n,):
            raise DomainError(f"Quadratic needs A ({self.n}, {self.n}) and b ({self.n},), got {self.A.shape}, "
                              f"{self.b.shape}")
        eig = np.linalg.eigvalsh(0.5 * (self.A + self.A.T))
        if eig[0] < -1e-10 * max(1.0, eig[-1]):
            raise DomainError("Quadratic needs a positive semi-definite A (the game needs a convex f)")
        self.L = float(eig[-1])
        from onlinelab.losses.vector import sup_norm
        self.G = float(np.linalg.norm(self.A, 2) * sup_norm(domain) + np.linalg.norm(self.b))

    def _terms(self, R, shift=None):
        b = np.tile(self.b, (R, 1)) if shift is None else self.b - shift
        return QuadTerms(np.broadcast_to(self.A, (R, self.n, self.n)), b)

    def value(self, x):
        x = np.asarray(x, dtype=float)
        return 0.5 * np.einsum("ri,ij,rj->r", x, self.A, x) + x @ self.b

    def _grad(self, x):
        return x @ self.A.T + self.b

    def _conjugate(self, y):
        x = self._terms(y.shape[0], shift=y).argmin(self.domain)
        return np.einsum("ri,ri->r", x, y) - self.value(x)

    def minimum(self):
        x = self._terms(1).argmin(self.domain)
        return float(self.value(x)[0]), x[0]


class NormDistance(ConvexFunction):
    """f(x) = G‖x − c‖₂ on K ∋ c: non-smooth, f⋆ = 0 at c; f*(y) = ⟨c, y⟩ on dom f* ∩ {‖y‖ ≤ G}.

    Parameters
    ----------
    domain : Domain
        The convex set K; it must contain ``center``.
    center : array-like
        The minimiser c, ``(n,)``.
    scale : float, default 1.0
        G, the slope (and Lipschitz constant) of f.
    """

    name = "norm-distance"

    def __init__(self, domain, center, scale: float = 1.0):
        super().__init__(domain)
        self.center = np.asarray(center, dtype=float).reshape(self.n)
        self.G = float(scale)
        self.L = float("inf")
        if not domain.contains(self.center[None])[0]:
            raise DomainError(f"NormDistance needs its centre inside K, got {self.center.tolist()} outside "
                              f"{domain.spec}; move the centre in")

    def value(self, x):
        return self.G * np.linalg.norm(np.asarray(x) - self.center, axis=-1)

    def _grad(self, x):
        d = x - self.center
        norm = np.linalg.norm(d, axis=-1, keepdims=True)
        return np.where(norm > 0, self.G * d / np.maximum(norm, 1e-300), 0.0)

    def _conjugate(self, y):
        norm = np.linalg.norm(y, axis=-1)
        if np.any(norm > self.G * (1 + 1e-12)):
            raise DomainError(f"NormDistance.conjugate is closed-form only for ‖y‖ ≤ G = {self.G}, got "
                              f"‖y‖ = {norm.max():.6g}; the game's y-plays are subgradients, which stay inside")
        return y @ self.center

    def minimum(self):
        return 0.0, self.center.copy()


class SquaredDistance(ConvexFunction):
    """f(x) = (μ/2)‖x − c‖² on any K: f*(y) attained at Π_K(c + y/μ) (exact, one projection); f⋆ at Π_K(c).

    On the simplex in dimension n ≥ 2T with c = 0 this is the instance where Frank–Wolfe needs
    Θ(1/t) (its iterate after t steps has at most t non-zero coordinates, so f − f⋆ ≥ ½(1/t − 1/n)).

    Parameters
    ----------
    domain : Domain
        The convex set K.
    center : array-like or None, default None
        The point c, ``(n,)`` (the origin when ``None``).
    scale : float, default 1.0
        μ, the strong convexity (and smoothness) of f.
    """

    name = "squared-distance"

    def __init__(self, domain, center=None, scale: float = 1.0):
        super().__init__(domain)
        self.center = np.zeros(self.n) if center is None else np.asarray(center, dtype=float).reshape(self.n)
        self.mu = float(scale)
        self.L = self.mu
        from onlinelab.losses.vector import sup_norm
        self.G = float(self.mu * (sup_norm(domain) + np.linalg.norm(self.center)))

    def value(self, x):
        return 0.5 * self.mu * np.sum((np.asarray(x) - self.center) ** 2, axis=-1)

    def _grad(self, x):
        return self.mu * (x - self.center)

    def _conjugate(self, y):
        x = self.domain.project(self.center + y / self.mu)
        return np.einsum("ri,ri->r", x, y) - self.value(x)

    def minimum(self):
        x = self.domain.project(self.center[None])
        return float(self.value(x)[0]), x[0]


class ConjugateTerms:
    """Σ α_s (f*(y) − ⟨x_s, y⟩) = w·(f*(y) − ⟨x̄, y⟩): the leader is ∇f(x̄) (x̄ ∈ K, so the sup is attained).

    Parameters
    ----------
    f : ConvexFunction
        The objective.
    w : array-like
        Total weight Σ α_s per replicate.
    sx : array-like
        Weighted sum Σ α_s x_s of the x-plays, ``(R, n)``.
    """

    def __init__(self, f, w, sx):
        self.f, self.w, self.sx = f, np.asarray(w, dtype=float), np.asarray(sx, dtype=float)

    def scaled(self, a):
        return ConjugateTerms(self.f, a * self.w, a * self.sx)

    def plus(self, other):
        return ConjugateTerms(self.f, self.w + other.w, self.sx + other.sx)

    def argmin(self, domain):
        return self.f.grad(self.sx / self.w[:, None])


class ConjugateLoss:
    """The y-player's loss ℓ(y) = f*(y) − ⟨x, y⟩ (−g(x, ·) of theory §3.3) for the x-play ``x`` (R, n).

    Parameters
    ----------
    f : ConvexFunction
        The objective.
    x : numpy.ndarray
        The x-player's play, ``(R, n)``.
    """

    kind = "vector"
    is_linear = False

    def __init__(self, f, x):
        self.f, self.x = f, np.asarray(x, dtype=float)

    @property
    def shape(self):
        return self.x.shape

    def mixed_value(self, y):
        return self.f.conjugate(y) - np.einsum("ri,ri->r", self.x, y)

    def terms(self):
        return ConjugateTerms(self.f, np.ones(self.x.shape[0]), self.x)

    def gradient(self, y):
        raise DomainError("the y-player's loss f*(y) − ⟨x, y⟩ offers no gradient oracle here (∇f* needs an inner "
                          "solve); use a leader-based y-player: bestresp+, ftl, ftl+ or optimistic-ftl")
