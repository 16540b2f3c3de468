"""Run directories, load_run, the config round trip, and the command line."""
import json
import pathlib
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import onlinelab as ol
from onlinelab import cli
from onlinelab.errors import StorageError
from onlinelab.experiment import config as C
from onlinelab.experiment.default import run_experiment

SMALL = """
[run]
name = "small"
rounds = 60
replicates = 2
checkpoints = 8

[[environments]]
name = "spiked-covariance"
d = 4

[[learners]]
name = "logdet-omd"
sampler = "sparse"

[[learners]]
name = "meg"
"""


def test_save_and_load_round_trip(tmp_path):
    res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=40, replicates=2, seed=4)
    path = res.save(tmp_path / "run")
    for name in ("meta.json", "metrics.parquet", "report.png", "report.md"):
        assert (path / name).is_file()
    back = ol.load_run(path)
    pd.testing.assert_frame_equal(back.metrics, res.metrics)
    pd.testing.assert_frame_equal(back.summary(), res.summary())
    meta = json.loads((path / "meta.json").read_text())
    assert meta["seed"] == 4 and meta["onlinelab"] == ol.__version__ and "python" in meta


def test_load_run_on_a_wrong_folder(tmp_path):
    with pytest.raises(StorageError,
                       match=r"is not an onlinelab run directory \(missing meta\.json, metrics\.parquet\)"):
        ol.load_run(tmp_path)


def test_config_file_run_writes_resolved_config(tmp_path):
    cfg = tmp_path / "small.toml"
    cfg.write_text(SMALL)
    out = tmp_path / "out"
    status = cli.main(["run", str(cfg), "--seed", "5", "--rounds", "50", "--out", str(out), "--quiet"])
    assert status == 0
    written = C.load_toml(out / "config.toml")
    assert written["run"] == {"name": "small", "seed": 5, "rounds": 50, "replicates": 2, "checkpoints": 8,
                              "comparator": "exact", "compiled": True}
    assert written["learners"][0] == {"name": "logdet-omd", "label": "logdet-omd(sampler='sparse')", "eta": "auto",
                                      "gamma": "auto", "sampler": "sparse", "reorth_every": 32}
    # the resolved config reproduces the run exactly
    again, _ = run_experiment(written, out=tmp_path / "again")
    first = ol.load_run(out)
    keep = lambda m: m[m.metric != "runtime_s"].reset_index(drop=True)  # noqa: E731
    pd.testing.assert_frame_equal(keep(first.metrics), keep(again.metrics))
    resolved = json.loads((out / "meta.json").read_text())["learners"]["logdet-omd(sampler='sparse')"]["resolved"]
    eta = resolved["spiked-covariance(d=4)"]["eta"]
    assert eta == pytest.approx(min(np.sqrt(np.log(50) / 50), 1 / 8))


def test_cli_bad_input_exits_2_with_the_message(tmp_path, capsys):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(SMALL.replace("rounds = 60", "rounds = 60\nreplicas = 3"))
    assert cli.main(["run", str(cfg), "--quiet"]) == 2
    assert "unknown key 'replicas' in [run] (did you mean 'replicates'?)" in capsys.readouterr().err
    assert cli.main(["run", str(tmp_path / "missing.toml")]) == 2


def test_cli_failed_run_saves_its_completed_part(tmp_path, capsys, monkeypatch):
    import onlinelab.environments.spiked as spiked
    original = spiked.SpikedCovariance.emit

    def emit(self, t, history):
        if t == 30:
            return ol.FactoredLoss(np.full((self.replicates, self.d), np.inf))
        return original(self, t, history)

    monkeypatch.setattr(spiked.SpikedCovariance, "emit", emit)
    monkeypatch.setattr(spiked.SpikedCovariance, "emit_block", ol.Environment.emit_block)  # round by round
    cfg = tmp_path / "small.toml"
    cfg.write_text(SMALL)
    out = tmp_path / "partial"
    assert cli.main(["run", str(cfg), "--out", str(out), "--quiet"]) == 1
    assert "round 30: loss factors have non-finite entries" in capsys.readouterr().err
    back = ol.load_run(out)
    assert back.meta["status"].startswith("failed: LossError")
    assert back.metrics.t.max() < 30


def test_cli_list_and_report(tmp_path, capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    for name in ("logdet-omd", "meg", "spiked-covariance", "top-direction", "switching"):
        assert name in out
    res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=20)
    res.save(tmp_path / "r")
    assert cli.main(["report", str(tmp_path / "r")]) == 0
    assert "meg" in capsys.readouterr().out


def test_console_script_is_installed():
    script = pathlib.Path(sys.executable).with_name("onlinelab")   # the entry point pip wrote beside python
    assert script.is_file(), f"no console script at {script}; reinstall with pip install -e ."
    out = subprocess.run([str(script), "list"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "logdet-omd" in out.stdout


@ol.register_learner("test-overclaiming")
class _Overclaiming(ol.Learner):
    """Plays I/d and claims regret ≤ 0.5: every run of it violates its bound."""

    feedback = "full"

    def init(self, ctx, rng):
        return ctx.d

    def act(self, state, rng):
        R = rng.replicates
        return ol.Play(ol.EigenPlay(np.full((R, state), 1 / state), np.tile(np.eye(state), (R, 1, 1))))

    def update(self, state, play, feedback, rng):
        return state

    def bounds(self, ctx):
        from onlinelab.bounds.base import Bound
        return [Bound("too-good", "none", "0.5", {"always": True}, lambda s: np.full(s.t.shape, 0.5), pointwise=True)]


def _overclaiming_config():
    return {"run": {"rounds": 100, "replicates": 2}, "environments": [{"name": "switching", "d": 3}],
            "learners": [{"name": "test-overclaiming"}]}


def test_a_violation_warns_only_after_the_run_directory_is_written(tmp_path):
    from onlinelab.errors import BoundViolationWarning
    with pytest.warns(BoundViolationWarning, match="too-good"):
        run_experiment(_overclaiming_config(), out=tmp_path / "v")
    assert ol.load_run(tmp_path / "v").violations().bound.tolist() == ["too-good"]
    assert "**VIOLATED**" in (tmp_path / "v" / "report.md").read_text()


def test_cli_reports_a_violation_in_capitals_and_exits_3(tmp_path, capsys):
    cfg = tmp_path / "over.toml"
    cfg.write_text(C.dump_toml(_overclaiming_config()))
    assert cli.main(["run", str(cfg), "--out", str(tmp_path / "o"), "--quiet"]) == 3
    assert "!!! BOUND VIOLATED: test-overclaiming" in capsys.readouterr().out
