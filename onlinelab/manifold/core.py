"""The one eigen-solver of `onlinelab.manifold`: trace optimisation (theory §7, docs/theory/07-spectral.md).

Ky Fan / Courant–Fischer: for symmetric ``A`` and positive definite ``B``,

    min { tr(Vᵀ A V) : Vᵀ B V = I_k }  =  λ_1 + … + λ_k,

the ``k`` smallest generalised eigenvalues of ``(A, B)``, attained by their eigenvectors (the
maximum likewise with the largest).  Laplacian eigenmaps, LLE, LPP, ONPP, MDS, Isomap and PCA
are all this one problem with different ``A`` and ``B``; ``skip`` drops the trivial bottom
eigenvectors (the constant vector of a graph Laplacian) so no method special-cases it.

Two paths: dense LAPACK (``scipy.linalg.eigh`` with ``subset_by_index``) for small problems, and
ARPACK (``eigsh``, shift-invert when a lower bound of the spectrum is known, e.g. 0 for a
Laplacian) or LOBPCG for large sparse ones — neither forms a dense ``m × m`` array from a
sparse input.

>>> import numpy as np
>>> sol = trace_optimize(np.diag([3.0, 1.0, 2.0, 5.0]), k=2)
>>> sol.eigenvalues, sol.value
(array([1., 2.]), 3.0)
>>> trace_optimize(np.diag([3.0, 1.0, 2.0, 5.0]), k=1, largest=True).value
5.0
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.linalg as la
import scipy.sparse as sp
import scipy.sparse.linalg as sla

from onlinelab.core import validation as v
from onlinelab.errors import ConfigError, DataError

SOLVERS = ("auto", "dense", "arpack", "lobpcg")
#: Below this many rows "auto" uses dense LAPACK; above it Lanczos wins when few eigenpairs are wanted.
DENSE_MAX = 500


class TraceSolution(NamedTuple):
    """Optimum of a trace problem: ``value`` = Σ ``eigenvalues``; ``vectors`` (m, k) are B-orthonormal columns."""

    value: float
    eigenvalues: np.ndarray
    vectors: np.ndarray
    solver: str


def _symmetric(M, name: str):
    if sp.issparse(M):
        M = sp.csr_matrix(M, dtype=float)
        if M.ndim != 2 or M.shape[0] != M.shape[1]:
            raise ConfigError(f"{name} must be a square matrix, got shape {M.shape}")
        if not np.all(np.isfinite(M.data)):
            raise DataError(f"{name} has NaN or infinite entries; clean the data (e.g. drop rows with NaN) first")
        return ((M + M.T) * 0.5).tocsr()
    M = np.asarray(M, dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ConfigError(f"{name} must be a square matrix, got shape {M.shape}")
    if not np.all(np.isfinite(M)):
        raise DataError(f"{name} has NaN or infinite entries; clean the data (e.g. drop rows with NaN) first")
    return _symmetrise_dense(M)


def _symmetrise_dense(M: np.ndarray, tile: int = 128) -> np.ndarray:
    """(M + Mᵀ)/2 tile by tile: the transposed read stays in cache (2–3× faster than M + M.T at m = 2000)."""
    m = M.shape[0]
    if m <= 4 * tile:
        return (M + M.T) * 0.5
    S = np.empty_like(M)
    for i in range(0, m, tile):
        for j in range(0, m, tile):
            np.add(M[i:i + tile, j:j + tile], M[j:j + tile, i:i + tile].T, out=S[i:i + tile, j:j + tile])
    S *= 0.5
    return S


def sign_fix(V: np.ndarray) -> np.ndarray:
    """Flip each column so its largest-magnitude entry is positive (eigenvectors are defined up to sign).

    Parameters
    ----------
    V : numpy.ndarray
        Columns to normalise, ``(m, k)``.
    """
    if V.size == 0:
        return V
    idx = np.argmax(np.abs(V), axis=0)
    signs = np.sign(V[idx, np.arange(V.shape[1])])
    signs[signs == 0] = 1.0
    return V * signs


def _dense(A, B, lo: int, hi: int):
    A = A.toarray() if sp.issparse(A) else A
    B = None if B is None else (B.toarray() if sp.issparse(B) else B)
    try:
        return la.eigh(A, B, subset_by_index=[lo, hi])
    except la.LinAlgError as exc:
        raise DataError(f"B is not positive definite ({exc}); in a graph method this means a point with no "
                        "edges (zero degree): raise n_neighbors or epsilon") from exc


def _arpack(A, B, n: int, largest: bool, lower_bound, tol: float, rng):
    m = A.shape[0]
    v0 = rng.uniform(-1.0, 1.0, m)
    if largest:
        return sla.eigsh(A, n, M=B, which="LA", tol=tol, v0=v0)
    if lower_bound is None:
        return sla.eigsh(A, n, M=B, which="SA", tol=tol, v0=v0)
    # Shift-invert just below the spectrum: the wanted eigenvalues become the largest of (A - σB)⁻¹B.
    diag = A.diagonal() if sp.issparse(A) else np.diag(A)
    scale = float(np.max(np.abs(diag))) or 1.0
    if B is not None:
        bdiag = B.diagonal() if sp.issparse(B) else np.diag(B)
        scale /= float(np.max(np.abs(bdiag))) or 1.0
    sigma = lower_bound - 1e-6 * scale
    if not sp.issparse(A):
        return sla.eigsh(A, n, M=B, sigma=sigma, which="LM", tol=tol, v0=v0)
    # A − σB is positive definite (σ lies below the spectrum): factorise it with a symmetric fill-reducing
    # ordering and no pivoting, which on a kNN Laplacian halves the fill of scipy's default (COLAMD) LU.
    shifted = (A - sigma * (sp.identity(m, format="csr") if B is None else sp.csr_matrix(B))).tocsc()
    lu = sla.splu(shifted, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True})
    op = sla.LinearOperator((m, m), matvec=lu.solve, dtype=float)
    # after the shift-invert the wanted eigenvalues are well separated: a short Lanczos basis needs fewer solves
    return sla.eigsh(A, n, M=B, sigma=sigma, which="LM", tol=tol, v0=v0, OPinv=op, ncv=min(m - 1, max(2 * n + 1, 10)))


def _lobpcg(A, B, n: int, largest: bool, tol: float, rng):
    X = rng.standard_normal((A.shape[0], n))
    vals, vecs = sla.lobpcg(A, X, B=B, largest=largest, tol=tol or None, maxiter=2000)
    return vals, vecs


def trace_optimize(A, B=None, *, k: int, skip: int = 0, largest: bool = False, solver: str = "auto",
                   lower_bound: float | None = None, tol: float = 0.0, random_state=0) -> TraceSolution:
    """Optimise ``tr(Vᵀ A V)`` over ``Vᵀ B V = I_k`` (theory §7): the Ky Fan sum and its eigenvectors.

    Returns the ``k`` smallest (or largest) generalised eigenpairs of ``(A, B)`` after discarding the
    ``skip`` most extreme ones, in ascending order of eigenvalue for ``largest=False`` and descending
    for ``largest=True``; columns signed so their largest entry is positive.

    Parameters
    ----------
    A : array_like or scipy.sparse matrix
        Symmetric ``(m, m)`` (it is symmetrised as (A + Aᵀ)/2).
    B : array_like or scipy.sparse matrix, optional
        Symmetric positive definite ``(m, m)``; identity when omitted.
    k : int
        Number of eigenpairs kept.
    skip : int, default 0
        Number of most extreme eigenpairs dropped first (1 for the constant vector of a Laplacian).
    largest : bool, default False
        Maximise instead of minimise.
    solver : {"auto", "dense", "arpack", "lobpcg"}, default "auto"
        ``"auto"`` is dense LAPACK for ``m <= 500`` or when ``k + skip`` exceeds ``m/10``, ARPACK otherwise.
    lower_bound : float, optional
        A known lower bound on the spectrum (0 for a Laplacian or any PSD ``A``); lets ARPACK use
        shift-invert for the smallest eigenvalues, which converges in a few iterations.
    tol : float, default 0.0
        Iterative solvers' relative tolerance (0 = machine precision).
    random_state : int or numpy.random.Generator, default 0
        Seed of the iterative solvers' starting vector.
    """
    A = _symmetric(A, "A")
    m = A.shape[0]
    if B is not None:
        B = _symmetric(B, "B")
        if B.shape != A.shape:
            raise ConfigError(f"B must have A's shape {A.shape}, got {B.shape}")
    k = v.integer("k", k, minimum=1)
    skip = v.integer("skip", skip, minimum=0)
    v.choice("solver", solver, SOLVERS)
    n = k + skip
    if n > m:
        raise ConfigError(f"k + skip = {k} + {skip} = {n} eigenpairs asked of a {m} x {m} problem; use k <= {m - skip}")
    if solver == "auto":
        solver = "dense" if (m <= DENSE_MAX or n >= m / 10) else "arpack"
    if solver != "dense" and n >= m - 1:
        solver = "dense"   # Lanczos needs n < m - 1
    rng = np.random.default_rng(random_state)
    if solver == "dense":
        lo, hi = (m - n, m - 1) if largest else (0, n - 1)
        vals, vecs = _dense(A, B, lo, hi)
    elif solver == "arpack":
        vals, vecs = _arpack(A, B, n, largest, lower_bound, tol, rng)
    else:
        vals, vecs = _lobpcg(A, B, n, largest, tol, rng)
    order = np.argsort(-vals if largest else vals, kind="stable")[skip:]
    vals, vecs = vals[order], sign_fix(np.asarray(vecs)[:, order])
    return TraceSolution(float(vals.sum()), vals, vecs, solver)
