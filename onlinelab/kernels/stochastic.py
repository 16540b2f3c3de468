"""Compiled blocks of the stochastic index policies: UCB1, MOSS, KL-UCB, SW-UCB, D-UCB (theory §10).

Each kernel plays n rounds of an oblivious block for R replicates in one call, with the arithmetic of
the learner's numpy reference (onlinelab/learners/index_bandits.py, changing_bandits.py) written in the
same order, so the plays are the same, bit for bit: sqrt is exact, and log, expm1 and log1p are numpy's own loops
(`onlinelab.kernels.ufuncs`, the table ``loops`` that `onlinelab.kernels.rowops.call` appends).
Per round and replicate: the index of every arm (+inf for an arm without rewards, so each arm is
pulled once first, lowest first), the first arm of largest index, its loss ℓ = ``losses[i, r, arm]``
(written to ``realized``) and its reward 1 − ℓ added to the statistics ``N``, ``S`` (modified in place).
``plays`` (n, R, K), zero on entry, gets the one-hot vector of each arm.

Index codes of `index_block` (``pre[r, i]`` is computed by the learner in numpy, so that it is the
reference's own number; μ̂ = S/N):

* 0 UCB1 — μ̂ + √(2·pre/N), pre = ln max(n, 1);
* 1 MOSS — μ̂ + √(max(ln(a/N), 0)/N), a = T/K;
* 2 KL-UCB, Gaussian kl — μ̂ + a·√(2·max(pre/N, 0)), pre = f(n), a = σ;
* 3 SW-UCB — μ̂ + a·√(b·pre/N) on the window's statistics, pre = ln clip(n, 1, τ), a = B, b = ξ;
* 4 D-UCB — μ̂ + a·√(b·ln max(Σ_j N_j, 1)/N) with discounted statistics, a = 2B, b = ξ;
* 5 Gaussian Thompson sampling — the posterior draw μ̂ + (a/√N)·z, a = σ, z the round's normals.

`klucb_block` solves the Bernoulli KL-UCB index by the Newton iteration of
`onlinelab.geometry.kl.kl_ucb_bernoulli`, each replicate's and arm's index until its own step is below 1e-12,
as the reference does.

>>> import numpy as np
>>> N, S = np.ones((1, 2)), np.array([[0.2, 0.9]])
>>> plays, realized = np.zeros((1, 1, 2)), np.zeros((1, 1))
>>> window = (np.zeros((1, 1), np.int64), np.zeros((1, 1)), 0)
>>> rowops.call(index_block, 0, N, S, np.log(np.full((1, 1), 2.0)), np.zeros((1, 1, 2)), plays, realized,
...              0.0, 0.0, *window, 1.0, np.zeros((1, 1, 1))) in (True, None)
True
>>> plays[0, 0].tolist() in ([0.0, 1.0], [0.0, 0.0])     # [0, 0]: numba cannot compile here
True
"""
from __future__ import annotations

import math

import numpy as np

from onlinelab.kernels import rowops
from onlinelab.kernels.jit import kernel
from onlinelab.kernels.ufuncs import EXPM1, LOG, LOG1P

NEWTON_TOL = 1e-12     # as onlinelab.geometry.kl (the kernels layer imports nothing above it)
MAX_NEWTON = 60


@kernel(loops=True)
def index_block(code, N, S, pre, losses, plays, realized, a, b, warms, wrewards, pos, gamma, z, loops):  # noqa: PLR0912
    """n rounds of the index policy ``code`` (module docstring); ``warms``/``wrewards``/``pos`` are SW-UCB's
    window (arms, −1 when empty; rewards; the slot the next reward overwrites), ``gamma`` D-UCB's discount,
    ``z`` (R, n, K) Gaussian Thompson sampling's normals."""
    n, R, K = losses.shape
    tau = warms.shape[1]
    ratio, log_ratio = np.ones(K), np.empty(K)
    for r in range(R):
        j = pos
        for i in range(n):
            if code == 1:                       # MOSS: ln(a/N) of the row's arms in one call of numpy's loop
                for k in range(K):
                    ratio[k] = a / N[r, k] if N[r, k] != 0 else 1.0
                rowops.apply_unary(loops[LOG], loops[LOG + 1], ratio, log_ratio, K)
            log_total = 0.0
            if code == 4:
                total = N[r, 0]
                for k in range(1, K):
                    total += N[r, k]
                log_total = rowops.scalar_unary(LOG, max(total, 1.0), loops)
            best, best_v = 0, -np.inf
            for k in range(K):
                Nk = N[r, k]
                if Nk == 0:
                    v = np.inf
                elif code == 0:
                    v = S[r, k] / Nk + math.sqrt(2.0 * pre[r, i] / Nk)
                elif code == 1:
                    v = S[r, k] / Nk + math.sqrt(max(log_ratio[k], 0.0) / Nk)
                elif code == 2:
                    v = S[r, k] / Nk + a * math.sqrt(2.0 * max(pre[r, i] / Nk, 0.0))
                elif code == 3:
                    v = S[r, k] / Nk + a * math.sqrt(b * pre[r, i] / Nk)
                elif code == 5:
                    v = S[r, k] / Nk + (a / math.sqrt(Nk)) * z[r, i, k]
                else:
                    v = S[r, k] / Nk + a * math.sqrt(b * log_total / Nk)
                if k == 0 or v > best_v:
                    best, best_v = k, v
            loss = losses[i, r, best]
            x = 1.0 - loss
            realized[i, r] = loss
            plays[i, r, best] = 1.0
            if code == 3:
                old = warms[r, j]
                if old >= 0:                         # the window is full: drop its oldest reward
                    N[r, old] -= 1.0
                    S[r, old] -= wrewards[r, j]
                warms[r, j] = best
                wrewards[r, j] = x
                j = (j + 1) % tau
            elif code == 4 and gamma != 1.0:
                for k in range(K):
                    N[r, k] *= gamma
                    S[r, k] *= gamma
            N[r, best] += 1.0
            S[r, best] += x
    return True


@kernel(loops=True)
def klucb_block(N, S, level, losses, plays, realized, p, lvl, q, neg_c, live, top, loops):  # noqa: PLR0912
    """n rounds of Bernoulli KL-UCB; ``level[r, i]`` = f(n) of the reference; ``p``, ``lvl``, ``q``, ``neg_c``
    (R, K) float and ``live``, ``top`` (R, K) bool are work arrays.  The logs and expm1s of a replicate's K
    arms go to numpy's loop a row at a time (one call per row, not per number)."""
    n, R, K = losses.shape
    x, y, lx, ly = np.empty(K), np.empty(K), np.empty(K), np.empty(K)
    active = np.empty(K, np.bool_)
    for i in range(n):
        for r in range(R):
            any_live = False
            for k in range(K):
                Nk = N[r, k] if N[r, k] != 0 else 1.0
                pk = min(max(S[r, k] / Nk, 0.0), 1.0)
                lk = max(level[r, i] / Nk, 0.0)
                p[r, k], lvl[r, k] = pk, lk
                live[r, k] = pk > 0.0 and pk < 1.0 and lk > 0.0
                top[r, k] = False
                any_live = any_live or live[r, k]
                x[k], y[k] = pk, 1.0 - pk
            rowops.apply_unary(loops[LOG], loops[LOG + 1], x, lx, K)       # log p, log(1 − p)
            rowops.apply_unary(loops[LOG], loops[LOG + 1], y, ly, K)
            for k in range(K):
                if live[r, k]:
                    pk, q_of_p = p[r, k], 1.0 - p[r, k]
                    nc = -(pk * lx[k] + q_of_p * ly[k]) + lvl[r, k]
                    neg_c[r, k] = nc
                    x[k] = -nc / q_of_p
                else:
                    x[k] = -lvl[r, k]
            rowops.apply_unary(loops[EXPM1], loops[EXPM1 + 1], x, y, K)    # the closed-form bounds' expm1
            for k in range(K):
                pk, lk = p[r, k], lvl[r, k]
                if live[r, k]:
                    qk = min(pk + math.sqrt(lk / 2.0), -y[k])
                    if qk >= 1.0:
                        top[r, k] = True
                        qk = 0.5 * (1.0 + pk)
                    q[r, k] = qk
                elif pk >= 1.0:
                    q[r, k] = 1.0
                elif pk <= 0.0:
                    q[r, k] = -y[k]
                else:
                    q[r, k] = pk
            if any_live:             # each index stops at its own tolerance (`onlinelab.geometry.kl.kl_ucb_bernoulli`)
                for k in range(K):
                    active[k] = live[r, k]
                for _ in range(MAX_NEWTON):
                    for k in range(K):
                        x[k], y[k] = q[r, k], -q[r, k]
                    rowops.apply_unary(loops[LOG], loops[LOG + 1], x, lx, K)
                    rowops.apply_unary(loops[LOG1P], loops[LOG1P + 1], y, ly, K)
                    still = False
                    for k in range(K):
                        if active[k]:
                            pk, qk = p[r, k], q[r, k]
                            g = -pk * lx[k] - (1.0 - pk) * ly[k] - neg_c[r, k]
                            step = max(g * qk * (1.0 - qk) / (qk - pk), 0.0) if qk > pk else 0.0
                            q[r, k] = qk - step
                            active[k] = step > NEWTON_TOL
                            still = still or active[k]
                    if not still:
                        break
            for k in range(K):
                if N[r, k] == 0:
                    q[r, k] = np.inf
                elif top[r, k]:
                    q[r, k] = 1.0
            arm = np.argmax(q[r])
            ell = losses[i, r, arm]
            realized[i, r], plays[i, r, arm] = ell, 1.0
            N[r, arm] += 1.0
            S[r, arm] += 1.0 - ell
    return True
