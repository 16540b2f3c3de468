"""The experiment protocol: what one run kind declares, and the only thing the shared machinery talks to.

A run kind is one object, an instance of a `RunKind` subclass.  It declares

* its TOML table (``table``; None for the default kind, regret runs) and its schema: `RunKind.parse`
  validates a parsed config (unknown keys are errors naming the key, with a did-you-mean) and applies the
  command line's ``--seed``/``--rounds``/``--replicates``;
* `RunKind.resolve`: the config with every default written out, which is the run directory's
  ``config.toml``; parsing that file again gives the same run, bit for bit;
* `RunKind.run`: the run itself, a `RunOutcome` (result, resolved config, summary, exit status,
  and the reasons of the units of work it refused);
* ``result``: the Result class a saved run is read back as (``"module:Class"``), with its summary, figure
  and exit status;
* what ``sweep``, ``compare``, ``resume`` and ``report`` do with it: each is supported unless ``refusals``
  holds a reason for it, and a refused feature is a `onlinelab.errors.ConfigError` (exit status 2)
  "compare is not supported for [manifold] runs: <why>; <what to do instead>".

>>> class Echo(RunKind):
...     key = table = "echo"
...     refusals = {"compare": "nothing to compare; read each report.md"}
>>> Echo().supports("sweep"), Echo().supports("compare")
(True, False)
>>> Echo().refuse("compare")
Traceback (most recent call last):
...
onlinelab.errors.ConfigError: compare is not supported for [echo] runs: nothing to compare; read each report.md
"""
from __future__ import annotations

import copy
import importlib
import pathlib
from dataclasses import dataclass, field
from typing import Any

from onlinelab.errors import ConfigError

FEATURES = ("sweep", "compare", "resume", "report")
SHOWN_REASONS = 5  # distinct refusal reasons printed when every unit of work was refused


def resolve_target(target: str):
    """The attribute named by ``"module:attribute"`` (imported on first use)."""
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass
class RunOutcome:
    """What a kind's `RunKind.run` hands back.

    Parameters
    ----------
    result : Result
        The run (with ``save(path, config=)``).
    resolved : dict
        The config with every default written out (the run directory's ``config.toml``).
    summary : str
        What ``onlinelab run`` prints.
    status : int, default 0
        The exit status: 0, or 3 when a bound or bracket was breached.
    extra : dict
        Anything else the kind wants to hand its caller.
    units : int, default 0
        How many units of work (fits, solves, games…) the run attempted; 0 when the kind does not count them.
    refused : list of str
        Why each refused unit was refused; when every unit was refused the run is an error (exit status 2).
    """

    result: Any
    resolved: dict
    summary: str
    status: int = 0
    extra: dict = field(default_factory=dict)
    units: int = 0
    refused: list = field(default_factory=list)

    def check(self, kind: RunKind) -> RunOutcome:
        """Raise `onlinelab.errors.ConfigError` with the reasons when every unit of work was refused."""
        if self.units and len(self.refused) >= self.units:
            reasons = list(dict.fromkeys(self.refused))
            shown = "; ".join(reasons[:SHOWN_REASONS]) + (f"; … ({len(reasons) - SHOWN_REASONS} more reasons)"
                                                          if len(reasons) > SHOWN_REASONS else "")
            raise ConfigError(f"every unit of work of this {kind.label()} run was refused ({len(self.refused)} of "
                              f"{self.units}), so nothing was written: {shown}; change the config as the reasons say")
        return self


@dataclass(frozen=True)
class Durability:
    """How often a durable run checkpoints (``--checkpoint-every``, ``--checkpoint-seconds``)."""

    every_rounds: int | None = None
    every_seconds: float | None = 60.0

    @classmethod
    def of(cls, every_rounds=None, every_seconds=60.0) -> Durability:
        """Checked settings: ``every_rounds`` an integer ≥ 1 or None, ``every_seconds`` positive or None."""
        from onlinelab.core import validation as v
        if every_rounds is not None:
            every_rounds = v.integer("checkpoint_every", every_rounds, minimum=1)
        if every_seconds is not None:
            every_seconds = v.positive_float("checkpoint_seconds", every_seconds)
        return cls(every_rounds, every_seconds)


class RunKind:
    """One experiment kind: its table and schema, its run, its Result class, and what the shared features do.

    Subclasses set the class attributes and implement `parse`, `run` and `example`;
    the other methods have defaults that suit a kind whose runs finish in one go.

    Attributes
    ----------
    key : str
        The kind's name, recorded as ``kind`` in a run's ``meta.json``.
    table : str or None
        The top-level TOML table that selects the kind (None: the default kind, chosen when no table is there).
    title : str
        The heading of the kind's entries in ``onlinelab list``.
    result : str
        ``"module:Class"`` of the Result class a saved run is read back as.
    refusals : dict
        Feature (``sweep``, ``compare``, ``resume``, ``report``) → why it is refused and what to do instead.
    wall_clock : tuple of str
        Metrics that are wall-clock times (they differ between any two runs of one config).
    """

    key: str = ""
    table: str | None = None
    title: str = ""
    result: str = "onlinelab.runs.result:Result"
    refusals: dict = {}
    wall_clock: tuple = ()

    # what the kind is ------------------------------------------------------------------------------------
    def label(self) -> str:
        """How messages name the kind: ``[game]``, or the key of the default kind (``regret``)."""
        return f"[{self.table}]" if self.table else self.key

    def supports(self, feature: str) -> bool:
        """Whether the shared ``feature`` (one of `FEATURES`) works on runs of this kind."""
        if feature not in FEATURES:
            raise ConfigError(f"unknown feature {feature!r}; the features are {', '.join(FEATURES)}")
        return feature not in self.refusals

    def refuse(self, feature: str) -> None:
        """Raise the kind's refusal of ``feature`` (a ConfigError, exit status 2); return when it is supported."""
        if not self.supports(feature):
            raise ConfigError(f"{feature} is not supported for {self.label()} runs: {self.refusals[feature]}")

    def result_class(self) -> type:
        """The Result class a saved run of this kind is read back as."""
        return resolve_target(self.result)

    def listing(self) -> list[tuple[str, str]]:
        """``[(name, description)]`` of what the kind's table can name, for ``onlinelab list``."""
        return []

    # the config and the run ---------------------------------------------------------------------------
    def parse(self, data: dict, *, seed=None, rounds=None, replicates=None):
        """Validate ``data`` (a parsed TOML) with the command line's overrides; return the kind's spec of the run."""
        raise NotImplementedError

    def resolve(self, spec) -> dict:
        """The config with every default written out (``config.toml``); parsing it again gives ``spec``."""
        return copy.deepcopy(spec)

    def run(self, spec, *, progress: bool = False) -> RunOutcome:
        """Run ``spec`` (a pure function of it, seeds included) and return its `RunOutcome`."""
        raise NotImplementedError

    def example(self) -> dict:
        """A tiny config of this kind (a second or two), for the protocol tests and the docs."""
        raise NotImplementedError(f"run kind {self.key!r} declares no example(); add a tiny config")

    def refused_example(self) -> dict:
        """A config of this kind whose every unit of work is refused (the protocol tests run it: exit status 2)."""
        raise NotImplementedError(f"run kind {self.key!r} declares no refused_example()")

    # what the shared machinery calls ---------------------------------------------------------------------
    def outcome_of(self, spec, *, progress: bool = False) -> RunOutcome:
        """`run`, checked (every unit refused: ConfigError) and tagged with the kind in ``meta``."""
        out = self.run(spec, progress=progress).check(self)
        out.result.meta["kind"] = self.key
        return out

    def outcome(self, data: dict, *, seed=None, rounds=None, replicates=None, progress: bool = False) -> RunOutcome:
        """Parse ``data`` with the overrides and run it: `parse` then `outcome_of`."""
        return self.outcome_of(self.parse(data, seed=seed, rounds=rounds, replicates=replicates), progress=progress)

    def start(self, spec, path, *, force: bool = False, progress: bool = False, durability: Durability | None = None,
              plugins: list | tuple = ()) -> RunOutcome:
        """Run ``spec`` into the run directory ``path`` (refused when occupied, unless ``force``).

        The default runs, then writes the directory in one rename; a durable kind overrides this to claim the
        directory first and checkpoint as it goes.  ``plugins`` are the records of the plugin files the run
        loaded (`onlinelab.experiment.plugins.plugin_records`), stored with the run.
        """
        if durability is not None and durability.every_rounds is not None:
            self.refuse("resume")  # checkpoints exist for resume
        out = self.outcome_of(spec, progress=progress)
        files = {}
        if plugins:
            from onlinelab.experiment.plugins import record_in
            files = record_in(out.result.meta, out.resolved, list(plugins))
        out.result.save(pathlib.Path(path), config=out.resolved, force=force)
        if files:
            from onlinelab.runs.storage import write_extra
            write_extra(pathlib.Path(path), files)
        return out

    def resume(self, path, *, progress: bool = False):
        """Finish the interrupted run in ``path``; returns ``(result, path)`` (refused unless the kind resumes)."""
        self.refuse("resume")
        raise NotImplementedError(f"run kind {self.key!r} supports resume but does not implement it")

    def headline(self, result) -> str:
        """The metric a sweep summarises and compare overlays for ``result`` (a run of this kind)."""
        return "regret"

    def compare(self, results: list, names: list[str]):
        """``(table, columns, figure)`` of saved runs of this kind side by side (refused unless supported)."""
        self.refuse("compare")
        from onlinelab.runs.compare import compare_results
        return compare_results(results, names, metric=self.headline(results[0]))
