"""Compiled blocks of the randomised stochastic policies: Thompson sampling and ε-greedy (theory §10).

The kernels draw nothing: the learner hands them the uniforms and normals its rounds take from its
streams (`onlinelab.learners.stochastic_draws.take_rounds`), so both paths play on the same numbers.
Arithmetic is written in the order of the numpy reference (onlinelab/learners/thompson.py, greedy.py), its
logs numpy's own loop (`onlinelab.kernels.ufuncs`; run through `onlinelab.kernels.rowops.call`, which appends it).
As in `onlinelab.kernels.stochastic`: ``N``, ``S`` are updated in place, ``plays`` (n, R, K) gets p_t
(zero on entry), ``realized`` (n, R) the played arm's loss.

* `thompson_bernoulli_block` — per round, 2K Gamma variates by Marsaglia and Tsang from the round's
  own pairs ``z[r, i, j]``, ``u[r, i, j]`` (j < 2K; the kernel takes log u) and, for the rejected ones in order,
  the pool's pairs (j ≥ 2K; the variate is d = shape − 1/3 if the pool runs out); Beta draws G_a/(G_a + G_b);
  then the Bernoulli trial 1{``trial[r, i]`` < reward}; with γ < 1 the statistics are discounted first (``d-thompson``).
* Gaussian Thompson sampling's draw μ̂ + (σ/√N)·z is an index: `onlinelab.kernels.stochastic.index_block`, code 5.
* `epsilon_greedy_block` — p = ε/K + (1 − ε)·e_greedy, ε = min(1, cK/(d²t)); the arm is the first i whose
  running sum of p exceeds u·Σp (`onlinelab.core.rng.categorical_from`).

>>> import numpy as np
>>> N, S = np.ones((1, 2)), np.array([[0.0, 1.0]])
>>> plays, realized = np.zeros((1, 1, 2)), np.zeros((1, 1))
>>> u = np.full((1, 1, 1), 0.99)          # the uniform picks the last arm of p = (ε/2, ε/2 + 1 − ε)
>>> epsilon_greedy_block.call(N, S, np.ones((1, 1)), u, np.zeros((1, 1, 2)), plays, realized, 0.1, 1.0) in (True, None)
True
>>> np.round(plays[0, 0], 12).tolist() in ([0.05, 0.95], [0.0, 0.0])     # [0, 0]: numba cannot compile here
True
"""
from __future__ import annotations

import math

import numpy as np

from onlinelab.kernels import rowops
from onlinelab.kernels.jit import kernel
from onlinelab.kernels.ufuncs import LOG


@kernel(loops=True)
def thompson_bernoulli_block(N, S, z, log_u, trial, losses, plays, realized, gamma, loops):
    """n rounds of Beta–Bernoulli Thompson sampling: ``z``, ``log_u`` (R, n, 2K + P) the normals and the logs of the
    uniforms (``np.log`` of the drawn uniforms, numpy's own numbers), ``trial`` (R, n); with ``gamma`` < 1,
    discounted Thompson sampling (every arm's N, S times γ before the round's reward is added).  The logs of a
    round's 2K first candidates go to numpy's loop in one call; a pool candidate's alone."""
    n, R, K = losses.shape
    width = z.shape[2]
    g, theta = np.empty(2 * K), np.empty(K)
    ds, cs, vs, vmax, logv = np.empty(2 * K), np.empty(2 * K), np.empty(2 * K), np.empty(2 * K), np.empty(2 * K)
    for r in range(R):
        for i in range(n):
            for j in range(2 * K):
                shape = 1.0 + S[r, j] if j < K else 1.0 + N[r, j - K] - S[r, j - K]
                d = shape - 1.0 / 3.0
                c = 1.0 / math.sqrt(9.0 * d)
                v = 1.0 + c * z[r, i, j]
                v = v * v * v
                ds[j], cs[j], vs[j], vmax[j] = d, c, v, max(v, 1e-300)
            rowops.apply_unary(loops[LOG], loops[LOG + 1], vmax, logv, 2 * K)
            k_pool = 2 * K
            for j in range(2 * K):
                d, c, v, lv = ds[j], cs[j], vs[j], logv[j]
                zj, luj = z[r, i, j], log_u[r, i, j]
                while True:
                    if v > 0 and luj < 0.5 * zj * zj + d - d * v + d * lv:
                        g[j] = d * v
                        break
                    if k_pool >= width:
                        g[j] = d
                        break
                    zj, luj = z[r, i, k_pool], log_u[r, i, k_pool]
                    k_pool += 1
                    v = 1.0 + c * zj
                    v = v * v * v
                    lv = rowops.scalar_unary(LOG, max(v, 1e-300), loops)
            for k in range(K):
                theta[k] = g[k] / (g[k] + g[K + k])          # Beta(1 + S, 1 + F)
            arm = np.argmax(theta)
            ell = losses[i, r, arm]
            realized[i, r], plays[i, r, arm] = ell, 1.0
            success = 1.0 if trial[r, i] < 1.0 - ell else 0.0       # the Bernoulli trial
            if gamma != 1.0:
                for k in range(K):
                    N[r, k] *= gamma
                    S[r, k] *= gamma
            N[r, arm] += 1.0
            S[r, arm] += success
    return True


@kernel
def epsilon_greedy_block(N, S, n0, u, losses, plays, realized, c, d):
    """n rounds of ε-greedy from ``n0[r]`` rewards observed: ``u`` (R, n, 1) the categorical draws' uniforms."""
    n, R, K = losses.shape
    cum = np.empty(K)
    for r in range(R):
        for i in range(n):
            greedy, best_v = 0, -np.inf
            for k in range(K):
                v = np.inf if N[r, k] == 0 else S[r, k] / N[r, k]
                if k == 0 or v > best_v:
                    greedy, best_v = k, v
            t = n0[r, 0] + i + 1.0
            eps = min(1.0, c * K / (d * d * t))
            p = plays[i, r]
            for k in range(K):
                p[k] = eps / K
            p[greedy] += 1.0 - eps
            total = 0.0
            for k in range(K):
                total = p[k] if k == 0 else total + p[k]
                cum[k] = total
            threshold = u[r, i, 0] * total
            arm = K - 1
            for k in range(K - 1):
                if cum[k] > threshold:
                    arm = k
                    break
            loss = losses[i, r, arm]
            realized[i, r] = loss
            N[r, arm] += 1.0
            S[r, arm] += 1.0 - loss
    return True
