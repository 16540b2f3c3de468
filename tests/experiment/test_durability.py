"""Run directories that cannot lie: atomic saves, refusal to overwrite, corrupt files, checkpoints and resume."""
import json
import threading

import numpy as np
import pandas as pd
import pytest

import onlinelab as ol
from onlinelab.errors import ConfigError, SimulationError, StorageError
from onlinelab.experiment import config as C
from onlinelab.experiment import durable as D
from onlinelab.experiment.default import run_experiment
from onlinelab.runs.checkpoint import load_state, save_state
from onlinelab.runs.storage import save_run

CFG = {"run": {"name": "dur", "rounds": 60, "replicates": 3, "checkpoints": 6, "seed": 2},
       "environments": [{"name": "spiked-covariance", "d": 4}, {"name": "top-direction", "d": 4}],
       "learners": [{"name": "logdet-omd", "sampler": "sparse"}, {"name": "meg"}]}


def timeless(metrics):
    """Every metric but ``runtime_s``, the learner's wall-clock time, which no two runs share."""
    return metrics[metrics.metric != "runtime_s"].reset_index(drop=True)


@pytest.fixture(autouse=True)
def no_figures(monkeypatch):
    """The report figure is not under test here and is the slowest part of a save."""
    monkeypatch.setattr("onlinelab.runs.report.write_report", lambda result, path: None)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    res, _ = run_experiment(CFG, out=tmp_path_factory.mktemp("full") / "run", checkpoint_seconds=None)
    return res


class StopAt(D.Durable):
    """Raise the stop flag (as the SIGINT handler does) after round ``t`` of environment ``env``."""

    def __init__(self, path, env, t, **kw):
        super().__init__(path, **kw)
        self.env, self.t = env, t

    def after_round(self, t, env_label, state, rounds=1):
        if env_label.startswith(self.env) and t >= self.t:   # a block may end past round self.t
            self.stop_signal = 15
        super().after_round(t, env_label, state, rounds)


@pytest.mark.parametrize("env,t,every", [("spiked", 1, 7), ("spiked", 60, None), ("top", 35, 10)])
def test_interrupt_then_resume_is_bit_identical(tmp_path, uninterrupted, env, t, every):
    cfg = C.parse(CFG)
    resolved = C.resolved(cfg)
    durable = StopAt(tmp_path / "run", env, t, every_rounds=every, every_seconds=None)
    D.claim(tmp_path / "run", resolved, cfg, durable)
    with pytest.raises(D.RunInterrupted, match="SIGTERM stopped the run .* resume with: onlinelab resume"):
        D.execute(cfg, resolved, tmp_path / "run", durable)
    partial = ol.load_run(tmp_path / "run")  # what finished is readable, and not "complete"
    assert partial.meta["status"].startswith("failed: RunInterrupted")
    if env == "top":  # the first environment finished before the interruption: all of it is kept
        first = uninterrupted.metrics[uninterrupted.metrics.environment.str.startswith("spiked")]
        pd.testing.assert_frame_equal(timeless(partial.metrics[partial.metrics.environment.str.startswith("spiked")]),
                                      timeless(first))
    resumed, path = D.resume_run(tmp_path / "run")
    pd.testing.assert_frame_equal(timeless(resumed.metrics), timeless(uninterrupted.metrics))
    assert ol.load_run(path).meta["status"] == "complete"
    assert not (path / "checkpoint.npz").exists()


def test_checkpoint_round_trip_keeps_shared_generators():
    from onlinelab.core.rng import BatchRNG
    rng = BatchRNG.from_seed(5, "environment", "x", replicates=2, block=8)
    rng.normal(3)
    import io
    buf = io.BytesIO()
    save_state(buf, {"a": rng, "b": rng, "arr": np.arange(3.0)})
    back = load_state(io.BytesIO(buf.getvalue()))
    assert back["a"] is back["b"] and back["a"]._normal.gens is back["a"].gens
    np.testing.assert_array_equal(back["a"].normal(20), rng.normal(20))  # crosses a buffer refill


def test_checkpoint_refuses_lambdas_and_foreign_classes(tmp_path):
    with pytest.raises(StorageError, match=r"state\['f'\] .*lambda"):
        save_state(tmp_path / "c.npz", {"f": lambda x: x})
    with pytest.raises(StorageError, match="module 'threading'"):
        save_state(tmp_path / "c.npz", {"lock": threading.Event()})


def test_save_refuses_a_non_empty_target_and_force_replaces_it(tmp_path):
    res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=10)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "notes.txt").write_text("mine")
    with pytest.raises(StorageError, match="already exists and is not empty; pass --force"):
        res.save(tmp_path / "run")
    assert (tmp_path / "run" / "notes.txt").read_text() == "mine"
    res.save(tmp_path / "run", force=True)
    assert not (tmp_path / "run" / "notes.txt").exists() and ol.load_run(tmp_path / "run").meta["T"] == 10
    assert [p.name for p in tmp_path.iterdir()] == ["run"]  # no staging or old directory left behind


def test_a_crash_while_saving_leaves_nothing_that_loads(tmp_path, monkeypatch):
    res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=10)
    import onlinelab.runs.report as report

    def boom(result, path):
        raise OSError("disk full")
    monkeypatch.setattr(report, "write_report", boom)
    with pytest.raises(OSError, match="disk full"):
        res.save(tmp_path / "run")
    assert list(tmp_path.iterdir()) == []


def test_concurrent_runs_on_one_out_cannot_mix(tmp_path):
    small = {**CFG, "run": {**CFG["run"], "rounds": 30}, "environments": CFG["environments"][:1]}
    errors, done = [], []

    def go(seed):
        try:
            done.append(run_experiment(small, seed=seed, out=tmp_path / "run")[0])
        except StorageError as exc:
            errors.append(str(exc))
    threads = [threading.Thread(target=go, args=(s,)) for s in (1, 2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert len(done) == 1 and len(errors) == 1 and "--force" in errors[0]
    back = ol.load_run(tmp_path / "run")
    assert back.meta["seed"] == done[0].meta["seed"]
    pd.testing.assert_frame_equal(timeless(back.metrics), timeless(done[0].metrics))


def test_failure_in_environment_k_keeps_the_earlier_ones():
    class Breaks(ol.Environment):
        psd = True

        def emit(self, t, history):
            if t == 5:
                raise RuntimeError("sensor offline")
            return ol.DenseLoss(np.broadcast_to(np.eye(self.d) / self.d, (self.replicates, self.d, self.d)))
    with pytest.raises(SimulationError) as info:
        ol.simulate([ol.make_environment("spiked-covariance", d=3), Breaks(d=3)], [ol.make_learner("meg")],
                    T=20, checkpoints=[2, 4, 10, 20], replicates=2)
    partial = info.value.partial
    first = partial.metrics[partial.metrics.environment == "spiked-covariance(d=3)"]
    assert sorted(first.t.unique()) == [2, 4, 10, 20]
    assert sorted(partial.metrics[partial.metrics.environment == "Breaks(d=3)"].t.unique()) == [2, 4]


@pytest.fixture
def saved(tmp_path):
    res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=10)
    return save_run(res, tmp_path / "run", config={"run": {"rounds": 10}}, report=False)


def test_truncated_parquet_is_a_storage_error(saved):
    data = (saved / "metrics.parquet").read_bytes()
    (saved / "metrics.parquet").write_bytes(data[: len(data) // 2])
    with pytest.raises(StorageError, match=r"metrics\.parquet' is not a readable parquet file .* truncated"):
        ol.load_run(saved)


def test_garbage_json_is_a_storage_error(saved):
    (saved / "meta.json").write_text('{"T": 10, "seed"')
    with pytest.raises(StorageError, match=r"meta\.json' is not valid JSON \(.* at line 1, column"):
        ol.load_run(saved)
    (saved / "meta.json").write_text("[1, 2]")
    with pytest.raises(StorageError, match=r"meta\.json' must hold a JSON object, got list"):
        ol.load_run(saved)


def test_missing_keys_are_a_storage_error(saved):
    meta = json.loads((saved / "meta.json").read_text())
    del meta["learners"], meta["seed"]
    (saved / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(StorageError, match=r"meta\.json' lacks the key\(s\) seed, learners"):
        ol.load_run(saved)


def test_missing_columns_and_foreign_rows_are_storage_errors(saved):
    df = pd.read_parquet(saved / "metrics.parquet")
    df.drop(columns=["value"]).to_parquet(saved / "metrics.parquet")
    with pytest.raises(StorageError, match="lacks the column"):
        ol.load_run(saved)
    df.assign(learner="someone-else").to_parquet(saved / "metrics.parquet")
    with pytest.raises(StorageError, match=r"rows for learner\(s\) \['someone-else'\]"):
        ol.load_run(saved)


def test_damaged_config_and_checkpoint_are_storage_errors(saved, tmp_path):
    (saved / "config.toml").write_text("[run\nname=")
    with pytest.raises(StorageError, match=r"config\.toml' is damaged"):
        ol.load_run(saved)
    (tmp_path / "c.npz").write_bytes(b"PK\x03\x04 not really")
    with pytest.raises(StorageError, match=r"c\.npz' is not a readable checkpoint"):
        load_state(tmp_path / "c.npz")


def test_a_killed_run_directory_says_how_to_resume(tmp_path):
    cfg = C.parse(CFG)
    D.claim(tmp_path / "run", C.resolved(cfg), cfg, D.Durable(tmp_path / "run"))
    with pytest.raises(StorageError, match="status 'running'.*onlinelab resume"):
        ol.load_run(tmp_path / "run")


def test_concat_refuses_different_horizons_or_seeds_unless_aligned():
    a = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=20, seed=1, replicates=2)
    b = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=20, seed=2, replicates=2)
    c = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=30, seed=1, replicates=2)
    for other in (b, c):
        with pytest.raises(ConfigError, match="different horizons, seeds .* align='replicates'"):
            ol.Result.concat([a, other])
    pooled = ol.Result.concat([a, b], align="replicates")
    assert sorted(pooled.metrics.replicate.unique()) == [0, 1, 2, 3] and pooled.summary().replicates[0] == 4
    np.testing.assert_array_equal(pooled.final().to_numpy(), np.r_[a.final().to_numpy(), b.final().to_numpy()])
    with pytest.raises(ConfigError, match="one horizon"):
        ol.Result.concat([a, c], align="replicates")
    side = ol.Result.concat([a, c], align="label")
    assert side.learners == ["meg [T=20, seed=1]", "meg [T=30, seed=1]"]
    assert list(side.summary()["T"]) == [20, 30]


DELAYED = {"run": {"rounds": 40, "replicates": 2, "checkpoints": 5, "seed": 4},
           "environments": [{"name": "experts-stochastic"}],
           "learners": [{"name": "ftrl", "regularizer": "entropy"}, {"name": "exp3"}]}


@pytest.mark.parametrize("delay,t", [({"kind": "fixed", "d": 3}, 1), ({"kind": "fixed", "d": 3}, 17),
                                     ({"kind": "random", "distribution": "geometric", "mean": 4}, 17),
                                     ({"kind": "adaptive", "rule": "confident", "max_delay": 6}, 17)])
def test_delayed_feedback_in_flight_survives_interrupt_and_resume(tmp_path, delay, t):
    """Feedback posted before the interruption and due after it is in the checkpoint and arrives on time."""
    cfg_dict = {**DELAYED, "delay": delay}
    full, _ = run_experiment(cfg_dict, out=tmp_path / "full", checkpoint_seconds=None)
    cfg = C.parse(cfg_dict)
    resolved = C.resolved(cfg)
    durable = StopAt(tmp_path / "run", "experts", t, every_rounds=5, every_seconds=None)
    D.claim(tmp_path / "run", resolved, cfg, durable)
    with pytest.raises(D.RunInterrupted):
        D.execute(cfg, resolved, tmp_path / "run", durable)
    pending = load_state(tmp_path / "run" / "checkpoint.npz")["loop"]["slots"][0].channel.pending
    assert len(pending) == min(3, t) or delay["kind"] != "fixed"  # rounds t-2..t are in flight at the stop
    resumed, _ = D.resume_run(tmp_path / "run")
    pd.testing.assert_frame_equal(timeless(resumed.metrics), timeless(full.metrics))


class StopArrivalsAt(D.Durable):
    """Raise the stop flag at the first checkpoint of an arrivals run at or after simulated time ``t``."""

    def __init__(self, path, t, **kw):
        super().__init__(path, **kw)
        self.t = t

    def poll(self, t, env_label):
        if t >= self.t:
            self.stop_signal = 2
        super().poll(t, env_label)


def test_an_arrivals_run_stops_on_a_signal_and_resume_replays_it(tmp_path):
    cfg_dict = {"run": {"rounds": 60, "replicates": 2, "checkpoints": 6, "seed": 1},
                "environments": [{"name": "spiked-stream", "d": 5, "k": 1}],
                "learners": [{"name": "oja", "qr": "block"}],
                "arrivals": {"rate": 2.0, "service": 0.1, "overhead": 1.0}}
    full, _ = run_experiment(cfg_dict, out=tmp_path / "full", checkpoint_seconds=None)
    cfg = C.parse(cfg_dict)
    resolved = C.resolved(cfg)
    durable = StopArrivalsAt(tmp_path / "run", 20, every_seconds=None)
    D.claim(tmp_path / "run", resolved, cfg, durable)
    with pytest.raises(D.RunInterrupted, match="SIGINT stopped the run at simulated time .* restarts"):
        D.execute(cfg, resolved, tmp_path / "run", durable)
    resumed, _ = D.resume_run(tmp_path / "run")
    pd.testing.assert_frame_equal(timeless(resumed.metrics), timeless(full.metrics))
