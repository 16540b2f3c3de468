"""Plugins travel with the run (issue 19): a run records its plugin files (path, sha256, a copy), its
``config.toml`` runs again anywhere, sweep workers load them, ``onlinelab resume --trust`` loads them (plain
``resume`` refuses, issue 20) and refuses a file that changed, and reading a run (load_run, report, compare)
never executes one.

Runs that must start with an empty registry (a rerun, a resume, ``--plugins ... report``) go through a
fresh interpreter; the module's runs are made once, in a fresh interpreter too, so this process never
imports their plugin files (which count their imports in ``imports.log``).
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
import tomllib

import onlinelab as ol
from onlinelab import cli
from onlinelab.core import registry
from onlinelab.errors import ConfigError, StorageError
from onlinelab.experiment import plugins as P
from onlinelab.experiment import sweeps as S
from onlinelab.runs.load import load_run

LEARNER = textwrap.dedent('''
    import pathlib

    import onlinelab as ol
    from onlinelab.learners.meg import MEG

    with open(pathlib.Path(__file__).with_name("imports.log"), "a") as log:  # every import leaves a line
        log.write("imported\\n")


    @ol.register_learner("plugin-meg")
    class PluginMEG(MEG):
        """MEG under another name."""
''')

ENVIRONMENT = textwrap.dedent('''
    import os

    import onlinelab as ol
    from onlinelab.core.registry import environment_class


    @ol.register_environment("spiked-that-may-fail")
    class MayFail(environment_class("spiked-covariance")):
        """spiked-covariance; with FAIL_AT=t in the process environment, round t raises."""

        def emit(self, t, history):
            if os.environ.get("FAIL_AT") == str(t):
                raise RuntimeError(f"asked to fail in round {t}")
            return super().emit(t, history)
''')

CONFIG = """
[run]
rounds = 40
replicates = 2
checkpoints = 5
plugins = ["mine.py"]

[[environments]]
name = "spiked-that-may-fail"
d = 3

[[learners]]
name = "plugin-meg"
"""


def onlinelab(*argv, cwd, fail_at=None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "FAIL_AT"}
    if fail_at is not None:
        env["FAIL_AT"] = str(fail_at)
    return subprocess.run([sys.executable, "-m", "onlinelab", *map(str, argv)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def timeless(path) -> pd.DataFrame:
    df = pd.read_parquet(Path(path) / "metrics.parquet")
    return df[df.metric != "runtime_s"].reset_index(drop=True)


def sha256(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def imports(tmp) -> int:
    log = tmp / "conf" / "imports.log"
    return len(log.read_text().splitlines()) if log.is_file() else 0


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """``failed``: stopped by its environment in round 27 (checkpoint every 10 rounds); ``whole``: the same run
    uninterrupted.  The learner comes from the config's ``[run] plugins``, the environment from ``--plugins``."""
    tmp = tmp_path_factory.mktemp("travel")
    (tmp / "conf").mkdir()
    (tmp / "conf" / "mine.py").write_text(LEARNER)
    (tmp / "conf" / "run.toml").write_text(CONFIG)
    (tmp / "extra_envs.py").write_text(ENVIRONMENT)
    (tmp / "elsewhere").mkdir()
    failed = onlinelab("--plugins", "extra_envs.py", "run", "conf/run.toml", "--out", "failed", "--quiet",
                       "--checkpoint-every", "10", cwd=tmp, fail_at=27)
    assert failed.returncode == 1 and "asked to fail in round 27" in failed.stderr, failed.stderr
    whole = onlinelab("--plugins", "extra_envs.py", "run", "conf/run.toml", "--out", "whole", "--quiet", cwd=tmp)
    assert whole.returncode == 0, whole.stderr
    return SimpleNamespace(tmp=tmp, mine=(tmp / "conf" / "mine.py").resolve(), envs=(tmp / "extra_envs.py").resolve())


def test_a_run_records_path_hash_and_a_copy_of_each_plugin_file(runs):
    expected = [{"given": "mine.py", "path": str(runs.mine), "sha256": sha256(runs.mine), "copy": "plugins/mine.py"},
                {"given": "extra_envs.py", "path": str(runs.envs), "sha256": sha256(runs.envs),
                 "copy": "plugins/extra_envs.py"}]
    for name in ("whole", "failed"):  # the failed run's meta.json, rewritten when it stopped, keeps them too
        run = runs.tmp / name
        meta = json.loads((run / "meta.json").read_text())
        assert meta["plugins"] == expected, name
        config = tomllib.loads((run / "config.toml").read_text())
        assert config["run"]["plugins"] == [str(runs.mine), str(runs.envs)]
        assert (run / "plugins" / "mine.py").read_text() == LEARNER
        assert (run / "plugins" / "extra_envs.py").read_text() == ENVIRONMENT
    assert json.loads((runs.tmp / "failed" / "meta.json").read_text())["status"].startswith("failed")


def test_the_config_of_a_run_directory_runs_again_from_anywhere(runs):
    again = onlinelab("run", runs.tmp / "whole" / "config.toml", "--out", "again", "--quiet",
                      cwd=runs.tmp / "elsewhere")
    assert again.returncode == 0, again.stderr
    pd.testing.assert_frame_equal(timeless(runs.tmp / "elsewhere" / "again"), timeless(runs.tmp / "whole"))


def test_resume_loads_the_recorded_plugins_when_trusted(runs):
    copy = runs.tmp / "copies" / "resumed"
    shutil.copytree(runs.tmp / "failed", copy)
    before = imports(runs.tmp)
    refused = onlinelab("resume", copy, "--quiet", cwd=runs.tmp / "elsewhere")  # the user did not say so
    assert refused.returncode == 2 and "--trust" in refused.stderr and "--plugins" in refused.stderr, refused.stderr
    assert imports(runs.tmp) == before
    out = onlinelab("resume", copy, "--quiet", "--trust", cwd=runs.tmp / "elsewhere")  # no --plugins
    assert out.returncode == 0, out.stderr
    pd.testing.assert_frame_equal(timeless(copy), timeless(runs.tmp / "whole"))  # as if never interrupted
    meta = json.loads((copy / "meta.json").read_text())
    assert meta["status"] == "complete" and [r["path"] for r in meta["plugins"]] == [str(runs.mine), str(runs.envs)]
    assert (copy / "plugins" / "mine.py").read_text() == LEARNER


def test_resume_refuses_a_plugin_file_that_changed_or_is_missing(runs, tmp_path, capsys):
    copy = tmp_path / "run"
    shutil.copytree(runs.tmp / "failed", copy)
    recorded = sha256(runs.mine)
    try:
        runs.mine.write_text(LEARNER + "# edited after the run\n")
        code = cli.main(["resume", str(copy), "--quiet", "--trust"])
        _, err = capsys.readouterr()
        assert (code, err) == (2, f"error: the plugin file {str(runs.mine)!r} has changed since the run in "
                                  f"{str(copy)!r} loaded it: recorded sha256 {recorded}, now {sha256(runs.mine)}; "
                                  f"restore it (the run keeps a copy: {str(copy / 'plugins' / 'mine.py')!r}) or start "
                                  "a new run with `onlinelab run`\n")
        runs.mine.unlink()
        code = cli.main(["resume", str(copy), "--quiet", "--trust"])
        _, err = capsys.readouterr()
        assert (code, err) == (2, f"error: the run in {str(copy)!r} loaded the plugin file {str(runs.mine)!r} "
                                  f"(sha256 {recorded}), which is missing now; restore it (the run keeps a copy: "
                                  f"{str(copy / 'plugins' / 'mine.py')!r}) or start a new run with `onlinelab run`\n")
    finally:
        runs.mine.write_text(LEARNER)
    assert sha256(runs.mine) == recorded
    assert json.loads((copy / "meta.json").read_text())["status"].startswith("failed")  # untouched


def test_reading_a_run_never_executes_its_plugins(runs, tmp_path, capsys):
    before = imports(runs.tmp)  # one line per interpreter that ran a run of the module so far
    assert before >= 2
    whole, failed = runs.tmp / "whole", runs.tmp / "failed"
    res = load_run(whole)
    assert res.meta["config"]["run"]["plugins"] == [str(runs.mine), str(runs.envs)]
    assert cli.main(["report", str(whole)]) == 0 and "plugin-meg" in capsys.readouterr().out
    assert cli.main(["compare", str(whole), str(failed), "--plot", str(tmp_path / "c.png")]) == 0
    assert "plugin-meg" not in registry.learner_names() and imports(runs.tmp) == before
    asked = onlinelab("--plugins", runs.mine, "report", whole, cwd=runs.tmp / "elsewhere")  # the user says so
    assert asked.returncode == 0, asked.stderr
    assert imports(runs.tmp) == before + 1


@pytest.fixture
def own_registry(monkeypatch):
    """Names this test's plugin registers vanish afterwards (other tests list the learners that fit)."""
    registry.learner_names()
    monkeypatch.setattr(registry, "_LEARNERS", dict(registry._LEARNERS))
    monkeypatch.setattr(registry, "_ENVIRONMENTS", dict(registry._ENVIRONMENTS))


def test_sweep_workers_load_the_plugins(tmp_path, own_registry):
    pytest.importorskip("dask.distributed")
    (tmp_path / "mine.py").write_text(LEARNER)
    base = {"run": {"rounds": 20, "replicates": 2, "checkpoints": 4, "plugins": [str(tmp_path / "mine.py")]},
            "environments": [{"name": "spiked-covariance", "d": 3}], "learners": [{"name": "plugin-meg"}]}
    grid = {"learners.plugin-meg.eta": [0.1, 0.4]}
    serial = S.sweep(base, grid)
    procs = S.sweep(base, grid, executor="processes", workers=2, out=tmp_path / "sweep")
    dask = S.sweep(base, grid, executor="dask", workers=2)
    drop = lambda t: t[t.metric != "runtime_s"].reset_index(drop=True)  # noqa: E731 (wall-clock aside)
    for other in (procs, dask):
        pd.testing.assert_frame_equal(drop(other.table), drop(serial.table))
    direct = ol.simulate(ol.make_environment("spiked-covariance", d=3), {"plugin-meg": ol.make_learner("meg", eta=0.4)},
                         T=20, replicates=2, checkpoints=4)  # built-in MEG: the plugin only renames it
    cell = serial.table[serial.table["learners.plugin-meg.eta"] == 0.4][list(direct.metrics.columns)]
    pd.testing.assert_frame_equal(drop(cell), drop(direct.metrics))
    for cell_dir in sorted((tmp_path / "sweep" / "cells").iterdir()):
        assert load_run(cell_dir).meta["plugins"][0]["sha256"] == sha256(tmp_path / "mine.py")
        assert tomllib.loads((cell_dir / "config.toml").read_text())["run"]["plugins"] == [str(tmp_path / "mine.py")]
        assert (cell_dir / "plugins" / "mine.py").read_text() == LEARNER


def test_a_worker_refuses_a_source_that_does_not_match_or_another_version(tmp_path):
    (tmp_path / "plain.py").write_text("X = 1\n")
    [record] = P.plugin_records(["plain.py"], base=tmp_path)
    with pytest.raises(ConfigError, match=r"does not match its sha256"):
        P.load_shipped([(record, b"X = 2\n")])
    other = {**record, "sha256": hashlib.sha256(b"X = 2\n").hexdigest()}
    with pytest.raises(ConfigError, match=r"^this worker already loaded another version of the plugin file .*"
                                          r"restart the workers"):
        P.load_shipped([(other, b"X = 2\n")])
    P.load_shipped(P.shipped([record]))  # the same version: loaded once, nothing happens


def test_a_damaged_plugins_record_is_a_storage_error(tmp_path):
    with pytest.raises(StorageError, match=r"has a damaged plugins entry \(\[\{'path': 'rel.py'"):
        P.load_recorded([{"path": "rel.py", "sha256": "0" * 64}], tmp_path)


def test_a_run_kind_records_the_plugins_too(tmp_path, capsys):
    (tmp_path / "plain.py").write_text("Y = 2\n")  # registers nothing
    game = Path(__file__).resolve().parents[1] / "fixtures" / "legacy_runs" / "configs" / "game.toml"
    code = cli.main(["--plugins", str(tmp_path / "plain.py"), "run", str(game), "--out", str(tmp_path / "g"),
                     "--quiet"])
    assert code == 0, capsys.readouterr().err
    meta = load_run(tmp_path / "g").meta
    assert meta["plugins"] == [{"given": str(tmp_path / "plain.py"), "path": str(tmp_path / "plain.py"),
                                "sha256": sha256(tmp_path / "plain.py"), "copy": "plugins/plain.py"}]
    assert meta["config"]["run"]["plugins"] == [str(tmp_path / "plain.py")]
    assert (tmp_path / "g" / "plugins" / "plain.py").read_text() == "Y = 2\n"
