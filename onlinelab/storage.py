"""The run directory: ``config.toml``, ``meta.json``, ``metrics.parquet``, ``report.png``, ``report.md``.

``save_run`` writes the files in an order that keeps a directory readable at every step
(metrics and metadata first, figures last); ``load_run`` reads one back into a
:class:`~onlinelab.Result`.  The format is described in ``runs/README.md``.

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
import subprocess

import numpy as np
import pandas as pd

from .errors import StorageError

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
    from . import __version__
    return {"onlinelab": __version__, "git_revision": git_revision(), "python": platform.python_version(),
            "platform": platform.platform(), "numpy": np.__version__, "pandas": pd.__version__,
            "written_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}


def _write_atomic(path: pathlib.Path, write) -> None:
    tmp = path.with_name(path.name + ".tmp")
    write(tmp)
    os.replace(tmp, path)


def save_run(result, path, config: dict | None = None, report: bool = True) -> pathlib.Path:
    """Write ``result`` to the run directory ``path`` (created if needed) and return the path.

    Parameters
    ----------
    result : Result
        The run to write.
    path : str or path-like
        The run directory (created if needed).
    config : dict or None, default None
        The resolved configuration to write as config.toml.
    report : bool, default True
        Also write report.md and report.png.
    """
    from .config import dump_toml
    path = pathlib.Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"cannot create the run directory {str(path)!r}: {exc}; choose a writable --out") from exc
    meta = {**result.meta, **environment_info()}
    _write_atomic(path / "metrics.parquet", lambda p: result.metrics.to_parquet(p, index=False))
    _write_atomic(path / "meta.json", lambda p: p.write_text(json.dumps(_jsonable(meta), indent=2)))
    if config is not None:
        _write_atomic(path / "config.toml", lambda p: p.write_text(dump_toml(config)))
    if report:
        from .report import write_report
        write_report(result, path)
    return path


def load_run(path) -> "Result":  # noqa: F821
    """Read a run directory written by :meth:`Result.save` (or ``onlinelab run``).

    Parameters
    ----------
    path : str or path-like
        A run directory containing meta.json and metrics.parquet.
    """
    from .result import Result
    path = pathlib.Path(path)
    missing = [f for f in ("meta.json", "metrics.parquet") if not (path / f).is_file()]
    if not path.is_dir() or missing:
        raise StorageError(f"{str(path)!r} is not an onlinelab run directory (missing {', '.join(missing) or 'it'}); "
                           "pass the folder that `onlinelab run` printed, e.g. runs/<run-id>")
    meta = json.loads((path / "meta.json").read_text())
    metrics = pd.read_parquet(path / "metrics.parquet")
    if (path / "config.toml").is_file():
        from .config import load_toml
        meta["config"] = load_toml(path / "config.toml")
    return Result(metrics, meta)
