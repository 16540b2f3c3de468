"""Compiled block kernels: numba loops that play an oblivious block of rounds whole (docs/architecture.md).

The numpy code of every learner stays the reference and the path for users' own learners; a kernel
here is an optional fast path for a learner's ``play_block`` (or an environment's block emission, or
the recorder's running sums) that consumes the same numpy-drawn uniforms and normals and gives the
same plays and metrics.  This layer sits below everything else in the package (it imports only
numpy, numba — lazily — and `onlinelab.errors`), so core, learners and environments can all
use it.

* `onlinelab.kernels.jit` — `kernel`, a lazily compiled function with numba's on-disk
  cache; nothing compiles (or imports numba) at import; a machine where numba cannot compile falls
  back to the numpy path with one `onlinelab.errors.CompileWarning`.
* `onlinelab.kernels.switch` — `use_compiled` / `compiled_active`: the switch that
  ``simulate(compiled=False)`` and ``[run] compiled = false`` turn off.

>>> from onlinelab.kernels import compiled_active, use_compiled
>>> with use_compiled(False):
...     compiled_active()
False
"""
from __future__ import annotations

from onlinelab.kernels.jit import Kernel, compile_report, kernel
from onlinelab.kernels.switch import compiled_active, use_compiled

__all__ = ["Kernel", "kernel", "compile_report", "compiled_active", "use_compiled"]
