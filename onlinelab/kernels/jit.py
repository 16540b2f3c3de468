"""Lazily compiled numba kernels with the on-disk cache, and the fallback when numba cannot compile.

``@kernel`` wraps a plain Python function written in numba's subset.  Nothing happens at import:
numba itself is imported, and the function compiled (or loaded from numba's on-disk cache, so a
second process pays only the load), on the first `Kernel.get`.  If numba is missing, every kernel's
`Kernel.get` returns None — the caller then runs its numpy reference; if one kernel fails to compile,
that kernel alone does; one `onlinelab.errors.CompileWarning` is issued for the whole process.  A
function with no source file (a notebook cell, a doctest) compiles without the on-disk cache.  The first call's compile
(or cache-load) time is kept in `compile_report`, which the benchmarks print.  numba keys a cached kernel on its
own file only; `_guard_cache` empties the package's cache when any kernel source (or numba's version) changed, so a
kernel never runs machine code built from a helper's older source.

>>> @kernel
... def add_one(x):
...     return x + 1.0
>>> add_one.call(1.0)
2.0
"""
from __future__ import annotations

import hashlib
import os
import time
import warnings

from onlinelab.errors import CompileWarning

_REGISTRY: list[Kernel] = []
_NO_NUMBA: list[str] = []   # why numba cannot run here at all; non-empty ⇒ every kernel takes the numpy path
_WARNED: list[str] = []     # the one warning of the process has been given


class Kernel:
    """A Python function compiled by numba on first use; ``get()`` → the compiled function or None.

    Parameters
    ----------
    func : callable
        The kernel, in numba's nopython subset.
    fastmath : bool, default False
        Never set for kernels that must equal the numpy reference: it reorders arithmetic.
    inline : bool, default False
        Inline into every compiled caller (numba's ``inline="always"``): for the small row helpers a kernel
        calls once per replicate and round, where a call costs as much as the work (2.5× on the per-arm sums).
    loops : bool, default False
        The kernel takes numpy's exp/log loops (`onlinelab.kernels.ufuncs.table`) as its last argument, which
        `onlinelab.kernels.rowops.call` appends.
    """

    def __init__(self, func, fastmath: bool = False, inline: bool = False, loops: bool = False):
        self.func, self.fastmath, self.inline, self.loops = func, fastmath, inline, loops
        self.name = f"{func.__module__}.{func.__qualname__}"
        self.compiled = None
        self.compile_s: float | None = None   # the first call's compile (or cache-load) time
        self._tried = False
        self._first_call_ready = False
        _REGISTRY.append(self)

    def get(self):
        """The compiled function, or None when numba cannot compile it here (after one warning per process)."""
        if self.compiled is not None:
            return self.compiled
        if self._tried or _NO_NUMBA:
            return None
        self._tried = True
        if os.environ.get("ONLINELAB_NO_NUMBA"):
            _fail("ONLINELAB_NO_NUMBA is set", everything=True)
            return None
        start = time.perf_counter()
        try:
            import numba
        except Exception as exc:  # noqa: BLE001  (numba missing or broken: every kernel falls back)
            _fail(f"numba cannot be imported ({type(exc).__name__}: {exc})", everything=True)
            return None
        try:
            self.compiled = numba.njit(cache=True, fastmath=self.fastmath, nogil=True,
                                       inline="always" if self.inline else "never")(self.func)
            _guard_cache(self.compiled, numba.__version__, self.func.__code__.co_filename)
        except Exception:  # noqa: BLE001  (no place for the on-disk cache, e.g. a function defined in a notebook)
            try:
                self.compiled = numba.njit(cache=False, fastmath=self.fastmath, nogil=True,
                                           inline="always" if self.inline else "never")(self.func)
            except Exception as exc:  # noqa: BLE001  (this kernel alone falls back)
                _fail(f"{self.name}: {type(exc).__name__}: {exc}")
                return None
        self.compile_s = time.perf_counter() - start
        return self.compiled

    def call(self, *args):
        """Call the compiled kernel (compiling on the first call, timed), or return None to ask for the numpy path.

        Compilation happens at the first call with concrete argument types; a compile error there makes this
        kernel (only) take the numpy path from then on, after the process's one warning.
        """
        fn = self.get()
        if fn is None:
            return None
        if self._first_call_ready:
            return fn(*args)
        start = time.perf_counter()
        try:
            out = fn(*args)
        except Exception as exc:  # numba's TypingError/LoweringError and friends: this kernel falls back
            if type(exc).__module__.startswith("numba"):
                self.compiled = None
                _fail(f"{self.name}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
                return None
            raise
        self.compile_s = (self.compile_s or 0.0) + time.perf_counter() - start
        self._first_call_ready = True
        return out


def kernel(func=None, *, fastmath: bool = False, loops: bool = False):
    """Decorator: make ``func`` a lazily compiled `Kernel` (see the module docstring).

    Parameters
    ----------
    func : callable
        The kernel body.
    fastmath : bool, default False
        Passed to numba; off for every kernel that must match its numpy reference.
    loops : bool, default False
        It takes numpy's exp/log loops as its last argument (`Kernel`).
    """
    if func is None:
        return lambda f: Kernel(f, fastmath=fastmath, loops=loops)
    return Kernel(func, fastmath=fastmath, loops=loops)


def give_up(reason: str) -> None:
    """A kernel cannot run here for ``reason``: its caller takes the numpy path, after the process's one warning
    (an error under ``ONLINELAB_KERNELS_STRICT``, as in the kernel tests)."""
    _fail(reason)


_HERE = os.path.dirname(os.path.abspath(__file__))
_GUARDED: list[tuple[str, str]] = []    # (cache folder, module prefix) checked in this process
STAMP = "onlinelab-kernels.sha256"


def _guard_cache(dispatcher, numba_version: str, source: str) -> None:
    """Empty the on-disk cache of kernels when any of this package's kernel sources changed since it was written.

    numba keys a cached kernel on its own file's timestamp only.  A kernel calling a helper of another file (every
    kernel here calls `onlinelab.kernels.rowops`) would otherwise load machine code built from the helper's old
    source after an upgrade or an edit.  The stamp, a sha256 of every ``kernels/*.py`` and numba's version, lives
    in the cache folder; a mismatch removes the folder's ``.nbi``/``.nbc`` files, once per process.  A kernel
    defined elsewhere (a test's, a plugin's, file ``source``) may call the row helpers too: its module's files
    get a stamp of their own, and only they are removed (the folder may hold other libraries' numba caches).
    """
    folder = getattr(getattr(dispatcher, "_cache", None), "_cache_path", None)
    inside = os.path.dirname(os.path.abspath(source)) == _HERE
    stem = "" if inside else os.path.splitext(os.path.basename(source))[0] + "."
    if folder is None or (folder, stem) in _GUARDED:
        return
    _GUARDED.append((folder, stem))
    digest = hashlib.sha256(numba_version.encode())
    for name in sorted(os.listdir(_HERE)):
        if name.endswith(".py"):
            with open(os.path.join(_HERE, name), "rb") as fh:
                digest.update(name.encode() + b"\0" + fh.read())
    stamp = os.path.join(folder, STAMP if inside else f"{STAMP}.{stem}txt")
    try:
        with open(stamp, encoding="ascii") as fh:
            if fh.read().strip() == digest.hexdigest():
                return
    except OSError:
        pass
    try:
        os.makedirs(folder, exist_ok=True)
        for name in os.listdir(folder):
            if name.endswith((".nbi", ".nbc")) and name.startswith(stem):
                os.remove(os.path.join(folder, name))
        with open(stamp, "w", encoding="ascii") as fh:
            fh.write(digest.hexdigest() + "\n")
    except OSError:
        pass      # a read-only cache folder: numba then compiles without writing, and nothing stale is written


def _fail(reason: str, everything: bool = False) -> None:
    if os.environ.get("ONLINELAB_KERNELS_STRICT"):   # the kernel tests: a kernel that cannot compile is a bug
        raise RuntimeError(f"compiled kernel unavailable: {reason}")
    if everything and not _NO_NUMBA:
        _NO_NUMBA.append(reason)
    if not _WARNED:
        _WARNED.append(reason)
        what = "onlinelab's compiled kernels are unavailable here" if everything else "a compiled kernel failed"
        warnings.warn(f"{what} ({reason}); the affected runs use the numpy path, which gives the same numbers more "
                      "slowly. Install numba, or pass compiled=False (config: [run] compiled = false) to silence "
                      "this.", CompileWarning, stacklevel=4)


def compile_report() -> dict[str, float]:
    """Kernel name → its first call's compile (or on-disk cache load) time in seconds, for kernels used so far."""
    return {k.name: k.compile_s for k in _REGISTRY if k.compile_s is not None}
