"""Small validators shared by every public entry point; each raises an `onlinelab.errors` exception.

The messages follow one pattern: ``<field> must be <rule>, got <value>; <fix>``.

>>> from onlinelab.core.validation import positive_float
>>> positive_float("eta", 0.1)
0.1
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from onlinelab.errors import ConfigError, ConfigTypeError, UnknownNameError, did_you_mean


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def real(field: str, value: Any) -> float:
    """A finite real number."""
    if not _is_real(value):
        raise ConfigTypeError(
            f"{field} must be a number, got {value!r} ({type(value).__name__}); "
            f"write it without quotes, e.g. {field} = 0.1"
        )
    value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise ConfigError(f"{field} must be finite, got {value!r}; pass an ordinary number, e.g. {field} = 0.1 "
                          "(a NaN or infinity usually comes from a computation before the call)")
    return value


def positive_float(field: str, value: Any) -> float:
    """A finite real number > 0."""
    value = real(field, value)
    if value <= 0:
        raise ConfigError(f"{field} must be > 0, got {value!r}; pick a positive value or leave it unset for the "
                          "tuned default")
    return value


def unit_interval(field: str, value: Any) -> float:
    """A real number in [0, 1]."""
    value = real(field, value)
    if not 0.0 <= value <= 1.0:
        raise ConfigError(f"{field} must lie in [0, 1], got {value!r}; e.g. {field} = 0.1")
    return value


def integer(field: str, value: Any, minimum: int | None = None) -> int:
    """An integer (not a bool, not a float), optionally ≥ ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if _is_real(value) and float(value).is_integer():
            hint = f"write {field} = {int(value)}"
        else:
            hint = f"write a whole number, e.g. {field} = {minimum if minimum is not None else 1}"
        raise ConfigTypeError(f"{field} must be an integer, got {value!r} ({type(value).__name__}); {hint}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ConfigError(f"{field} must be >= {minimum}, got {value}; e.g. {field} = {minimum}")
    return value


def choice(field: str, value: Any, choices: tuple) -> Any:
    """One of a fixed set of values."""
    if value not in choices:
        shown = ", ".join(repr(c) for c in choices)
        hint = did_you_mean(value, [c for c in choices if isinstance(c, str)]) if isinstance(value, str) else ""
        raise UnknownNameError(f"{field} must be one of {shown}, got {value!r}{hint}")
    return value


def known_keys(where: str, given: dict, allowed) -> None:
    """Reject keys of ``given`` that are not in ``allowed``."""
    allowed = list(allowed)
    for key in given:
        if key not in allowed:
            raise UnknownNameError(f"unknown key {key!r} in {where}{did_you_mean(key, allowed)}")


def boolean(field: str, value: Any) -> bool:
    """True or False (numpy's bools too), never a string: ``"false"`` would be truthy.

    >>> boolean("accelerated", False)
    False
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    hint = f" (a string: {value!r} would read as true)" if isinstance(value, str) else ""
    meant = "false" if str(value).strip().lower() in ("false", "0", "no", "off") else "true"
    raise ConfigTypeError(f"{field} must be true or false, got {value!r} ({type(value).__name__}){hint}; write "
                          f"{field} = {meant} (a boolean, no quotes)")
