"""Input checks shared by the manifold estimators: each failure is an `onlinelab.errors` exception.

>>> import numpy as np
>>> check_points(np.zeros((3, 2))).shape
(3, 2)
>>> try:
...     check_count("n_neighbors", 5, m=5)
... except ConfigError as err:          # onlinelab.errors.ConfigError
...     print(err)
n_neighbors must be < the number of points m = 5, got 5; use n_neighbors <= 4 or more points
"""
from __future__ import annotations

import numpy as np

from onlinelab.core import validation as v
from onlinelab.errors import ConfigError, DataError


def check_points(X, name: str = "X", min_points: int = 2) -> np.ndarray:
    """``X`` as a finite float array of points as rows, ``(m, d)``.

    Parameters
    ----------
    X : array_like
        Points as rows.
    name : str, default "X"
        Name used in messages.
    min_points : int, default 2
        Fewest rows accepted.
    """
    try:
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise DataError(f"{name} must be a numeric array of points as rows, got {type(X).__name__}: {exc}") from exc
    if X.ndim == 1:
        raise DataError(f"{name} must be 2-D (points as rows), got shape {X.shape}; "
                        f"use X.reshape(-1, 1) for one feature or X.reshape(1, -1) for one point")
    if X.ndim != 2:
        raise DataError(f"{name} must be 2-D (points as rows), got shape {X.shape}")
    bad = ~np.isfinite(X)
    if bad.any():
        rows = np.flatnonzero(bad.any(axis=1))
        raise DataError(f"{name} has NaN or infinite entries in {rows.size} row(s) (first: row {rows[0]}); "
                        "drop or impute them before embedding")
    if X.shape[0] < min_points:
        raise DataError(f"{name} has {X.shape[0]} point(s); at least {min_points} are needed")
    return X


def check_count(field: str, value, m: int, minimum: int = 1) -> int:
    """An integer count (neighbours, components) that must stay below the number of points ``m``.

    Parameters
    ----------
    field : str
        Parameter name used in messages.
    value : int
        The count.
    m : int
        Number of points.
    minimum : int, default 1
        Smallest value accepted.
    """
    value = v.integer(field, value, minimum=minimum)
    if value >= m:
        raise ConfigError(f"{field} must be < the number of points m = {m}, got {value}; "
                          f"use {field} <= {m - 1} or more points")
    return value
