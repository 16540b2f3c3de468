"""Compiled blocks of rounds for matrix exponentiated gradient (MEG) at small d.

`meg_block` plays rounds of an oblivious block of rank-one losses ``L = c·x xᵀ`` for every replicate
in one loop (theory §2, docs/theory/02-online-pca.md), repeating `onlinelab.learners.meg.MEG` operation by
operation: ``eigh((H + Hᵀ)/2)`` (LAPACK's, as numpy's), the max-shifted softmax of the eigenvalues
(`onlinelab.kernels.rowops.softmax_into`), the eigenvector drawn from the round's one uniform
(`onlinelab.kernels.rowops.categorical`), its realised loss ``c (vᵀx)²`` summed in ``np.einsum``'s order,
and ``H ← H − η c x xᵀ``.  Run it through `onlinelab.kernels.rowops.call`, which compiles the shared
helpers first; None means numba cannot compile here.

>>> import numpy as np
>>> from onlinelab.kernels.rowops import call
>>> X, H = np.ones((1, 1, 2)) / np.sqrt(2), np.zeros((1, 2, 2))
>>> p, V, ell = np.empty((1, 1, 2)), np.empty((1, 1, 2, 2)), np.empty((1, 1))
>>> out = call(meg_block, X, -1.0, np.full((1, 1), 0.3), H, 0.5, p, V, ell)
>>> out is None or bool(np.allclose(p[0, 0], 0.5) and np.isclose(H[0, 0, 1], 0.25))
True
"""
from __future__ import annotations

import numpy as np

from onlinelab.kernels import rowops
from onlinelab.kernels.jit import kernel


@kernel(loops=True)
def meg_block(X, coef, uniforms, H, eta, plays_p, plays_V, realized, loops):
    """n rounds: ``H`` (R, d, d) updated in place; plays (n, R, d), (n, R, d, d) and realised losses (n, R)
    written; returns n (so that None means only "numba cannot compile").  ``X`` (n, R, d) holds the losses'
    factors, ``uniforms`` (n, R) each round's draw; ``loops`` (appended by `onlinelab.kernels.rowops.call`) are numpy's
    exp and log (`onlinelab.kernels.ufuncs`)."""
    n, R, d = X.shape
    S, w, p = np.empty((d, d)), np.empty(d), np.empty(d)
    for i in range(n):
        for r in range(R):
            for j in range(d):
                for k in range(d):
                    S[j, k] = 0.5 * (H[r, j, k] + H[r, k, j])
            h, V = np.linalg.eigh(S)
            rowops.softmax_into(h, p, loops)
            idx = rowops.categorical(p, uniforms[i, r])
            for j in range(d):
                plays_p[i, r, j] = p[j]
                w[j] = V[j, idx]
                for k in range(d):
                    plays_V[i, r, j, k] = V[j, k]
            proj = rowops.einsum_dot(w, X[i, r], d)
            realized[i, r] = proj * proj * coef
            for j in range(d):
                cx = X[i, r, j] * coef
                for k in range(d):
                    H[r, j, k] = H[r, j, k] - eta * (cx * X[i, r, k])
    return n
