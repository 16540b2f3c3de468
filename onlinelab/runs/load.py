"""Read a run directory back: its metrics, metadata and config, as the Result class of the run's kind.

Reading parses files only: it never imports a plugin or runs code named in the directory.
"""
from __future__ import annotations

import pathlib

from onlinelab.errors import ConfigError, StorageError
from onlinelab.runs.kinds import result_class
from onlinelab.runs.result import Result
from onlinelab.runs.storage import META_KEYS, read_json, read_metrics
from onlinelab.runs.tomlio import read_toml


def load_run(path) -> Result:  # noqa: F821
    """Read a run directory written by `Result.save` (or ``onlinelab run``).

    The run comes back as the result class of its kind (``meta.json``'s ``kind``, see
    `onlinelab.experiment.kinds.register_run_kind`): a game as a `onlinelab.runs.game_result.GameResult`,
    a regret simulation as a `onlinelab.Result`.

    A missing, damaged or incomplete directory raises `onlinelab.errors.StorageError`
    naming the file and what is wrong; an interrupted run says how to resume it.

    Parameters
    ----------
    path : str or path-like
        A run directory containing meta.json and metrics.parquet.
    """
    path = pathlib.Path(path)
    meta_file, metrics_file = path / "meta.json", path / "metrics.parquet"
    if path.is_dir() and meta_file.is_file() and not metrics_file.is_file():
        status = read_json(meta_file).get("status")
        if status == "running":
            raise StorageError(f"{str(path)!r} holds a run that is still going or was killed before it saved a "
                               f"result (status 'running'); finish it with `onlinelab resume {path}`")
    missing = [f for f in ("meta.json", "metrics.parquet") if not (path / f).is_file()]
    if not path.is_dir() or missing:
        raise StorageError(f"{str(path)!r} is not an onlinelab run directory (missing {', '.join(missing) or 'it'}); "
                           "pass the folder that `onlinelab run` printed, e.g. runs/<run-id>")
    meta = read_json(meta_file)
    absent = [k for k in META_KEYS if k not in meta]
    if absent:
        raise StorageError(f"{str(meta_file)!r} lacks the key(s) {', '.join(absent)}; it was not written by "
                           "onlinelab or was edited: re-run the experiment")
    metrics = read_metrics(metrics_file)
    unknown = sorted(set(metrics["learner"]) - set(meta["learners"]))
    if unknown:
        raise StorageError(f"{str(metrics_file)!r} has rows for learner(s) {unknown} that {str(meta_file)!r} does "
                           "not describe; the two files come from different runs")
    if (path / "config.toml").is_file():
        try:
            meta["config"] = read_toml(path / "config.toml")
        except ConfigError as exc:
            raise StorageError(f"{str(path / 'config.toml')!r} is damaged: {exc}") from exc
    return (result_class(meta) or Result)(metrics, meta)
