"""Spectral domains: a vector domain lifted to symmetric matrices through their eigenvalues (one code path).

theory §2 (docs/theory/02-online-pca.md): the spectraplex {W ⪰ 0, tr W = 1} is the simplex on eigenvalues, the rank-k
Fantope {0 ⪯ P ⪯ I, tr P = k} and the capped density matrices {0 ⪯ W ⪯ I/m, tr W = 1}
are capped simplices on eigenvalues.  Every map (Euclidean projection, linear
minimisation, mirror steps) is ``eigh`` → the vector map on the eigenvalues → the same
eigenvectors, because the base sets and the regularisers are permutation invariant.
Points are `onlinelab.core.protocol.EigenPlay` (never an explicit inverse), directions
dense symmetric ``(R, d, d)`` arrays.

`systematic_sample` draws a random rank-k projector with E[P] = W for a Fantope
point (one uniform per replicate, walk the cumulative eigenvalue sums), O(d).

>>> import numpy as np
>>> S = make_spectral("spectraplex", [], 2)
>>> P = S.project(np.array([[[2.0, 0.0], [0.0, 0.0]]]))
>>> np.round(P.dense()[0], 12)
array([[1., 0.],
       [0., 0.]])
"""
from __future__ import annotations

import numpy as np

from onlinelab.core.protocol import EigenPlay
from onlinelab.errors import DomainError
from onlinelab.geometry.domains import CappedSimplex, Simplex
from onlinelab.geometry.linalg import eigh


class SpectralDomain:
    """A unitarily invariant set of d × d symmetric matrices given by a vector domain ``base`` on eigenvalues.

    Parameters
    ----------
    base : Domain
        The vector domain the eigenvalues live in (simplex, capped simplex).
    kind : str
        ``"spectraplex"``, ``"fantope"`` or ``"capped-density"``.
    spec : str
        The spec string it was built from.
    """

    spectral = True
    bounded = True

    def __init__(self, base, kind: str, spec: str):
        self.base, self.kind, self.spec, self.n = base, kind, spec, base.n

    def lift(self, lam: np.ndarray, U: np.ndarray) -> EigenPlay:
        return EigenPlay(lam, U)

    def project(self, Y) -> EigenPlay:
        """Frobenius projection: eigh(Y) = V diag(y) Vᵀ ↦ V diag(Π_base(y)) Vᵀ."""
        y, V = eigh(np.asarray(Y, dtype=float))
        return EigenPlay(self.base.project(y), V)

    def lmo(self, G) -> EigenPlay:
        """argmin ⟨G, X⟩: the base LMO on eigenvalues (ascending, so ties go to the lowest eigenvectors)."""
        g, V = eigh(np.asarray(G, dtype=float))
        return EigenPlay(self.base.lmo(g), V)

    def start(self, R: int) -> EigenPlay:
        return EigenPlay(np.tile(self.base.centre(), (R, 1)), np.tile(np.eye(self.n), (R, 1, 1)))

    def as_array(self, X):
        return X.dense() if isinstance(X, EigenPlay) else np.asarray(X)

    def contains(self, X, tol: float = 1e-9) -> np.ndarray:
        lam, _ = (X.lam, X.U) if isinstance(X, EigenPlay) else eigh(np.asarray(X))
        return self.base.contains(lam, tol)

    @property
    def scale(self) -> float:
        return self.base.scale

    def check_rows(self, where: str, Y) -> np.ndarray:
        Y = np.asarray(Y, dtype=float)
        if Y.ndim != 3 or Y.shape[1:] != (self.n, self.n):
            raise DomainError(f"{where} must have shape (R, {self.n}, {self.n}) for the {self.kind}, got {Y.shape}")
        return Y

    def describe(self) -> str:
        return f"{self.kind} of {self.n} × {self.n} matrices"

    def __repr__(self) -> str:
        return f"SpectralDomain({self.spec!r}, n={self.n})"


def make_spectral(kind: str, params: list[float], d: int) -> SpectralDomain:
    """``spectraplex``; ``fantope[:k]`` (cap 1, trace k); ``capped-density[:m]`` (cap 1/m, trace 1).

    Parameters
    ----------
    kind : {"spectraplex", "fantope", "capped-density"}
        The spectral set.
    params : list of float
        Its parameters from the spec string (k for the Fantope, m for capped density matrices).
    d : int
        Matrix dimension.
    """
    if kind == "spectraplex":
        if params:
            raise DomainError(f"'spectraplex' takes no parameter, got {params}")
        return SpectralDomain(Simplex(d), kind, kind)
    size = params[0] if params else 1.0
    if size != int(size) or not 1 <= size < d:
        raise DomainError(f"{kind}:{size:g} needs an integer 1 ≤ k < d = {d}; e.g. '{kind}:2'")
    size = int(size)
    if kind == "fantope":
        return SpectralDomain(CappedSimplex(d, cap=1.0, total=float(size)), kind, f"fantope:{size}")
    return SpectralDomain(CappedSimplex(d, cap=1.0 / size, total=1.0), kind, f"capped-density:{size}")


def systematic_sample(p: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Indices of a systematic sample with inclusion probabilities ``p`` (R, d), 0 ≤ p ≤ 1, Σp = k integer.

    ``u`` (R,) uniform on [0, 1).  Index i is taken when some point u + j (j = 0..k−1) falls in
    [c_{i−1}, c_i) of the cumulative sums c, so P(i taken) = p_i exactly and no index twice.
    Returns (R, k) ints, ascending.

    Parameters
    ----------
    p : numpy.ndarray
        Inclusion probabilities, shape ``(R, d)``, in [0, 1], each row summing to an integer k.
    u : numpy.ndarray
        One uniform draw on [0, 1) per replicate, shape ``(R,)``.
    """
    p = np.asarray(p, dtype=float)
    k = int(round(float(p[0].sum())))
    if k < 1 or np.any(p < -1e-12) or np.any(p > 1 + 1e-9) or not np.allclose(p.sum(axis=1), k, atol=1e-9):
        raise DomainError(f"systematic_sample needs rows with 0 ≤ p ≤ 1 summing to the same integer k, "
                          f"got row sums {p.sum(axis=1)}; project onto the Fantope first")
    cum = np.cumsum(p, axis=1)
    cum[:, -1] = k  # absorb rounding so u + k − 1 < c_d always
    points = u[:, None] + np.arange(k)[None, :]
    idx = (cum[:, None, :] <= points[:, :, None]).sum(axis=2)   # searchsorted, batched: O(R k d)
    return np.minimum(idx, p.shape[1] - 1)
