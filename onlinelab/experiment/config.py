"""Typed experiment configuration in TOML, validated with errors that name the key and the fix.

A config has a ``[run]`` table (``seed``, ``rounds``, ``replicates``, ``checkpoints``, ``name``,
``comparator``: ``"exact"``, ``"truth"`` or ``"none"``, ``compiled``: true or false, and
``callback_timeout``: seconds an environment's ``emit`` or a delay rule may run, see
`onlinelab.simulate`),
one ``[[environments]]`` table per environment and one ``[[learners]]`` table per learner, and
optionally a ``[delay]`` table (delayed feedback, `onlinelab.feedback.delays.make_delay`) or an
``[arrivals]`` table (asynchronous arrivals, `onlinelab.feedback.arrivals.Arrivals`);
each of those has a ``name`` (registered) and its parameters, and a learner may carry a
``label``.  The string ``"auto"`` stands for an automatic default (Python ``None``), since
TOML has no null.  `resolved` writes every default out, which is what a run
directory's ``config.toml`` holds.

>>> cfg = parse({"run": {"rounds": 10}, "environments": [{"name": "spiked-covariance", "d": 4}],
...              "learners": [{"name": "meg"}]})
>>> cfg.rounds, cfg.environments[0].name
(10, 'spiked-covariance')
"""
from __future__ import annotations

import pathlib
from dataclasses import dataclass, field

from onlinelab.core import validation as v
from onlinelab.core.registry import environment_class, learner_class
from onlinelab.core.watchdog import check_timeout
from onlinelab.errors import ConfigError, ConfigTypeError
from onlinelab.runs.tomlio import AUTO, dump_toml, read_toml  # noqa: F401  (dump_toml re-exported)

RUN_KEYS = {"name": "run", "seed": 0, "rounds": 1000, "replicates": 8, "checkpoints": 40, "plugins": [],
            "comparator": "exact", "compiled": True, "callback_timeout": None}
TOP_KEYS = ("run", "environments", "learners", "delay", "arrivals")


def run_table(data: dict, keys: dict = RUN_KEYS, defaults: dict | None = None, **overrides) -> dict:
    """The ``[run]`` table of an experiment kind's config: its keys checked against ``keys``, laid over
    ``keys``' defaults and the kind's own ``defaults``, then the command line's overrides that are not None.

    Parameters
    ----------
    data : dict
        The parsed config.
    keys : dict, default RUN_KEYS
        The allowed keys with their defaults.
    defaults : dict or None, default None
        The kind's own defaults (e.g. fewer rounds).
    **overrides
        ``seed=``, ``rounds=``, ``replicates=`` from the command line; None leaves the table's value.
    """
    given = data.get("run", {})
    v.known_keys("[run]", given, keys)
    run = {**keys, **(defaults or {}), **given}
    run.update({key: val for key, val in overrides.items() if val is not None})
    return run


@dataclass
class Spec:
    """One environment or learner: registered ``name``, optional ``label``, parameters."""

    name: str
    params: dict = field(default_factory=dict)
    label: str | None = None


@dataclass
class ExperimentConfig:
    name: str
    seed: int
    rounds: int
    replicates: int
    checkpoints: object
    environments: list
    learners: list
    delay: dict | None = None
    arrivals: dict | None = None
    comparator: str = "exact"
    plugins: list = field(default_factory=list)
    compiled: bool = True
    callback_timeout: float | None = None

    def build(self):
        """Instantiate ``(environments, {label: learner})`` from the registry."""
        from onlinelab.core.base import label_of
        envs = [_instantiate(environment_class(s.name), "environment", s) for s in self.environments]
        learners = {}
        for s in self.learners:
            lrn = _instantiate(learner_class(s.name), "learner", s)
            label = s.label or label_of(lrn)
            if label in learners:
                raise ConfigError(f"two [[learners]] share the label {label!r}; add label = \"...\" to one of them")
            learners[label] = lrn
        return envs, learners

    def simulate(self, *, progress: bool = False, durable=None):
        """Play the run this config describes, every key taking effect (delay, arrivals, comparator included).

        The one build path of a regret run: ``onlinelab run``, a durable run's resume and every sweep cell
        come here, so a cell is exactly the plain run of its ``config.toml``.

        Parameters
        ----------
        progress : bool, default False
            Show a progress bar.
        durable : onlinelab.experiment.durable.Durable or None, default None
            Checkpoint hooks (`onlinelab.experiment.durable`).
        """
        from onlinelab.simulation.simulator import simulate
        envs, learners = self.build()
        return simulate(envs, learners, T=self.rounds, replicates=self.replicates, seed=self.seed,
                        checkpoints=self.checkpoints, progress=progress, durable=durable, delay=self.delay,
                        arrivals=self.arrivals, comparator=self.comparator, compiled=self.compiled,
                        callback_timeout=self.callback_timeout)


def _instantiate(cls, kind, spec: Spec):
    allowed = cls.param_names()
    v.known_keys(f"the [[{kind}s]] table of {spec.name!r}", spec.params, allowed + ["name", "label"])
    params = {k: (None if val == AUTO else val) for k, val in spec.params.items()}
    return cls(**params)


def load_toml(path) -> dict:
    """Read an experiment config and load the plugin files its ``[run] plugins`` names (relative to the file).

    The returned config names those files by their absolute paths, so that it means the same wherever it
    goes next: a sweep's workers, a run directory's ``config.toml``.
    """
    path = pathlib.Path(path)
    data = read_toml(path)
    run = data.get("run")
    if isinstance(run, dict) and "plugins" in run:  # user learners/environments, relative to the config file
        from onlinelab.experiment.plugins import plugin_records
        run["plugins"] = [r["path"] for r in plugin_records(run["plugins"], base=path.parent)]
    return data


def _specs(raw, kind: str) -> list[Spec]:
    if raw is None:
        raise ConfigError(f"the config has no [[{kind}]] table; add at least one, e.g. [[{kind}]] name = \"...\"")
    if not isinstance(raw, list) or not all(isinstance(x, dict) for x in raw):
        raise ConfigTypeError(f"{kind} must be an array of tables ([[{kind}]]), got {type(raw).__name__}")
    out = []
    for i, table in enumerate(raw):
        if "name" not in table:
            raise ConfigError(f"[[{kind}]] number {i + 1} has no name; add name = \"...\" "
                              "(`onlinelab list` shows them)")
        params = {k: val for k, val in table.items() if k not in ("name", "label")}
        if not isinstance(table["name"], str):
            raise ConfigTypeError(f"[[{kind}]] number {i + 1}: name must be a string, got {table['name']!r} "
                                  f"({type(table['name']).__name__}); write name = \"...\"")
        if "label" in table and not isinstance(table["label"], str):
            raise ConfigTypeError(f"[[{kind}]] number {i + 1} ({table['name']}): label must be a string, got "
                                  f"{table['label']!r} ({type(table['label']).__name__}); write label = "
                                  f"\"{table['label']}\"")
        out.append(Spec(table["name"], params, table.get("label")))
    return out


def _boolean(key: str, value) -> bool:
    if not isinstance(value, bool):
        raise ConfigTypeError(f"{key} must be true or false, got {value!r} ({type(value).__name__}); write "
                              f"{key.split('.')[-1]} = false (a TOML boolean, no quotes)")
    return value


def parse(data: dict) -> ExperimentConfig:
    """Validate a config dictionary (as read from TOML) and return an `ExperimentConfig`."""
    if not isinstance(data, dict):
        raise ConfigTypeError(f"a config must be a table, got {type(data).__name__}")
    v.known_keys("the config's top level", data, TOP_KEYS)
    run = data.get("run", {})
    v.known_keys("[run]", run, RUN_KEYS)
    merged = {**RUN_KEYS, **run}
    ck = merged["checkpoints"]
    if isinstance(ck, list):
        ck = [v.integer("run.checkpoints[]", c, minimum=1) for c in ck]
    else:
        ck = v.integer("run.checkpoints", ck, minimum=1)
    if not isinstance(merged["name"], str):
        raise ConfigTypeError(f"run.name must be a string, got {merged['name']!r}")
    cfg = ExperimentConfig(
        name=merged["name"], seed=v.integer("run.seed", merged["seed"], minimum=0),
        rounds=v.integer("run.rounds", merged["rounds"], minimum=1),
        replicates=v.integer("run.replicates", merged["replicates"], minimum=1), checkpoints=ck,
        environments=_specs(data.get("environments"), "environments"),
        learners=_specs(data.get("learners"), "learners"),
        delay=_table(data, "delay"), arrivals=_table(data, "arrivals"),
        comparator=v.choice("run.comparator", merged["comparator"], ("exact", "truth", "none")),
        plugins=_plugin_paths(merged["plugins"]), compiled=_boolean("run.compiled", merged["compiled"]),
        callback_timeout=check_timeout(None if merged["callback_timeout"] == AUTO else merged["callback_timeout"],
                                       "run.callback_timeout"),
    )
    rate = None
    if cfg.arrivals is not None:
        from onlinelab.feedback.arrivals import make_arrivals
        rate = make_arrivals(cfg.arrivals).rate
    from onlinelab.experiment.preflight import check as preflight
    preflight([(s.name, s.params) for s in cfg.environments], n_learners=len(cfg.learners), T=cfg.rounds,
              R=cfg.replicates, arrival_rate=rate)  # refuse sizes that cannot fit before anything is allocated
    if cfg.delay is not None:
        from onlinelab.feedback.delays import make_delay
        make_delay(cfg.delay)
    cfg.build()  # validate names and parameters now, not mid-run
    return cfg


def resolved(cfg: ExperimentConfig) -> dict:
    """The config with every default written out (``None`` as ``"auto"``)."""
    envs, learners = cfg.build()
    out = {"run": {"name": cfg.name, "seed": cfg.seed, "rounds": cfg.rounds, "replicates": cfg.replicates,
                   "checkpoints": cfg.checkpoints, "comparator": cfg.comparator, "compiled": cfg.compiled},
           "environments": [{"name": e.name, **e.get_params()} for e in envs],
           "learners": [{"name": lrn.name, "label": label, **lrn.get_params()} for label, lrn in learners.items()]}
    if cfg.callback_timeout is not None:  # no limit is the key left out
        out["run"]["callback_timeout"] = cfg.callback_timeout
    if cfg.plugins:  # loaded again by `onlinelab run <run dir>/config.toml`; `load_toml` made them absolute
        out["run"]["plugins"] = list(cfg.plugins)
    # [delay] and [arrivals] with every default that has a value (one without, None, is left out: these tables
    # read "auto" as a string, e.g. arrivals.take = "auto")
    if cfg.delay is not None:
        from onlinelab.feedback.delays import make_delay
        model = make_delay(cfg.delay)
        out["delay"] = {"kind": model.kind, **{k: x for k, x in model.get_params().items() if x is not None}}
    if cfg.arrivals is not None:
        from onlinelab.feedback.arrivals import make_arrivals
        out["arrivals"] = {k: x for k, x in make_arrivals(cfg.arrivals).get_params().items() if x is not None}
    return out


def _plugin_paths(raw) -> list:
    """``[run] plugins`` checked to be a list of paths (parsing loads none of them: see `load_toml`)."""
    if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
        raise ConfigTypeError(f"run.plugins must be a list of .py paths, got {raw!r} ({type(raw).__name__}); "
                              'write plugins = ["my_envs.py"]')
    return list(raw)


def _table(data: dict, key: str):
    raw = data.get(key)
    if raw is not None and not isinstance(raw, dict):
        example = '[delay] with kind = "fixed", d = 3' if key == "delay" else f"[{key}] rate = 2.0"
        raise ConfigTypeError(f"{key} must be a table ([{key}]), got {raw!r}; e.g. {example}")
    return raw


