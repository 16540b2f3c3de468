"""The [manifold] run kind: config → run directory (tidy scores, report.md, report.png), listed by onlinelab list."""
import pathlib

import numpy as np
import pandas as pd
import pytest
from sklearn.manifold import trustworthiness as sk_trustworthiness

from onlinelab import load_run
from onlinelab.cli.main import main
from onlinelab.errors import ConfigError, UnknownNameError
from onlinelab.experiment.config import load_toml
from onlinelab.manifold import LaplacianEigenmaps, helix, load_dataset
from onlinelab.manifold.experiment import METHODS, parse_manifold, run_grid

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "manifold" / "helix_grid.toml"


SMALL = """
[run]
name = "small"
seed = 4
[manifold]
dataset = "helix"
m = 150
draws = 2
methods = ["le", "vrle", "isomap", "pca"]
n_neighbors = [8, 12]
radius = [20]
vrle_n_neighbors = 10
"""


def test_the_example_config_is_valid_and_names_every_method():
    kwargs, resolved = parse_manifold(load_toml(EXAMPLE), replicates=1)
    assert set(kwargs["methods"]) == set(METHODS) and kwargs["draws"] == 1
    assert resolved["manifold"]["vrle_n_neighbors"] == [10]


def test_cli_runs_a_config_and_writes_a_run_directory(tmp_path, capsys):
    cfg = tmp_path / "small.toml"
    cfg.write_text(SMALL)
    assert main(["run", str(cfg), "--out", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert "trustworthiness" in out and "vrle k=2 t=10 R=20" in out
    for f in ("metrics.parquet", "meta.json", "config.toml", "report.md", "report.png"):
        assert (tmp_path / "r" / f).is_file()
    res = load_run(tmp_path / "r")
    assert type(res).__name__ == "ManifoldResult" and res.meta["kind"] == "manifold"
    assert main(["report", str(tmp_path / "r")]) == 0 and "trustworthiness" in capsys.readouterr().out
    assert set(res.metrics.method) == {"le", "vrle", "isomap", "pca"} and set(res.metrics.replicate) == {0, 1}
    assert {"learner", "environment", "replicate", "t", "metric", "value", "n_neighbors"} <= set(res.metrics.columns)
    assert "Spectral embedding report" in (tmp_path / "r" / "report.md").read_text()
    # the resolved config reruns to the same scores (timings aside)
    kwargs, _ = parse_manifold(load_toml(tmp_path / "r" / "config.toml"))
    again = run_grid(**kwargs)

    def keep(df):
        return df[df.metric != "seconds"].reset_index(drop=True)[["learner", "metric", "value"]]

    pd.testing.assert_frame_equal(keep(again), keep(res.metrics))


def test_scores_match_an_independent_recomputation():
    df = run_grid("helix", ["le"], m=150, draws=1, n_neighbors=[9], score_neighbors=7, seed=3)
    X, _ = helix(150, random_state=np.random.default_rng(np.random.SeedSequence(3).spawn(1)[0]))
    Y = LaplacianEigenmaps(n_neighbors=9).fit_transform(X)
    tw = df[df.metric == "trustworthiness"].value.item()
    assert tw == pytest.approx(sk_trustworthiness(X, Y, n_neighbors=7), abs=1e-12)


def test_failures_are_recorded_not_raised_and_digits_run():
    df = run_grid("helix", ["ale"], m=150, draws=1, n_neighbors=[3, 12])
    failed = df[df.metric == "failed"].set_index("learner").value
    assert failed["ale k=2 t=3"] == 1.0 and failed["ale k=2 t=12"] == 0.0
    assert "connected components" in df[df.learner == "ale k=2 t=3"].error.iloc[0]
    with pytest.warns(UserWarning, match="LPP: the data span 55 of 64 dimensions"):   # constant pixels
        dg = run_grid("digits", ["pca", "lpp"], m=200, draws=1, n_neighbors=[10])
    assert "unrolling" not in set(dg.metric) and dg[dg.metric == "failed"].value.sum() == 0
    assert load_dataset("digits", m=50)[0].shape == (50, 64)


def test_listed_and_bad_configs(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "manifold methods:" in out and "vrle" in out
    good = {"manifold": {"methods": ["le"], "m": 50}}
    with pytest.raises(UnknownNameError, match="did you mean 'n_neighbors'"):
        parse_manifold({"manifold": {**good["manifold"], "n_neighbours": [5]}})
    with pytest.raises(UnknownNameError, match="did you mean 'lle'"):
        parse_manifold({"manifold": {"methods": ["lle2"]}})
    with pytest.raises(UnknownNameError, match="le has no parameter 'radiuss'"):
        kwargs, _ = parse_manifold({"manifold": {**good["manifold"], "le_radiuss": 3}})
        run_grid(**kwargs)
    with pytest.raises(UnknownNameError, match=r"\[run\]"):
        parse_manifold({**good, "run": {"rounds": 5}})
    with pytest.raises(ConfigError, match="--rounds does not apply"):
        from onlinelab.experiment.kinds.manifold import run_outcome
        run_outcome(good, rounds=10)
