"""Durable runs: claim the run directory, checkpoint the whole loop, stop cleanly on signals, resume.

A run started by ``onlinelab run`` (or `onlinelab.experiment.default.run_experiment`) first
*claims* its directory: ``config.toml`` and a ``meta.json`` with status ``running`` are written to
a temporary directory that is renamed into place, so two runs on one ``--out`` cannot both
get it.  While it runs, `Durable` writes ``checkpoint.npz`` — learner states,
environments, random generators with their buffers, loss trackers and recorders, through
`onlinelab.runs.checkpoint`, no pickle — every ``every_rounds`` rounds or ``every_seconds``
seconds, and each finished environment's result to ``parts/``.  SIGINT and SIGTERM finish the
current round, checkpoint, save what finished and say how to resume.  `resume_run`
rebuilds the run from ``config.toml``, skips finished environments, restores the checkpoint
and plays the remaining rounds: the final metrics are bit-identical to an uninterrupted run's
(``runtime_s``, a wall-clock time, aside).  The finished run replaces the claimed directory
in one atomic step (`onlinelab.runs.storage.install_dir`), so the run directory is never missing.
Every check of the config runs before the claim (`check_run`); a directory left by a start that
failed before it completed anything is claimed again; a full disk is a StorageError that names
the directory and says that ``onlinelab resume`` finishes the run (`writes`).

>>> import tempfile, onlinelab as ol
>>> from onlinelab.experiment.default import run_experiment
>>> cfg = {"run": {"rounds": 30, "replicates": 2}, "environments": [{"name": "spiked-covariance", "d": 3}],
...        "learners": [{"name": "meg"}]}
>>> with tempfile.TemporaryDirectory() as tmp:
...     res, path = run_experiment(cfg, out=tmp + "/run", checkpoint_every=10)
...     again, _ = resume_run(path)          # already complete: nothing to do
>>> again.meta["status"]
'complete'
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import pathlib
import signal
import socket
import time
import warnings

from onlinelab.errors import ConfigError, OnlinelabError, StorageError
from onlinelab.runs import storage
from onlinelab.runs._fingerprint import bind, fingerprint
from onlinelab.runs.checkpoint import load_state, save_state
from onlinelab.runs.load import load_run
from onlinelab.runs.tomlio import read_toml

DEFAULT_SECONDS = 60.0
CHECKPOINT = "checkpoint.npz"
PARTS = "parts"


class RunInterrupted(OnlinelabError):
    """SIGINT or SIGTERM stopped a run between two rounds; its state is checkpointed for ``onlinelab resume``."""

    def __init__(self, message: str, signum: int = signal.SIGINT):
        super().__init__(message, signum)  # simpy rebuilds exceptions from their args
        self.signum = signum

    def __str__(self) -> str:
        return str(self.args[0])


def writes(folder_of, resumable: bool = True):
    """Decorate a function that writes a run directory: an OSError it raises (a full disk) becomes the StorageError
    of `onlinelab.runs.storage.write_failed`, naming the directory (``folder_of(*args)``) and, when
    ``resumable``, saying that ``onlinelab resume`` finishes the run."""
    def wrap(fn):
        @functools.wraps(fn)
        def checked(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except OnlinelabError:
                raise
            except OSError as exc:
                raise storage.write_failed(exc, folder_of(*args), resumable) from exc
        return checked
    return wrap


class Durable:
    """The checkpoint hooks `onlinelab.simulate` calls (``durable=``) for one run directory.

    Parameters
    ----------
    path : str or pathlib.Path
        The claimed run directory.
    every_rounds : int, optional
        Checkpoint every this many rounds.
    every_seconds : float, optional
        Checkpoint when this many seconds have passed since the last one (default 60).
    """

    def __init__(self, path, every_rounds: int | None = None, every_seconds: float | None = DEFAULT_SECONDS):
        self.path = pathlib.Path(path)
        self.every_rounds, self.every_seconds = every_rounds, every_seconds
        self.stop_signal: int | None = None
        self.rounds_since, self.last = 0, time.monotonic()
        self.pending = None
        self.done: dict = {}
        self.last_round: tuple | None = None
        self.fingerprint: dict | None = None  # of the run (onlinelab.runs._fingerprint), in every checkpoint

    def settings(self) -> dict:
        return {"every_rounds": self.every_rounds, "every_seconds": self.every_seconds}

    def load(self) -> None:
        """Read the finished environments and the latest checkpoint of an interrupted run."""
        from onlinelab.runs.result import Result
        parts = self.path / PARTS
        for meta_file in sorted(parts.glob("*.json")) if parts.is_dir() else []:
            meta = storage.read_json(meta_file)
            metrics = storage.read_metrics(meta_file.with_suffix(".parquet"))
            self.done[meta["part_env"]] = Result(metrics, meta["meta"])
        if (self.path / CHECKPOINT).is_file():
            self.pending = load_state(self.path / CHECKPOINT)

    # hooks called by the simulator ------------------------------------------------------------------
    def restore(self, env_label: str):
        if self.pending is not None and self.pending["env"] == env_label:
            state, self.pending = self.pending["loop"], None
            return state
        return None

    def finished(self, env_label: str):
        return self.done.get(env_label)

    @writes(lambda self, *args: self.path)
    def env_done(self, env_label: str, result) -> None:
        parts = self.path / PARTS
        parts.mkdir(exist_ok=True)
        stem = parts / f"env-{len(self.done):03d}"
        storage._write_atomic(stem.with_suffix(".parquet"), lambda p: result.metrics.to_parquet(p, index=False))
        doc = json.dumps(storage._jsonable({"part_env": env_label, "meta": result.meta,
                                            "fingerprint": self.fingerprint}))
        storage._write_atomic(stem.with_suffix(".json"), lambda p: p.write_text(doc))
        self.done[env_label] = result

    @writes(lambda self, *args: self.path)
    def after_round(self, t: int, env_label: str, state, rounds: int = 1) -> None:
        """Round t (the last of ``rounds`` played together, e.g. a block) finished: checkpoint when due, stop when
        asked."""
        self.rounds_since += rounds
        self.last_round = (env_label, t)
        due = (self.every_rounds is not None and self.rounds_since >= self.every_rounds) or (
            self.every_seconds is not None and time.monotonic() - self.last >= self.every_seconds)
        if due or self.stop_signal is not None:
            save_state(self.path / CHECKPOINT, {"env": env_label, "loop": state()},
                       header={"fingerprint": self.fingerprint})
            self.rounds_since, self.last = 0, time.monotonic()
        if self.stop_signal is not None:
            name = signal.Signals(self.stop_signal).name
            raise RunInterrupted(f"{name} stopped the run after round {t} on {env_label!r}; what finished is saved "
                                 f"in {self.path} — resume with: onlinelab resume {self.path}", self.stop_signal)

    def poll(self, t, env_label: str) -> None:
        """Stop on a pending SIGINT/SIGTERM where the loop's state cannot be checkpointed (asynchronous
        arrivals, whose servers may be mid-service): finished environments are kept, this one restarts."""
        if self.stop_signal is not None:
            name = signal.Signals(self.stop_signal).name
            raise RunInterrupted(f"{name} stopped the run at simulated time {t} on {env_label!r}; finished "
                                 f"environments are saved in {self.path} and this one (asynchronous arrivals keep "
                                 f"no mid-environment checkpoint) restarts — resume with: onlinelab resume "
                                 f"{self.path}", self.stop_signal)

    @contextlib.contextmanager
    def signals(self):
        """SIGINT/SIGTERM ask the loop to stop after the current round or block of rounds (a second one stops at
        once)."""
        def handler(signum, frame):
            if self.stop_signal is not None:  # asked twice: stop now
                signal.signal(signum, signal.SIG_DFL)
                raise KeyboardInterrupt
            self.stop_signal = signum
        old = {}
        try:
            for sig in (signal.SIGINT, signal.SIGTERM):
                old[sig] = signal.signal(sig, handler)
        except ValueError:  # not the main thread (a dask worker, a thread pool): no handlers there
            pass
        try:
            yield self
        finally:
            for sig, prev in old.items():
                signal.signal(sig, prev)


def check_run(cfg) -> None:
    """The checks of a regret config that need its horizon, learners and environments together.

    `claim` runs them before it creates the run directory, so that a config the run would refuse only once
    it started (checkpoints past T, a delay schedule shorter than T, the 'confident' delay rule on density
    matrices, a learner's ``weights`` list shorter than T, ``[arrivals]`` on an adaptive environment or
    without a service time for a learner) exits 2 and leaves nothing behind.

    >>> from onlinelab.experiment import config as C
    >>> cfg = C.parse({"run": {"rounds": 10, "checkpoints": [20]}, "learners": [{"name": "meg"}],
    ...                "environments": [{"name": "spiked-covariance", "d": 3}]})
    >>> check_run(cfg)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    onlinelab.errors.ConfigError: checkpoints must be round numbers in [1, T=10], got [20]; pass e.g. ...
    """
    from onlinelab.core.schedule import _checkpoints
    _checkpoints(cfg.rounds, cfg.checkpoints)
    envs, learners = cfg.build()
    if cfg.delay is not None:
        from onlinelab.feedback.delays import make_delay
        make_delay(cfg.delay).check_run(cfg.rounds, envs)
    for label, lrn in learners.items():
        weights = getattr(lrn, "weights", None)
        if isinstance(weights, (list, tuple)) and len(weights) < cfg.rounds:
            raise ConfigError(f"learner {label!r}: weights lists {len(weights)} values for T = {cfg.rounds} rounds; "
                              "give one per round, or use weights = 'constant' or 'linear'")
    if cfg.arrivals is not None:
        from onlinelab.feedback.arrivals import make_arrivals
        arrivals = make_arrivals(cfg.arrivals)
        for env in envs:
            if env.adaptive:
                raise ConfigError(f"arrivals need an oblivious environment; {env.name!r} is adaptive: remove "
                                  "[arrivals] or choose an oblivious environment")
        for field in ("service", "overhead"):
            given = getattr(arrivals, field)
            missing = [label for label in learners if isinstance(given, dict) and label not in given]
            if missing:
                raise ConfigError(f"arrivals.{field} gives no value for learner {missing[0]!r}; add {missing[0]!r} "
                                  f"to it (it has {sorted(given)})")


def _failed_start(path: pathlib.Path) -> bool:
    """True when ``path`` holds a run that stopped before it completed anything (no checkpoint, no finished
    environment) and that no process runs: its status is ``failed``, or the process that claimed it on this
    machine is gone.  Claiming such a directory again loses nothing."""
    if not (path / "meta.json").is_file() or (path / CHECKPOINT).exists() or (path / PARTS).exists():
        return False
    try:
        meta = storage.read_json(path / "meta.json")
    except StorageError:
        return False
    status, owner = str(meta.get("status", "")), meta.get("claimed_by") or {}
    if status.startswith("failed"):
        return True
    pid = str(owner.get("pid", ""))
    if status != "running" or owner.get("host") != socket.gethostname() or not pid.isdigit():
        return False
    if int(pid) == os.getpid():  # this process, e.g. another thread's run: alive
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:  # alive, another user's
        return False
    return False


def _refuse_unfinished(path: pathlib.Path) -> None:
    """An unfinished run in ``path`` (a checkpoint to resume) is refused with the command that finishes it."""
    if (path / "meta.json").is_file() and (path / "config.toml").is_file():
        status = storage.read_json(path / "meta.json").get("status")
        if status != "complete":
            raise StorageError(f"{str(path)!r} holds an unfinished run (status {status!r}); finish it with "
                               f"`onlinelab resume {path}`, pass --force to replace it, or choose another --out")


@writes(lambda path, *args: path, resumable=False)
def claim(path, resolved: dict, cfg, durable: Durable, force: bool = False, plugins: list | None = None) -> None:
    """Create the run directory at ``path`` atomically, holding the config, a ``running`` status and the
    run's plugin files (``plugins``, records of `onlinelab.experiment.plugins.plugin_records`).

    `check_run` comes first; then what a killed save left is removed
    (`onlinelab.runs.storage.clean_leftovers`), a directory left by a start that failed (`_failed_start`) is
    claimed again, and an unfinished run is refused, naming ``onlinelab resume``."""
    from onlinelab.experiment.config import dump_toml
    from onlinelab.experiment.plugins import record_in
    path = pathlib.Path(path)
    check_run(cfg)
    storage.clean_leftovers(path)
    force = force or _failed_start(path)
    if not force:
        _refuse_unfinished(path)
    storage.refuse_occupied(path, force)
    tmp = storage.staging_dir(path)
    (tmp / "config.toml").write_text(dump_toml(resolved))
    durable.fingerprint = fingerprint(read_toml(tmp / "config.toml"))  # as resume will read it back
    meta = {"status": "running", "T": cfg.rounds, "replicates": cfg.replicates, "seed": cfg.seed,
            "durability": durable.settings(), "claimed_by": {"host": socket.gethostname(), "pid": os.getpid()},
            **storage.environment_info()}
    storage.write_extra(tmp, record_in(meta, None, plugins or []))
    (tmp / "meta.json").write_text(json.dumps(storage._jsonable(meta), indent=2))
    storage.install_dir(tmp, path, force)


def execute(cfg, resolved: dict, path: pathlib.Path, durable: Durable, progress: bool = False,
            plugins: list | None = None):
    """Simulate ``cfg`` with ``durable`` hooks; install the finished run (with its ``plugins`` records and
    copies) over the claimed directory."""
    from onlinelab.experiment.plugins import record_in
    start = time.time()
    with warnings.catch_warnings(record=True) as caught, durable.signals():
        warnings.simplefilter("always")
        try:  # the one build path of a regret run (a sweep cell takes it too): every key of cfg takes effect
            result = cfg.simulate(progress=progress, durable=durable)
        except OnlinelabError as exc:
            if getattr(exc, "partial", None) is not None:  # what finished, beside the checkpoint
                try:
                    record_in(exc.partial.meta, None, plugins or [])
                    storage.write_files(exc.partial, path, config=resolved)
                except Exception as failed:  # noqa: BLE001 — the run's own error is the one the user sees
                    exc.add_note(f"saving the completed part in {path} failed too ({type(failed).__name__}: "
                                 f"{failed})")
                exc.run_dir = path
            raise
    result.meta["wall_s"] = time.time() - start
    result.meta["kind"] = "regret"  # onlinelab.experiment.kinds.regret: load_run, compare and resume find the kind
    files = record_in(result.meta, None, plugins or [])
    storage.save_run(result, path, config=resolved, force=True, files=files, resumable=True)  # over the claim
    for w in caught:  # re-raised only now, so that a violation never stops the run directory being written
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return result, path


def resume_run(path, progress: bool = False, trust: bool = False):
    """Finish the interrupted run in ``path``; returns ``(result, path)``.

    A run made with plugin files (``meta.json``'s ``plugins``) resumes only when this process loaded them
    already (``--plugins``) or ``trust`` is True; the recorded files are then loaded, each only when its sha256
    is unchanged (`onlinelab.experiment.plugins.load_recorded`), and a changed or missing file is a
    StorageError naming it.  The checkpoint and finished parts must carry the fingerprint of this run's
    ``config.toml`` (`onlinelab.runs._fingerprint.bind`): state from another run is refused, naming the field.

    Parameters
    ----------
    path : str or pathlib.Path
        A run directory written by ``onlinelab run`` that was killed, interrupted or failed.
    progress : bool
        Show a progress bar.
    trust : bool, default False
        Execute the plugin files the run recorded (``onlinelab resume --trust``).
    """
    from onlinelab.experiment import config as C
    path = pathlib.Path(path)
    if not (path / "meta.json").is_file() or not (path / "config.toml").is_file():
        raise StorageError(f"{str(path)!r} is not a run directory that can be resumed (it needs meta.json and "
                           "config.toml, as `onlinelab run` writes them)")
    meta = storage.read_json(path / "meta.json")
    storage.clean_leftovers(path)  # what a killed save left (staging directories, half-written files)
    if meta.get("status") == "complete":
        return load_run(path), path
    from onlinelab.experiment.plugins import load_recorded
    records = meta.get("plugins", [])
    load_recorded(records, path, trust=trust)  # before the checkpoint, which may name their classes
    settings = meta.get("durability", {})
    durable = Durable(path, settings.get("every_rounds"), settings.get("every_seconds", DEFAULT_SECONDS))
    try:
        resolved = read_toml(path / "config.toml")  # loads no plugin: the recorded ones are loaded, checked
    except OnlinelabError as exc:
        raise StorageError(f"{str(path / 'config.toml')!r} is damaged: {exc}") from exc
    run = resolved.get("run")
    named = run.get("plugins", []) if isinstance(run, dict) else []
    unrecorded = [p for p in (named if isinstance(named, list) else [named]) if p not in {r["path"] for r in records}]
    if unrecorded:
        raise StorageError(f"{str(path / 'config.toml')!r} names the plugin file {unrecorded[0]!r}, which "
                           f"{str(path / 'meta.json')!r} does not record (with its sha256); the files were edited: "
                           "start a new run with `onlinelab run`")
    durable.fingerprint = bind(path, resolved, CHECKPOINT, PARTS)  # refuses a checkpoint or part of another run
    durable.load()
    cfg = C.parse(resolved)
    return execute(cfg, resolved, path, durable, progress=progress, plugins=records)
