"""Run kinds: one declared object per kind of experiment, and the registry the shared machinery looks them up in.

**The protocol.**  A run kind — regret runs (learners against environments), ``[game]``, ``[manifold]``,
``[embedding]``, ``[bregman]``, and any a plugin adds — is one object, an instance of
`onlinelab.experiment.kinds.protocol.RunKind` living in ``onlinelab/experiment/kinds/<kind>.py``.
It declares its TOML table and schema (``parse``: unknown keys are errors with a did-you-mean), ``resolve``
(every default written out: the run directory's ``config.toml``), ``run`` (a
`onlinelab.experiment.kinds.protocol.RunOutcome`: result, resolved config, summary, exit status,
refused units), its Result class (summary, figure, exit status), and what ``sweep``, ``compare``, ``resume``
and ``report`` do with its runs — each supported, or refused with a reason (a ConfigError, exit status 2:
"compare is not supported for [manifold] runs: …").  ``onlinelab run | sweep | compare | resume | report``,
`onlinelab.sweep` and `onlinelab.load_run` talk only to this protocol, never to a kind by name,
so every kind gets every feature or a clear refusal.  Two rules hold for every kind (tested over the
registry, ``tests/experiment/test_run_kinds.py``): running the ``config.toml`` a run wrote reproduces the
run bit for bit (a sweep cell included), and a config whose every unit of work is refused exits 2 with
the reasons.

**Choosing the kind.**  A config selects a kind by its top-level table (``[game]`` → the game kind); a
config with none of the registered tables is a regret run.  A saved run names its kind in ``meta.json``
(``kind``); `onlinelab.load_run` reads it back as that kind's Result class (registered in
`onlinelab.runs.kinds`, since the runs layer cannot import the kinds).

**Adding a kind.**  Subclass `onlinelab.experiment.kinds.protocol.RunKind` and pass an instance
to `register_run_kind` (in a plugin file, ``--plugins my_kind.py``).  The older form
``register_run_kind(key, "module:function", result="module:Class")`` still works: the function runs the
config, and sweep, compare and resume are refused for such a kind (it does not declare them).

>>> kind_of({"game": {"recovery": "gd"}}).key, kind_of({"learners": []}).key
('game', 'regret')
>>> result_class({"kind": "game"}).__name__, result_class({}).__name__
('GameResult', 'Result')
>>> kinds()["manifold"].supports("compare")
False
"""
from __future__ import annotations

import copy

from onlinelab.errors import ConfigError, ConfigTypeError, StorageError, did_you_mean
from onlinelab.experiment.kinds.protocol import FEATURES, Durability, RunKind, RunOutcome, resolve_target
from onlinelab.runs.kinds import register_result_class
from onlinelab.runs.kinds import result_class as _saved_class

__all__ = ["FEATURES", "Durability", "RunKind", "RunOutcome", "kind_of", "kind_of_run", "kinds", "listings",
           "register_run_kind", "result_class"]

DEFAULT = "regret"  # the kind of a config without any kind's table
_KINDS: dict[str, RunKind] = {}

_UNDECLARED = ("the kind was registered as a bare runner function (register_run_kind(key, \"module:function\")), "
               "which does not declare what {feature} does with its runs; register a RunKind object "
               "(onlinelab.experiment.kinds.protocol) that declares it")


class FunctionKind(RunKind):
    """A kind registered the older way, as ``"module:function"`` strings: it runs and reports, nothing more.

    The function takes ``(data, *, seed, rounds, replicates, progress)`` and returns a `RunOutcome`.
    """

    def __init__(self, key: str, target: str, listing: str | None = None, title: str = "",
                 result: str | None = None):
        self.key = self.table = key
        self.target, self.listing_target, self.title = target, listing, title or key
        self.result = result or "onlinelab.runs.result:Result"
        self.refusals = {f: _UNDECLARED.format(feature=f) for f in ("sweep", "compare", "resume")}

    def parse(self, data, *, seed=None, rounds=None, replicates=None):
        return {"data": data, "overrides": {"seed": seed, "rounds": rounds, "replicates": replicates}}

    def resolve(self, spec) -> dict:
        data = copy.deepcopy(spec["data"])
        given = {k: val for k, val in spec["overrides"].items() if val is not None}
        if given:
            data["run"] = {**data.get("run", {}), **given}
        return data

    def run(self, spec, *, progress=False) -> RunOutcome:
        return resolve_target(self.target)(spec["data"], **spec["overrides"], progress=progress)

    def listing(self):
        return resolve_target(self.listing_target)() if self.listing_target else []


def _check_target(name: str, value) -> None:
    if value is not None and (not isinstance(value, str) or ":" not in value):
        raise ConfigError(f"register_run_kind {name} must be \"module:attribute\", got {value!r}")


def register_run_kind(kind, target: str | None = None, listing: str | None = None, title: str = "",
                      result: str | None = None) -> RunKind:
    """Register a run kind; returns it.

    Parameters
    ----------
    kind : RunKind or str
        The kind object (see `onlinelab.experiment.kinds.protocol`); or, the older form, the key of a kind
        run by ``target``.
    target : str or None, default None
        Older form only: ``"module:function"`` taking ``(data, *, seed, rounds, replicates, progress)`` and
        returning a `RunOutcome`.
    listing : str or None, default None
        Older form only: ``"module:function"`` returning ``[(name, description)]`` for ``onlinelab list``.
    title : str, default ""
        Older form only: the heading of the listing (default: the key).
    result : str or None, default None
        Older form only: ``"module:Class"``, the result class a saved run is read back as (None:
        `onlinelab.Result`).
    """
    if not isinstance(kind, RunKind):
        if not isinstance(kind, str) or not kind.isidentifier():
            raise ConfigError(f"a run kind's key must be a TOML table name, got {kind!r}")
        for name, value in (("target", target), ("listing", listing), ("result", result)):
            _check_target(name, value)
        if target is None:
            raise ConfigError(f"register_run_kind({kind!r}) needs target=\"module:function\", or pass a RunKind object")
        kind = FunctionKind(kind, target, listing, title, result)
    if not isinstance(kind.key, str) or not kind.key.isidentifier():
        raise ConfigError(f"a run kind's key must be a TOML table name, got {kind.key!r}")
    if kind.table is None and kind.key != DEFAULT:
        raise ConfigError(f"run kind {kind.key!r} has table = None, which only the default kind ({DEFAULT!r}) may "
                          f"have; set table = {kind.key!r}")
    unknown = [f for f in kind.refusals if f not in FEATURES]
    if unknown:
        raise ConfigTypeError(f"run kind {kind.key!r} refuses the unknown feature {unknown[0]!r}"
                              f"{did_you_mean(unknown[0], FEATURES)}")
    _check_target("result", kind.result)
    _KINDS[kind.key] = kind
    if kind.table is not None:
        register_result_class(kind.key, kind.result_class())
    return kind


def kinds() -> dict[str, RunKind]:
    """Every registered kind by key (the default kind, ``regret``, included)."""
    return dict(_KINDS)


def kind_of(data: dict) -> RunKind:
    """The kind a parsed config selects: the one whose table it has, else the default kind (regret runs)."""
    if not isinstance(data, dict):
        raise ConfigTypeError(f"a config must be a table, got {type(data).__name__}")
    found = [k for k in _KINDS.values() if k.table is not None and k.table in data]
    if len(found) > 1:
        raise ConfigError(f"a config can hold one experiment kind, found tables {sorted(k.table for k in found)}; "
                          "split it into one file per kind")
    return found[0] if found else _KINDS[DEFAULT]


def kind_of_run(meta: dict) -> RunKind:
    """The kind of a saved run: ``meta["kind"]``, else its config's table (``meta["config"]``), else regret."""
    key = meta.get("kind")
    if key is None:
        return kind_of(meta["config"]) if isinstance(meta.get("config"), dict) else _KINDS[DEFAULT]
    if key not in _KINDS:
        raise StorageError(f"this run is of kind {key!r}, which no loaded code registers (known: "
                           f"{', '.join(sorted(_KINDS))}); load the plugin that registers it (--plugins FILE.py)")
    return _KINDS[key]


def listings() -> list[tuple[str, list[tuple[str, str]]]]:
    """(title, [(name, description)]) for every kind that lists what it offers."""
    return [(k.title, rows) for k in _KINDS.values() if (rows := k.listing())]


def result_class(meta: dict) -> type:
    """The result class of a saved run (see `onlinelab.runs.kinds.result_class`); Result for a regret run."""
    from onlinelab.runs.result import Result
    return _saved_class(meta) or Result


def _register_builtins() -> None:
    from onlinelab.experiment.kinds.bregman import KIND as BREGMAN
    from onlinelab.experiment.kinds.embedding import KIND as EMBEDDING
    from onlinelab.experiment.kinds.game import KIND as GAME
    from onlinelab.experiment.kinds.manifold import KIND as MANIFOLD
    from onlinelab.experiment.kinds.regret import KIND as REGRET
    for kind in (REGRET, GAME, MANIFOLD, EMBEDDING, BREGMAN):
        register_run_kind(kind)


_register_builtins()
