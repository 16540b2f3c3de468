"""Convex decision domains for vector learners: Euclidean projection, linear minimisation oracle, centre.

theory §2 (projections, capped simplex; docs/theory/02-online-pca.md) and §3.2 (oracle costs).  Every method takes a
leading replicate axis: points and directions are ``(R, n)`` arrays.

* `Simplex`        — {p ≥ 0, Σp = 1}; projection by the sort-based rule of theory §2
  (ρ is an *index*), or for long rows Michelot's linear-time threshold iteration; LMO = the vertex of
  the smallest coordinate.
* `CappedSimplex`  — {0 ≤ p ≤ cap, Σp = total}; the eigenvalue set of the rank-k
  Fantope (cap 1, total k) and of capped density matrices (cap 1/m, total 1).
* `Ball`           — {‖x − centre‖₂ ≤ radius}.
* `Box`            — {lo ≤ x ≤ hi} coordinate-wise.
* `Euclidean`      — all of ℝⁿ (unconstrained; no LMO).

The spectral domains (spectraplex, Fantope) lift these maps to eigenvalues in
`onlinelab.geometry.spectral`; mirror maps (`onlinelab.geometry.mirror`) dispatch on ``kind``.
`make_domain` parses the strings used by learners, environments and configs
(``"simplex"``, ``"ball:2"``, ``"box:-1:1"``, ``"fantope:2"``, ...).

>>> import numpy as np
>>> Simplex(3).project(np.array([[0.5, 0.5, -1.0]]))
array([[0.5, 0.5, 0. ]])
>>> Ball(2, radius=1.0).lmo(np.array([[3.0, 4.0]]))
array([[-0.6, -0.8]])
"""
from __future__ import annotations

import numpy as np

from onlinelab.core import validation as v
from onlinelab.errors import DomainError
from onlinelab.geometry.simplex_projection import simplex_threshold


class Domain:
    """Base class of vector domains; subclasses set ``kind`` and implement the maps.

    Parameters
    ----------
    n : int
        Dimension.
    """

    kind = ""
    spectral = False
    bounded = True

    def __init__(self, n: int):
        self.n = v.integer("n", n, minimum=1)

    # --- maps -----------------------------------------------------------------------
    def project(self, y: np.ndarray) -> np.ndarray:
        """Euclidean projection argmin_{x∈K} ‖x − y‖₂, per row.

        Parameters
        ----------
        y : numpy.ndarray
            Points, one per row, shape ``(R, n)``.
        """
        raise NotImplementedError

    def project_owned(self, y: np.ndarray) -> np.ndarray:
        """`project` of a float array the caller made for it and gives up: the result may be written into
        ``y`` (the greedy OMD step's Π_K(x − γg), theory §5.6).  The default projects into a new array.

        Parameters
        ----------
        y : numpy.ndarray
            Points, one per row, shape ``(R, n)``, float; overwritten when the domain projects in place.
        """
        return self.project(y)

    def lmo(self, g: np.ndarray) -> np.ndarray:
        """Linear minimisation oracle argmin_{x∈K} ⟨g, x⟩ (deterministic tie-break), per row.

        Parameters
        ----------
        g : numpy.ndarray
            Directions, one per row, shape ``(R, n)``.
        """
        raise NotImplementedError

    def centre(self) -> np.ndarray:
        """The default starting point (n,): the minimiser of every regulariser we pair with K."""
        raise NotImplementedError

    def contains(self, x: np.ndarray, tol: float = 1e-9) -> np.ndarray:
        """(R,) bool: rows of x inside K up to ``tol``.

        Parameters
        ----------
        x : numpy.ndarray
            Points, one per row, shape ``(R, n)``.
        tol : float, default 1e-9
            Tolerance.
        """
        return np.linalg.norm(self.project(x) - x, axis=-1) <= tol * max(1.0, self.scale)

    @property
    def scale(self) -> float:
        return 1.0

    # --- shared helpers ---------------------------------------------------------------
    def start(self, R: int) -> np.ndarray:
        """The domain's centre, repeated for R replicates: the default first play.

        Parameters
        ----------
        R : int
            Number of replicates.
        """
        return np.tile(self.centre(), (R, 1))

    def as_array(self, x):
        """``x`` as a plain array (spectral domains turn eigenpairs into matrices).

        Parameters
        ----------
        x : object
            A point (or batch of points) of the domain.
        """
        return np.asarray(x)

    def check_rows(self, where: str, y) -> np.ndarray:
        """``y`` as a float array of shape (R, n), or a DomainError naming ``where`` and the expected shape.

        Parameters
        ----------
        where : str
            Where the points came from, for the message.
        y : numpy.ndarray
            Points, one per row, shape ``(R, n)``.
        """
        y = np.asarray(y, dtype=float)
        if y.ndim != 2 or y.shape[1] != self.n:
            raise DomainError(f"{where} must have shape (R, {self.n}) for the {self.describe()}, got {y.shape}")
        return y

    def describe(self) -> str:
        return f"{self.kind} domain in dimension {self.n}"

    def same_set(self, other) -> bool:
        """Same kind, dimension and parameters: the simulator asks it of an environment's round-1 loss, whose
        domain must be the declared one (learners play on the declared set, the comparator on the loss's).

        Parameters
        ----------
        other : Domain
            Another domain.

        >>> Ball(3, radius=2.0).same_set(Ball(3, radius=2)), Ball(3).same_set(Box(3))
        (True, False)
        """
        mine, theirs = self._params(), getattr(other, "_params", tuple)()
        return (getattr(other, "kind", None) == self.kind and getattr(other, "n", None) == self.n
                and len(mine) == len(theirs)
                and all(np.allclose(a, b, rtol=1e-12, atol=1e-15) for a, b in zip(mine, theirs, strict=True)))

    def _params(self) -> tuple:   # the numbers that pick the set among those of its kind and dimension
        return ()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec!r}, n={self.n})"

    @property
    def spec(self) -> str:
        return self.kind


def _vertex(g: np.ndarray, idx: np.ndarray) -> np.ndarray:
    out = np.zeros_like(g, dtype=float)
    out[np.arange(g.shape[0]), idx] = 1.0
    return out


class Simplex(Domain):
    """The probability simplex Δₙ.

    The projection is max(y − τ, 0) with τ chosen so the coordinates sum to one (theory §2), found by
    `onlinelab.geometry.simplex_projection.simplex_threshold` (the sort rule, or for long rows Michelot's
    linear-time iteration).
    """

    kind = "simplex"
    _recent = ()        # the last two thresholds of one-row projections: the next one's guess

    def project(self, y):
        return self.project_owned(np.array(y, dtype=float))

    def project_owned(self, y):
        """In place; a single row starts from a guess at τ, the lower of the last two single rows' thresholds.

        The guess only saves passes when rows follow each other closely (the OMD steps of the embedding
        game, whose thresholds alternate between two levels: hence the lower of two); τ is the same.

        Parameters
        ----------
        y : numpy.ndarray
            Points, one per row, shape ``(R, n)``, float; overwritten with their projections.
        """
        one = y.size == y.shape[-1]
        tau = simplex_threshold(y, min(self._recent) if one and self._recent else None)
        if one:
            self._recent = (float(tau.flat[0]),) + self._recent[:1]
        y -= tau                                # max(y − τ, 0) in y itself: no fresh n-vector per step
        return np.maximum(y, 0.0, out=y)

    def lmo(self, g):
        return _vertex(g, np.argmin(g, axis=-1))

    def centre(self):
        return np.full(self.n, 1.0 / self.n)


class CappedSimplex(Domain):
    """{0 ≤ p ≤ cap, Σp = total} (needs total ≤ n·cap): eigenvalues of Fantope / capped density points.

    Parameters
    ----------
    n : int
        Dimension.
    cap : float, default 1.0
        Upper bound on every coordinate.
    total : float, default 1.0
        The sum of the coordinates (needs total ≤ n·cap).
    """

    kind = "capped-simplex"

    def __init__(self, n: int, cap: float = 1.0, total: float = 1.0):
        super().__init__(n)
        self.cap = v.positive_float("cap", cap)
        self.total = v.positive_float("total", total)
        if self.total > self.n * self.cap * (1 + 1e-12):
            raise DomainError(f"capped simplex needs total ≤ n·cap, got total = {total}, n·cap = {self.n * cap}; "
                              "raise the cap or lower the total")

    def _clip_sum(self, y, theta):
        return np.clip(y - theta[..., None], 0.0, self.cap)

    def project(self, y):
        """clip(y − θ, 0, cap) with Σ = total: θ by bisection, then made exact on the active set.

        Parameters
        ----------
        y : numpy.ndarray
            Points, one per row, shape ``(R, n)``.
        """
        y = np.asarray(y, dtype=float)
        lo, hi = y.min(axis=-1) - self.cap, y.max(axis=-1)
        done = np.zeros(lo.shape, dtype=bool)   # a row stops when its own bracket closes, as it would alone
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            big = self._clip_sum(y, mid).sum(axis=-1) > self.total
            lo, hi = np.where(big & ~done, mid, lo), np.where(big | done, hi, mid)
            done |= hi - lo <= 1e-15 * np.maximum(1.0, np.abs(hi))
            if np.all(done):
                break
        theta = 0.5 * (lo + hi)
        free = (y - theta[..., None] > 0) & (y - theta[..., None] < self.cap)
        nfree = free.sum(axis=-1)
        capped = (y - theta[..., None] >= self.cap).sum(axis=-1)
        exact = (np.where(free, y, 0.0).sum(axis=-1) + capped * self.cap - self.total) / np.maximum(nfree, 1)
        theta = np.where(nfree > 0, exact, theta)
        return self._clip_sum(y, theta)

    def lmo(self, g):
        order = np.argsort(g, axis=-1, kind="stable")
        full = int(np.floor(self.total / self.cap + 1e-12))
        weights = np.zeros(self.n)
        weights[:full] = self.cap
        if full < self.n:
            weights[full] = self.total - full * self.cap
        out = np.zeros_like(g, dtype=float)
        np.put_along_axis(out, order, np.broadcast_to(weights, g.shape), axis=-1)
        return out

    def centre(self):
        return np.full(self.n, self.total / self.n)

    @property
    def scale(self):
        return self.total

    def _params(self):
        return (self.cap, self.total)

    @property
    def spec(self):
        return f"capped-simplex:{self.cap:g}:{self.total:g}"


class Ball(Domain):
    """The Euclidean ball {‖x − centre‖₂ ≤ radius} (centre 0 unless given).

    Parameters
    ----------
    n : int
        Dimension.
    radius : float, default 1.0
        Radius.
    center : array-like or None, default None
        Centre (the origin when ``None``).
    """

    kind = "ball"

    def __init__(self, n: int, radius: float = 1.0, center=None):
        super().__init__(n)
        self.radius = v.positive_float("radius", radius)
        self.center = np.zeros(self.n) if center is None else np.asarray(center, dtype=float).reshape(self.n)

    def project(self, y):
        d = np.asarray(y, dtype=float) - self.center
        norm = np.linalg.norm(d, axis=-1, keepdims=True)
        return self.center + d * np.minimum(1.0, self.radius / np.maximum(norm, 1e-300))

    def lmo(self, g):
        norm = np.linalg.norm(g, axis=-1, keepdims=True)
        direction = np.where(norm > 0, g / np.maximum(norm, 1e-300), 0.0)
        return self.center - self.radius * direction

    def centre(self):
        return self.center.copy()

    @property
    def scale(self):
        return self.radius

    def _params(self):
        return (self.radius, self.center)

    @property
    def spec(self):
        return f"ball:{self.radius:g}"


class Box(Domain):
    """The box {lo ≤ x ≤ hi} (the same bounds in every coordinate).

    Parameters
    ----------
    n : int
        Dimension.
    lo : float, default -1.0
        Lower bound of every coordinate.
    hi : float, default 1.0
        Upper bound of every coordinate.
    """

    kind = "box"

    def __init__(self, n: int, lo: float = -1.0, hi: float = 1.0):
        super().__init__(n)
        self.lo, self.hi = v.real("lo", lo), v.real("hi", hi)
        if not self.lo < self.hi:
            raise DomainError(f"box needs lo < hi, got lo = {lo}, hi = {hi}; e.g. box:-1:1")

    def project(self, y):
        return np.clip(y, self.lo, self.hi)

    def lmo(self, g):
        return np.where(np.asarray(g) > 0, self.lo, self.hi).astype(float)

    def centre(self):
        return np.full(self.n, 0.5 * (self.lo + self.hi))

    @property
    def scale(self):
        return max(abs(self.lo), abs(self.hi))

    def _params(self):
        return (self.lo, self.hi)

    @property
    def spec(self):
        return f"box:{self.lo:g}:{self.hi:g}"


class Euclidean(Domain):
    """All of ℝⁿ: projection is the identity; there is no LMO (linear functions are unbounded below)."""

    kind = "euclidean"
    bounded = False

    def project(self, y):
        return np.asarray(y, dtype=float)

    def lmo(self, g):
        raise DomainError("the unconstrained domain 'euclidean' has no linear minimisation oracle (a linear loss is "
                          "unbounded below on ℝⁿ); use a bounded domain such as 'ball:R' or 'box:lo:hi'")

    def centre(self):
        return np.zeros(self.n)


VECTOR_KINDS = ("simplex", "ball", "box", "euclidean", "capped-simplex")
SPECTRAL_KINDS = ("spectraplex", "fantope", "capped-density")


