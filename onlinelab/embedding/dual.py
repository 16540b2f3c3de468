"""The Lagrange dual of near-isometric embedding: data, dual value, supergradient, distortion, top-k (theory §5).

An orthonormal V (d × k) embeds unit vectors x_1..x_n (the normalised pairwise differences of r
points, n = r(r−1)/2) with *distortion* 1 − ‖Vᵀx_i‖² per pair; the primal problem minimises the
largest one, p⋆ = min_{VᵀV=I} max_i (1 − ‖Vᵀx_i‖²).  Its relaxed Lagrange dual maximises over the
simplex Δₙ the concave function

    g(λ) = 1 − Σ_{j≤k} μ_j(M(λ)),   M(λ) = Xᵀ diag(λ) X,

and g(λ) ≤ p⋆ for every λ ∈ Δₙ (weak duality).  A supergradient is −‖Vᵀx_ℓ‖² with V the top-k
eigenvectors of M(λ) (Lemma 4; a gradient when μ_k > μ_{k+1}).  See docs/theory/05-near-isometric.md.

Only pairs with λ_i > 0 enter M(λ): after a few projected steps most weights are exactly zero,
so `top_k` works on the support.  ``solver="dense"`` forms M and calls ``eigh`` (best for
d up to a few hundred); ``solver="lobpcg"`` never forms M: it applies v ↦ Xᵀ(λ ∘ Xv) inside a
LOBPCG iteration warm-started from the previous subspace (best when d ≫ k).

>>> import numpy as np
>>> from onlinelab.embedding.pairs import unit_differences
>>> X = unit_differences(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]]))
>>> X.shape
(3, 2)
>>> lam = np.full(3, 1 / 3)
>>> mu, V = top_k(X, lam, 1)
>>> round(dual_value_from(mu), 6), round(max_distortion(X, V), 6)   # g(λ) ≤ p⋆ ≤ ε(V)
(0.333333, 0.8)
"""
from __future__ import annotations

import warnings

import numpy as np

from onlinelab.core import validation as v
from onlinelab.errors import ConfigError

SOLVERS = ("auto", "dense", "lobpcg")


def _finite_matrix(field: str, value) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ConfigError(f"{field} must be a 2-D array of numbers (rows are points), got {type(value).__name__}; "
                          "pass e.g. a numpy array of shape (r, d)") from None
    if arr.ndim != 2:
        raise ConfigError(f"{field} must be a 2-D array (rows are points), got shape {arr.shape}; "
                          "reshape it to (r, d), e.g. points.reshape(len(points), -1)")
    bad = ~np.isfinite(arr)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ConfigError(f"{field} has a non-finite entry ({arr[i, j]!r} at row {i}, column {j}); "
                          "drop or impute the rows with NaN/inf before fitting")
    return arr


def unit_rows(differences) -> np.ndarray:
    """Differences passed directly: each row scaled to unit length (zero rows are an error).

    Parameters
    ----------
    differences : array-like, shape (n, d)
        Pairwise differences (or any directions) to embed, one per row.
    """
    D = _finite_matrix("differences", differences)
    if D.shape[0] < 1:
        raise ConfigError("differences has no rows; pass at least one pairwise difference")
    norms = np.linalg.norm(D, axis=1)
    zero = np.flatnonzero(norms == 0)
    if zero.size:
        raise ConfigError(f"differences has a zero row (row {int(zero[0])}, {zero.size} in all): it has no direction; "
                          "drop it (it came from two equal points)")
    return D / norms[:, None]


def check_k(k, d: int) -> int:
    """``k`` as an int in [1, d − 1] (k ≥ d embeds isometrically and needs no optimisation).

    Parameters
    ----------
    k : int
        Target dimension.
    d : int
        Ambient dimension.
    """
    k = v.integer("n_components", k, minimum=1)
    if k >= d:
        raise ConfigError(f"n_components must be below the data's dimension d = {d}, got {k}; with k ≥ d the "
                          "identity embeds every pair with distortion 0 — pick n_components ≤ "
                          f"{max(d - 1, 1)}")
    return k


GRAM_BLOCK_BYTES = 1 << 20      # weighted_gram gathers the support's rows in blocks of about this size


def weighted_gram(X: np.ndarray, lam: np.ndarray) -> np.ndarray:
    """M(λ) = Xᵀ diag(λ) X, symmetrised, from the pairs with λ_i > 0 only.

    The support's rows are gathered and scaled in blocks of about 1 MiB (2048 rows at d = 64), so the
    temporaries stay cache-sized and the early rounds, where every pair still has weight, allocate no
    n × d copies (theory §5.6).

    Parameters
    ----------
    X : numpy.ndarray, shape (n, d)
        Unit rows x_i.
    lam : numpy.ndarray, shape (n,)
        Weights λ (a point of the simplex).
    """
    S = np.flatnonzero(lam > 0)
    w = np.sqrt(lam[S])
    block = max(256, GRAM_BLOCK_BYTES // (8 * X.shape[1]))
    M = np.zeros((X.shape[1], X.shape[1]))
    for start in range(0, S.size, block):
        Y = X[S[start:start + block]] * w[start:start + block, None]
        M += Y.T @ Y
    return (M + M.T) / 2


def gram_top_k(M: np.ndarray, k: int):
    """Top-k eigenvalues (descending) and eigenvectors of a formed symmetric M (``eigh``).

    Parameters
    ----------
    M : numpy.ndarray, shape (d, d)
        A symmetric matrix, e.g. `weighted_gram`'s.
    k : int
        How many eigenpairs.
    """
    w, U = np.linalg.eigh(M)
    return w[::-1][:k].copy(), U[:, ::-1][:, :k].copy()


def _dense_top_k(X, lam, k):
    return gram_top_k(weighted_gram(X, lam), k)


def _lobpcg_top_k(X, lam, k, V0, tol, maxiter):
    from scipy.sparse.linalg import lobpcg
    S = np.flatnonzero(lam > 0)
    Xs, ls = X[S], lam[S, None]
    d = X.shape[1]
    block = min(d, k + max(2, k // 2))            # a few extra vectors: convergence rate μ_{b+1}/μ_k, not μ_{k+1}/μ_k
    if V0 is None or V0.shape != (d, block):
        rng = np.random.default_rng(0)
        extra = rng.standard_normal((d, block)) if V0 is None else np.hstack([V0, rng.standard_normal((d, block))])
        V0 = np.linalg.qr(extra)[0][:, :block]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # lobpcg warns on non-convergence; we check the residual ourselves
        w, V = lobpcg(lambda B: Xs.T @ (ls * (Xs @ B)), V0, largest=True, tol=tol, maxiter=maxiter)[:2]
    order = np.argsort(-w)
    w, V = w[order], V[:, order]
    resid = np.linalg.norm(Xs.T @ (ls * (Xs @ V[:, :k])) - V[:, :k] * w[:k], axis=0).max()
    if not np.isfinite(resid) or resid > 100 * tol:
        mu, U = _dense_top_k(X, lam, k)               # did not converge: fall back to the exact dense solve
        return mu, U, np.hstack([U, V[:, k:]])
    return w[:k].copy(), V[:, :k].copy(), V


def top_k(X: np.ndarray, lam: np.ndarray, k: int, *, solver: str = "dense", warm=None, tol: float = 1e-9,
          maxiter: int = 200):
    """Top-k eigenvalues (descending) and eigenvectors (d × k, orthonormal) of M(λ).

    Parameters
    ----------
    X : numpy.ndarray, shape (n, d)
        Unit rows x_i.
    lam : numpy.ndarray, shape (n,)
        Weights λ ≥ 0.
    k : int
        How many eigenpairs.
    solver : {"dense", "lobpcg"}, default "dense"
        ``dense``: form M(λ) and call ``eigh``; ``lobpcg``: matrix-free LOBPCG on v ↦ Xᵀ(λ ∘ Xv).
    warm : numpy.ndarray or None, default None
        LOBPCG starting block (the previous call's third output); ignored by ``dense``.
    tol : float, default 1e-9
        LOBPCG residual tolerance (tr M(λ) = 1, so this is relative); it falls back to ``dense`` when missed.
    maxiter : int, default 200
        LOBPCG iteration cap.

    Returns
    -------
    tuple
        ``(mu, V)`` for ``dense``; ``(mu, V, block)`` for ``lobpcg``, block being the next warm start.
    """
    if solver == "dense":
        return _dense_top_k(X, lam, k)
    if solver == "lobpcg":
        return _lobpcg_top_k(X, lam, k, warm, tol, maxiter)
    raise ConfigError(f"solver must be one of {SOLVERS[1:]}, got {solver!r}")


def pick_solver(solver: str, n: int, d: int, k: int) -> str:
    """``auto`` → ``dense`` unless forming M (n·d² flops per round) costs more than ~20 LOBPCG block products.

    Parameters
    ----------
    solver : {"auto", "dense", "lobpcg"}
        The requested solver.
    n, d, k : int
        Pairs, dimension, target dimension.
    """
    solver = v.choice("solver", solver, SOLVERS)
    if solver != "auto":
        return solver
    return "dense" if d <= 256 or d * d <= 20 * 2 * d * (k + max(2, k // 2)) else "lobpcg"


def captured(X: np.ndarray, V: np.ndarray) -> np.ndarray:
    """‖Vᵀx_i‖² per row: the squared length each pair keeps (1 − distortion).

    Parameters
    ----------
    X : numpy.ndarray, shape (n, d)
        Unit rows x_i.
    V : numpy.ndarray, shape (d, k)
        Orthonormal columns.
    """
    Y = X @ V
    return np.einsum("ij,ij->i", Y, Y)


def supergradient(X: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Lemma 4: ∂g/∂λ_ℓ = −‖Vᵀx_ℓ‖² with V the top-k eigenvectors of M(λ) (theory §5).

    Parameters
    ----------
    X : numpy.ndarray, shape (n, d)
        Unit rows x_i.
    V : numpy.ndarray, shape (d, k)
        Top-k eigenvectors of M(λ).
    """
    return -captured(X, V)


def max_distortion(X: np.ndarray, V: np.ndarray) -> float:
    """ε(V) = max_i (1 − ‖Vᵀx_i‖²), the primal objective of an orthonormal V.

    Parameters
    ----------
    X : numpy.ndarray, shape (n, d)
        Unit rows x_i.
    V : numpy.ndarray, shape (d, k)
        Orthonormal columns.
    """
    return float(1.0 - captured(X, V).min())


def dual_value_from(mu: np.ndarray) -> float:
    """g(λ) = 1 − Σ top-k eigenvalues of M(λ), given those eigenvalues.

    Parameters
    ----------
    mu : numpy.ndarray
        The top-k eigenvalues of M(λ).
    """
    return float(1.0 - np.sum(mu))


def dual_value(X: np.ndarray, lam: np.ndarray, k: int) -> float:
    """g(λ) = 1 − Σ_{j≤k} μ_j(M(λ)) (exact, dense), a lower bound on p⋆ for every λ in the simplex.

    Parameters
    ----------
    X : numpy.ndarray, shape (n, d)
        Unit rows x_i.
    lam : numpy.ndarray, shape (n,)
        A point of the simplex.
    k : int
        Target dimension.
    """
    return dual_value_from(_dense_top_k(X, np.asarray(lam, dtype=float), k)[0])
