"""The default run kind: regret runs, learners against environments (a config with no other kind's table).

The config is `onlinelab.experiment.config`'s (``[run]``, ``[[environments]]``, ``[[learners]]``,
optional ``[delay]`` or ``[arrivals]``); the run is `onlinelab.experiment.config.ExperimentConfig.simulate`,
the one build path that plain runs, durable runs and sweep cells share.  Everything is supported: runs are
durable (claimed, checkpointed, ``onlinelab resume``), sweeps run cells of the config, compare overlays regret
curves, report prints the regret table.

>>> spec = KIND.parse(KIND.example())
>>> out = KIND.outcome_of(spec)
>>> out.resolved["delay"], out.result.meta["kind"], out.status
({'kind': 'fixed', 'd': 2}, 'regret', 0)
"""
from __future__ import annotations

import pathlib

from onlinelab.errors import ConfigError, ConfigTypeError
from onlinelab.experiment import config as C
from onlinelab.experiment.kinds.protocol import Durability, RunKind, RunOutcome


class RegretKind(RunKind):
    """Regret runs: learners against environments, regret beside its bounds (the default kind)."""

    key = "regret"
    table = None
    title = "regret runs"
    result = "onlinelab.runs.result:Result"
    refusals: dict = {}
    wall_clock = ("runtime_s",)

    def parse(self, data, *, seed=None, rounds=None, replicates=None) -> C.ExperimentConfig:
        """Validate ``data`` with the overrides; every (learner, environment) pair is checked here, before a
        run directory is claimed, so a config whose pairs are refused exits 2 and leaves nothing behind."""
        from onlinelab.core.base import label_of
        from onlinelab.core.compat import check_pairings
        if not isinstance(data, dict):
            return C.parse(data)  # its type error
        run = data.get("run", {})
        if not isinstance(run, dict):
            raise ConfigTypeError(f"run must be a table ([run]), got {run!r}; e.g. [run] rounds = 1000")
        overrides = {"seed": seed, "rounds": rounds, "replicates": replicates}
        cfg = C.parse({**data, "run": {**run, **{k: val for k, val in overrides.items() if val is not None}}})
        if cfg.delay is not None and cfg.arrivals is not None:
            raise ConfigError("a config can hold [delay] or [arrivals], not both; remove one of the tables")
        envs, learners = cfg.build()
        check_pairings(learners, envs, label_of)
        return cfg

    def resolve(self, spec: C.ExperimentConfig) -> dict:
        return C.resolved(spec)

    def run(self, spec: C.ExperimentConfig, *, progress: bool = False) -> RunOutcome:
        result = spec.simulate(progress=progress)
        return RunOutcome(result, self.resolve(spec), result.summary_text(), result.exit_status())

    def start(self, spec, path, *, force=False, progress=False, durability: Durability | None = None,
              plugins=()) -> RunOutcome:
        """Claim ``path``, run with checkpoints (``durability``), install the finished run (see
        `onlinelab.experiment.durable`); a run stopped midway keeps its part for ``onlinelab resume``."""
        from onlinelab.experiment.durable import Durable, claim, execute
        durability = durability or Durability()
        resolved = self.resolve(spec)
        durable = Durable(pathlib.Path(path), durability.every_rounds, durability.every_seconds)
        claim(path, resolved, spec, durable, force=force, plugins=list(plugins))
        result, _ = execute(spec, resolved, pathlib.Path(path), durable, progress=progress, plugins=list(plugins))
        return RunOutcome(result, resolved, result.summary_text(), result.exit_status())

    def resume(self, path, *, progress=False):
        from onlinelab.experiment.durable import resume_run
        return resume_run(path, progress=progress)

    def compare(self, results, names):
        from onlinelab.runs.compare import TABLE_COLUMNS, compare_results
        return compare_results(results, names, metric="regret", columns=TABLE_COLUMNS)

    def example(self) -> dict:
        return {"run": {"name": "tiny-regret", "rounds": 24, "replicates": 2, "checkpoints": 4, "seed": 3},
                "environments": [{"name": "spiked-covariance", "d": 3}],
                "learners": [{"name": "meg"}, {"name": "logdet-omd", "sampler": "sparse"}],
                "delay": {"kind": "fixed", "d": 2}}

    def refused_example(self) -> dict:
        return {"run": {"name": "refused-regret", "rounds": 10, "replicates": 1},
                "environments": [{"name": "spiked-covariance", "d": 3}],
                "learners": [{"name": "exp3"}]}


KIND = RegretKind()
