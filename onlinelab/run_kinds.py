"""Experiment kinds beyond "learners against environments", dispatched by a top-level TOML table.

``onlinelab run CONFIG`` looks at the config's top-level tables: a table registered here
(``[game]``, and every family that adds its own) sends the whole config to that kind's
runner; anything else is a regret simulation (:mod:`onlinelab.experiments`).  A runner takes
the parsed TOML and the command line's overrides and returns a :class:`RunOutcome`; the CLI
writes the run directory and prints the summary, so every kind behaves alike.

>>> sorted(k for k in kinds())[:1]
['game']
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable

from .errors import ConfigError


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

    def runner(self) -> Callable[..., RunOutcome]:
        return _resolve(self.target)


_KINDS: dict[str, RunKind] = {}


def _resolve(target: str):
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def register_run_kind(key: str, target: str, listing: str | None = None, title: str = "") -> None:
    """Make a top-level table ``[key]`` run through ``target`` ("module:function")."""
    if not isinstance(key, str) or not key.isidentifier():
        raise ConfigError(f"a run kind's key must be a TOML table name, got {key!r}")
    _KINDS[key] = RunKind(key, target, listing, title or key)


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


register_run_kind("game", "onlinelab.game_config:run_outcome", "onlinelab.recoveries:listing", "games")
