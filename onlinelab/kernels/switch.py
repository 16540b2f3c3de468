"""The compiled-kernel switch: on by default; ``simulate(compiled=False)`` runs the numpy reference.

A context variable (not a global), so a run in one thread never flips another's path.

>>> with use_compiled(False):
...     compiled_active()
False
>>> compiled_active()
True
"""
from __future__ import annotations

import contextlib
import contextvars

_ACTIVE: contextvars.ContextVar[bool] = contextvars.ContextVar("onlinelab_compiled", default=True)


def compiled_active() -> bool:
    """Whether block kernels may run now (the switch; a kernel may still fall back if numba cannot compile)."""
    return _ACTIVE.get()


@contextlib.contextmanager
def use_compiled(flag: bool):
    """Within the block, compiled kernels run iff ``flag`` (``simulate`` wraps each run in this).

    Parameters
    ----------
    flag : bool
        True lets learners, environments and recorders use their compiled kernels; False runs the
        numpy reference everywhere.
    """
    token = _ACTIVE.set(bool(flag))
    try:
        yield
    finally:
        _ACTIVE.reset(token)
