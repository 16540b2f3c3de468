"""Losses on vector domains (linear, quadratic) following the loss protocol of `onlinelab.losses`.

A loss holds one function per replicate and provides ``shape``, ``validate``,
``mixed_value`` / ``action_value`` (the loss of the play), ``gradient`` (first-order
oracle), ``terms()`` (what follow-the-leader learners add up; ``argmin`` over a domain is
the leader oracle), ``comparator`` (best fixed point in hindsight over the loss's domain)
and ``statistics`` — ``spec_sq`` = ‖g‖∞² and ``fro_sq`` = ‖g‖₂², named after their spectral
counterparts so one bound formula serves the simplex and the spectraplex (theory §3.2, docs/theory/03-oco-fenchel.md).
For a quadratic, the statistics are bounds on the gradient over the domain.

`quadratic_argmin` (onlinelab.losses.quadratic_solve) is the exact solver behind the comparator and the game's f*:
linear solve on ℝⁿ, a secular-equation solve on a ball (convex trust region), and
accelerated projected gradient to machine precision on other domains.

>>> import numpy as np
>>> from onlinelab.geometry.domains import Simplex
>>> L = LinearLoss(np.array([[0.3, 0.1, 0.7]]), Simplex(3))
>>> c = L.comparator(1, 3); c.add(L); c.value()
array([0.1])
"""
from __future__ import annotations

import numpy as np

from onlinelab.core.metrics import running
from onlinelab.errors import DomainError, LossError
from onlinelab.geometry.domains import Domain
from onlinelab.losses.matrix import real_array
from onlinelab.losses.quadratic_solve import quadratic_argmin
from onlinelab.losses.row_scan import row_dots, row_scan, row_square_sums


def sup_norm(domain) -> float:
    """sup_{x∈K} ‖x‖₂ (for gradient bounds of quadratics).

    Parameters
    ----------
    domain : Domain
        The decision set.
    """
    if domain.kind == "ball":
        return float(np.linalg.norm(domain.center) + domain.radius)
    if domain.kind == "box":
        return float(np.sqrt(domain.n) * max(abs(domain.lo), abs(domain.hi)))
    if domain.kind in ("simplex", "capped-simplex"):
        return float(np.linalg.norm(domain.lmo(np.arange(domain.n, dtype=float)[None, :])[0]))
    return float("inf")


def vector_domain(owner: str, domain, n: int) -> Domain:
    """``domain`` if it is a vector domain object of dimension ``n`` (the loss's comparator minimises over it),
    else a DomainError that names what to pass: `onlinelab.geometry.specs.make_domain` of the declared spec.

    Parameters
    ----------
    owner : str
        The loss class, for the message.
    domain : Domain
        The candidate domain.
    n : int
        The loss's dimension (its number of columns).

    >>> from onlinelab.geometry.specs import make_domain
    >>> vector_domain("LinearLoss", make_domain("ball:2", 3), 3)
    Ball('ball:2', n=3)
    """
    if isinstance(domain, str):
        raise DomainError(f"{owner} needs a domain object, not the string {domain!r}: pass make_domain({domain!r}, "
                          f"{n}) (onlinelab.geometry.specs), built once in reset: make_domain(self.domain, self.d)")
    if not isinstance(domain, Domain):
        raise DomainError(f"{owner} needs a vector domain object (Simplex, Ball, Box, Euclidean; make_domain("
                          f"'simplex', {n})), got {domain!r}; a spectral set takes matrix losses (DenseLoss, ...)")
    if domain.n != n:
        raise DomainError(f"{owner} has {n} coordinates per replicate but its domain {domain!r} has dimension "
                          f"{domain.n}; build the domain with the loss's dimension, make_domain(spec, {n})")
    return domain


def _dot(a, b) -> np.ndarray:
    """⟨a_r, b_r⟩ per row (a ufunc: no einsum parsing in the per-round path)."""
    return np.vecdot(a, b)


def _linear_value(terms, x) -> np.ndarray:  # module-level (not a lambda), so that checkpoints can name it
    return _dot(terms.G, x)


def _terms_value(terms, x) -> np.ndarray:
    return terms.value(x)


class VectorLoss:
    """Shared checks and value helpers; subclasses set ``self.domain`` and implement the oracles."""

    kind = "vector"
    is_linear = False

    def _validate_common(self, where, R, d, arrays):
        if self.shape != (R, d):
            raise LossError(f"{where}: loss has shape (replicates, n) = {self.shape}, expected ({R}, {d}); "
                            "emit one loss per replicate (leading axis R)")
        for a in arrays:
            if not np.all(np.isfinite(a)):
                raise LossError(f"{where}: loss has non-finite entries (NaN or inf); check the environment")

    def _check_bound(self, where, bound, norms):
        if bound is not None and np.any(norms > bound * (1 + 1e-9)):
            worst = int(np.argmax(norms))
            fit = np.ceil(norms[worst] * 100) / 100
            raise LossError(f"{where}: gradient norm {norms[worst]:.6g} in replicate {worst} exceeds the declared "
                            f"bound {bound:g}; scale the loss down or declare loss_bound = {fit:g}")

    def action_value(self, action):
        return self.mixed_value(action)


class LinearTerms:
    """Σ α_s G_s: the leader over a domain is its linear minimiser."""

    def __init__(self, G):
        self.G = np.asarray(G, dtype=float)

    def scaled(self, a: float) -> LinearTerms:
        return LinearTerms(a * self.G)

    def plus(self, other: LinearTerms) -> LinearTerms:
        return LinearTerms(self.G + other.G)

    def add_(self, other: LinearTerms) -> LinearTerms:
        """In-place sum (the comparator owns its accumulator)."""
        self.G += other.G
        return self

    def pooled(self) -> LinearTerms:
        return LinearTerms(self.G.mean(axis=0, keepdims=True))

    def fold(self, n: int, onto: LinearTerms | None = None) -> LinearTerms:
        """``onto`` plus n stacked rounds (rows round-major, as in a loss block), one term per replicate.

        The rounds are added one at a time in order, as n calls of `add_` would: the sum does not depend on
        how a run's rounds are cut into blocks (whose length may depend on R), so neither does the comparator.
        """
        rows = self.G.reshape((n, -1) + self.G.shape[1:])
        return LinearTerms(running(np.zeros(rows.shape[1:]) if onto is None else onto.G, rows))

    def argmin(self, domain):
        return domain.lmo(self.G)


class LinearLoss(VectorLoss):
    """ℓ(x) = ⟨G, x⟩ with G (R, n) on ``domain``; the bound checked is ‖G‖∞ on simplices, ‖G‖₂ otherwise.

    Parameters
    ----------
    G : array-like
        The loss vectors g, shape ``(R, n)``: ℓ(x) = ⟨g, x⟩.
    domain : Domain
        The decision set the comparator minimises over.
    """

    is_linear = True

    def __init__(self, G, domain):
        self.G = real_array(G, "LinearLoss")
        self._inf = None
        if self.G.ndim != 2:
            raise LossError(f"LinearLoss needs G of shape (R, n), got {self.G.shape}")
        self.domain = vector_domain("LinearLoss", domain, self.G.shape[1])

    @classmethod
    def trusted(cls, G: np.ndarray, domain) -> LinearLoss:
        """A loss on a float (R, n) array the caller built itself (no conversion or checks: a learner's
        own estimate, or a view of a block already checked whole)."""
        out = cls.__new__(cls)
        out.G, out.domain, out._inf = G, domain, None
        return out

    @property
    def shape(self):
        return self.G.shape

    @property
    def _absmax(self):  # ‖G‖∞ per replicate, computed once (validate and statistics both need it)
        if self._inf is None:   # with min and max G when one compiled pass gave them (onlinelab.losses.row_scan)
            self._inf, lo, hi, self._fro = row_scan(self.G)
            self._range = (lo, hi)
        return self._inf

    def validate(self, where, R, d, bound, psd=None):
        simplex = self.domain.kind in ("simplex", "capped-simplex")
        if (simplex and self.shape == (R, d) and bound is not None and self._absmax.max() <= bound * (1 + 1e-9)
                and self._signed(psd)):
            return  # the common case in two reductions: NaN/inf propagate through max and fail the comparison
        if self.shape != (R, d) or not np.all(np.isfinite(self._absmax)):
            self._validate_common(where, R, d, [self.G])
        self._check_bound(where, bound, self._absmax if simplex else np.linalg.norm(self.G, axis=1))
        if not self._signed(psd):
            sign = 1.0 if psd else -1.0
            r, i = np.unravel_index(int(np.argmin(sign * self.G)), self.G.shape)
            raise LossError(f"{where}: loss entry ℓ[{i}] = {self.G[r, i]:.6g} in replicate {r} is "
                            f"{'negative' if psd else 'positive'}, but the environment declares psd = {psd} (every "
                            f"loss entry {'≥' if psd else '≤'} 0, which bounds such as Exp3's assume); shift or clip "
                            "the losses, or declare psd = None (no sign)")

    def _signed(self, psd) -> bool:
        """Every entry has the declared sign: ≥ 0 for psd = True, ≤ 0 for psd = False, anything for None."""
        if psd is None:
            return True
        lo, hi = getattr(self, "_range", (None, None))   # set beside _absmax by a compiled scan
        if psd:
            return bool((self.G.min() if lo is None else lo) >= 0)
        return bool((self.G.max() if hi is None else hi) <= 0)

    def mixed_value(self, mixed):
        return row_dots(self.G, mixed)     # ⟨g_r, x_r⟩ per replicate, in the order the compiled kernels repeat

    action_value = mixed_value

    def gradient(self, mixed=None):
        return self.G

    def terms(self):
        return LinearTerms(self.G)

    def statistics(self):
        absmax = self._absmax                      # a compiled scan also leaves ‖g‖₂² in self._fro
        fro = getattr(self, "_fro", None)
        return {"spec_sq": absmax ** 2, "fro_sq": row_square_sums(self.G) if fro is None else fro}

    def comparator(self, replicates, d):
        return LeaderComparator(self.domain, _linear_value)


class QuadTerms:
    """Σ α_s (½xᵀA_s x + b_sᵀx): the leader is `quadratic_argmin` of the sums."""

    def __init__(self, A, b):
        self.A, self.b = np.asarray(A, dtype=float), np.asarray(b, dtype=float)

    def scaled(self, a):
        return QuadTerms(a * self.A, a * self.b)

    def plus(self, other):
        return QuadTerms(self.A + other.A, self.b + other.b)

    def pooled(self) -> QuadTerms:
        return QuadTerms(self.A.mean(axis=0, keepdims=True), self.b.mean(axis=0, keepdims=True))

    def value(self, x):
        return 0.5 * np.einsum("ri,rij,rj->r", x, self.A, x) + _dot(self.b, x)

    def argmin(self, domain):
        return quadratic_argmin(self.A, self.b, domain)


class QuadraticLoss(VectorLoss):
    """ℓ(x) = ½xᵀAx + bᵀx, A (R, n, n) symmetric PSD, b (R, n), on ``domain``.

    Parameters
    ----------
    A : array-like
        Symmetric PSD matrices, ``(R, n, n)`` (``np.broadcast_to`` shares one among the replicates).
    b : array-like
        Linear terms, ``(R, n)``: ℓ(x) = ½xᵀAx + bᵀx.
    domain : Domain
        The decision set the comparator minimises over.
    """

    def __init__(self, A, b, domain):
        self.A = real_array(A, "QuadraticLoss A")
        self.b = real_array(b, "QuadraticLoss b")
        if self.A.ndim != 3 or self.b.ndim != 2 or self.A.shape[:2] != self.b.shape:
            raise LossError(f"QuadraticLoss needs A (R, n, n) and b (R, n), got {self.A.shape} and {self.b.shape}")
        self.domain = vector_domain("QuadraticLoss", domain, self.b.shape[1])

    @property
    def shape(self):
        return self.b.shape

    def validate(self, where, R, d, bound, psd=None):
        self._validate_common(where, R, d, [self.A, self.b])
        if np.abs(self.A - np.swapaxes(self.A, 1, 2)).max() > 1e-10 * max(1.0, np.abs(self.A).max()):
            raise LossError(f"{where}: quadratic loss matrix A is not symmetric; emit (A + Aᵀ)/2")
        if np.linalg.eigvalsh(self.A)[:, 0].min() < -1e-10:
            raise LossError(f"{where}: quadratic loss matrix A is not positive semi-definite, so the loss is not "
                            "convex; add a multiple of the identity")
        self._check_bound(where, bound, np.sqrt(self.statistics()["fro_sq"]))

    def mixed_value(self, mixed):
        return QuadTerms(self.A, self.b).value(np.asarray(mixed))

    def gradient(self, mixed):
        return np.einsum("rij,rj->ri", self.A, np.asarray(mixed)) + self.b

    def terms(self):
        return QuadTerms(self.A, self.b)

    def statistics(self):
        g = np.linalg.norm(self.A, ord=2, axis=(1, 2)) * sup_norm(self.domain) + np.linalg.norm(self.b, axis=1)
        return {"spec_sq": g ** 2, "fro_sq": g ** 2, "curvature": np.linalg.eigvalsh(self.A)[:, 0]}

    def comparator(self, replicates, d):
        return LeaderComparator(self.domain, _terms_value)


class LeaderComparator:
    """Best fixed point in hindsight: the leader of the summed terms, and its cumulative loss."""

    def __init__(self, domain, value):
        self.domain, self._value, self.terms = domain, value, None

    def add_block(self, block) -> None:
        """n rounds at once when their terms can be folded (linear losses); else round by round."""
        terms = block.stacked.terms()
        if not hasattr(terms, "fold"):
            for loss in block.rounds:
                self.add(loss)
            return
        self.terms = terms.fold(block.n, onto=self.terms)

    def add(self, loss) -> None:
        self._add_terms(loss.terms())

    def _add_terms(self, t) -> None:
        if self.terms is None:
            self.terms = t.scaled(1.0)                     # a private copy
        elif hasattr(self.terms, "add_"):
            self.terms.add_(t)
        else:
            self.terms = self.terms.plus(t)

    def value(self) -> np.ndarray:
        return self._value(self.terms, self.terms.argmin(self.domain))

    def pooled_value(self) -> float:
        """Best fixed point for the replicate-averaged cumulative loss (pseudo-regret comparator)."""
        pooled = self.terms.pooled()
        return float(self._value(pooled, pooled.argmin(self.domain))[0])
