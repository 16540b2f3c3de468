"""Which rounds a run records: log-spaced checkpoints by default, or the rounds the user names.

>>> [int(t) for t in default_checkpoints(10, 4)]
[1, 2, 5, 10]
"""
from __future__ import annotations

import numpy as np

from onlinelab.core import validation as v
from onlinelab.errors import ConfigError


def default_checkpoints(T: int, n: int = 40) -> np.ndarray:
    """Log-spaced rounds in [1, T], always including T.

    Parameters
    ----------
    T : int
        Horizon.
    n : int, default 40
        Approximate number of log-spaced rounds.
    """
    pts = np.unique(np.round(np.logspace(0, np.log10(T), n)).astype(int)) if T > 1 else np.array([1])
    return np.union1d(pts[(pts >= 1) & (pts <= T)], [T])


def _checkpoints(T: int, checkpoints) -> np.ndarray:
    if checkpoints is None:
        return default_checkpoints(T)
    if isinstance(checkpoints, (int, np.integer)) and not isinstance(checkpoints, bool):
        return default_checkpoints(T, v.integer("checkpoints", checkpoints, minimum=1))
    pts = np.asarray(list(checkpoints))
    if pts.size == 0 or not np.issubdtype(pts.dtype, np.integer) or pts.min() < 1 or pts.max() > T:
        raise ConfigError(f"checkpoints must be round numbers in [1, T={T}], got {list(checkpoints)!r}; "
                          "pass e.g. [10, 100, T] or an integer count for log-spaced checkpoints")
    return np.union1d(pts, [T])
