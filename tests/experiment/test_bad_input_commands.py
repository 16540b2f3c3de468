"""Bad input to sweep, compare and resume (issue 20, item 5): one table per command, each row refused with an
onlinelab.errors exception naming what is wrong and the fix, never an internal error or a hang."""
import shutil

import numpy as np
import pandas as pd
import pytest

import onlinelab as ol
from onlinelab.errors import ConfigError, ConfigTypeError, StorageError
from onlinelab.experiment.kinds import kinds
from onlinelab.experiment.runner import compare_dirs, resume_dir, run_config
from onlinelab.runs.compare import compare

BASE = {"run": {"rounds": 5, "replicates": 1}, "environments": [{"name": "spiked-covariance", "d": 3}],
        "learners": [{"name": "meg"}]}

SWEEP = [
    ("10⁸ cells", {"learners.meg.eta": [0.1 * (i + 1) for i in range(100)], "seed": list(range(100)),
                   "rounds": list(range(1, 101)), "replicates": list(range(1, 101))}, ConfigError,
     r"^the \[sweep\] grid gives 100,000,000 cells \(100 \(learners\.meg\.eta\) × 100 \(seed\) × 100 \(rounds\) × "
     r"100 \(replicates\)\), more than 10,000 \(each cell is a run directory.*\); sweep fewer values at once"),
    ("an empty grid", {}, ConfigError, r"a sweep needs a non-empty grid"),
    ("a value that is not a list", {"seed": 3}, ConfigTypeError,
     r"sweep key 'seed' must be a non-empty list of values, got 3"),
    ("an empty list", {"seed": []}, ConfigTypeError, r"sweep key 'seed' must be a non-empty list of values, got \[\]"),
    ("an unknown key", {"sed": [0, 1]}, ConfigError, r"sweep key 'sed' is not one of .*did you mean 'seed'"),
    ("a bad value in one cell", {"learners.meg.eta": [0.1, -1.0]}, ConfigError, r"eta must be > 0, got -1\.0"),
]


@pytest.mark.parametrize("grid,exc,message", [row[1:] for row in SWEEP], ids=[row[0] for row in SWEEP])
def test_bad_sweeps(tmp_path, grid, exc, message):
    with pytest.raises(exc, match=message):
        ol.sweep(BASE, grid, out=tmp_path / "sweep")
    assert not (tmp_path / "sweep" / "cells").exists()     # refused before a cell ran


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two small runs of every kind, a regret run whose regret diverged, and two Bregman runs of other problems."""
    root = tmp_path_factory.mktemp("runs")
    out = {}
    for key, kind in kinds().items():
        for i in (0, 1):
            data = kind.example()
            data["run"]["seed"] = i + 1
            out[key, i] = run_config(data, out=root / f"{key}{i}")[1]
    shutil.copytree(out["regret", 1], root / "diverged")
    metrics = pd.read_parquet(root / "diverged" / "metrics.parquet")
    last = (metrics.metric == "regret") & (metrics.t == metrics.t.max())
    metrics.loc[last, "value"] = np.inf
    metrics.to_parquet(root / "diverged" / "metrics.parquet")
    out["diverged"] = root / "diverged"
    out["lasso"] = run_config({"run": {"rounds": 10}, "bregman": {"problem": "lasso"}}, out=root / "lasso")[1]
    (root / "not-a-run").mkdir()
    (root / "not-a-run" / "notes.txt").write_text("hello")
    out["not-a-run"] = root / "not-a-run"
    return out


COMPARE = [
    ("one run", lambda r: compare_dirs([r["regret", 0]]), ConfigError, r"compare needs at least two run"),
    ("runs of different kinds", lambda r: compare_dirs([r["game", 0], r["regret", 0]]), ConfigError,
     r"^compare needs runs of one kind, got game0 \(\[game\]\), regret0 \(regret\); compare each kind's runs on "
     r"their own$"),
    ("runs of different kinds, Python API", lambda r: compare([r["game", 0], r["regret", 0]]), ConfigError,
     r"^compare needs runs of one kind, got game0 \(game\), regret0 \(regret\)"),
    ("a kind that does not compare", lambda r: compare_dirs([r["manifold", 0], r["manifold", 1]]), ConfigError,
     r"^compare is not supported for \[manifold\] runs: .*put the runs' settings into one \[manifold\] grid"),
    ("an infinite regret", lambda r: compare_dirs([r["regret", 0], r["diverged"]]), ConfigError,
     r"^run 'diverged' has regret = inf \(learner 'meg', environment 'spiked-covariance\(d=3\)', replicate 0, "
     r"round 24; 4 such rows\): the run diverged, .* or leave it out of the comparison$"),
    ("an infinite regret, Python API", lambda r: compare([r["regret", 0], r["diverged"]]), ConfigError,
     r"^run 'diverged' has regret = inf"),
    ("Bregman runs of other problems", lambda r: compare_dirs([r["bregman", 0], r["lasso"]]), ConfigError,
     r"run 'lasso' has no metric 'dual_gap' to overlay .*compare runs of one kind and one problem"),
    ("a folder that is not a run", lambda r: compare_dirs([r["regret", 0], r["not-a-run"]]), StorageError,
     r"not-a-run"),
]


@pytest.mark.parametrize("call,exc,message", [row[1:] for row in COMPARE], ids=[row[0] for row in COMPARE])
def test_bad_comparisons(runs, call, exc, message):
    with pytest.raises(exc, match=message):
        call(runs)


@pytest.mark.parametrize("key", ["game", "embedding", "bregman"])
def test_the_python_compare_takes_runs_of_any_kind_that_compares(runs, key):
    metric = kinds()[key].headline(ol.load_run(runs[key, 0]))
    table, _ = compare([runs[key, 0], runs[key, 1]], metric=metric)
    assert list(table.run) == [f"{key}0", f"{key}1"] and "seed" in table and "status" in table


RESUME = [
    ("a folder that does not exist", lambda r, tmp: resume_dir(tmp / "nope"), StorageError,
     r"'.*nope' is not a run directory that can be resumed \(it needs meta\.json and config\.toml"),
    ("a folder that is not a run", lambda r, tmp: resume_dir(r["not-a-run"]), StorageError,
     r"is not a run directory that can be resumed"),
    ("a file", lambda r, tmp: resume_dir(r["not-a-run"] / "notes.txt"), StorageError,
     r"is not a run directory that can be resumed"),
]


@pytest.mark.parametrize("call,exc,message", [row[1:] for row in RESUME], ids=[row[0] for row in RESUME])
def test_bad_resumes(runs, tmp_path, call, exc, message):
    with pytest.raises(exc, match=message):
        call(runs, tmp_path)
