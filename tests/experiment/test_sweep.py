"""Sweeps: executors agree bit for bit, finished cells are skipped, the summary's intervals; compare."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

import onlinelab as ol
from onlinelab import cli
from onlinelab.errors import ConfigError
from onlinelab.experiment import sweeps as S
from onlinelab.runs.storage import save_run

BASE = {"run": {"name": "sw", "rounds": 25, "replicates": 2, "checkpoints": 5},
        "environments": [{"name": "spiked-covariance", "d": 3}],
        "learners": [{"name": "logdet-omd", "sampler": "sparse"}, {"name": "meg"}]}
GRID = {"learners.meg.eta": [0.1, 0.4], "environments.spiked-covariance.d": [3, 4], "seed": [0, 1]}


def timeless(table):
    """Every metric but ``runtime_s`` (wall-clock time, different in any two runs)."""
    return table[table.metric != "runtime_s"].reset_index(drop=True)


@pytest.fixture(scope="module")
def serial():
    return S.sweep(BASE, GRID)


def test_executors_agree_bit_for_bit(serial):
    pytest.importorskip("dask.distributed")  # in the test extra; listed here for installs without it
    procs = S.sweep(BASE, GRID, executor="processes", workers=2)
    dask = S.sweep(BASE, GRID, executor="dask", workers=2)
    for other in (procs, dask):
        pd.testing.assert_frame_equal(timeless(other.table), timeless(serial.table))


def test_table_has_a_column_per_swept_key_and_a_run_id(serial):
    t = serial.table
    assert {"learners.meg.eta", "environments.spiked-covariance.d", "seed", "run_id"} <= set(t.columns)
    assert t.run_id.nunique() == 8 and set(t.learner) == {"logdet-omd", "meg"}  # labels stay put
    one = t[(t["learners.meg.eta"] == 0.4) & (t.seed == 1) & (t["environments.spiked-covariance.d"] == 4)]
    direct = ol.simulate(ol.make_environment("spiked-covariance", d=4),
                         {"logdet-omd": ol.make_learner("logdet-omd", sampler="sparse"),
                          "meg": ol.make_learner("meg", eta=0.4)}, T=25, replicates=2, seed=1, checkpoints=5)
    pd.testing.assert_frame_equal(timeless(one[list(direct.metrics.columns)]), timeless(direct.metrics))


def test_summary_is_mean_and_t_interval_over_replicates_and_seeds(serial):
    s = serial.summary("learners.meg.eta")
    row = s[(s.learner == "meg") & (s["learners.meg.eta"] == 0.1)].iloc[0]
    t = serial.table
    last = t[(t.metric == "regret") & (t.learner == "meg") & (t["learners.meg.eta"] == 0.1) & (t.t == 25)]
    vals = last.value.to_numpy()
    assert len(vals) == 8  # 2 dimensions × 2 seeds × 2 replicates
    half = sps.t.ppf(0.975, 7) * vals.std(ddof=1) / np.sqrt(8)
    assert row["mean"] == pytest.approx(vals.mean(), rel=1e-12)
    assert row.ci_high - row["mean"] == pytest.approx(half, rel=1e-12)
    fig, axes = serial.plot("learners.meg.eta")
    assert len(axes[0].lines) >= 2 and axes[0].get_xlabel() == "learners.meg.eta" and fig.legends
    text = serial.summary_text("learners.meg.eta").splitlines()
    assert text[0].split()[:2] == ["learner", "learners.meg.eta"] and len(text) == 1 + len(s)


def test_toml_sweep_writes_shards_and_skips_finished_cells(tmp_path, monkeypatch, capsys):
    cfg = tmp_path / "sweep.toml"
    cfg.write_text("""
[run]
rounds = 20
replicates = 2
[[environments]]
name = "spiked-covariance"
d = 3
[[learners]]
name = "meg"
[sweep]
seed = [0, 1]
[sweep.learners.meg]
eta = [0.2, 0.3]
""")
    out = tmp_path / "out"
    assert cli.main(["sweep", str(cfg), "--out", str(out), "--quiet"]) == 0
    assert "sweep directory" in capsys.readouterr().out
    assert len(list((out / "cells").iterdir())) == 4 and (out / "sweep.png").is_file()
    first = pd.read_parquet(out / "sweep.parquet")
    shard = sorted((out / "cells").iterdir())[3]
    ol.load_run(shard)  # each cell is a run directory of its own

    def never(cfg):
        raise AssertionError("a finished cell ran again")
    monkeypatch.setattr(S, "run_cell", never)
    again = S.sweep(cfg, out=out)
    pd.testing.assert_frame_equal(again.table, first)
    with pytest.raises(ol.errors.StorageError, match="not empty; pass --force"):
        S.sweep(cfg, grid={"seed": [5]}, out=out)  # another grid: refused, not mixed in


def test_bad_grids_are_config_errors():
    with pytest.raises(ConfigError, match=r"no \[\[learners\]\] labelled or named 'mge' \(did you mean 'meg'\?\)"):
        S.sweep(BASE, {"learners.mge.eta": [0.1]})
    with pytest.raises(ConfigError, match="'sed' is not one of seed"):
        S.sweep(BASE, {"sed": [1]})
    with pytest.raises(ConfigError, match="must be a non-empty list"):
        S.sweep(BASE, {"seed": 3})
    with pytest.raises(ConfigError, match="unknown key 'etta'"):
        S.sweep(BASE, {"learners.meg.etta": [0.1]})
    with pytest.raises(ConfigError, match="executor"):
        S.sweep(BASE, {"seed": [1]}, executor="threads")


def test_compare_prints_a_table_and_writes_an_overlay(tmp_path, capsys):
    for seed, T in ((1, 20), (2, 30)):
        res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=T, seed=seed, replicates=2)
        save_run(res, tmp_path / f"seed{seed}", report=False)
    plot = tmp_path / "cmp.png"
    assert cli.main(["compare", str(tmp_path / "seed1"), str(tmp_path / "seed2"), "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "seed1" in out and "seed2" in out and plot.stat().st_size > 0
    from onlinelab.runs.compare import compare
    table, fig = compare([tmp_path / "seed1", tmp_path / "seed2"])
    assert list(table["T"]) == [20, 30] and list(table.seed) == [1, 2]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [   # one legend, outside the axes
        "meg [seed1: T=20, seed=1]", "meg [seed1: T=20, seed=1]: meg-worst-case", "meg [seed2: T=30, seed=2]",
        "meg [seed2: T=30, seed=2]: meg-worst-case", "mean ± 1.96 SE over each run's replicates (seed1: 2, seed2: 2)"]
