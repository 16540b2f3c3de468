"""resume is bound to its run (issue 20): a checkpoint carries the fingerprint of the run that wrote it, and
state from another run — a seed-1 checkpoint in a seed-0 run, a checkpoint with fewer learners, a config edited
between the kill and the resume, another version — is refused, naming the field, instead of reported complete.

The runs are stopped after round ``STOP`` the way SIGTERM stops them (the stop flag, then a checkpoint), so each
run directory holds a checkpoint of that round; the refusals are checked before any round is played again.
"""
from __future__ import annotations

import json
import pathlib
import shutil

import hypothesis.strategies as st
import pandas as pd
import pytest
from hypothesis import given, settings

from onlinelab.cli import main
from onlinelab.errors import StorageError
from onlinelab.experiment import config as C
from onlinelab.experiment import durable as D
from onlinelab.runs import _fingerprint as F
from onlinelab.runs.checkpoint import read_header
from onlinelab.runs.tomlio import read_toml

STOP = 12
LEGACY = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "legacy_runs" / "regret_interrupted"


def config(seed=0, learners=("meg", "logdet-omd"), envs=("spiked-covariance",)) -> dict:
    return {"run": {"name": "bound", "rounds": 30, "replicates": 2, "checkpoints": 5, "seed": seed},
            "environments": [{"name": name, "d": 3} for name in envs],
            "learners": [{"name": name} for name in learners]}


class StopAt(D.Durable):
    """Raise the stop flag after round ``STOP`` of the environment ``env`` (as the SIGTERM handler does)."""

    env = None

    def after_round(self, t, env_label, state, rounds=1):
        if t >= STOP and (self.env is None or env_label == self.env):
            self.stop_signal = 15
        super().after_round(t, env_label, state, rounds)


def interrupted(path: pathlib.Path, cfg_dict: dict, env: str | None = None) -> pathlib.Path:
    cfg = C.parse(cfg_dict)
    resolved = C.resolved(cfg)
    durable = StopAt(path, every_rounds=None, every_seconds=None)
    durable.env = env
    D.claim(path, resolved, cfg, durable)
    with pytest.raises(D.RunInterrupted):
        D.execute(cfg, resolved, path, durable)
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("binding")
    return {"seed0": interrupted(tmp / "seed0", config(0)), "seed1": interrupted(tmp / "seed1", config(1)),
            "meg": interrupted(tmp / "meg", config(0, learners=("meg",))),
            "two_envs0": interrupted(tmp / "two0", config(0, envs=("spiked-covariance", "top-direction")),
                                     env="top-direction(d=3)"),
            "two_envs1": interrupted(tmp / "two1", config(1, envs=("spiked-covariance", "top-direction")),
                                     env="top-direction(d=3)")}


def copy_of(run: pathlib.Path, tmp_path: pathlib.Path) -> pathlib.Path:
    out = tmp_path / run.name
    shutil.copytree(run, out)
    return out


def refused(path: pathlib.Path, capsys) -> str:
    """The one-line error of ``onlinelab resume``, which must exit 2 and leave the run as it was."""
    before = {p.name: p.read_bytes() for p in path.iterdir() if p.is_file()}
    code = main(["resume", str(path), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert {p.name: p.read_bytes() for p in path.iterdir() if p.is_file()} == before
    return err


def test_the_checkpoint_carries_the_fingerprint_of_its_config(runs):
    for run in runs.values():
        saved = read_header(run / "checkpoint.npz")["fingerprint"]
        assert saved == json.loads(json.dumps(F.fingerprint(read_toml(run / "config.toml"))))
    assert read_header(runs["seed0"] / "checkpoint.npz")["fingerprint"]["fields"]["seed"] == 0


def test_a_seed_1_checkpoint_in_a_seed_0_run_is_refused(runs, tmp_path, capsys):
    run = copy_of(runs["seed0"], tmp_path)
    shutil.copy(runs["seed1"] / "checkpoint.npz", run / "checkpoint.npz")
    err = refused(run, capsys)
    assert "(seed: checkpoint 1, run 0)" in err and "belongs to another run" in err
    with pytest.raises(StorageError, match=r"seed: checkpoint 1, run 0"):
        D.resume_run(run)


def test_a_checkpoint_with_fewer_learners_is_refused(runs, tmp_path, capsys):
    run = copy_of(runs["seed0"], tmp_path)
    shutil.copy(runs["meg"] / "checkpoint.npz", run / "checkpoint.npz")
    assert "(learners: checkpoint ['meg'], run ['meg', 'logdet-omd'])" in refused(run, capsys)


@pytest.mark.parametrize("edit, field", [
    (("rounds = 30", "rounds = 40"), "T: checkpoint 30, run 40"),
    (("replicates = 2", "replicates = 3"), "replicates: checkpoint 2, run 3"),
    (('reorth_every = 32', 'reorth_every = 8'), "learners['logdet-omd'].reorth_every: checkpoint 32, run 8"),
    (("spike = 4.0", "spike = 5.0"), "environments['spiked-covariance'].spike: checkpoint 4.0, run 5.0"),
    (('comparator = "exact"', 'comparator = "none"'), "config.run.comparator: checkpoint 'exact', run 'none'"),
])
def test_a_config_edited_between_the_kill_and_the_resume_is_refused(runs, tmp_path, capsys, edit, field):
    run = copy_of(runs["seed0"], tmp_path)
    text = (run / "config.toml").read_text()
    assert text.count(edit[0]) == 1
    (run / "config.toml").write_text(text.replace(*edit))
    assert f"({field})" in refused(run, capsys)


def test_another_onlinelab_version_is_refused_with_its_own_fix(runs, tmp_path, monkeypatch):
    run = copy_of(runs["seed0"], tmp_path)
    monkeypatch.setattr(F, "__version__", "99.0")
    saved = read_header(run / "checkpoint.npz")["fingerprint"]["fields"]["version"]
    with pytest.raises(StorageError, match=rf"version: checkpoint '{saved}', run '99\.0'\); .*resume it with the "
                                           "onlinelab version that wrote it"):
        D.resume_run(run)


def test_a_finished_part_of_another_run_is_refused(runs, tmp_path, capsys):
    run = copy_of(runs["two_envs0"], tmp_path)
    shutil.copy(runs["two_envs1"] / "parts" / "env-000.json", run / "parts" / "env-000.json")
    err = refused(run, capsys)
    assert "env-000.json' belongs to another run" in err and "(seed: checkpoint 1, run 0)" in err


def test_the_run_own_state_still_resumes_to_the_uninterrupted_metrics(runs, tmp_path):
    run = copy_of(runs["two_envs0"], tmp_path)
    resumed, _ = D.resume_run(run)
    cfg = C.parse(config(0, envs=("spiked-covariance", "top-direction")))
    whole = cfg.simulate()
    keep = lambda m: m[m.metric != "runtime_s"].reset_index(drop=True)  # noqa: E731 (wall-clock aside)
    pd.testing.assert_frame_equal(keep(resumed.metrics), keep(whole.metrics))


def test_a_checkpoint_without_a_fingerprint_is_checked_for_its_learners_and_warns(tmp_path):
    run = tmp_path / "legacy"
    shutil.copytree(LEGACY, run)
    assert "fingerprint" not in read_header(run / "checkpoint.npz")
    with pytest.warns(UserWarning, match=r"checkpoint\.npz in .* predate run fingerprints: resume checked their "
                                         "learner labels only"):
        F.bind(run, read_toml(run / "config.toml"))
    text = (run / "config.toml").read_text()
    head, sep, last = text.rpartition("[[learners]]")
    (run / "config.toml").write_text(head.rstrip() + "\n")  # the config loses its last learner (meg)
    with pytest.raises(StorageError, match=r"\(learners: checkpoint \['logdet-dense', 'meg'\], run "
                                           r"\['logdet-dense'\]\)"):
        F.bind(run, read_toml(run / "config.toml"))


def test_a_damaged_fingerprint_is_a_storage_error(runs, tmp_path):
    from onlinelab.runs.checkpoint import load_state, save_state
    run = copy_of(runs["seed0"], tmp_path)
    state = load_state(run / "checkpoint.npz")
    for bad in ("text", {"sha256": "0" * 64}, {"sha256": "0" * 64, "fields": F.fingerprint(read_toml(
            run / "config.toml"))["fields"]}):
        save_state(run / "checkpoint.npz", state, header={"fingerprint": bad})
        with pytest.raises(StorageError, match=r"damaged"):
            F.bind(run, read_toml(run / "config.toml"))


# any single edit of a resolved config is named by the first field it touches
EDITS = st.sampled_from([
    ("seed", ("run", "seed")), ("T", ("run", "rounds")), ("replicates", ("run", "replicates")),
    ("learners['meg'].eta", ("learners", 0, "eta")), ("environments['spiked-covariance'].d", ("environments", 0, "d")),
    ("config.run.checkpoints", ("run", "checkpoints")), ("config.delay.d", ("delay", "d"))])


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(edit=EDITS, old=st.integers(0, 10**6), new=st.integers(0, 10**6))
def test_the_difference_names_the_field_that_was_edited(edit, old, new):
    name, where = edit
    base = {"run": {"seed": 0, "rounds": 100, "replicates": 2, "checkpoints": 5},
            "learners": [{"name": "meg", "label": "meg", "eta": 0}], "environments": [{"name": "spiked-covariance",
                                                                                        "d": 3}],
            "delay": {"kind": "fixed", "d": 1}}

    def with_value(value):
        cfg = json.loads(json.dumps(base))
        node = cfg
        for key in where[:-1]:
            node = node[key]
        node[where[-1]] = value
        return cfg
    saved, current = F.fingerprint(with_value(old)), F.fingerprint(with_value(new))
    assert (saved["sha256"] == current["sha256"]) == (old == new)
    why = F.difference(saved["fields"], current["fields"])
    assert why == (None if old == new else f"{name}: checkpoint {old}, run {new}")
