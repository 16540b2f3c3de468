"""Lazily compiled numba kernels with the on-disk cache, and the fallback when numba cannot compile.

``@kernel`` wraps a plain Python function written in numba's subset.  Nothing happens at import:
numba itself is imported, and the function compiled (or loaded from numba's on-disk cache, so a
second process pays only the load), on the first `Kernel.get`.  If numba is missing or the
compile fails, `Kernel.get` returns None — the caller then runs its numpy reference — and one
`onlinelab.errors.CompileWarning` is issued for the whole process.  The first call's compile
(or cache-load) time is kept in `compile_report`, which the benchmarks print.

>>> @kernel
... def add_one(x):
...     return x + 1.0
>>> fn = add_one.get()
>>> fn is None or fn(1.0) == 2.0
True
"""
from __future__ import annotations

import os
import time
import warnings

from onlinelab.errors import CompileWarning

_REGISTRY: list[Kernel] = []
_FAILED: list[str] = []     # the first failure's reason; non-empty ⇒ every kernel falls back


class Kernel:
    """A Python function compiled by numba on first use; ``get()`` → the compiled function or None.

    Parameters
    ----------
    func : callable
        The kernel, in numba's nopython subset.
    fastmath : bool, default False
        Never set for kernels that must equal the numpy reference: it reorders arithmetic.
    """

    def __init__(self, func, fastmath: bool = False):
        self.func, self.fastmath = func, fastmath
        self.name = f"{func.__module__}.{func.__qualname__}"
        self.compiled = None
        self.compile_s: float | None = None   # the first call's compile (or cache-load) time
        self._tried = False
        self._first_call_ready = False
        _REGISTRY.append(self)

    def get(self):
        """The compiled function, or None when numba cannot compile here (after one warning per process)."""
        if self.compiled is not None:
            return self.compiled
        if self._tried or _FAILED:
            return None
        self._tried = True
        if os.environ.get("ONLINELAB_NO_NUMBA"):
            _fail("ONLINELAB_NO_NUMBA is set")
            return None
        start = time.perf_counter()
        try:
            import numba
            self.compiled = numba.njit(cache=True, fastmath=self.fastmath, nogil=True)(self.func)
        except Exception as exc:  # noqa: BLE001  (any failure to import or set up numba: fall back)
            _fail(f"{type(exc).__name__}: {exc}")
            return None
        self.compile_s = time.perf_counter() - start
        return self.compiled

    def call(self, *args):
        """Call the compiled kernel (compiling on the first call, timed), or return None to ask for the numpy path.

        Compilation happens at the first call with concrete argument types; a compile error there also
        falls back with the one warning.
        """
        fn = self.get()
        if fn is None:
            return None
        if self._first_call_ready:
            return fn(*args)
        start = time.perf_counter()
        try:
            out = fn(*args)
        except Exception as exc:  # numba's TypingError/LoweringError and friends: fall back, once
            if type(exc).__module__.startswith("numba"):
                self.compiled = None
                _fail(f"{self.name}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
                return None
            raise
        self.compile_s = (self.compile_s or 0.0) + time.perf_counter() - start
        self._first_call_ready = True
        return out


def kernel(func=None, *, fastmath: bool = False):
    """Decorator: make ``func`` a lazily compiled `Kernel` (see the module docstring).

    Parameters
    ----------
    func : callable
        The kernel body.
    fastmath : bool, default False
        Passed to numba; off for every kernel that must match its numpy reference.
    """
    if func is None:
        return lambda f: Kernel(f, fastmath=fastmath)
    return Kernel(func, fastmath=fastmath)


def _fail(reason: str) -> None:
    if os.environ.get("ONLINELAB_KERNELS_STRICT"):   # the kernel tests: a kernel that cannot compile is a bug
        raise RuntimeError(f"compiled kernel unavailable: {reason}")
    if not _FAILED:
        _FAILED.append(reason)
        warnings.warn(f"onlinelab's compiled kernels are unavailable here ({reason}); every run uses the numpy "
                      "path, which gives the same numbers more slowly. Install numba, or pass compiled=False "
                      "(config: [run] compiled = false) to silence this.", CompileWarning, stacklevel=4)


def compile_report() -> dict[str, float]:
    """Kernel name → its first call's compile (or on-disk cache load) time in seconds, for kernels used so far."""
    return {k.name: k.compile_s for k in _REGISTRY if k.compile_s is not None}
