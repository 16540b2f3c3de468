"""Proximal maps and Moreau envelopes of the ℓ₁ and nuclear norms, batched over leading axes (theory §6).

``soft_threshold(Z, t)`` is the prox of t‖·‖₁ (entrywise shrinkage); ``svt(Z, t)`` is the prox of
t‖·‖_* (singular value thresholding: shrink every singular value by t).  Their Moreau envelopes
``env(Z) = min_W t‖W‖ + ½‖W − Z‖²_F`` are the Huber function summed over entries, resp. over
singular values; the dual energy G_τ of the linearised Bregman iteration is built from them
(theory §6, Lemma 3.5 of the notes).  Arrays may carry any number of leading (replicate) axes;
the matrix is the last two.

>>> import numpy as np
>>> soft_threshold(np.array([-3.0, 0.5, 2.0]), 1.0).tolist()
[-2.0, 0.0, 1.0]
>>> L, sv = svt(np.diag([3.0, 1.0]), 2.0)
>>> L.round(12).tolist(), sv.tolist()
([[1.0, 0.0], [0.0, 0.0]], [1.0, 0.0])
"""
from __future__ import annotations

import numpy as np


def soft_threshold(Z, t) -> np.ndarray:
    """prox of t‖·‖₁: sign(z)·max(|z| − t, 0) entrywise.

    Parameters
    ----------
    Z : array-like
        Any shape.
    t : float or array-like
        Threshold t ≥ 0 (broadcast against ``Z``).
    """
    Z = np.asarray(Z, dtype=float)
    return np.sign(Z) * np.maximum(np.abs(Z) - t, 0.0)


def huber(z, t) -> np.ndarray:
    """The Moreau envelope of t|·| at z: z²/2 for |z| ≤ t, t(|z| − t/2) beyond (entrywise).

    Parameters
    ----------
    z : array-like
        Any shape.
    t : float or array-like
        Threshold t ≥ 0.
    """
    a = np.abs(np.asarray(z, dtype=float))
    return np.where(a <= t, 0.5 * a * a, t * (a - 0.5 * t))


def svd(Z):
    """Thin SVD ``(U, σ, Vᵀ)`` of the last two axes (LAPACK gesdd via numpy, batched).

    Parameters
    ----------
    Z : array-like
        Shape ``(..., n, s)``.
    """
    return np.linalg.svd(np.asarray(Z, dtype=float), full_matrices=False)


def svt(Z, t, factors=None):
    """prox of t‖·‖_* (singular value thresholding): ``(U diag(max(σ − t, 0)) Vᵀ, shrunk σ)``.

    Parameters
    ----------
    Z : array-like
        Shape ``(..., n, s)``.
    t : float or array-like
        Threshold t ≥ 0 (scalar, or one per leading index).
    factors : tuple or None, default None
        A precomputed ``svd(Z)``, to share one decomposition between the prox and the envelope.
    """
    U, sig, Vt = svd(Z) if factors is None else factors
    t = np.asarray(t, dtype=float)[..., None] if np.ndim(t) else t
    shrunk = np.maximum(sig - t, 0.0)
    k = int(np.max(np.count_nonzero(shrunk, axis=-1), initial=0))      # rank kept: multiply only those columns
    L = np.matmul(U[..., :, :k] * shrunk[..., None, :k], Vt[..., :k, :])
    return L, shrunk


def nuclear_envelope(sig, t) -> np.ndarray:
    """Moreau envelope of t‖·‖_* from the singular values σ (last axis): Σ_j huber(σ_j, t).

    Parameters
    ----------
    sig : array-like
        Singular values, shape ``(..., m)``.
    t : float or array-like
        Threshold t ≥ 0 (scalar, or one per leading index).
    """
    t = np.asarray(t, dtype=float)[..., None] if np.ndim(t) else t
    return huber(sig, t).sum(axis=-1)


def l1_envelope(Z, t) -> np.ndarray:
    """Moreau envelope of t‖·‖₁ at the matrix Z (last two axes): Σ_ij huber(z_ij, t).

    Parameters
    ----------
    Z : array-like
        Shape ``(..., n, s)``.
    t : float or array-like
        Threshold t ≥ 0 (scalar, or one per leading index).
    """
    t = np.asarray(t, dtype=float)[..., None, None] if np.ndim(t) else t
    return huber(Z, t).sum(axis=(-2, -1))
