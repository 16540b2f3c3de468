"""The exact minimiser of a quadratic over a vector domain: the comparator's and the game's f* oracle.

``argmin_{x∈K} ½xᵀAx + bᵀx`` per replicate: a linear solve on ℝⁿ, a secular-equation solve on a ball
(a convex trust region), and accelerated projected gradient to machine precision on other domains
(theory §3, docs/theory/03-oco-fenchel.md).

>>> import numpy as np
>>> from onlinelab.geometry.domains import Euclidean
>>> quadratic_argmin(np.eye(2)[None], np.array([[1.0, -2.0]]), Euclidean(2)).tolist()
[[-1.0, 2.0]]
"""
from __future__ import annotations

import numpy as np

from onlinelab.errors import DomainError


def quadratic_argmin(A, b, domain, tol: float = 1e-15, max_iter: int = 100000) -> np.ndarray:
    """argmin_{x∈K} ½xᵀAx + bᵀx per replicate (A PSD): exact on ℝⁿ and balls, iterative elsewhere.

    Parameters
    ----------
    A : numpy.ndarray
        Symmetric PSD matrices, ``(R, n, n)``.
    b : numpy.ndarray
        Linear terms, ``(R, n)``.
    domain : Domain
        The decision set K.
    tol : float, default 1e-15
        Stopping tolerance of the iterative solver (domains other than ℝⁿ and balls).
    max_iter : int, default 100000
        Iteration cap of the iterative solver.
    """
    A, b = np.asarray(A, dtype=float), np.asarray(b, dtype=float)
    if domain.kind == "euclidean":
        try:
            return np.linalg.solve(A, -b[..., None])[..., 0]
        except np.linalg.LinAlgError:
            raise DomainError("the quadratic has no minimiser on ℝⁿ (A is singular); use a ball domain") from None
    if domain.kind == "ball":
        return _ball_argmin(A, b, domain)
    L = np.linalg.eigvalsh(A)[:, -1][:, None]
    x = y = domain.start(b.shape[0])
    t = np.ones((b.shape[0], 1))
    done = np.zeros((b.shape[0], 1), dtype=bool)
    for _ in range(max_iter):  # FISTA with gradient restart; converges linearly when A ≻ 0
        x_new = domain.project(y - (np.einsum("rij,rj->ri", A, y) + b) / np.maximum(L, 1e-300))
        t_new = 0.5 * (1 + np.sqrt(1 + 4 * t * t))
        restart = np.vecdot(y - x_new, x_new - x)[:, None] > 0
        y_new = np.where(restart, x_new, x_new + (t - 1) / t_new * (x_new - x))
        step = np.abs(x_new - x).max(axis=1, keepdims=True)
        # each row keeps its own momentum and stops at its own tolerance, as it would alone: no replicate's
        # comparator depends on how many replicates are solved with it
        x, y, t = np.where(done, x, x_new), np.where(done, y, y_new), np.where(done, t, np.where(restart, 1.0, t_new))
        done |= step <= tol
        if done.all():
            break
    return x


def _ball_argmin(A, b, ball) -> np.ndarray:
    """Convex trust region: z = x − c solves (A + μI) z = −(Ac + b), μ ≥ 0, ‖z‖ ≤ r, μ(r − ‖z‖) = 0."""
    c, r = ball.center, ball.radius
    a, Q = np.linalg.eigh(A)
    beta = np.einsum("rji,rj->ri", Q, np.einsum("rij,j->ri", A, c) + b)
    a = np.maximum(a, 0.0)
    tiny = 1e-14 * np.maximum(a[:, -1:], 1e-300)

    def z_of(mu):
        den = a + mu[:, None]
        return np.where(den > tiny, -beta / np.maximum(den, tiny), 0.0)

    mu = np.zeros(b.shape[0])
    out = np.linalg.norm(z_of(mu), axis=1) > r   # rows whose unconstrained minimiser leaves the ball
    if np.any(out):  # there the root μ* > 0: bisect on [0, ‖β‖/r] until the bracket is relatively tight
        a_out, beta_out = a[out], beta[out]
        lo, hi = np.zeros(a_out.shape[0]), np.linalg.norm(beta_out, axis=1) / r + 1e-300
        done = np.zeros(a_out.shape[0], dtype=bool)    # each row stops when its own bracket closes, as alone
        for _ in range(2000):
            mid = 0.5 * (lo + hi)
            den = a_out + mid[:, None]
            big = np.linalg.norm(np.where(den > tiny[out], -beta_out / np.maximum(den, tiny[out]), 0.0), axis=1) > r
            lo, hi = np.where(big & ~done, mid, lo), np.where(big | done, hi, mid)
            done |= hi - lo <= 4 * np.finfo(float).eps * hi
            if np.all(done):
                break
        mu[out] = hi
    z = z_of(mu)
    return c + np.einsum("rij,rj->ri", Q, z)
