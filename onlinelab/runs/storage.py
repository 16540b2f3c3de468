"""The run directory: ``config.toml``, ``meta.json``, ``metrics.parquet``, ``report.png``, ``report.md``.

``save_run`` writes the files into a hidden staging directory beside the run directory and
publishes it in one atomic step (`install_dir`), so the run directory is never half written
and, once it exists, never missing; ``load_run`` reads one back into a `onlinelab.Result`.
Staging directories and temporary files left by a killed process are removed the next time a
run or a resume uses the directory (`clean_leftovers`), and a write that fails (a full disk) is
a `onlinelab.errors.StorageError` naming the folder (`write_failed`).  The format is described
in ``runs/README.md``; the guarantees in the guide (docs/guide/sweeps-and-durability.md).

>>> import tempfile, onlinelab as ol
>>> res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=20)
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = res.save(tmp + "/run")
...     back = ol.load_run(path)
>>> back.metrics.equals(res.metrics)
True
"""
from __future__ import annotations

import ctypes
import datetime as _dt
import errno
import json
import os
import pathlib
import platform
import re
import shutil
import subprocess
import sys
import tempfile

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


LIVE: set = set()   # temporary paths this process is writing now, which clean_leftovers keeps (threads)


def _write_atomic(path: pathlib.Path, write) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # named by its writer: see clean_leftovers
    LIVE.add(str(tmp))
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        LIVE.discard(str(tmp))


def write_failed(exc: OSError, folder, resumable: bool = True) -> StorageError:
    """The `StorageError` for ``exc``, an OSError while writing the run directory ``folder``.

    It names the folder and the cause (a full disk said in words) and, for a run that checkpoints
    (``resumable``), says that ``onlinelab resume`` finishes the run once the cause is fixed; its ``run_dir``
    is set, so the command line exits with status 1 and says where the completed part is.

    >>> import errno
    >>> str(write_failed(OSError(errno.ENOSPC, "No space left on device"), "runs/a"))[:55]
    'cannot write the run directory runs/a: the disk is full'
    """
    cause = "the disk is full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else "the write failed"
    fix = (f"; free some space (or fix the cause), then `onlinelab resume {folder}` will finish the run from its "
           "last checkpoint" if resumable else "; free some space (or fix the cause) and run it again")
    err = StorageError(f"cannot write the run directory {folder}: {cause} ({exc.strerror or exc}){fix}")
    if resumable:
        err.run_dir = pathlib.Path(folder)
    return err


_LEFTOVER = re.compile(r"^\.(?P<name>.+?)\.(?P<pid>\d+)\.(?:[^.]*\.)?(?:tmp|old)$")


def _gone(pid: str, path: pathlib.Path) -> bool:
    """True when process ``pid`` of this machine, which named the temporary ``path``, no longer runs, or is this
    one and no longer writes it (a save it abandoned)."""
    if int(pid) == os.getpid():
        return str(path) not in LIVE
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):  # alive but not ours (EPERM), or not a pid at all
        return False
    return False


def clean_leftovers(path) -> list[pathlib.Path]:
    """Remove what a killed save left beside and inside the run directory ``path``; return what was removed.

    Staging directories (``.NAME.PID.XXXX.tmp`` beside ``path``), replaced ones (``.NAME.PID.XXXX.old``) and
    temporary files inside ``path`` (``.FILE.PID.tmp``, e.g. a half-written checkpoint) go when the process
    ``PID`` that made them is gone (or is this one and abandoned them), so that a live run racing for the same
    ``--out`` keeps its own.  A run and a resume call it before they write.

    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     (pathlib.Path(tmp) / ".run.999999999.x1y2.tmp").mkdir()   # a staging folder of no running process
    ...     [p.name for p in clean_leftovers(pathlib.Path(tmp) / "run")]
    ['.run.999999999.x1y2.tmp']
    """
    path = pathlib.Path(path)
    parent = path.parent
    found = [(p, path.name) for p in parent.iterdir() if p.name.startswith(f".{path.name}.")] if parent.is_dir() else []
    found += [(p, None) for p in path.iterdir() if p.is_file() and p.name.endswith(".tmp")] if path.is_dir() else []
    removed = []
    for p, owner in found:
        m = _LEFTOVER.match(p.name)
        if m is None or owner not in (None, m.group("name")) or not _gone(m.group("pid"), p):
            continue
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
        removed.append(p)
    return removed


def occupied(path) -> bool:
    """True when ``path`` exists and is not an empty directory (a run there would replace something)."""
    path = pathlib.Path(path)
    return path.exists() and (not path.is_dir() or any(path.iterdir()))


def refuse_occupied(path, force: bool = False) -> None:
    """Raise `StorageError` when ``path`` holds files and ``force`` is not set."""
    if not force and occupied(path):
        raise StorageError(f"{str(path)!r} already exists and is not empty; pass --force (force=True) to replace "
                           "it, or choose another --out")


def exchange_dirs(a, b) -> bool:
    """Swap the directory entries ``a`` and ``b`` in one atomic step; False where the system cannot.

    Linux's ``renameat2(RENAME_EXCHANGE)``: at every moment each name holds one of the two directories, whole.
    """
    libc = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
    fn = getattr(libc, "renameat2", None)
    if fn is None:
        return False
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    at_cwd, rename_exchange = -100, 2
    if fn(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP):  # not on this system or filesystem
        return False
    raise OSError(code, os.strerror(code), str(b))


def publish_into(tmp: pathlib.Path, path: pathlib.Path) -> None:
    """Move the entries of ``tmp`` into the directory ``path`` one rename each, ``meta.json`` last, then remove the
    entries of ``path`` that ``tmp`` lacks (used where `exchange_dirs` cannot swap the two).

    ``path`` exists throughout, and its ``meta.json`` (the run's status) switches in one ``os.replace``: a run
    directory claimed as ``running`` stays resumable until that moment and is complete after it.
    """
    names = sorted(os.listdir(tmp), key=lambda n: n == "meta.json")
    trash = pathlib.Path(tempfile.mkdtemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".old", dir=path.parent))
    LIVE.add(str(trash))
    for name in names:
        if (tmp / name).is_dir() and (path / name).exists():
            os.rename(path / name, trash / name)  # a rename cannot replace a non-empty directory: the old goes aside
        os.replace(tmp / name, path / name)
    for entry in set(os.listdir(path)) - set(names):
        os.rename(path / entry, trash / entry)
    shutil.rmtree(trash, ignore_errors=True)
    LIVE.discard(str(trash))


def install_dir(tmp: pathlib.Path, path: pathlib.Path, force: bool = False) -> None:
    """Publish the finished directory ``tmp`` at ``path`` in one atomic step: ``path`` is never half written and,
    once it exists, never missing.

    A missing or empty ``path`` is replaced by one ``rename``, which fails on a non-empty one, so two runs racing
    for one ``--out`` cannot mix their files: the second is refused.  With ``force`` (e.g. a finished run over
    the directory it claimed) `exchange_dirs` swaps the two directories and the old one, now at ``tmp``, is
    removed; where the system has no atomic swap, `publish_into` moves the files in with ``meta.json`` last.
    """
    try:
        _install(tmp, path, force)
    finally:
        LIVE.discard(str(tmp))


def _install(tmp: pathlib.Path, path: pathlib.Path, force: bool) -> None:
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
    if not path.is_dir():  # a file in the way of --force: it is no run directory, nothing readable goes missing
        path.unlink()
        os.rename(tmp, path)
        return
    if not exchange_dirs(tmp, path):
        publish_into(tmp, path)
    shutil.rmtree(tmp, ignore_errors=True)


def staging_dir(path: pathlib.Path) -> pathlib.Path:
    """A fresh, unique hidden directory beside ``path`` to write into before `install_dir`."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = pathlib.Path(tempfile.mkdtemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent))
        LIVE.add(str(tmp))   # until install_dir has published it (or a failed save has removed it)
        return tmp
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


TYPES = {"replicate": "int64", "t": "int64", "value": "float64"}


def _typed(metrics: pd.DataFrame) -> pd.DataFrame:
    """``metrics`` with the numeric columns of a tidy table numeric (an empty part comes with object columns)."""
    cast = {c: kind for c, kind in TYPES.items() if c in metrics.columns and metrics[c].dtype == object}
    try:
        return metrics.astype(cast) if cast else metrics
    except (TypeError, ValueError):  # not a tidy numeric table: written as it is
        return metrics


def write_files(result, path: pathlib.Path, config: dict | None = None, report: bool = True,
                files: dict | None = None) -> None:
    """Write the run files of ``result`` (and the ``files`` of `write_extra`) into the existing directory
    ``path``, each file atomically."""
    result.metrics = _typed(result.metrics)  # e.g. a run whose last environment failed in round 1
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
             files: dict | None = None, resumable: bool = False) -> pathlib.Path:
    """Write ``result`` to the run directory ``path`` and return the path.

    The files are written into a unique temporary directory beside ``path``, which is then published in one
    atomic step (`install_dir`): a crash while saving leaves ``path`` as it was (missing, or the directory
    ``force`` replaces), never half written; a non-empty ``path`` is refused unless ``force``.  A failed write
    (a full disk) is a `StorageError` naming ``path`` (`write_failed`).

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
    resumable : bool, default False
        ``path`` is a claimed run that ``onlinelab resume`` can finish: a failed write says so.

    >>> import errno, tempfile, onlinelab as ol
    >>> res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=5)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = save_run(res, tmp + "/run", report=False)
    ...     sorted(p.name for p in pathlib.Path(tmp).iterdir())   # no staging directory is left
    ['run']
    """
    path = pathlib.Path(path)
    refuse_occupied(path, force)
    tmp = staging_dir(path)
    try:
        write_files(result, tmp, config=config, report=report, files=files)
        install_dir(tmp, path, force)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, StorageError):
            raise
        raise write_failed(exc, path, resumable) from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        LIVE.discard(str(tmp))
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


