"""Experiment kinds beyond "learners against environments", dispatched by a top-level TOML table.

``onlinelab run CONFIG`` looks at the config's top-level tables: a table registered here
(``[game]``, and every family that adds its own) sends the whole config to that kind's
runner; anything else is a regret simulation (:mod:`onlinelab.experiment.default`).  A runner takes
the parsed TOML and the command line's overrides and returns a :class:`RunOutcome`; the CLI
writes the run directory and prints the summary, so every kind behaves alike.

A kind whose runs need their own result class (its summary table, figure and exit status) names
it with ``result="module:Class"``; :func:`onlinelab.load_run` reads the kind from the run's
``meta.json`` (key ``kind``, which the CLI records) and rebuilds that class as ``Class(metrics, meta)``,
so ``onlinelab report RUN`` prints the right table for every kind.  The class should subclass
:class:`~onlinelab.Result` and may override ``summary``, ``summary_text``, ``exit_status`` and ``plot``.

>>> "game" in kinds()
True
>>> result_class({"kind": "game"}).__name__, result_class({}).__name__
('GameResult', 'Result')
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from onlinelab.errors import ConfigError
from onlinelab.runs.kinds import _RESULT_CLASSES as _result_classes
from onlinelab.runs.kinds import register_result_class
from onlinelab.runs.kinds import result_class as _saved_class


@dataclass
class RunOutcome:
    """What a runner hands back: the result (with ``save(path, config=)``), the resolved config,
    the summary text to print and the exit status (0, or 3 when a bound or bracket was breached)."""

    result: Any
    resolved: dict
    summary: str
    status: int = 0
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RunKind:
    key: str                 # the top-level TOML table, e.g. "game"
    target: str              # "module:function", imported on first use
    listing: str | None = None  # "module:function" returning [(name, description)] for `onlinelab list`
    title: str = ""
    result: str | None = None   # "module:Class" rebuilding a saved run of this kind; None: onlinelab.Result

    def runner(self) -> Callable[..., RunOutcome]:
        return _resolve(self.target)

    def result_class(self) -> type:
        from onlinelab.runs.result import Result
        return _result_classes.get(self.key, Result)


_KINDS: dict[str, RunKind] = {}


def _resolve(target: str):
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def register_run_kind(key: str, target: str, listing: str | None = None, title: str = "",
                      result: str | None = None) -> None:
    """Make a top-level table ``[key]`` run through ``target`` ("module:function").

    Parameters
    ----------
    key : str
        The top-level TOML table that selects this kind, e.g. ``"game"``.
    target : str
        ``"module:function"`` taking ``(data, *, seed, rounds, replicates, progress)`` and returning a
        :class:`RunOutcome`.
    listing : str or None, default None
        ``"module:function"`` returning ``[(name, description)]`` for ``onlinelab list``.
    title : str, default ""
        The heading of the listing (default ``key``).
    result : str or None, default None
        ``"module:Class"``, the result class a saved run of this kind is loaded as (``Class(metrics, meta)``);
        None loads it as :class:`~onlinelab.Result`.
    """
    if not isinstance(key, str) or not key.isidentifier():
        raise ConfigError(f"a run kind's key must be a TOML table name, got {key!r}")
    for name, value in (("target", target), ("listing", listing), ("result", result)):
        if value is not None and (not isinstance(value, str) or ":" not in value):
            raise ConfigError(f"register_run_kind {name} must be \"module:attribute\", got {value!r}")
    _KINDS[key] = RunKind(key, target, listing, title or key, result)
    if result is not None:
        register_result_class(key, _resolve(result))


def result_class(meta: dict) -> type:
    """The result class of a saved run (see :func:`onlinelab.runs.kinds.result_class`); Result for a regret run."""
    from onlinelab.runs.result import Result
    return _saved_class(meta) or Result


def kinds() -> dict[str, RunKind]:
    return dict(_KINDS)


def kind_of(data: dict) -> RunKind | None:
    """The registered kind whose table ``data`` has; None for a regret simulation."""
    found = [k for k in _KINDS if k in data]
    if len(found) > 1:
        raise ConfigError(f"a config can hold one experiment kind, found tables {sorted(found)}; "
                          "split it into one file per kind")
    return _KINDS[found[0]] if found else None


def listings() -> list[tuple[str, list[tuple[str, str]]]]:
    """(title, [(name, description)]) for every kind that lists what it offers."""
    return [(k.title, _resolve(k.listing)()) for k in _KINDS.values() if k.listing]


register_run_kind("game", "onlinelab.experiment.kinds.game:run_outcome", "onlinelab.games.recoveries:listing", "games",
                  result="onlinelab.runs.game_result:GameResult")
register_run_kind("manifold", "onlinelab.experiment.kinds.manifold:run_outcome", "onlinelab.experiment.kinds.manifold:listing",
                  "manifold methods", result="onlinelab.manifold.result:ManifoldResult")
register_run_kind("embedding", "onlinelab.experiment.kinds.embedding:run_outcome", "onlinelab.experiment.kinds.embedding:listing",
                  "near-isometric embedding data", result="onlinelab.embedding.result:EmbeddingResult")
register_run_kind("bregman", "onlinelab.experiment.kinds.bregman:run_outcome", "onlinelab.experiment.kinds.bregman:listing",
                  "robust PCA, completion and composite methods", result="onlinelab.bregman.loop:IterationResult")
