"""‖g‖∞ and ‖g‖₂² of every row of a linear loss, with its smallest and largest entry: one compiled pass for a block.

A block of oblivious losses (`onlinelab.core.blocks`) is checked whole, as one `LinearLoss` of n·R rows: the
declared bound reads each row's ‖g‖∞, the declared sign the smallest or largest entry, the statistics ‖g‖∞² and
‖g‖₂².  With the compiled switch on (`onlinelab.kernels.switch`) and at least `MIN_ROWS` rows,
`onlinelab.kernels.scan.scan_rows_into` gives all four in one pass (exactly numpy's values, ‖g‖₂² in
``np.einsum``'s order); otherwise numpy's ``np.abs(G).max(axis=1)`` and None for the rest (the caller then asks
``G.min()`` / ``G.max()`` / `row_square_sums` itself).

>>> import numpy as np
>>> absmax, lo, hi, fro = row_scan(np.array([[0.5, -2.0]]))
>>> absmax.tolist()
[2.0]
"""
from __future__ import annotations

import numpy as np

from onlinelab.kernels import scan
from onlinelab.kernels.switch import compiled_active

MIN_ROWS = 64   # below this a round's loss: numpy's two calls cost less than a kernel call


def row_scan(G: np.ndarray) -> tuple[np.ndarray, float | None, float | None, np.ndarray | None]:
    """(‖g‖∞ per row, min G or None, max G or None, ‖g‖₂² per row or None) of a 2-D float array G.

    Parameters
    ----------
    G : numpy.ndarray
        The rows, (M, K).
    """
    if (G.shape[0] >= MIN_ROWS and G.dtype == np.float64 and G.flags.c_contiguous and compiled_active()):
        out, fro = np.empty(G.shape[0]), np.empty(G.shape[0])
        got = scan.call(scan.scan_rows_into, G, out, fro)
        if got is not None:
            return out, float(got[0]), float(got[1]), fro
    return np.abs(G).max(axis=1), None, None, None


def row_dots(G: np.ndarray, X) -> np.ndarray:
    """⟨g_r, x_r⟩ for every row, summed in ``np.einsum``'s order for contiguous rows: the order the compiled kernels
    repeat (`onlinelab.kernels.rowops.einsum_dot`), so both paths agree bit for bit.  einsum sums strided rows in
    another order, so strided operands are summed as contiguous copies; BLAS (``np.vecdot``'s ``ddot``) has an
    order no kernel can repeat.

    Parameters
    ----------
    G : numpy.ndarray
        The rows, (..., K).
    X : array_like
        The other rows, broadcastable against G.
    """
    if not G.flags.c_contiguous:
        G = np.ascontiguousarray(G)
    if not getattr(X, "flags", G.flags).c_contiguous:
        X = np.ascontiguousarray(X)
    return np.einsum("...j,...j->...", G, X)


def row_square_sums(G: np.ndarray) -> np.ndarray:
    """‖g‖₂² per row in the order `scan_rows_into` repeats (`row_dots` of G with itself).

    Parameters
    ----------
    G : numpy.ndarray
        The rows, (M, K).
    """
    return row_dots(G, G)
