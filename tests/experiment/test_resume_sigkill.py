"""kill -9 at random points, then `onlinelab resume`: the final metrics equal an uninterrupted run's, bit for bit."""
import os
import signal
import time

import numpy as np
import pandas as pd
import pytest

import onlinelab as ol
from onlinelab import cli
from onlinelab.experiment.default import run_experiment
from onlinelab.experiment.durable import resume_run

CFG = {"run": {"name": "kill", "rounds": 120, "replicates": 2, "checkpoints": 8, "seed": 7},
       "environments": [{"name": "spiked-covariance", "d": 3}, {"name": "top-direction", "d": 3}],
       "learners": [{"name": "logdet-omd", "sampler": "sparse"}, {"name": "meg"}]}


def timeless(metrics):
    """Every metric but ``runtime_s`` (wall-clock time, different in any two runs)."""
    return metrics[metrics.metric != "runtime_s"].reset_index(drop=True)


def _child(out):
    try:
        run_experiment(CFG, out=out, checkpoint_every=9, checkpoint_seconds=None)
    finally:
        os._exit(0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork to kill a run cheaply")
def test_sigkill_at_random_points_then_resume_is_bit_identical(tmp_path, monkeypatch):
    monkeypatch.setattr("onlinelab.runs.report.write_report", lambda result, path: None)  # figures are not under test
    start = time.perf_counter()
    reference, _ = run_experiment(CFG, out=tmp_path / "reference", checkpoint_seconds=None)
    duration = time.perf_counter() - start
    rng = np.random.default_rng(2024)  # fixed kill points: the test is reproducible
    outcomes = []
    for i in range(10):
        out = tmp_path / f"run{i}"
        pid = os.fork()
        if pid == 0:
            _child(out)
        while not (out / "meta.json").exists():  # claimed: from here on the directory is resumable
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, duration))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        outcomes.append("checkpoint" if (out / "checkpoint.npz").exists() else
                        "complete" if (out / "metrics.parquet").exists() else "claimed only")
        if i == 0:
            assert cli.main(["resume", str(out), "--quiet"]) == 0
            resumed = ol.load_run(out)
        else:
            resumed, _ = resume_run(out)
        pd.testing.assert_frame_equal(timeless(resumed.metrics), timeless(reference.metrics))
        assert resumed.meta["status"] == "complete"
    assert outcomes.count("checkpoint") >= 3, outcomes  # most kills land mid-run, after a checkpoint
