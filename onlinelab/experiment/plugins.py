"""User learners and environments from a Python file: ``--plugins FILE.py`` and ``[run] plugins = [...]``.

A plugin file is ordinary Python that subclasses `onlinelab.Environment` or
`onlinelab.Learner` and registers the class (``@onlinelab.register_environment("name")``);
loading it makes the name usable in configs and on the command line.  Packages can instead
expose their modules through the entry-point groups ``onlinelab.environments`` /
``onlinelab.learners`` (loaded with the built-ins), and a file dropped into the checkout's
``environments/`` folder is found in an editable install.  A file is loaded once per process,
under a module name derived from its absolute path, so its classes pickle and a checkpoint
names them the same way in every process.

A run travels with its plugins (docs/guide/plugins.md): loading a file keeps its *record* — the
path as given, the absolute path and the sha256 of the bytes that were executed — and the source
itself.  A run directory stores the records in ``meta.json`` (``plugins``), the absolute paths in
``config.toml`` (``[run] plugins``) and a copy of each file under ``plugins/``; sweep workers
execute the shipped source of each file (`shipped`, `load_shipped`), and ``onlinelab
resume`` loads the recorded files only when the user says so (``--trust``, or the files given with
``--plugins``) and their sha256 is unchanged (`load_recorded`).  Reading a run directory (``load_run``,
``report``, ``compare``) loads none of them.

>>> import pathlib, tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     _ = (pathlib.Path(tmp) / "mine.py").write_text("X = 1")
...     module = load_plugin_file("mine.py", base=tmp)
...     record = plugin_records(["mine.py"], base=tmp)[0]
>>> module.X, record["given"], record["copy"], len(record["sha256"])
(1, 'mine.py', 'plugins/mine.py', 64)
"""
from __future__ import annotations

import hashlib
import importlib.util
import pathlib
import sys

from onlinelab.errors import ConfigError, ConfigTypeError, StorageError

_RECORDS: dict[str, dict] = {}   # absolute path -> {"given", "path", "sha256"} of the file this process executed
_SOURCES: dict[str, bytes] = {}  # absolute path -> the bytes executed


def _module_name(path: pathlib.Path) -> str:
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    stem = "".join(c if c.isalnum() else "_" for c in path.stem)
    return f"onlinelab_plugin_{stem}_{digest}"


def sha256_hex(data: bytes) -> str:
    """The sha256 of ``data`` as 64 hexadecimal digits (what a run records of each plugin file)."""
    return hashlib.sha256(data).hexdigest()


def _resolve(path, base) -> pathlib.Path:
    """The absolute path of the plugin file ``path`` (relative to ``base``), checked to be an existing .py file."""
    if not isinstance(path, (str, pathlib.PurePath)):
        raise ConfigTypeError(f"a plugin must be the path of a .py file, got {path!r} ({type(path).__name__}); "
                              'write plugins = ["my_envs.py"]')
    given = pathlib.Path(path)
    full = (given if given.is_absolute() else pathlib.Path(base or ".") / given).resolve()
    where = f" (resolved against {str(base)!r})" if base is not None and not given.is_absolute() else ""
    if full.suffix != ".py":
        raise ConfigError(f"plugin {str(path)!r} is not a .py file; pass a Python file that registers learners "
                          "or environments")
    if not full.is_file():
        raise ConfigError(f"plugin file {str(path)!r} does not exist{where}; check the path")
    return full


def _execute(full: pathlib.Path, given: str, source: bytes):
    """Run ``source`` as the module of the file ``full`` (once per process) and keep its record."""
    name = _module_name(full)
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, full)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:  # the very bytes that were hashed, not a second read of the file
        exec(compile(source, str(full), "exec"), module.__dict__)
    except Exception as exc:
        del sys.modules[name]
        raise ConfigError(f"plugin file {given!r} failed to load: {type(exc).__name__}: {exc}; "
                          "run it with python to see where (or add --debug)") from exc
    _RECORDS[str(full)] = {"given": given, "path": str(full), "sha256": sha256_hex(source)}
    _SOURCES[str(full)] = source
    return module


def load_plugin_file(path, base=None):
    """Import the Python file ``path`` (relative to ``base`` when not absolute) and return its module.

    Parameters
    ----------
    path : str or path-like
        The plugin file (``.py``).
    base : str or path-like or None, default None
        The folder a relative ``path`` is resolved against (a config file's folder); None: the working directory.
    """
    full = _resolve(path, base)
    name = _module_name(full)
    if name in sys.modules:
        return sys.modules[name]
    return _execute(full, str(path), full.read_bytes())


def _as_list(paths) -> list:
    if paths is None:
        return []
    if isinstance(paths, (str, pathlib.PurePath)):
        return [paths]
    if not isinstance(paths, (list, tuple)):
        raise ConfigTypeError(f"plugins must be a list of .py paths, got {paths!r} ({type(paths).__name__}); "
                              'write plugins = ["my_envs.py"]')
    return list(paths)


def load_plugins(paths, base=None) -> list:
    """Load every plugin file in ``paths`` (a list, or one path); returns the modules.

    Parameters
    ----------
    paths : list of str, str or None
        Plugin files; None loads nothing.
    base : str or path-like or None, default None
        The folder relative paths are resolved against.
    """
    return [load_plugin_file(p, base=base) for p in _as_list(paths)]


def plugin_records(paths, base=None) -> list[dict]:
    """Load the plugin files ``paths`` (each once per process) and return what a run records of each.

    A record is ``{"given", "path", "sha256", "copy"}``: the path as first given in this process, the
    absolute path, the sha256 of the bytes executed, and where the run directory keeps a copy
    (``plugins/<file name>``, numbered when two files share a name).  A file named twice is recorded once.

    Parameters
    ----------
    paths : list of str, str or None
        Plugin files.
    base : str or path-like or None, default None
        The folder relative paths are resolved against (None: the working directory).
    """
    out, names = {}, set()
    for path in _as_list(paths):
        load_plugin_file(path, base=base)
        full = str(_resolve(path, base))
        if full in out:
            continue
        record = dict(_RECORDS[full])
        stem, n, copy = pathlib.Path(full).stem, 1, pathlib.Path(full).name
        while copy in names:
            n += 1
            copy = f"{stem}-{n}.py"
        names.add(copy)
        out[full] = {**record, "copy": f"plugins/{copy}"}
    return list(out.values())


def with_plugins(data: dict, extra) -> dict:
    """``data`` (a parsed config) with the plugin files ``extra`` (the command line's ``--plugins``, relative to
    the working directory) added to its ``[run] plugins`` as absolute paths, so that the run records them."""
    extra = [str(_resolve(p, None)) for p in _as_list(extra)]
    if not extra:
        return data
    run = dict(data.get("run", {}))
    run["plugins"] = list(dict.fromkeys([*_as_list(run.get("plugins")), *extra]))
    return {**data, "run": run}


def record_in(meta: dict, resolved: dict | None, records: list[dict]) -> dict[str, bytes]:
    """Write ``records`` into a run's ``meta`` (``plugins``) and, when its resolved config's ``[run]`` table
    takes plugins, their absolute paths into it; return the copies to store, ``{relative path: source}``."""
    if not records:
        return {}
    meta["plugins"] = [dict(r) for r in records]
    run = (resolved or {}).get("run")
    if isinstance(run, dict) and "plugins" in run:
        run["plugins"] = [r["path"] for r in records]
    return copies(records)


def copies(records: list[dict]) -> dict[str, bytes]:
    """``{record["copy"]: source}`` for files this process loaded (the bytes it executed)."""
    return {r["copy"]: _SOURCES[r["path"]] for r in records if r["path"] in _SOURCES}


def shipped(records: list[dict]) -> list[tuple[dict, bytes]]:
    """The records with the source each file had when this process loaded it, for a sweep's workers."""
    return [(dict(r), _SOURCES[r["path"]]) for r in records]


def load_shipped(payload: list[tuple[dict, bytes]]) -> None:
    """Load plugin sources shipped by `shipped` (on a process or dask worker), each once per process.

    The worker runs the bytes the sweep's process loaded, so it needs no copy of the file; a worker that
    already loaded another version of a file (a long-lived dask worker) refuses instead of mixing them.
    """
    for record, source in payload:
        if sha256_hex(source) != record["sha256"]:
            raise ConfigError(f"the plugin source shipped for {record['path']!r} does not match its sha256 "
                              f"{record['sha256']}; start the sweep again")
        loaded = _RECORDS.get(record["path"])
        if loaded is not None and loaded["sha256"] != record["sha256"]:
            raise ConfigError(f"this worker already loaded another version of the plugin file {record['path']!r} "
                              f"(sha256 {loaded['sha256']}, the sweep's is {record['sha256']}); restart the "
                              "workers (a new dask cluster) before the sweep")
        _execute(pathlib.Path(record["path"]), record.get("given", record["path"]), source)


def load_recorded(records, run_dir, trust: bool = False) -> list:
    """Load the plugin files a run recorded, each only when its sha256 is still the recorded one.

    Nothing named in a run directory is executed unless the user says so: without ``trust``, every recorded
    file must already be loaded in this process, with the recorded sha256 (``onlinelab --plugins FILE.py
    resume RUN``), or this is a `onlinelab.errors.StorageError` naming the files and both ways to opt in.  A
    file that is missing, or whose bytes (on disk, or as already loaded in this process) have another sha256,
    is a StorageError naming the file, both hashes and the fix.

    Parameters
    ----------
    records : list of dict
        ``meta.json``'s ``plugins`` (see `plugin_records`).
    run_dir : str or path-like
        The run directory (named in the messages, with its copy of the file).
    trust : bool, default False
        Execute recorded files that this process has not loaded (``onlinelab resume --trust``).
    """
    run_dir = pathlib.Path(run_dir)
    if not isinstance(records, list) or not all(
            isinstance(r, dict) and isinstance(r.get("path"), str) and pathlib.Path(r["path"]).is_absolute()
            and isinstance(r.get("sha256"), str) for r in records):
        raise StorageError(f"{str(run_dir / 'meta.json')!r} has a damaged plugins entry ({records!r}): it must be a "
                           'list of {"path" (absolute), "sha256"} records; start a new run')
    unloaded = [r["path"] for r in records if r["path"] not in _RECORDS]
    if unloaded and not trust:
        listed, named = " ".join(f"--plugins {p}" for p in unloaded), ", ".join(map(repr, unloaded))
        raise StorageError(f"the run in {str(run_dir)!r} was made with the plugin file(s) {named}; resuming "
                           "executes them, and onlinelab runs no code a run directory names unless you "
                           f"say so: read them, then resume with `onlinelab resume {run_dir} --trust` (Python: "
                           f"resume_run(path, trust=True)), or load them yourself: `onlinelab {listed} resume "
                           f"{run_dir}`")
    modules = []
    for r in records:
        path, want = r["path"], r["sha256"]
        copy = run_dir / r["copy"] if isinstance(r.get("copy"), str) else None
        fix = (f"restore it (the run keeps a copy: {str(copy)!r})" if copy is not None and copy.is_file()
               else "restore it") + " or start a new run with `onlinelab run`"
        loaded = _RECORDS.get(path)
        if loaded is not None and loaded["sha256"] != want:
            raise StorageError(f"the plugin file {path!r} has changed since the run in {str(run_dir)!r} loaded it: "
                               f"recorded sha256 {want}, now {loaded['sha256']} (as loaded by this process); {fix}")
        if loaded is not None:  # loaded by this process (--plugins): the module it made
            modules.append(_execute(pathlib.Path(path), loaded["given"], _SOURCES[path]))
            continue
        try:
            source = pathlib.Path(path).read_bytes()
        except OSError:
            raise StorageError(f"the run in {str(run_dir)!r} loaded the plugin file {path!r} (sha256 {want}), which "
                               f"is missing now; {fix}") from None
        now = sha256_hex(source)
        if now != want:
            raise StorageError(f"the plugin file {path!r} has changed since the run in {str(run_dir)!r} loaded it: "
                               f"recorded sha256 {want}, now {now}; {fix}")
        modules.append(_execute(pathlib.Path(path), r.get("given", path), source))
    return modules
