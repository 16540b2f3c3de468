"""BLAS thread limits at a call's cost, not a library scan's: one `threadpoolctl.ThreadpoolController` per process.

``threadpoolctl.threadpool_limits`` inspects every loaded shared library on each entry (some milliseconds with
numba, scipy and pandas loaded: most of a short ``simulate`` call's fixed cost).  `limit_threads` keeps one
controller and scans again only when the imported modules changed since its scan (a new import may have loaded a
new BLAS or OpenMP runtime; the key is the hash of ``sys.modules``' names, 15 µs); the limits themselves are
threadpoolctl's, restored on exit.

>>> with limit_threads(1):
...     pass
"""
from __future__ import annotations

import sys

_CACHE: list = []   # [(the hash of sys.modules' names at the scan, controller)]


def controller():
    """The process's `threadpoolctl.ThreadpoolController`, rescanned when the imported modules changed since."""
    from threadpoolctl import ThreadpoolController
    if not _CACHE or _CACHE[0][0] != hash(tuple(sys.modules)):
        made = ThreadpoolController()
        _CACHE[:] = [(hash(tuple(sys.modules)), made)]   # taken after the scan's own imports
    return _CACHE[0][1]


def limit_threads(limits):
    """A context manager: BLAS and OpenMP pools limited to ``limits`` threads inside (None: unchanged).

    Parameters
    ----------
    limits : int or None
        Threads per pool inside the block, as ``threadpoolctl.threadpool_limits(limits=...)``.
    """
    return controller().limit(limits=limits)
