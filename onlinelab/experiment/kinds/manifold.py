"""The ``[manifold]`` run kind: a grid of spectral embeddings from TOML (theory §7,
`onlinelab.manifold.experiment`).

The table and its keys are `onlinelab.manifold.experiment.parse_manifold`'s; ``[run]`` takes ``name``,
``seed`` and ``plugins``, ``--replicates`` sets the number of draws.  A unit of work is one fit (method ×
grid point × draw); a fit that fails (a disconnected neighbour graph, say) is recorded with its reason and
the others go on, but a run whose every fit is refused is an error (exit status 2) that prints the reasons.
A grid is a pure function of its config (``seconds`` aside), so sweeps are supported; compare is not: the
scores are per grid point, with no curves over rounds to overlay.

>>> out = KIND.outcome(KIND.example())
>>> out.units, out.refused, out.result.meta["kind"]
(2, [], 'manifold')
"""
from __future__ import annotations

from onlinelab.errors import ConfigError, ConfigTypeError
from onlinelab.experiment.kinds.protocol import RunKind, RunOutcome
from onlinelab.manifold.experiment import METHODS, parse_manifold, run_grid


def listing() -> list[tuple[str, str]]:
    """(name, description) of every method a ``[manifold]`` table can name, for ``onlinelab list``."""
    return [(name, text) for name, (_, text) in METHODS.items()]


def _without_plugins(data: dict) -> tuple[dict, list | None]:
    """``data`` without ``[run] plugins`` (the grid does not take them), and the plugins."""
    run = data.get("run")
    if not isinstance(run, dict) or "plugins" not in run:
        return data, None
    return {**data, "run": {k: val for k, val in run.items() if k != "plugins"}}, run["plugins"]


def parse_config(data: dict, *, seed=None, rounds=None, replicates=None) -> dict:
    """Validate a ``[manifold]`` config with the overrides; return the resolved config (every default out).

    Parameters
    ----------
    data : dict
        Parsed TOML with a ``[manifold]`` table.
    seed : int, optional
        Overrides ``[run] seed``.
    rounds : None
        Not meaningful here; giving it is an error.
    replicates : int, optional
        Overrides ``draws``.
    """
    if rounds is not None:
        raise ConfigError(f"--rounds does not apply to a [manifold] run (got {rounds}); use --replicates for the "
                          "number of draws")
    if not isinstance(data, dict):
        raise ConfigTypeError(f"a config must be a table, got {type(data).__name__}")
    data, plugins = _without_plugins(data)
    _, resolved = parse_manifold(data, seed=seed, replicates=replicates)
    if plugins is not None:
        resolved["run"]["plugins"] = plugins
    return resolved


class ManifoldKind(RunKind):
    """``[manifold]``: spectral embeddings (LE, ALE, VRLE, Isomap, …) over a grid, scored on several draws."""

    key = table = "manifold"
    title = "manifold methods"
    result = "onlinelab.manifold.result:ManifoldResult"
    wall_clock = ("seconds",)
    refusals = {
        "compare": "a [manifold] run has scores per grid point, not curves over rounds to overlay; put the runs' "
                   "settings into one [manifold] grid (lists of methods, n_components, n_neighbors, radius) and run "
                   "that, or read each run's report.md",
        "resume": "a [manifold] run is written only once every fit has finished, so there is nothing to resume; run "
                  "its config.toml again with `onlinelab run DIR/config.toml`"}

    def parse(self, data, *, seed=None, rounds=None, replicates=None) -> dict:
        return parse_config(data, seed=seed, rounds=rounds, replicates=replicates)

    def run(self, spec: dict, *, progress: bool = False) -> RunOutcome:
        from onlinelab.manifold.result import ManifoldResult
        kwargs, _ = parse_manifold(_without_plugins(spec)[0])
        frame = run_grid(**kwargs)
        result = ManifoldResult.from_frame(frame, seed=kwargs["seed"])
        fits = frame[frame.metric == "failed"]
        refused = [f"{r.learner} on {r.environment}, draw {r.replicate}: {r.error}"
                   for r in fits[fits.value > 0].itertuples()]
        return RunOutcome(result, self.resolve(spec), result.summary_text(), 0, units=len(fits), refused=refused)

    def headline(self, result) -> str:
        return "trustworthiness"

    def listing(self):
        return listing()

    def example(self) -> dict:
        return {"run": {"name": "tiny-manifold", "seed": 5},
                "manifold": {"dataset": "helix", "m": 80, "draws": 1, "methods": ["le", "pca"], "n_neighbors": [8]}}

    def refused_example(self) -> dict:
        return {"run": {"name": "refused-manifold"},
                "manifold": {"dataset": "helix", "m": 40, "draws": 2, "methods": ["le", "isomap"],
                             "n_neighbors": [1]}}


KIND = ManifoldKind()


def run_outcome(data: dict, *, seed=None, rounds=None, replicates=None, progress=False) -> RunOutcome:
    """The ``[manifold]`` kind's parse and run in one call (the form ``register_run_kind(key, target)`` takes).

    Parameters
    ----------
    data : dict
        Parsed TOML with a ``[manifold]`` table.
    seed : int, optional
        Overrides ``[run] seed``.
    rounds : None
        Not meaningful here; giving it is an error.
    replicates : int, optional
        Overrides ``draws``.
    progress : bool, default False
        Unused (fits are short).
    """
    return KIND.outcome(data, seed=seed, rounds=rounds, replicates=replicates, progress=progress)
