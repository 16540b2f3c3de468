"""The k largest eigenvalues of stacked PSD matrices, warm-started, for comparators at checkpoints (theory §4).

A streaming comparator needs ``Σ`` of the k largest eigenvalues of a cumulative Gram matrix
``G = Σ_t X_t X_tᵀ`` (d × d) at each checkpoint.  A full eigendecomposition costs O(d³) every
time; between two checkpoints the top-k subspace hardly moves, so `top_k_sum` runs block
Chebyshev-filtered subspace iteration with Rayleigh–Ritz from the previous checkpoint's Ritz vectors: O(d² m) a
sweep with a block of m = 2k + 8 columns, a few sweeps when warm.  Ritz values rise monotonically
to the eigenvalues; the iteration stops when their sum stops moving (relative change below
``rtol``) *and* every wanted residual ‖G z − θ z‖ is below ``sqrt(rtol)``·θ_max, so the error of
each Ritz value, of order ‖r‖²/gap, is at rounding level.  Where that does not happen within
a few sweeps (no gap: a flat spectrum; or a cold start), it falls back to ``numpy.linalg.eigvalsh``,
so the answer is always the exact one to rounding.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.standard_normal((1, 300, 40)) * np.r_[10.0, 8.0, np.ones(298)][None, :, None]
>>> G = X @ np.swapaxes(X, 1, 2)
>>> value, basis = top_k_sum(G, 2, None)
>>> bool(np.isclose(value[0], np.linalg.eigvalsh(G[0])[-2:].sum(), rtol=1e-12))
True
"""
from __future__ import annotations

import numpy as np
from scipy.linalg.blas import dsymm as symm

#: Below this dimension a dense eigvalsh is cheap enough that iterating does not pay.
ITERATIVE_FROM_D = 128


def block_size(d: int, k: int) -> int:
    """Columns of the iteration block: k wanted plus k + 8 guard vectors (at most d).

    Parameters
    ----------
    d : int
        Dimension.
    k : int
        Number of wanted eigenvalues.
    """
    return min(d, 2 * k + 8)


class LowerSymmetric:
    """``A = sign · S`` for stacked symmetric S of which only the lower triangle is current (as ``syrk`` leaves it).

    Products use BLAS ``symm``, which reads one triangle, so S is never mirrored except for the dense
    fallback.

    Parameters
    ----------
    S : numpy.ndarray
        C-ordered ``(R, d, d)`` array, lower triangles valid.
    sign : float, default 1.0
        Multiplier (−1 turns a negative semi-definite cumulative loss into a Gram matrix).
    """

    def __init__(self, S: np.ndarray, sign: float = 1.0):
        self.S, self.sign, self.shape = S, float(sign), S.shape

    def __matmul__(self, V: np.ndarray) -> np.ndarray:
        out = np.empty(V.shape)
        for r in range(self.shape[0]):  # S[r].T is Fortran-ordered and its upper triangle is S[r]'s lower
            out[r] = symm(self.sign, self.S[r].T, V[r], side=0, lower=0)
        return out

    def dense(self) -> np.ndarray:
        low = np.tril(self.S)
        return self.sign * (low + np.swapaxes(np.tril(self.S, -1), -1, -2))


def top_k_sum(G, k: int, basis: np.ndarray | None, rtol: float = 1e-11,
              degree: int = 4) -> tuple[np.ndarray, np.ndarray | None]:
    """Sum of the k largest eigenvalues of each PSD matrix in ``G`` (R, d, d), and a basis for the next call.

    Parameters
    ----------
    G : numpy.ndarray or LowerSymmetric
        Symmetric positive semi-definite matrices, shape ``(R, d, d)``.
    k : int
        How many of the largest eigenvalues to add up.
    basis : numpy.ndarray or None
        Warm start: the basis returned by the previous call (``(R, d, m)``), or None for a cold start.
    rtol : float, default 1e-11
        Accepted error of the sum, relative to the largest eigenvalue (estimated as 10·Σ‖r_i‖²/gap).
    degree : int, default 4
        Degree of the Chebyshev filter applied between two Rayleigh–Ritz steps.
    """
    R, d, _ = G.shape
    m = block_size(d, k)
    if d < ITERATIVE_FROM_D or 4 * k > d:
        return _dense(G, k), None
    if basis is None or basis.shape != (R, d, m):
        # fixed (reruns and resumes are identical), and the same start for every row: a row's start, like the rest
        # of its solve, does not depend on how many replicates there are
        basis = np.broadcast_to(np.random.default_rng(0).standard_normal((d, m)), (R, d, m))
    V = np.linalg.qr(basis)[0]
    # each row keeps its sum and basis from the sweep where it converged itself, and its own filter degree: a row's
    # numbers never depend on the rows beside it (the replicates), as if it were solved alone
    sums, basis_out, done = np.zeros(R), np.empty((R, d, m)), np.zeros(R, dtype=bool)
    for _ in range(max(3, d // (8 * m))):  # beyond that a dense eigvalsh is cheaper
        W = G @ V
        theta, Y = np.linalg.eigh(np.swapaxes(V, 1, 2) @ W)          # Rayleigh–Ritz, ascending
        theta, Y = theta[:, ::-1], Y[:, :, ::-1]
        Z, GZ = V @ Y, W @ Y
        top = np.maximum(theta[:, 0], np.finfo(float).tiny)
        resid = np.linalg.norm(GZ[:, :, :k] - Z[:, :, :k] * theta[:, None, :k], axis=1)   # (R, k)
        gap = np.maximum(theta[:, k - 1] - theta[:, k], 1e-300)
        ok = (resid.max(axis=1) <= 1e-6 * top) & (10 * (resid ** 2).sum(axis=1) / gap <= rtol * top) & ~done
        sums[ok], basis_out[ok], done = theta[ok, :k].sum(axis=1), Z[ok], done | ok
        if done.all():
            return sums, basis_out
        b = np.maximum(theta[:, -1], 1e-8 * top)  # the block's smallest Ritz value: top of the damped interval
        V = np.linalg.qr(_chebyshev(G, Z, GZ, b, _degree(theta[:, k - 1], b, 10 * (resid ** 2).sum(axis=1) / gap,
                                                         rtol * top, degree)))[0]
    # the rest exact; their partly converged basis still warms the next call
    return np.where(done, sums, _dense(G, k)), np.where(done[:, None, None], basis_out, V)


def _dense(G, k):
    full = G.dense() if isinstance(G, LowerSymmetric) else G
    return np.linalg.eigvalsh(full)[:, full.shape[1] - k:].sum(axis=1)


def _degree(wanted, b, err, target, least):
    """Each row's filter degree that should bring its error estimate under target in one sweep (at least
    ``least``): the estimate scales as 1/T_q(x)², x = 2θ_k/b − 1 mapping the k-th Ritz value past the damped
    interval."""
    x = np.maximum(2 * wanted / b - 1, 1.0 + 1e-3)
    need = np.arccosh(np.sqrt(np.maximum(err / target, 1.0))) / np.arccosh(x)
    return np.clip(np.ceil(need), least, 12).astype(int)


def _chebyshev(G, Z, GZ, b, degree):
    """T_degree of G mapped so that [0, b] (the unwanted spectrum) goes to [−1, 1]: damps it, lifts the rest; row
    r stops at its own degree[r]."""
    c = e = (b / 2)[:, None, None]
    prev, cur = Z, (GZ - c * Z) / e
    for step in range(int(degree.max()) - 1):
        nxt = 2 * (G @ cur - c * cur) / e - prev
        scale = np.abs(nxt).max(axis=(1, 2), keepdims=True)
        go = (step < degree - 1)[:, None, None]
        prev, cur = np.where(go, cur / scale, prev), np.where(go, nxt / scale, cur)   # magnitudes kept bounded
    return cur
