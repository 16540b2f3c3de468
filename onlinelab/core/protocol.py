"""The nouns of a round: what a learner plays, what it is told, and what an environment may see.

Every array carries the replicate axis first (length R).  See the protocol, docs/guide/writing-learners.md.

* `Context`  — what is fixed for a run: dimension, horizon, replicates, and the
  environment's declared properties (norm bound, sign of losses, adaptivity).
* `EigenPlay` — a spectraplex mixed strategy kept as eigenpairs ``W = U diag(lam) Uᵀ``.
* `Play`      — a learner's move: the mixed strategy and (for randomised learners)
  the sampled action, plus private ``info`` the learner needs for its own update.
* `Feedback`  — what the learner is told: the whole loss (full information) or only
  the scalar loss of its action (bandit); nothing more.
* `HistoryView` — what an adaptive environment may read: past actions, past losses and
  the current mixed strategy, never the current sampled action (theory §1.1, docs/theory/01-bandit-pca.md).

>>> import numpy as np
>>> p = EigenPlay(np.full((2, 3), 1 / 3), np.broadcast_to(np.eye(3), (2, 3, 3)))
>>> p.dense().shape
(2, 3, 3)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from onlinelab.errors import ConfigError, ProtocolError


@dataclass(frozen=True)
class Context:
    """What a learner may know before round 1.

    ``loss_bound`` is the environment's declared bound on ‖L_t‖₂; ``psd`` is True/False
    when every loss is declared positive/negative semi-definite (None: no sign);
    ``fro_sq_mean`` bounds the mean of ‖L_t‖_F² (the r of theory §1.5 Theorem 6).

    Parameters
    ----------
    d : int
        Dimension.
    T : int
        Horizon.
    replicates : int
        Number of replicates R.
    loss_bound : float, default 1.0
        The environment's declared bound on ‖L_t‖₂.
    psd : bool or None, default None
        The environment's declared sign of the losses.
    adaptive : bool, default False
        Whether the environment reads the history.
    fro_sq_mean : float, default 1.0
        Declared bound on the mean ‖L_t‖_F².
    domain : str, default "spectraplex"
        The environment's decision set.
    """

    d: int
    T: int
    replicates: int
    loss_bound: float = 1.0
    psd: bool | None = None
    adaptive: bool = False
    fro_sq_mean: float = 1.0
    domain: str = "spectraplex"


@dataclass(frozen=True)
class EigenPlay:
    """A batch of spectraplex points ``W_r = U_r diag(lam_r) U_rᵀ`` (lam: (R, d), U: (R, d, d)).

    Parameters
    ----------
    lam : numpy.ndarray
        Eigenvalues (weights), shape ``(R, d)`` or ``(R, k)``.
    U : numpy.ndarray
        Orthonormal eigenvectors as columns, shape ``(R, d, d)`` or ``(R, d, k)``.
    """

    lam: np.ndarray
    U: np.ndarray

    def dense(self) -> np.ndarray:
        return (self.U * self.lam[:, None, :]) @ np.swapaxes(self.U, 1, 2)

    def eig(self) -> tuple[np.ndarray, np.ndarray]:
        return self.lam, self.U

    def top_vector(self) -> np.ndarray:
        """The eigenvector of largest weight, per replicate: (R, d)."""
        idx = np.argmax(self.lam, axis=1)
        return np.take_along_axis(self.U, idx[:, None, None], axis=2)[:, :, 0]


class _PlayFields(NamedTuple):
    mixed: Any
    action: np.ndarray | None
    info: dict


class Play(_PlayFields):
    """A learner's move for all replicates: ``mixed`` strategy, sampled ``action`` (or None), private ``info``.

    Immutable (a named tuple: cheap to build, and built every round).

    Parameters
    ----------
    mixed : object
        The mixed strategy (an EigenPlay, a dense matrix, or a vector per replicate).
    action : numpy.ndarray or None, default None
        The sampled action, shape ``(R, d)``, for randomised learners; hidden from the environment.
    info : dict, default {}
        Private data the learner passes from ``act`` to ``update``.
    """

    __slots__ = ()

    def __new__(cls, mixed, action=None, info=None):
        return tuple.__new__(cls, (mixed, action, {} if info is None else info))

    def __init__(self, mixed, action=None, info=None):  # the signature, for inspect and the docs; __new__ builds
        pass


class _FeedbackFields(NamedTuple):
    kind: str
    loss: Any
    value: np.ndarray | None
    gradient: np.ndarray | None


class Feedback(_FeedbackFields):
    """What the learner is told after the round: ``kind`` is "full", "bandit" or "first_order".

    Immutable (a named tuple: cheap to build, and built every round).

    Parameters
    ----------
    kind : {"full", "bandit", "first_order"}
        The feedback kind.
    loss : object or None, default None
        The whole loss (full information only).
    value : numpy.ndarray or None, default None
        The scalar loss of the play, shape ``(R,)``.
    gradient : numpy.ndarray or None, default None
        A (sub)gradient at the play (first-order feedback).
    """

    __slots__ = ()

    def __new__(cls, kind, loss=None, value=None, gradient=None):
        if kind == "bandit" and loss is not None:
            raise ProtocolError("bandit feedback carries only the scalar loss of the action; got the whole loss")
        return tuple.__new__(cls, (kind, loss, value, gradient))

    def __init__(self, kind, loss=None, value=None, gradient=None):  # the signature (inspect, docs); __new__ builds
        pass


class HistoryView:
    """Read-only history for adaptive environments: past actions and losses, the current mixed strategy.

    ``actions`` and ``losses`` are the sampled actions and losses of past rounds, oldest first,
    at most the environment's ``history_window`` of them (the last 1000 rounds by default, so memory
    stays flat in T; set ``history_window = None`` on the environment class to keep every round).
    The current round's sampled action is not here, by construction: the simulator appends it only
    after the environment has emitted the round's loss.

    Parameters
    ----------
    t : int
        The current round.
    mixed : object
        The learner's current mixed strategy (a read-only view).
    actions : sequence
        Past sampled actions, oldest first.
    losses : sequence
        Past losses, oldest first.
    """

    __slots__ = ("t", "mixed", "_actions", "_losses")

    def __init__(self, t: int, mixed, actions: list, losses: list):
        self.t, self.mixed = t, mixed
        self._actions, self._losses = actions, losses

    @property
    def actions(self) -> tuple:
        return tuple(self._actions)

    @property
    def losses(self) -> tuple:
        return tuple(self._losses)

    def __getattr__(self, name):
        if name in ("action", "current_action", "sampled_action", "play"):
            raise ProtocolError(
                f"an environment asked for history.{name} in round {self.t}: the current sampled action is "
                "hidden from environments (theory §1.1); use history.mixed (the mixed strategy) or history.actions "
                "(past rounds)"
            )
        raise AttributeError(name)


def frozen(array: np.ndarray) -> np.ndarray:
    """A read-only view, so that nothing downstream mutates what it was shown.

    Parameters
    ----------
    array : array-like
        The array to view.
    """
    view = np.asarray(array).view()
    view.flags.writeable = False
    return view


def frozen_mixed(mixed):
    """A read-only view of a mixed strategy (arrays, or a dataclass/NamedTuple of arrays) for environments.

    Parameters
    ----------
    mixed : object
        A mixed strategy: an array, an EigenPlay, or another object (returned as is).
    """
    if isinstance(mixed, np.ndarray):
        return frozen(mixed)
    if isinstance(mixed, EigenPlay):
        return EigenPlay(frozen(mixed.lam), frozen(mixed.U))
    return mixed


def history_window(env, env_label: str) -> int | None:
    """The environment's ``history_window``, checked: a count of rounds ≥ 0, or None for the whole history.

    Parameters
    ----------
    env : Environment
        The environment (its class attribute, 1000 by default).
    env_label : str
        Its label, for the message.
    """
    window = getattr(env, "history_window", 1000)
    if window is None:
        return None
    if isinstance(window, (bool, float)) or not isinstance(window, (int, np.integer)) or window < 0:
        raise ConfigError(f"environment {env_label!r}: history_window must be a number of rounds >= 0 or None (keep "
                          f"every round), got {window!r}; e.g. history_window = 1000 (the default)")
    return int(window)


def history_write_error(exc: ValueError, env_label: str, t: int) -> ProtocolError | None:
    """The clear error for an environment that wrote into its read-only history, or None for another ValueError.

    The arrays an adaptive environment is shown (``history.mixed``, the past actions and losses) are read-only
    views of the learner's own state; numpy refuses a write into one with a bare "read-only" ValueError, which
    this turns into a `onlinelab.errors.ProtocolError` naming the environment, the round and the fix.

    Parameters
    ----------
    exc : ValueError
        What ``emit`` raised.
    env_label : str
        The environment's label.
    t : int
        The round.

    Examples
    --------
    >>> str(history_write_error(ValueError("assignment destination is read-only"), "drift", 3))[:58]
    "environment 'drift' wrote into its history in round 3 (ass"
    """
    if "read-only" not in str(exc):
        return None
    return ProtocolError(f"environment {env_label!r} wrote into its history in round {t} ({exc}): history.mixed, "
                         "history.actions and history.losses are read-only views of the learner's state; copy "
                         "before changing, e.g. mixed = np.array(history.mixed)")
