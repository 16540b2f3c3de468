"""Baselines for minimum-distortion embeddings: PCA, random projections, JL, the Fantope SDP (theory §5).

Each returns a d × k matrix A; the distortion of pair i is 1 − ‖Aᵀx_i‖² (`pair_distortions`),
and `max_distortion_of` reports the largest |1 − ‖Aᵀx_i‖²| (for orthonormal A every
distortion is ≥ 0, and this is the primal objective of theory §5.1; a scaled Gaussian map may also
stretch a pair, which counts too).

* `pca` — the top-k principal directions of the centred points.
* `random_orthonormal` — a uniformly random k-dimensional subspace (QR of a Gaussian matrix).
* `jl_gaussian` — a Gaussian matrix with N(0, 1/k) entries (Johnson–Lindenstrauss scaling:
  E‖Aᵀx‖² = ‖x‖²); not orthonormal.
* `fantope_sdp` — min over P in the Fantope F_k of max_i (1 − x_iᵀPx_i), solved by cvxpy (the
  ``sdp`` extra); its value is the relaxed dual optimum d̂⋆, its constraint multipliers are an
  optimal λ, and the top-k eigenvectors of P are the rounding.

>>> import numpy as np
>>> from onlinelab.embedding.pairs import unit_differences
>>> pts = np.random.default_rng(0).standard_normal((10, 4))
>>> V = pca(pts, 2)
>>> bool(np.allclose(V.T @ V, np.eye(2))), 0 <= max_distortion_of(unit_differences(pts), V) <= 1
(True, True)
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np

from onlinelab.core import validation as v
from onlinelab.embedding.dual import _finite_matrix, check_k
from onlinelab.errors import ConfigError


def pair_distortions(X: np.ndarray, A: np.ndarray) -> np.ndarray:
    """1 − ‖Aᵀx_i‖² per unit row x_i (negative when A stretches the pair).

    Parameters
    ----------
    X : numpy.ndarray, shape (n, d)
        Unit rows.
    A : numpy.ndarray, shape (d, k)
        The linear map (orthonormal columns for an orthogonal projection).
    """
    Y = X @ A
    return 1.0 - np.einsum("ij,ij->i", Y, Y)


def max_distortion_of(X: np.ndarray, A: np.ndarray) -> float:
    """max_i |1 − ‖Aᵀx_i‖²|: the worst shrinkage or stretch of a pair.

    Parameters
    ----------
    X : numpy.ndarray, shape (n, d)
        Unit rows.
    A : numpy.ndarray, shape (d, k)
        The linear map.
    """
    return float(np.abs(pair_distortions(X, A)).max())


def pca(points, k: int) -> np.ndarray:
    """The top-k principal directions of the centred points (d × k, orthonormal).

    Parameters
    ----------
    points : array-like, shape (r, d)
        The points, one per row.
    k : int
        Target dimension.
    """
    P = _finite_matrix("points", points)
    k = check_k(k, P.shape[1])
    _, _, Vt = np.linalg.svd(P - P.mean(axis=0), full_matrices=False)
    if Vt.shape[0] < k:                      # fewer points than k: complete the basis
        Q = np.linalg.qr(np.hstack([Vt.T, np.eye(P.shape[1])]))[0]
        return Q[:, :k]
    return Vt[:k].T.copy()


def _gaussian(d, k, seed) -> np.ndarray:
    d = v.integer("d", d, minimum=2)
    return np.random.default_rng(v.integer("seed", seed, minimum=0)).standard_normal((d, check_k(k, d)))


def random_orthonormal(d: int, k: int, seed: int = 0) -> np.ndarray:
    """A uniformly random orthonormal d × k matrix (QR of a Gaussian matrix, signs fixed).

    Parameters
    ----------
    d, k : int
        Ambient and target dimension.
    seed : int, default 0
        Seed of the Gaussian matrix.
    """
    Q, R = np.linalg.qr(_gaussian(d, k, seed))
    return Q * np.sign(np.diag(R))


def jl_gaussian(d: int, k: int, seed: int = 0) -> np.ndarray:
    """A d × k Gaussian map with N(0, 1/k) entries, so that E‖Aᵀx‖² = ‖x‖² (Johnson–Lindenstrauss).

    Parameters
    ----------
    d, k : int
        Ambient and target dimension; the same seed gives the Gaussian matrix behind ``random_orthonormal``.
    seed : int, default 0
        Seed of the Gaussian matrix.
    """
    G = _gaussian(d, k, seed)
    return G / np.sqrt(G.shape[1])


@dataclass
class SDPResult:
    """What `fantope_sdp` found.

    Parameters
    ----------
    value : float
        The SDP's optimal value (= d̂⋆ up to the solver's tolerance); NaN when not solved.
    P : numpy.ndarray or None
        The optimal Fantope point.
    V : numpy.ndarray or None
        Its top-k eigenvectors: the rounded orthonormal embedding.
    lam : numpy.ndarray or None
        The multipliers of the n distortion constraints: an optimal λ of the dual.
    status : str
        cvxpy's status ("optimal", "optimal_inaccurate", "user_limit", ...).
    seconds : float
        Wall time of the solve.
    """

    value: float
    P: np.ndarray | None
    V: np.ndarray | None
    lam: np.ndarray | None
    status: str
    seconds: float

    @property
    def finished(self) -> bool:
        """True when the solver reached its tolerance (status "optimal"), not a time limit."""
        return self.status == "optimal"


def fantope_sdp(X: np.ndarray, k: int, solver: str = "auto", time_limit: float | None = None,
                **options) -> SDPResult:
    """Solve min_{P ∈ F_k} max_i (1 − x_iᵀPx_i) with cvxpy and round to the top-k eigenvectors of P.

    F_k = {0 ⪯ P ⪯ I, tr P = k}.  Needs the optional dependency cvxpy (``pip install onlinelab[sdp]``).

    Parameters
    ----------
    X : numpy.ndarray, shape (n, d)
        Unit rows.
    k : int
        Target dimension.
    solver : {"auto", "CLARABEL", "SCS"}, default "auto"
        The cvxpy SDP solver: ``"CLARABEL"`` (interior point, accurate; slow once the d × d cones grow) or
        ``"SCS"`` (first order, tolerance about 1e-4, scales further); ``auto`` takes Clarabel for d ≤ 20.
    time_limit : float or None, default None
        Seconds before the solver gives up (status ``user_limit``; the value is then NaN).
    **options
        Passed to ``problem.solve``.
    """
    try:
        import cvxpy as cp
    except ImportError:
        raise ConfigError("fantope_sdp needs cvxpy, an optional dependency; install it with "
                          "pip install 'onlinelab[sdp]'") from None
    X = _finite_matrix("X", X)
    n, d = X.shape
    k = check_k(k, d)
    solver = v.choice("solver", solver, ("auto", "CLARABEL", "SCS"))
    if solver == "auto":
        solver = "CLARABEL" if d <= 20 else "SCS"
    if time_limit is not None:
        limit = v.positive_float("time_limit", time_limit)
        options.setdefault("time_limit" if solver == "CLARABEL" else "time_limit_secs", limit)
    P = cp.Variable((d, d), symmetric=True)
    t = cp.Variable()
    A = (X[:, :, None] * X[:, None, :]).reshape(n, d * d)         # row i: vec(x_i x_iᵀ), so A·vec(P) = x_iᵀPx_i
    kept = A @ cp.vec(P, order="F")
    cons = [P >> 0, np.eye(d) - P >> 0, cp.trace(P) == k, 1 - kept <= t]
    prob = cp.Problem(cp.Minimize(t), cons)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)      # "may be inaccurate": reported through .status
            prob.solve(solver=solver, **options)
    except cp.error.SolverError as exc:
        return SDPResult(float("nan"), None, None, None, f"solver error: {exc}", time.perf_counter() - start)
    seconds = time.perf_counter() - start
    if prob.status not in ("optimal", "optimal_inaccurate") or P.value is None:
        return SDPResult(float("nan"), None, None, None, str(prob.status), seconds)
    Pv = (P.value + P.value.T) / 2
    w, U = np.linalg.eigh(Pv)
    lam = np.maximum(np.asarray(cons[3].dual_value, dtype=float).ravel(), 0.0)
    return SDPResult(float(prob.value), Pv, U[:, ::-1][:, :k].copy(), lam / max(lam.sum(), 1e-300),
                     str(prob.status), seconds)
