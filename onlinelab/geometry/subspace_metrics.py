"""Metrics of a learned subspace against a reference one, and the t-similarity of an embedding
(theory §4, docs/theory/04-streaming.md).

For orthonormal ``Q`` (R, d, k) and a reference orthonormal ``U`` (d, k'), the cosines of the
principal angles are the singular values of ``Qᵀ U``:

* `sin2_theta` — ``sin²`` of the largest principal angle, ``1 − σ_min(QᵀU)²`` (k = k');
* `sin_theta_fro` — ``‖sin Θ‖_F = √(k − ‖QᵀU‖_F²)``, O(dk²), no SVD;
* `explained_variance` — ``tr(Qᵀ Σ Q) / tr Σ`` for a covariance Σ;
* `reconstruction_error` — ``Σ‖x̂ − x‖² / Σ‖x‖²`` per replicate;
* `t_similarity` — mean over points of the fraction of each point's t nearest
  neighbours (Euclidean, itself excluded) that are still among its t nearest after the
  reduction: one vectorised distance matrix per space and ``argpartition``, O(n²(d + t)).

>>> import numpy as np
>>> U = np.eye(3)[:, :1]
>>> Q = np.array([[[np.cos(0.3)], [np.sin(0.3)], [0.0]]])
>>> bool(abs(sin2_theta(Q, U)[0] - np.sin(0.3) ** 2) < 1e-12)
True
"""
from __future__ import annotations

import numpy as np

from onlinelab.core import validation as v
from onlinelab.errors import ConfigError
from onlinelab.geometry.linalg import row_dot


def _overlap(Q: np.ndarray, U: np.ndarray) -> np.ndarray:
    Q = np.asarray(Q, dtype=float)
    Q = Q[None] if Q.ndim == 2 else Q
    return np.swapaxes(Q, 1, 2) @ np.asarray(U, dtype=float)


def sin2_theta(Q: np.ndarray, U: np.ndarray) -> np.ndarray:
    """sin² of the largest principal angle between span Q and span U, per replicate.

    Parameters
    ----------
    Q : numpy.ndarray
        Orthonormal basis of the learned subspace, ``(d, k)`` or ``(R, d, k)``.
    U : numpy.ndarray
        Orthonormal basis of the reference subspace, ``(d, k')``.
    """
    s = np.linalg.svd(_overlap(Q, U), compute_uv=False)
    return np.clip(1.0 - s.min(axis=-1) ** 2, 0.0, 1.0)


def sin_theta_fro(Q: np.ndarray, U: np.ndarray) -> np.ndarray:
    """‖sin Θ‖_F between span Q and span U (orthonormal bases; min(k, k') angles), per replicate.

    Parameters
    ----------
    Q : numpy.ndarray
        Orthonormal basis of the learned subspace, ``(d, k)`` or ``(R, d, k)``.
    U : numpy.ndarray
        Orthonormal basis of the reference subspace, ``(d, k')``.
    """
    M = _overlap(Q, U)
    return np.sqrt(np.clip(min(M.shape[-2:]) - np.einsum("rij,rij->r", M, M), 0.0, None))


def explained_variance(Q: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """tr(Qᵀ Σ Q) / tr Σ per replicate.

    Parameters
    ----------
    Q : numpy.ndarray
        Orthonormal basis, ``(d, k)`` or ``(R, d, k)``.
    cov : numpy.ndarray
        Covariance Σ, ``(d, d)``.
    """
    Q = np.asarray(Q, dtype=float)
    Q = Q[None] if Q.ndim == 2 else Q
    return row_dot(np.matmul(cov, Q), Q) / np.trace(cov)   # one product per replicate: bits independent of R


def reconstruction_error(X_hat: np.ndarray, X: np.ndarray) -> np.ndarray:
    """Σ‖x̂ − x‖² / Σ‖x‖² over the columns, per replicate (X_hat: (R, d, n), X: (d, n) or (R, d, n)).

    Parameters
    ----------
    X_hat : numpy.ndarray
        Reconstructions, ``(R, d, n)``.
    X : numpy.ndarray
        The samples as columns, ``(d, n)`` or ``(R, d, n)``.
    """
    diff = X_hat - X
    X = np.broadcast_to(X, X_hat.shape)
    return row_dot(diff, diff) / row_dot(X, X)


def pca_basis(X: np.ndarray, k: int, center: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Top-k principal directions (d, k) and all variances (descending) of samples ``X`` (n, d) — batch PCA.

    Needs more than k samples (a centred set of n samples spans at most n − 1 directions).

    Parameters
    ----------
    X : numpy.ndarray
        Samples as rows, ``(n, d)``.
    k : int
        Number of principal directions.
    center : bool, default True
        Subtract the mean first (PCA of the covariance rather than of the second moment).
    """
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    k = v.integer("k", k, minimum=1)
    if n <= k:
        raise ConfigError(f"the data set has {n} samples, too few for k = {k} components; "
                          f"PCA needs more than k samples (use k < {n} or more data)")
    if center:
        X = X - X.mean(axis=0)
    _, s, Vt = np.linalg.svd(X, full_matrices=False)
    return Vt[:k].T, s ** 2 / n


def neighbours(Y: np.ndarray, t: int) -> np.ndarray:
    """Indices (n, t) of each row's t nearest other rows of ``Y`` (n, p), in no particular order.

    Parameters
    ----------
    Y : numpy.ndarray
        Points as rows, ``(n, p)``.
    t : int
        Number of neighbours.
    """
    sq = np.einsum("ij,ij->i", Y, Y)
    dist = sq[:, None] + sq[None, :] - 2.0 * (Y @ Y.T)
    np.fill_diagonal(dist, np.inf)
    return np.argpartition(dist, t - 1, axis=1)[:, :t]


def t_similarity(X: np.ndarray, Y: np.ndarray, t: int = 10) -> float:
    """Mean fraction of each point's t nearest neighbours in ``X`` (n, d) kept in ``Y`` (n, k).

    A score of 1 means every neighbourhood survives the reduction.  Both inputs are row-wise
    samples; ties between equal distances are broken arbitrarily (as ``argpartition`` does).

    Parameters
    ----------
    X : numpy.ndarray
        Original points as rows, ``(n, d)``.
    Y : numpy.ndarray
        Their embedding, ``(n, k)``.
    t : int, default 10
        Neighbourhood size.
    """
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
    if X.ndim != 2 or Y.ndim != 2 or X.shape[0] != Y.shape[0]:
        raise ConfigError(f"t_similarity needs X (n, d) and Y (n, k) with the same n, got shapes {X.shape} and "
                          f"{Y.shape}; pass samples as rows")
    n = X.shape[0]
    t = v.integer("t", t, minimum=1)
    if t >= n:
        raise ConfigError(f"t must be < the number of points n = {n}, got t = {t}")
    before, after = neighbours(X, t), neighbours(Y, t)
    mask = np.zeros((n, n), dtype=bool)
    mask[np.arange(n)[:, None], before] = True
    return float(mask[np.arange(n)[:, None], after].sum() / (n * t))
