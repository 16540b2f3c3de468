"""What the command line does with a config or a run directory, through the run-kind protocol only.

``onlinelab run``, ``resume``, ``report`` and ``compare`` come here; each looks the kind up
(`onlinelab.experiment.kinds.kind_of` for a config, `onlinelab.experiment.kinds.kind_of_run` for a
saved run) and asks it, so every kind gets every feature or its clear refusal (a ConfigError, exit status 2).
No function here knows a kind by name.

>>> import tempfile
>>> from onlinelab.experiment.kinds import kinds
>>> with tempfile.TemporaryDirectory() as tmp:
...     out, path = run_config(kinds()["game"].example(), out=tmp + "/g")
...     again = load_report(path)
>>> type(again).__name__, out.status
('GameResult', 0)
"""
from __future__ import annotations

import pathlib

from onlinelab.errors import ConfigError, StorageError
from onlinelab.experiment.kinds import Durability, RunOutcome, kind_of, kind_of_run
from onlinelab.runs import storage
from onlinelab.runs.load import load_run
from onlinelab.runs.tomlio import read_toml


def _with_plugin_records(data: dict, extra) -> tuple[dict, list]:
    """``data`` naming its plugin files (``[run] plugins`` and the command line's ``extra``) by absolute path, and
    their records (`onlinelab.experiment.plugins.plugin_records`), which the run stores."""
    from onlinelab.experiment.plugins import plugin_records, with_plugins
    data = with_plugins(data, extra)
    run = data.get("run")
    records = plugin_records(run.get("plugins")) if isinstance(run, dict) else []
    if records:
        data = {**data, "run": {**run, "plugins": [r["path"] for r in records]}}
    return data, records


def run_config(data: dict, *, seed=None, rounds=None, replicates=None, out=None, runs_dir="runs", force=False,
               progress=False, durability: Durability | None = None, plugins=()) -> tuple[RunOutcome, pathlib.Path]:
    """Run the config ``data`` (any kind) into a run directory; returns ``(outcome, path)``.

    Parameters
    ----------
    data : dict
        The parsed config; its tables select the kind.
    seed, rounds, replicates : int or None, default None
        The command line's overrides.
    out : str or path-like or None, default None
        The run directory (default ``runs_dir/<name>-<time>-seed<seed>``).
    runs_dir : str, default "runs"
        Where default run directories go.
    force : bool, default False
        Replace a non-empty ``out``.
    progress : bool, default False
        Show progress.
    durability : Durability or None, default None
        Checkpoint cadence (kinds that resume; asking a kind that does not for ``every_rounds`` is refused).
    plugins : sequence of str, default ()
        Plugin files given on the command line (``--plugins``), recorded with the run.
    """
    from onlinelab.experiment.default import run_id
    kind = kind_of(data)
    data, records = _with_plugin_records(data, list(plugins))
    spec = kind.parse(data, seed=seed, rounds=rounds, replicates=replicates)
    run = kind.resolve(spec).get("run", {})
    path = pathlib.Path(out) if out is not None else pathlib.Path(runs_dir) / run_id(run.get("name", kind.key),
                                                                                   run.get("seed", 0))
    return kind.start(spec, path, force=force, progress=progress, durability=durability, plugins=records), path


def _saved(path: pathlib.Path) -> dict:
    """``meta.json`` of the run directory ``path``, with its ``config.toml`` as ``meta["config"]``."""
    if not (path / "meta.json").is_file() or not (path / "config.toml").is_file():
        raise StorageError(f"{str(path)!r} is not a run directory that can be resumed (it needs meta.json and "
                           "config.toml, as `onlinelab run` writes them)")
    meta = storage.read_json(path / "meta.json")
    try:
        meta["config"] = read_toml(path / "config.toml")
    except ConfigError as exc:
        raise StorageError(f"{str(path / 'config.toml')!r} is damaged: {exc}") from exc
    return meta


def resume_dir(path, *, progress: bool = False, trust: bool = False):
    """Finish the interrupted run in ``path`` (its kind resumes it, or refuses); returns ``(result, path)``.

    A complete run of any kind is returned as saved: there is nothing to do.  A run made with plugin files
    resumes only with ``trust`` or with those files loaded already (``--plugins``); see
    `onlinelab.experiment.plugins.load_recorded`.

    Parameters
    ----------
    path : str or path-like
        The run directory.
    progress : bool, default False
        Show progress.
    trust : bool, default False
        Execute the plugin files the run recorded, each only if its sha256 is unchanged (``--trust``).
    """
    from onlinelab.experiment.plugins import load_recorded
    path = pathlib.Path(path)
    meta = _saved(path)
    if meta.get("status") == "complete":
        return load_run(path), path
    load_recorded(meta.get("plugins", []), path, trust=trust)  # refused unless trusted; may register the kind
    kind = kind_of_run(meta)
    kind.refuse("resume")
    return kind.resume(path, progress=progress)


def load_report(path):
    """The saved run in ``path`` as its kind's Result class, for ``onlinelab report`` (its kind may refuse).

    Parameters
    ----------
    path : str or path-like
        The run directory.
    """
    result = load_run(path)
    kind_of_run(result.meta).refuse("report")
    return result


def compare_dirs(run_dirs, plot=None):
    """Saved runs of one kind side by side: ``(table, columns, figure)``; the figure goes to ``plot`` when given.

    Runs of different kinds are refused, and so is a kind that does not compare (its reason says what to do).

    Parameters
    ----------
    run_dirs : list of str or path-like
        Two or more run directories.
    plot : str or path-like or None, default None
        Where to write the overlay (PNG).
    """
    from onlinelab.runs.compare import run_names
    paths = [pathlib.Path(p) for p in run_dirs]
    if len(paths) < 2:
        raise ConfigError(f"compare needs at least two run directories, got {len(paths)}")
    results = [load_run(p) for p in paths]
    names = run_names(paths)
    found = [kind_of_run(r.meta) for r in results]
    if len({k.key for k in found}) > 1:
        listed = ", ".join(f"{name} ({k.label()})" for name, k in zip(names, found, strict=True))
        raise ConfigError(f"compare needs runs of one kind, got {listed}; compare each kind's runs on their own")
    kind = found[0]
    kind.refuse("compare")
    table, columns, fig = kind.compare(results, names)
    if plot is not None:
        fig.savefig(plot, dpi=100, bbox_inches="tight")
    return table, columns, fig
