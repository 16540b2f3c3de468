"""Orthonormal bases of k-dimensional subspaces: rank checks, batched QR and polar factors, random starts (theory §4).

>>> import numpy as np
>>> Q = orthonormalize(np.random.default_rng(0).standard_normal((2, 5, 3)))
>>> bool(np.allclose(np.swapaxes(Q, 1, 2) @ Q, np.eye(3)))
True
"""
from __future__ import annotations

import numpy as np

from onlinelab.core import validation as v
from onlinelab.errors import ConfigError


def check_rank(k, d: int, where: str = "k") -> int:
    """``k`` must be an integer with 1 ≤ k < d (a proper subspace of R^d).

    Parameters
    ----------
    k : int
        The requested dimension.
    d : int
        The ambient dimension.
    where : str, default "k"
        Parameter name used in the error message.
    """
    k = v.integer(where, k, minimum=1)
    if k >= d:
        raise ConfigError(f"{where} must be < d = {d} (a proper subspace), got {where} = {k}; "
                          f"pick {where} between 1 and {d - 1}")
    return k


def orthonormalize(A: np.ndarray) -> np.ndarray:
    """Thin QR of each ``(d, k)`` slice of ``A`` with R's diagonal made non-negative; returns Q."""
    Q, Rm = np.linalg.qr(A)
    sign = np.sign(np.diagonal(Rm, axis1=-2, axis2=-1)).copy()
    sign[sign == 0] = 1.0
    return Q * sign[..., None, :]


def polar(U: np.ndarray) -> np.ndarray:
    """Orthonormal polar factor ``A Bᵀ`` of ``U = A Σ Bᵀ`` (the closest matrix with orthonormal columns)."""
    A, _, Bt = np.linalg.svd(U, full_matrices=False)
    return A @ Bt


def random_basis(rng, R: int, d: int, k: int) -> np.ndarray:
    """``Q₀ = qr(Gaussian d × k)`` per replicate (theory §4), from the learner's own streams."""
    return orthonormalize(rng.normal((d, k)))
