"""The run directory: ``config.toml``, ``meta.json``, ``metrics.parquet``, ``report.png``, ``report.md``.

``save_run`` writes the files in an order that keeps a directory readable at every step
(metrics and metadata first, figures last); ``load_run`` reads one back into a
`onlinelab.Result`.  The format is described in ``runs/README.md``.

>>> import tempfile, onlinelab as ol
>>> res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=20)
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = res.save(tmp + "/run")
...     back = ol.load_run(path)
>>> back.metrics.equals(res.metrics)
True
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import pathlib
import platform
import shutil
import subprocess
import tempfile
import uuid

import numpy as np
import pandas as pd

from onlinelab._version import __version__
from onlinelab.errors import StorageError
from onlinelab.runs.tomlio import dump_toml

FILES = ("config.toml", "meta.json", "metrics.parquet", "report.png", "report.md")


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (bool, int, float, str)) or obj is None:
        return obj
    return repr(obj)


def git_revision() -> str | None:
    here = pathlib.Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def environment_info() -> dict:
    return {"onlinelab": __version__, "git_revision": git_revision(), "python": platform.python_version(),
            "platform": platform.platform(), "numpy": np.__version__, "pandas": pd.__version__,
            "written_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}


def _write_atomic(path: pathlib.Path, write) -> None:
    tmp = path.with_name(path.name + ".tmp")
    write(tmp)
    os.replace(tmp, path)


def occupied(path) -> bool:
    """True when ``path`` exists and is not an empty directory (a run there would replace something)."""
    path = pathlib.Path(path)
    return path.exists() and (not path.is_dir() or any(path.iterdir()))


def refuse_occupied(path, force: bool = False) -> None:
    """Raise `StorageError` when ``path`` holds files and ``force`` is not set."""
    if not force and occupied(path):
        raise StorageError(f"{str(path)!r} already exists and is not empty; pass --force (force=True) to replace "
                           "it, or choose another --out")


def install_dir(tmp: pathlib.Path, path: pathlib.Path, force: bool = False) -> None:
    """Move the finished directory ``tmp`` to ``path`` with one rename, so ``path`` is never half written.

    ``rename`` replaces a missing or empty ``path`` atomically and fails on a non-empty one, so two
    runs racing for one ``--out`` cannot mix their files: the second is refused.  With ``force`` the
    old directory is first renamed aside, then removed.
    """
    try:
        os.rename(tmp, path)
        return
    except OSError as exc:
        if not path.exists():
            shutil.rmtree(tmp, ignore_errors=True)
            raise StorageError(f"cannot write the run directory {str(path)!r}: {exc}; choose a writable --out") from exc
    if not force:
        shutil.rmtree(tmp, ignore_errors=True)
        raise StorageError(f"{str(path)!r} was written by another run meanwhile; pass --force to replace it, "
                           "or choose another --out")
    old = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.old")
    os.rename(path, old)
    os.rename(tmp, path)
    shutil.rmtree(old, ignore_errors=True)


def staging_dir(path: pathlib.Path) -> pathlib.Path:
    """A fresh, unique hidden directory beside ``path`` to write into before `install_dir`."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return pathlib.Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    except OSError as exc:
        raise StorageError(f"cannot create the run directory {str(path)!r}: {exc}; choose a writable --out") from exc


def save_dir_files(path, files: dict, force: bool = False) -> pathlib.Path:
    """Create the directory ``path`` holding ``files`` (name → text) with one rename (refused when occupied)."""
    path = pathlib.Path(path)
    refuse_occupied(path, force)
    tmp = staging_dir(path)
    for name, text in files.items():
        (tmp / name).write_text(text)
    install_dir(tmp, path, force)
    return path


def write_extra(path: pathlib.Path, files: dict | None) -> None:
    """Write ``files`` ({path relative to ``path``: bytes}, e.g. a run's copies of its plugin files), each
    atomically."""
    for name, data in (files or {}).items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(target, lambda p, data=data: p.write_bytes(data))


def write_files(result, path: pathlib.Path, config: dict | None = None, report: bool = True,
                files: dict | None = None) -> None:
    """Write the run files of ``result`` (and the ``files`` of `write_extra`) into the existing directory
    ``path``, each file atomically."""
    meta = {**result.meta, **environment_info()}
    write_extra(path, files)
    _write_atomic(path / "metrics.parquet", lambda p: result.metrics.to_parquet(p, index=False))
    _write_atomic(path / "meta.json", lambda p: p.write_text(json.dumps(_jsonable(meta), indent=2)))
    if config is not None:
        _write_atomic(path / "config.toml", lambda p: p.write_text(dump_toml(config)))
    if report and len(result.metrics):  # a run that failed before its first checkpoint has nothing to report
        from onlinelab.runs.report import write_report
        write_report(result, path)


def save_run(result, path, config: dict | None = None, report: bool = True, force: bool = False,
             files: dict | None = None) -> pathlib.Path:
    """Write ``result`` to the run directory ``path`` and return the path.

    The files are written into a unique temporary directory beside ``path`` which is then renamed
    into place, so a crash while saving leaves no directory at ``path``; a non-empty ``path`` is
    refused unless ``force``.

    Parameters
    ----------
    result : Result
        The run to write.
    path : str or path-like
        The run directory.
    config : dict or None, default None
        The resolved configuration to write as config.toml.
    report : bool, default True
        Also write report.md and report.png.
    force : bool, default False
        Replace a non-empty ``path``.
    files : dict or None, default None
        More files to write, {path relative to the run directory: bytes} (a run's copies of its plugin files).
    """
    path = pathlib.Path(path)
    refuse_occupied(path, force)
    tmp = staging_dir(path)
    try:
        write_files(result, tmp, config=config, report=report, files=files)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    install_dir(tmp, path, force)
    return path


META_KEYS = ("T", "replicates", "seed", "status", "environments", "learners", "bounds", "timings")
METRIC_COLUMNS = ("learner", "environment", "replicate", "t", "metric", "value")


def read_json(file: pathlib.Path) -> dict:
    """A JSON object from ``file``, or a `StorageError` naming the file and what is wrong with it."""
    try:
        data = json.loads(file.read_text())
    except (OSError, UnicodeDecodeError) as exc:
        raise StorageError(f"cannot read {str(file)!r}: {exc}") from exc
    except json.JSONDecodeError as exc:
        raise StorageError(f"{str(file)!r} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
                           "the file is damaged: re-run the experiment (or `onlinelab resume` it)") from exc
    if not isinstance(data, dict):
        raise StorageError(f"{str(file)!r} must hold a JSON object, got {type(data).__name__}")
    return data


def read_metrics(file: pathlib.Path) -> pd.DataFrame:
    """The tidy metrics table from ``file``, or a `StorageError` naming the file and the fault."""
    try:
        df = pd.read_parquet(file)
    except Exception as exc:  # pyarrow raises several types for damaged files
        raise StorageError(f"{str(file)!r} is not a readable parquet file ({type(exc).__name__}: {exc}); it is "
                           "truncated or damaged: re-run the experiment (or `onlinelab resume` it)") from exc
    missing = [c for c in METRIC_COLUMNS if c not in df.columns]
    if missing:
        raise StorageError(f"{str(file)!r} lacks the column(s) {', '.join(missing)}; "
                           f"a metrics table has {', '.join(METRIC_COLUMNS)}")
    return df


