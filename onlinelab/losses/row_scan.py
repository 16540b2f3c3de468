"""‖g‖∞ of every row of a linear loss, with its smallest and largest entry: in one compiled pass for a block.

A block of oblivious losses (`onlinelab.core.blocks`) is checked whole, as one `LinearLoss` of n·R rows: the
declared bound reads each row's ‖g‖∞, the declared sign the smallest or largest entry.  With the compiled
switch on (`onlinelab.kernels.switch`) and at least `MIN_ROWS` rows, `onlinelab.kernels.scan.scan_rows_into`
gives all three in one pass (exactly numpy's values); otherwise numpy's ``np.abs(G).max(axis=1)`` and no range
(the caller then asks ``G.min()`` / ``G.max()`` itself).

>>> import numpy as np
>>> absmax, lo, hi = row_scan(np.array([[0.5, -2.0]]))
>>> absmax.tolist()
[2.0]
"""
from __future__ import annotations

import numpy as np

from onlinelab.kernels import scan
from onlinelab.kernels.switch import compiled_active

MIN_ROWS = 64   # below this a round's loss: numpy's two calls cost less than a kernel call


def row_scan(G: np.ndarray) -> tuple[np.ndarray, float | None, float | None]:
    """(‖g‖∞ per row, min G or None, max G or None) of a 2-D float array G.

    Parameters
    ----------
    G : numpy.ndarray
        The rows, (M, K).
    """
    if (G.shape[0] >= MIN_ROWS and G.dtype == np.float64 and G.flags.c_contiguous and compiled_active()):
        out = np.empty(G.shape[0])
        got = scan.scan_rows_into.call(G, out)
        if got is not None:
            return out, float(got[0]), float(got[1])
    return np.abs(G).max(axis=1), None, None
