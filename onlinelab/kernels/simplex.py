"""Compiled blocks of rounds for the learners on the simplex: Hedge, entropic and log-barrier OMD, the Exp3 family.

Each kernel plays an oblivious block of n rounds for all R replicates in one loop, repeating the
numpy reference of the learner operation by operation (theory §3.2 and §8, docs/theory/03-oco-fenchel.md
and docs/theory/08-bandits-delays.md):

* `ftrl_entropy_block` — Hedge, entropic FTRL on linear losses (`onlinelab.learners.mirror_descent.FTRL`):
  the running sum of α_t g_t and one softmax per round;
* `omd_block` — greedy OMD with the entropy or the log-barrier (`onlinelab.learners.mirror_descent.OMD`);
* `exp3_block` and `logbarrier_bandit_block` — the wrappers of `onlinelab.learners.bandit_simplex`:
  ``exp3``, ``exp3-auer`` and ``exp3-ix`` (entropic FTRL inside), ``logbarrier-bandit`` (log-barrier OMD inside); the
  arm of round i is drawn from the uniform the numpy path would use, ``uniforms[i, r]``, so the two paths
  draw the same arms.  (Two kernels, not one: a kernel compiles every branch it holds, and Exp3 need not
  wait for the log-barrier's solver.)

Every kernel also returns each round's expected loss ⟨p_i, g_i⟩, (n, R), summed in ``np.einsum``'s order as
`onlinelab.losses.vector.LinearLoss.mixed_value` sums it, so the simulator need not compute it again; with
``keep`` False (nothing will read the block's plays: `onlinelab.core.blocks.LossBlock.plays_wanted`) the plays
array has one round, the last, and the kernel writes no (n, R, K) array.

The learners call them through `run` (`onlinelab.kernels.rowops.call`), which binds the shared row helpers,
appends numpy's own exp and log loops (the last argument ``loops``, `onlinelab.kernels.ufuncs`) and returns
None when numba cannot compile — the learner then runs its numpy path.

>>> import numpy as np
>>> G = np.zeros((3, 1, 2)); G[:, 0, 0] = 1.0          # 3 rounds, 1 replicate, 2 experts
>>> acc, z = np.zeros((1, 2)), np.full((1, 2), 0.5)
>>> out = run(ftrl_entropy_block, G, np.ones(3), acc, False, z, 1.0, True)   # None where numba cannot compile
>>> out is None or bool(np.allclose(out[0][2, 0], [1 / (1 + np.e ** 2), 1 - 1 / (1 + np.e ** 2)]))
True
"""
from __future__ import annotations

import numpy as np

from onlinelab.kernels import rowops
from onlinelab.kernels.jit import kernel
from onlinelab.kernels.rowops import call as run  # noqa: F401  (how callers run these kernels)

ENTROPY, LOG_BARRIER = 0, 1    # the mirror map of an OMD kernel


@kernel(loops=True)
def ftrl_entropy_block(G, alphas, acc, has_acc, z, scale, keep, loops):
    """Hedge on n rounds: ``(plays (n, R, K), values (n, R))``; ``acc`` (R, K) is updated in place to
    Σ_{s≤n} α_s g_s, and values[i, r] = ⟨p_i, g_i⟩ is round i's expected loss in ``np.einsum``'s order
    (`onlinelab.losses.vector.LinearLoss.mixed_value`, which the simulator would otherwise compute from the plays).

    Round i plays softmax(−η·acc) with acc the sum before round i (the start point ``z`` when nothing
    is summed yet), then adds α_i g_i: as `FTRL.play_block`'s running sum and row-wise solve.  (Rounds
    outer and replicates inner, and every row through a scratch vector: slicing an array row inside the
    loop costs numba a reference count each time, as much as the row's arithmetic.)
    """
    n, R, K = G.shape
    plays, values = np.empty((n if keep else 1, R, K)), np.empty((n, R))
    neg = -scale
    h = np.empty(K)
    for i in range(n):
        started = has_acc or i > 0
        a, ii = alphas[i], i if keep else 0     # without keep, every round's play goes to row 0: the last stays
        for r in range(R):
            if started:     # softmax(−η·acc) as `rowops.softmax_into`, −η·acc formed in both passes, not stored:
                            # written out here, where h is the kernel's own row (through a helper, 11 % slower)
                top = neg * acc[r, 0]
                for j in range(1, K):
                    x = neg * acc[r, j]
                    if x > top:
                        top = x
                for j in range(K):
                    h[j] = neg * acc[r, j] - top
                rowops.exp_row(h, h, K, loops)
                rowops.normalise_row(h, K)
                for j in range(K):
                    plays[ii, r, j] = h[j]
                    acc[r, j] += a * G[i, r, j]     # a·g is g exactly when a = 1
            else:
                for j in range(K):
                    h[j] = z[r, j]
                    plays[ii, r, j] = h[j]
                    acc[r, j] = a * G[i, r, j]
            values[i, r] = rowops.einsum_dot(G[i, r], h, K)
    return plays, values


@kernel(loops=True)
def omd_block(G, alphas, z, scale, mirror, keep, loops):
    """Greedy OMD on n rounds: ``(plays (n, R, K), values (n, R))`` (values as in `ftrl_entropy_block`); ``z``
    (R, K) ends as the next iterate (updated in place)."""
    n, R, K = G.shape
    plays, values = np.empty((n if keep else 1, R, K)), np.empty((n, R))
    zr, g, gr, scratch, work, nxt = np.empty(K), np.empty(K), np.empty(K), np.empty(K), np.empty(K), np.empty(K)
    for i in range(n):
        a, ii = alphas[i], i if keep else 0     # without keep, every round's play goes to row 0: the last stays
        for r in range(R):
            for j in range(K):
                zr[j] = z[r, j]
                plays[ii, r, j] = zr[j]
                gr[j] = G[i, r, j]
                g[j] = gr[j] if a == 1.0 else a * gr[j]
            values[i, r] = rowops.einsum_dot(gr, zr, K)
            rowops.omd_step_into(mirror, zr, g, scale, scratch, work, nxt, loops)
            for j in range(K):
                z[r, j] = nxt[j]
    return plays, values


@kernel(loops=True)
def exp3_block(losses, uniforms, alphas, acc, has_acc, z, scale, gamma, shift, ix, prev, keep, loops):
    """Exp3 (``shift`` 0), Exp3-Auer (``shift`` −1, γ > 0) and Exp3-IX (``ix`` > 0, the estimate ℓ/(p + ix)):
    entropic FTRL on importance-weighted estimates.

    Round i: the inner play q = softmax(−η·acc) (the start ``z`` before any sum); p = (1 − γ) q + γ/K when
    γ > 0; the arm from ``uniforms[i, r]``; the estimate ((ℓ(arm) + shift)/p(arm))·e_arm
    (`onlinelab.kernels.rowops.bandit_draw_into`); acc += α_i·estimate.  Returns ``(plays (n, R, K),
    realized (n, R), values (n, R))``, values[i, r] = ⟨p_i, ℓ_i⟩ the expected loss (as in `ftrl_entropy_block`);
    ``acc``, ``z`` (the inner play) and ``prev`` (the last estimate) are updated in place.
    """
    n, R, K = losses.shape
    plays, realized, values = np.empty((n if keep else 1, R, K)), np.empty((n, R)), np.empty((n, R))
    q, p, est, lr = np.empty(K), np.empty(K), np.empty(K), np.empty(K)
    neg = -scale
    for i in range(n):
        started = has_acc or i > 0
        a, ii = alphas[i], i if keep else 0     # without keep, every round's play goes to row 0: the last stays
        for r in range(R):
            if started:
                for j in range(K):
                    q[j] = neg * acc[r, j]
                rowops.softmax_into(q, q, loops)
            else:
                for j in range(K):
                    q[j] = z[r, j]
            arm, realized[i, r] = rowops.bandit_draw_into(q, p, est, losses, uniforms, i, r, gamma, shift, ix)
            for j in range(K):
                plays[ii, r, j] = p[j]
                lr[j] = losses[i, r, j]
                g = est[j] if a == 1.0 else a * est[j]
                acc[r, j] = acc[r, j] + g if started else g
                z[r, j] = q[j]
                if i == n - 1:
                    prev[r, j] = est[j]
            values[i, r] = rowops.einsum_dot(lr, p, K)
    return plays, realized, values


@kernel(loops=True)
def logbarrier_bandit_block(losses, uniforms, alphas, z, scale, gamma, prev, keep, loops):
    """The log-barrier bandit: greedy log-barrier OMD on importance-weighted estimates (rounds as `exp3_block`,
    the inner play being the iterate ``z``, updated in place by `onlinelab.kernels.rowops.omd_step_into`;
    returns ``(plays, realized, values)`` as `exp3_block`)."""
    n, R, K = losses.shape
    plays, realized, values = np.empty((n if keep else 1, R, K)), np.empty((n, R)), np.empty((n, R))
    q, p, est, g, lr = np.empty(K), np.empty(K), np.empty(K), np.empty(K), np.empty(K)
    scratch, work, nxt = np.empty(K), np.empty(K), np.empty(K)
    for i in range(n):
        a, ii = alphas[i], i if keep else 0     # without keep, every round's play goes to row 0: the last stays
        for r in range(R):
            for j in range(K):
                q[j] = z[r, j]
            arm, realized[i, r] = rowops.bandit_draw_into(q, p, est, losses, uniforms, i, r, gamma, 0.0, 0.0)
            for j in range(K):
                plays[ii, r, j] = p[j]
                lr[j] = losses[i, r, j]
                g[j] = est[j] if a == 1.0 else a * est[j]
            values[i, r] = rowops.einsum_dot(lr, p, K)
            rowops.omd_step_into(1, q, g, scale, scratch, work, nxt, loops)
            for j in range(K):
                z[r, j] = nxt[j]
                if i == n - 1:
                    prev[r, j] = est[j]
    return plays, realized, values
