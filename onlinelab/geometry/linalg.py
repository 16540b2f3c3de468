"""Batched spectral helpers: symmetric eigh, the log-det normaliser (β) solve, softmax, re-orthonormalisation.

All functions take a leading replicate axis.  The β solve is theory §1.4 (docs/theory/01-bandit-pca.md): given the
eigenvalues ``a`` of ``W⁻¹ + η L̃`` it finds the shift making ``Σ 1/(a_i + β) = 1``,
solved in the shifted variable ``s = a_min + β`` (root in [1, d]) by Newton from s = 1,
which increases monotonically to the root, with a bisection fallback.

>>> import numpy as np
>>> lam = normalised_inverse(np.array([[1.0, 2.0, 3.0]]))
>>> round(float(lam.sum()), 12)
1.0
"""
from __future__ import annotations

import numpy as np

EPS = np.finfo(float).eps


def rows_at(x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``x @ m`` row by row: each vector along the last axis of ``x`` times the matrix ``m``, alone.

    Why: a 2-D product ``(R, n) @ (n, p)`` goes to BLAS as one matrix product for R ≥ 2 but as a
    matrix-vector product for R = 1, whose sums are rounded in another order — replicate 0 of a
    1-replicate run then differs in the last bit from replicate 0 of a larger run.  Here every row is
    its own product of the same shapes, so a row's bits never depend on how many rows there are
    (docs/architecture.md, "Determinism"; measured 1.5 µs more per call at R = 20, d = 8).

    Parameters
    ----------
    x : numpy.ndarray
        Vectors, shape ``(..., n)``: any leading axes (replicates, rounds).
    m : numpy.ndarray
        The matrix, shape ``(n, p)``, the same for every row.

    Returns
    -------
    numpy.ndarray
        Shape ``(..., p)``.

    Examples
    --------
    >>> x, m = np.arange(6.0).reshape(3, 2), np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> rows_at(x, m).tolist()
    [[3.0, 4.0], [11.0, 16.0], [19.0, 28.0]]
    >>> bool((rows_at(x[:1], m)[0] == rows_at(x, m)[0]).all())
    True
    """
    return np.matmul(np.asarray(x)[..., None, :], m)[..., 0, :]


def row_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Σ of ``a * b`` over every axis but the first, one row at a time: ``(R, …) , (R, …) → (R,)``.

    Why: ``np.einsum("rin,rin->r", …)`` over large rows (more than numpy's 8192-element buffer) and
    ``einsum(..., optimize=True)`` sum a row in an order that depends on R; here each row is one
    ``vecdot`` of its own flattened entries, the same bits whatever R (docs/architecture.md, "Determinism").

    Parameters
    ----------
    a, b : numpy.ndarray
        Arrays of one shape ``(R, …)`` (``b`` may broadcast to ``a``'s shape).

    Examples
    --------
    >>> a = np.arange(12.0).reshape(2, 3, 2)
    >>> row_dot(a, a).tolist()
    [55.0, 451.0]
    """
    a = np.asarray(a, dtype=float)
    b = np.broadcast_to(np.asarray(b, dtype=float), a.shape)
    return np.vecdot(a.reshape(a.shape[0], -1), b.reshape(a.shape[0], -1))


def sym(a: np.ndarray) -> np.ndarray:
    """(A + Aᵀ)/2 over the last two axes; always applied before eigh (theory conventions)."""
    return 0.5 * (a + np.swapaxes(a, -1, -2))


def eigh(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Batched eigh of the symmetrised input; eigenvalues ascending."""
    return np.linalg.eigh(sym(a))


def solve_shift(c: np.ndarray, max_iter: int = 100) -> tuple[np.ndarray, np.ndarray]:
    """Solve φ(s) = Σ_i 1/(c_i + s) − 1 = 0 for s ∈ [1, d], per row of c ≥ 0 with min(c) = 0.

    Newton starts from max_k (k − mean of the k smallest c), a lower bound of the root (theory §1.4 starts at 1;
    this start is also left of the root, so the same monotone-convergence argument holds).

    Returns ``(s, newton_steps)``.  Stops at |φ| ≤ 8 ε Σ(c+s)⁻¹ or bracket width ≤ 4 ε s (theory §1.4).
    """
    c = np.asarray(c, dtype=float)
    n, d = c.shape
    # Lower bound of the root: for the k smallest c's, Jensen gives k/(mean_k c + s*) ≤ Σ_{i≤k} 1/(c_i + s*) ≤ 1,
    # so s* ≥ max_k (k − mean_k c).  Start there: left of the root, where Newton on the convex decreasing φ
    # climbs monotonically without overshoot.
    k = np.arange(1, d + 1)
    lo = np.clip(np.max(k - np.cumsum(np.sort(c, axis=1), axis=1) / k, axis=1), 1.0, float(d))
    hi = np.full(n, float(d))
    s = lo.copy()
    steps = np.zeros(n, dtype=int)
    for _ in range(max_iter):  # all rows at once; converged rows are frozen by the mask
        inv = 1.0 / (c + s[:, None])
        total = inv.sum(axis=1)
        phi = total - 1.0
        done = (np.abs(phi) <= 8 * EPS * total) | (hi - lo <= 4 * EPS * s)
        if done.all():
            break
        live = ~done
        steps += live
        pos = phi > 0
        lo = np.where(live & pos, s, lo)
        hi = np.where(live & ~pos, s, hi)
        newton = s + phi / np.einsum("ij,ij->i", inv, inv)
        inside = (newton > lo) & (newton < hi)
        s = np.where(live, np.where(inside, newton, 0.5 * (lo + hi)), s)
    return s, steps


def normalised_inverse(a: np.ndarray) -> np.ndarray:
    """Eigenvalues of ``(A + βI)⁻¹`` with β chosen so they sum to 1, given the eigenvalues ``a`` of A."""
    a = np.atleast_2d(a)
    amin = a.min(axis=1, keepdims=True)
    s, _ = solve_shift(a - amin)
    lam = 1.0 / (a - amin + s[:, None])
    return lam / lam.sum(axis=1, keepdims=True)


def softmax(h: np.ndarray) -> np.ndarray:
    """exp(h)/Σexp(h) per row with a max-shift (MEG's normalised exponential, theory §2)."""
    z = h - np.maximum.reduce(h, axis=-1, keepdims=True)
    np.exp(z, out=z)
    z /= np.add.reduce(z, axis=-1, keepdims=True)
    return z


def orthonormality_error(U: np.ndarray) -> np.ndarray:
    """‖UᵀU − I‖_F per replicate."""
    k = U.shape[-1]
    g = np.swapaxes(U, -1, -2) @ U - np.eye(k)
    return np.sqrt(np.einsum("rij,rij->r", g, g))


def reorthonormalise(U: np.ndarray, tol: float = 1e-12) -> np.ndarray:
    """Return U with orthonormal columns: a Newton–Schulz polar step ``U (3I − UᵀU)/2`` where the error exceeds tol.

    The polar factor is the orthonormal matrix closest to U, so a nearly orthonormal eigenbasis
    moves by O(error) and the spectraplex point it encodes changes by the same order.
    """
    err = orthonormality_error(U)
    bad = err > tol
    if not np.any(bad):
        return U
    U = U.copy()
    k = U.shape[-1]
    for _ in range(3):
        V = U[bad]
        U[bad] = V @ (1.5 * np.eye(k) - 0.5 * (np.swapaxes(V, -1, -2) @ V))
        bad = orthonormality_error(U) > tol
        if not np.any(bad):
            break
    if np.any(bad):  # far from orthonormal: fall back to QR with a sign fix
        Q, R = np.linalg.qr(U[bad])
        U[bad] = Q * np.sign(np.diagonal(R, axis1=-2, axis2=-1))[:, None, :]
    return U
