"""One exception hierarchy for onlinelab; every message names the field, the value and the fix.

All validation in the package raises one of these (never ``assert``), so a user can
catch `OnlinelabError` for anything the library rejects.  Each class also
derives from the closest built-in (``ValueError``, ``KeyError``, ``TypeError``) so
generic code that catches those keeps working.

>>> from onlinelab.errors import did_you_mean
>>> did_you_mean("logdet-omb", ["logdet-omd", "meg"])
" (did you mean 'logdet-omd'?)"
"""
from __future__ import annotations

import difflib
from collections.abc import Iterable


class OnlinelabError(Exception):
    """Base class of every error raised by onlinelab."""


class ConfigError(OnlinelabError, ValueError):
    """A configuration value (hyper-parameter, run setting, TOML key) is invalid."""


class ConfigTypeError(ConfigError, TypeError):
    """A configuration value has the wrong type."""


class UnknownNameError(ConfigError, KeyError):
    """A learner, environment, metric or config key name is not known."""

    def __str__(self) -> str:  # KeyError would otherwise repr() the message
        return str(self.args[0]) if self.args else ""


class LossError(OnlinelabError, ValueError):
    """An environment emitted a loss that breaks its declared contract (shape, symmetry, finiteness, norm)."""


class ProtocolError(OnlinelabError, RuntimeError):
    """A player broke the round protocol (e.g. an adaptive environment asked for the current sampled action)."""


class DomainError(ConfigError):
    """A learner, regulariser or loss does not fit the decision domain it was paired with."""


class SimulationError(OnlinelabError, RuntimeError):
    """A run failed midway; ``partial`` holds the `onlinelab.Result` of the rounds completed.

    Parameters
    ----------
    message : str
        What failed, where, and how to fix it.
    partial : Result or None, default None
        The result of the completed checkpoints.
    """

    def __init__(self, message: str, partial=None):
        super().__init__(message)
        self.partial = partial


class StorageError(OnlinelabError, OSError):
    """A run directory is missing, incomplete, or not in the onlinelab format."""


class DataError(OnlinelabError, ValueError):
    """Data handed to an estimator cannot be used as given (NaN, too few points, duplicates, a disconnected graph)."""


class DisconnectedGraphError(DataError):
    """A neighbourhood graph has more than one connected component; ``n_components`` says how many.

    Parameters
    ----------
    message : str
        What was built, how many components, and what to change (t, epsilon, bandwidth).
    n_components : int
        Number of connected components found.
    """

    def __init__(self, message: str, n_components: int):
        super().__init__(message)
        self.n_components = n_components


class CheckError(OnlinelabError, AssertionError):
    """A user's learner or environment failed a conformance check (``onlinelab check``)."""


class CompileWarning(UserWarning):
    """numba cannot compile onlinelab's block kernels here: runs take the numpy path (same numbers, slower)."""


class BoundViolationWarning(UserWarning):
    """A learner's mean regret exceeded a bound whose assumptions all held: a bug or a wrong constant."""


class NumericalError(SimulationError):
    """A learner's state or plays became non-finite (NaN or inf) mid-run; the message names its step parameters.

    Raised at a metric checkpoint (`onlinelab.core.numerics`); ``partial`` holds the checkpoints completed.
    """


class NumericalWarning(UserWarning):
    """A learner is numerically unstable (a step far past its bounds' assumptions, unstable updates, a plan that
    is no longer a probability vector or density matrix); the message names the parameter to lower."""


def did_you_mean(name: object, choices: Iterable[str]) -> str:
    """Return ``" (did you mean 'x'?)"`` for the closest choice, or a list of choices when none is close.

    Parameters
    ----------
    name : object
        The unknown name.
    choices : iterable of str
        The valid names.
    """
    choices = sorted(set(choices))
    close = difflib.get_close_matches(str(name), choices, n=1, cutoff=0.5)
    if close:
        return f" (did you mean {close[0]!r}?)"
    if choices:
        return f" (choose one of: {', '.join(choices)})"
    return ""
