"""Durability at the edges (issue 20, item 4): each point of the issue's list, reproduced and checked.

* the final publish is one atomic step, and a kill at any rename of it leaves ``--out`` readable or resumable;
* the staging folders and temporary files a killed save leaves are removed by the next run or resume;
* a full disk is a StorageError naming the folder and ``onlinelab resume``, in Python and on the command line;
* every config check runs before the run directory is claimed, and a failed start does not block a rerun;
* a custom environment that fails before the first checkpoint shows its own error.

The finished metrics are compared with an uninterrupted run of the same config, bit for bit (``runtime_s``, a
wall-clock time, aside), as the resume tests of tests/experiment/test_durability.py do.
"""
from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import shutil
import socket
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import onlinelab as ol
from onlinelab.cli.errors import run_command
from onlinelab.cli.main import main
from onlinelab.errors import SimulationError, StorageError
from onlinelab.experiment import durable
from onlinelab.experiment.default import run_experiment
from onlinelab.experiment.durable import resume_run
from onlinelab.runs import storage
from onlinelab.runs.load import load_run
from onlinelab.runs.tomlio import dump_toml

CFG = {"run": {"rounds": 20, "replicates": 2, "checkpoints": 4, "seed": 1},
       "environments": [{"name": "spiked-covariance", "d": 3}], "learners": [{"name": "meg"}]}
EVERY = 5   # checkpoint every 5 rounds: a kill at the end resumes from round 20, one in the middle replays rounds


def _metrics(result) -> pd.DataFrame:
    df = result.metrics[result.metrics.metric != "runtime_s"]
    return df.sort_values(["learner", "environment", "replicate", "t", "metric"]).reset_index(drop=True)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The uninterrupted run's metrics."""
    res, _ = run_experiment(CFG, out=tmp_path_factory.mktemp("ref") / "run", checkpoint_every=EVERY)
    return _metrics(res)


def _leftovers(out) -> list:
    beside = [p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}.")]
    return beside + ([p.name for p in out.iterdir() if p.name.endswith(".tmp")] if out.is_dir() else [])


class Killed(BaseException):
    """A kill between two system calls: what comes after it (clean-up included) never runs."""


class _Killer:
    """Counts the renames, replaces and directory exchanges of the final publish and kills the run at the n-th."""

    def __init__(self, monkeypatch, n=None):
        self.n, self.calls, self.armed, self.dead = n, 0, False, False
        real = {"rename": os.rename, "replace": os.replace, "exchange_dirs": storage.exchange_dirs,
                "rmtree": shutil.rmtree, "save_run": storage.save_run}

        def step(name):
            def call(*args, **kwargs):
                if self.armed and not self.dead:
                    self.calls += 1
                    if self.calls == self.n:
                        self.dead = True
                        raise Killed(f"killed at {name} number {self.n}")
                return real[name](*args, **kwargs)
            return call

        def save_run(*args, **kwargs):   # the final publish of a durable run
            self.armed = True
            return real["save_run"](*args, **kwargs)

        monkeypatch.setattr(os, "rename", step("rename"))
        monkeypatch.setattr(os, "replace", step("replace"))
        monkeypatch.setattr(storage, "exchange_dirs", step("exchange_dirs"))
        monkeypatch.setattr(shutil, "rmtree", lambda *a, **k: None if self.dead else real["rmtree"](*a, **k))
        monkeypatch.setattr(storage, "save_run", save_run)

    def revive(self):
        """A new process: the real calls again, and no temporary path is in use."""
        self.armed = self.dead = False
        storage.LIVE.clear()


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2-exchange", "files-moved-in"])
def test_a_kill_at_any_step_of_the_final_publish_leaves_out_readable_or_resumable(tmp_path, monkeypatch,
                                                                                  reference, exchange):
    if not exchange:  # a system without an atomic exchange: the files are moved in, meta.json last
        monkeypatch.setattr(storage, "exchange_dirs", lambda a, b: False)
    counter = _Killer(monkeypatch)
    run_experiment(CFG, out=tmp_path / "count", checkpoint_every=EVERY)
    steps = counter.calls
    assert steps >= 2   # at least the files written in staging and the publish itself
    monkeypatch.undo()
    if not exchange:
        monkeypatch.setattr(storage, "exchange_dirs", lambda a, b: False)
    for n in range(1, steps + 1):
        out = tmp_path / f"run{n}"
        killer = _Killer(monkeypatch, n)
        with pytest.raises(Killed):
            run_experiment(CFG, out=out, checkpoint_every=EVERY)
        killer.revive()
        assert out.is_dir(), f"--out is missing after a kill at step {n} of {steps}"
        status = storage.read_json(out / "meta.json")["status"]
        assert status in ("running", "complete"), (n, status)
        if status == "complete":   # published: readable as it is
            pd.testing.assert_frame_equal(_metrics(load_run(out)), reference)
        again, _ = resume_run(out)   # finishes a running one; a complete one is returned as saved
        pd.testing.assert_frame_equal(_metrics(again), reference)
        assert _leftovers(out) == [], (n, _leftovers(out))   # what the kill left is gone after the resume


def test_a_kill_at_the_claim_leaves_no_out_and_a_rerun_cleans_up(tmp_path, monkeypatch, reference):
    out = tmp_path / "run"
    monkeypatch.setattr(os, "rename", lambda *a: (_ for _ in ()).throw(Killed("killed at the claim's rename")))
    monkeypatch.setattr(shutil, "rmtree", lambda *a, **k: None)
    with pytest.raises(Killed):
        run_experiment(CFG, out=out, checkpoint_every=EVERY)
    monkeypatch.undo()
    storage.LIVE.clear()
    assert not out.exists() and len(_leftovers(out)) == 1   # the staged claim, never published
    res, _ = run_experiment(CFG, out=out, checkpoint_every=EVERY)
    pd.testing.assert_frame_equal(_metrics(res), reference)
    assert _leftovers(out) == []


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_leftovers_of_a_dead_process_are_removed_and_a_live_ones_kept(tmp_path, reference):
    dead, live = _dead_pid(), os.getppid()
    out = tmp_path / "run"
    stale = [tmp_path / f".run.{dead}.k2j4_x.tmp", tmp_path / f".run.{dead}.q9z8w7.old"]
    kept = [tmp_path / f".run.{live}.a1b2c3.tmp", tmp_path / f".run2.{dead}.a1b2c3.tmp", tmp_path / ".runs"]
    for p in stale + kept:
        p.mkdir()
        (p / "meta.json").write_text("{}")
    res, _ = run_experiment(CFG, out=out, checkpoint_every=EVERY)
    assert [p for p in stale if p.exists()] == [] and all(p.exists() for p in kept)
    # inside a run directory: a half-written checkpoint of a dead process goes on resume
    (out / f".checkpoint.npz.{dead}.tmp").write_bytes(b"half")
    resume_run(out)
    assert not (out / f".checkpoint.npz.{dead}.tmp").exists()


def _disk_full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_at_a_checkpoint_names_the_folder_and_resume(tmp_path, monkeypatch, reference):
    out = tmp_path / "run"
    calls = {"n": 0}
    real = durable.save_state

    def second_fails(*args, **kwargs):
        calls["n"] += 1
        return _disk_full() if calls["n"] == 2 else real(*args, **kwargs)

    monkeypatch.setattr(durable, "save_state", second_fails)
    with pytest.raises(StorageError) as info:
        run_experiment(CFG, out=out, checkpoint_every=EVERY)
    message = str(info.value)
    assert f"cannot write the run directory {out}: the disk is full" in message
    assert f"`onlinelab resume {out}` will finish the run" in message and "bug" not in message
    monkeypatch.undo()
    again, _ = resume_run(out)
    pd.testing.assert_frame_equal(_metrics(again), reference)


def test_a_full_disk_at_the_final_publish_keeps_out_resumable(tmp_path, monkeypatch, reference):
    out = tmp_path / "run"
    monkeypatch.setattr(storage, "dump_toml", _disk_full)   # the staged config.toml of the finished run
    with pytest.raises(StorageError, match=r"the disk is full .*onlinelab resume"):
        run_experiment(CFG, out=out, checkpoint_every=EVERY)
    monkeypatch.undo()
    assert storage.read_json(out / "meta.json")["status"] == "running" and _leftovers(out) == []
    again, _ = resume_run(out)
    pd.testing.assert_frame_equal(_metrics(again), reference)


def _cli(argv) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        status = main(argv)
    return status, err.getvalue()


def test_a_full_disk_on_the_command_line(tmp_path, monkeypatch):
    config = tmp_path / "run.toml"
    config.write_text(dump_toml(CFG))
    monkeypatch.setattr(durable, "save_state", _disk_full)
    status, err = _cli(["run", str(config), "--out", str(tmp_path / "run"), "--checkpoint-every", "5", "--quiet"])
    assert status == 1 and "the disk is full" in err and f"onlinelab resume {tmp_path / 'run'}" in err
    assert "unexpected" not in err and "bug" not in err

    def full(args):
        raise OSError(errno.ENOSPC, "No space left on device", "runs/x/metrics.parquet")

    stream = io.StringIO()
    assert run_command(full, None, stderr=stream) == 1
    assert "the disk is full writing runs/x/metrics.parquet" in stream.getvalue() and "bug" not in stream.getvalue()


def _with(**tables) -> dict:
    data = {key: (dict(val) if isinstance(val, dict) else [dict(x) for x in val]) for key, val in CFG.items()}
    for key, val in tables.items():
        data[key] = {**data[key], **val} if key == "run" else val
    return data


BANDIT = [{"name": "ftrl", "regularizer": "entropy"}]
LATE_CHECKS = {   # found only after the claim before: each left a `running` directory that blocked a rerun
    "checkpoints past T": (_with(run={"checkpoints": [100]}), r"checkpoints must be round numbers in \[1, T=20\]"),
    "schedule shorter than T": (_with(delay={"kind": "schedule", "delays": [1, 2]}),
                                r"delay\.delays lists 2 delays for T = 20 rounds"),
    "poisson mean too large": (_with(environments=[{"name": "experts-stochastic"}], learners=BANDIT,
                                     delay={"kind": "random", "distribution": "poisson", "mean": 1e30}),
                               r"delay\.mean must be ≤ 1e\+15"),
    "uniform mean too large": (_with(environments=[{"name": "experts-stochastic"}], learners=BANDIT,
                                     delay={"kind": "random", "distribution": "uniform", "mean": 1e30}),
                               r"delay\.mean must be ≤ 1e\+15"),
    "confident rule on density matrices": (_with(delay={"kind": "adaptive", "rule": "confident"}),
                                           r"the 'confident' delay rule needs .* plays the spectraplex"),
    "weights shorter than T": (_with(environments=[{"name": "experts-stochastic"}],
                                     learners=[{**BANDIT[0], "weights": [1.0, 2.0]}]),
                               r"weights lists 2 values for T = 20 rounds"),
    "arrivals on an adaptive environment": (_with(environments=[{"name": "adaptive-arms"}],
                                                  learners=[{"name": "exp3"}], arrivals={"rate": 1.0}),
                                            r"arrivals need an oblivious environment"),
}


@pytest.mark.parametrize("case", list(LATE_CHECKS))
def test_config_checks_run_before_the_directory_is_claimed(tmp_path, case):
    data, message = LATE_CHECKS[case]
    config, out = tmp_path / "bad.toml", tmp_path / "run"
    config.write_text(dump_toml(data))
    status, err = _cli(["run", str(config), "--out", str(out), "--quiet"])
    assert status == 2, err
    assert re.search(message, err), err
    assert not out.exists() and _leftovers(out) == []


def _claimed(out, status: str, pid: int) -> None:
    out.mkdir()
    (out / "config.toml").write_text(dump_toml(CFG))
    doc = {"status": status, "T": 20, "replicates": 2, "seed": 1,
           "claimed_by": {"host": socket.gethostname(), "pid": pid}}
    (out / "meta.json").write_text(storage.json.dumps(doc))


@pytest.mark.parametrize("status", ["running", "failed: ValueError: in round 1"])
def test_a_failed_start_does_not_block_a_rerun(tmp_path, reference, status):
    out = tmp_path / "run"
    _claimed(out, status, _dead_pid())   # nothing completed, no process runs it
    res, _ = run_experiment(CFG, out=out, checkpoint_every=EVERY)
    pd.testing.assert_frame_equal(_metrics(res), reference)


def test_an_unfinished_or_live_run_is_refused_naming_resume(tmp_path):
    live = tmp_path / "live"
    _claimed(live, "running", os.getppid())   # its process still runs
    with pytest.raises(StorageError, match=r"holds an unfinished run .*onlinelab resume .*--force"):
        run_experiment(CFG, out=live)
    stopped = tmp_path / "stopped"
    _claimed(stopped, "running", _dead_pid())
    (stopped / "checkpoint.npz").write_bytes(b"rounds to keep")   # it completed something: resume it
    with pytest.raises(StorageError, match=r"holds an unfinished run .*onlinelab resume"):
        run_experiment(CFG, out=stopped)


@ol.register_environment("test-edge-boom")
class _Boom(ol.Environment):
    """Emits nothing: its emit raises ValueError in round 1 (a user's environment with a bug)."""

    psd = True
    loss_bound = 1.0

    def __init__(self, d: int = 3):
        super().__init__(d=d)

    def emit(self, t, history):
        raise ValueError(f"boom in round {t}")


def test_a_custom_environment_failing_in_round_1_shows_its_error_from_simulate():
    for envs in (_Boom(), ["spiked-covariance", _Boom()]):
        with pytest.raises(SimulationError, match=r"ValueError: boom in round 1"):
            ol.simulate(envs, [ol.make_learner("meg")], T=20, replicates=2)


@pytest.mark.parametrize("environments", [[{"name": "test-edge-boom"}],
                                          [{"name": "spiked-covariance", "d": 3}, {"name": "test-edge-boom"}]],
                         ids=["alone", "after-a-finished-environment"])
def test_a_custom_environment_failing_in_round_1_shows_its_error_from_a_durable_run(tmp_path, environments):
    config, out = tmp_path / "boom.toml", tmp_path / "run"
    config.write_text(dump_toml(_with(environments=environments)))
    status, err = _cli(["run", str(config), "--out", str(out), "--checkpoint-every", "5", "--quiet"])
    assert status == 1 and "ValueError: boom in round 1" in err, err
    assert "TypeError" not in err and "unexpected" not in err
    meta = storage.read_json(out / "meta.json")
    assert meta["status"].startswith("failed") and "boom in round 1" in meta["status"]
    done = load_run(out).metrics   # what finished is saved, typed
    assert done.empty or np.issubdtype(done["value"].dtype, np.floating)
