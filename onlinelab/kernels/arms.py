"""Compiled emission of Bernoulli losses for the arms and experts environments (theory §8 and §10).

An arms environment turns uniforms into 0/1 losses, ℓ_t(i) = 1{u_t(i) ≥ θ_t(i)} or 1{u_t(i) < θ_t(i)}
(``bernoulli-arms``: θ = the reward means; ``adversarial-arms`` and ``experts-stochastic``: θ = the loss
means).  The uniforms come from the environment's random streams replicate-major, (R, n, K), and the
block wants its losses round-major, (n, R, K), as floats: numpy needs a comparison, a transposing copy
and a conversion; `threshold_into` writes the block's losses in one pass.  The comparisons are exact,
so the losses are the numpy path's bit for bit.

>>> import numpy as np
>>> u = np.array([[[0.2, 0.7]]])                      # R = 1, n = 1, K = 2
>>> out = np.empty((1, 1, 2))
>>> done = threshold_into.call(u, np.array([[0.5, 0.5]]), False, out, 0)
>>> done is None or out.tolist() == [[[0.0, 1.0]]]
True
"""
from __future__ import annotations

from onlinelab.kernels.jit import kernel


@kernel
def threshold_into(u, thresholds, below, out, start):
    """out[start + i, r, j] = 1.0 where u[r, i, j] < θ (``below``) or ≥ θ (not ``below``), else 0.0; returns True.

    ``thresholds`` is (1, K) (the same every round) or (N, K) indexed by the round of ``out`` (start + i).
    """
    R, n, K = u.shape
    per_round = thresholds.shape[0] > 1
    for i in range(n):
        row = start + i if per_round else 0
        for r in range(R):
            for j in range(K):
                hit = u[r, i, j] < thresholds[row, j] if below else u[r, i, j] >= thresholds[row, j]
                out[start + i, r, j] = 1.0 if hit else 0.0
    return True
