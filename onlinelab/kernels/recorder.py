"""Compiled running sums of a block of rounds: the recorder's totals and the per-arm metrics (theory §10).

The numpy reference adds a block's n rows to a running total with ``np.add.accumulate`` over
``[total, row₀, row₁, …]`` — sequential, so equal to n round-by-round additions — which builds the
whole (n + 1)-row array to keep its last row.  These kernels add the rows in the same order in place:

* `running_into` — ``total += rows[0]; total += rows[1]; …`` (`onlinelab.core.metrics.Recorder.add_block`);
* `rank_one_into` — the comparator's running sum of rank-one losses c·x xᵀ (`onlinelab.losses.matrix.
  SpectralComparator.add_block`) without the (n, R, d, d) array of dense losses: each entry's product
  (x_j c)·x_l is the one ``FactoredLoss.dense`` forms (a single factor: no sum), added in round order;
* `arm_terms_into` — the per-round pseudo-regret ⟨p_t, m_t⟩ − min_i m_t(i), the optimal mass
  Σ_{i best} p_t(i) and the pulls p_t added to their totals (`onlinelab.core.arm_metrics.ArmMetrics.add_block`),
  each inner sum over the K arms in numpy's pairwise order (`onlinelab.kernels.rowops.pairwise_sum`),
  so the totals are bit for bit the numpy path's.

Run them through `run` (`onlinelab.kernels.rowops.call`: it binds the row helpers first and returns None
when numba cannot compile).

>>> import numpy as np
>>> total = np.zeros(2)
>>> done = run(running_into, total, np.ones((3, 2)))
>>> done is None or total.tolist() == [3.0, 3.0]
True
"""
from __future__ import annotations

import numpy as np

from onlinelab.kernels import rowops
from onlinelab.kernels.jit import kernel
from onlinelab.kernels.rowops import call as run  # noqa: F401  (how callers run these kernels)


@kernel
def running_into(total, rows):
    """total (M,) += rows[0], rows[1], …, rows[n − 1] (rows (n, M)), in that order, in place; returns True."""
    n, M = rows.shape
    for i in range(n):
        for k in range(M):
            total[k] += rows[i, k]
    return True


@kernel
def rank_one_into(total, X, coef):
    """total (R, d, d) += (x c) xᵀ for x = X[0, r], X[1, r], …, X[n − 1, r] (X (n, R, d)), in that order, in place;
    returns True.  Entry (j, l) adds (x_j·c)·x_l: the product ``FactoredLoss.dense`` forms for one factor."""
    n, R, d = X.shape
    for i in range(n):
        for r in range(R):
            for j in range(d):
                a = X[i, r, j] * coef
                for k in range(d):
                    total[r, j, k] += a * X[i, r, k]
    return True


@kernel
def arm_terms_into(m, p, regret, optimal, pulls):
    """Add n rounds' per-arm terms in round order: means m (Nm, Rm, K) with Nm = 1 (the same every round) or n and
    Rm = 1 or R, plays p (n, R, K).

    ``regret`` (R,) += ⟨p, m⟩ − min m; ``optimal`` (R,) += Σ p over the arms attaining min m;
    ``pulls`` (R, K) += p.  In place; returns True.  min m is found once per row of m, not once per play.
    """
    n, R, K = p.shape
    Nm, Rm = m.shape[0], m.shape[1]
    prod, hit, best = np.empty(K), np.empty(K), np.empty(Rm)
    for i in range(n):
        im = i if Nm > 1 else 0
        if i == 0 or Nm > 1:
            for rm in range(Rm):
                b = m[im, rm, 0]
                for j in range(1, K):
                    if m[im, rm, j] < b:
                        b = m[im, rm, j]
                best[rm] = b
        for r in range(R):
            rm = r if Rm > 1 else 0           # (indices, not row slices: a slice costs a reference count)
            b = best[rm]
            for j in range(K):
                prod[j] = p[i, r, j] * m[im, rm, j]
                hit[j] = p[i, r, j] * (1.0 if m[im, rm, j] == b else 0.0)
            regret[r] += rowops.pairwise_sum(prod, 0, K) - b
            optimal[r] += rowops.pairwise_sum(hit, 0, K)
            for j in range(K):
                pulls[r, j] += p[i, r, j]
    return True
