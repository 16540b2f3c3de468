"""Freed block arrays stay in the process heap: each block's new arrays reuse pages instead of faulting them in.

A run in blocks (`onlinelab.core.blocks`) allocates a few arrays of about 2 MB for every block — the
environment's losses and uniforms, a kernel's plays — and frees them when the block is done.  With glibc's
defaults those pages go back to the operating system: an array above the mmap threshold is unmapped on
``free``, and one taken from the heap is trimmed away once the free memory at the heap's top passes the trim
threshold (twice the mmap threshold, which glibc raises only to the largest array freed so far).  The next block's
arrays then fault every page in again, zeroed by the kernel: measured here, 3 878 minor page faults per
``simulate`` of Exp3 at T = 10⁴, R = 20 — some 15–20 ms on a virtual machine, a third of the compiled floor's
whole run (benchmarks/bench_bandits.py) — and 55 with the settings below.

`keep_freed_memory` sets, once per process on glibc, the mmap threshold to `MMAP_THRESHOLD` (arrays below it come
from the heap) and the trim threshold to `TRIM_THRESHOLD` (up to that much freed memory stays in the process for
the next allocation).  The settings are the process's, for good: glibc's own adjustment of the two thresholds stays
off afterwards.  The cost: after a run the process may keep up to `TRIM_THRESHOLD` of freed memory that the
defaults would have returned (a run's own peak does not grow, since the kept pages are what its next block reuses,
but in a long-lived process, a notebook kernel or a dask worker, fragmentation may keep more memory resident).
``simulate`` calls it; set ``ONLINELAB_KEEP_HEAP=0`` in the environment to keep the C library's defaults.  On other
C libraries (macOS, Windows, musl) it does nothing.

>>> isinstance(keep_freed_memory(), bool)
True
"""
from __future__ import annotations

import ctypes
import os
import sys

MMAP_THRESHOLD = 32 * 2 ** 20    # glibc's largest accepted value on 64-bit (half its 64 MiB heap size)
TRIM_THRESHOLD = 64 * 2 ** 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3   # mallopt's parameter numbers (malloc.h)
_DONE: list[bool] = []


def keep_freed_memory() -> bool:
    """Apply the two glibc settings of the module docstring once per process; whether they are in force.

    False where the C library is not glibc, where ``ONLINELAB_KEEP_HEAP`` is ``0``, or where ``mallopt``
    refuses a value (then the mmap threshold may be set alone; the trim threshold stays glibc's).
    """
    if not _DONE:
        _DONE.append(_apply())
    return _DONE[0]


def _apply() -> bool:
    if os.environ.get("ONLINELAB_KEEP_HEAP", "1").strip().lower() in ("0", "false", "no", "off"):
        return False
    if not sys.platform.startswith("linux") or not _glibc():
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt    # the C library this process already runs on
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    # the mmap threshold first: setting either one turns glibc's own adjustment of both off
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))


def _glibc() -> bool:
    """Whether the process runs on glibc (``confstr`` names its version there; musl answers nothing or "")."""
    try:
        return bool(os.confstr("CS_GNU_LIBC_VERSION"))
    except (ValueError, OSError, AttributeError):
        return False
