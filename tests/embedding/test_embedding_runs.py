"""The [embedding] run kind (TOML → onlinelab run), the experiment script on a small size, the notebook's helpers."""
import importlib.util
import pathlib

import numpy as np
import pytest

from onlinelab.cli.main import main
from onlinelab.errors import ConfigError, UnknownNameError
from onlinelab.experiment.config import load_toml
from onlinelab.experiment.kinds import kinds, listings
from onlinelab.experiment.kinds.embedding import run_embedding_config
from onlinelab.runs.load import load_run
from tests.cvx_reference import cvxpy

ROOT = pathlib.Path(__file__).resolve().parents[2]
CONFIG = ROOT / "examples" / "embedding" / "digits_5.toml"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / "embedding" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_config_runs_and_its_resolved_config_reruns():
    res, resolved, table = run_embedding_config(load_toml(CONFIG), rounds=30)
    assert res.meta["game"]["breaches"] == [] and res.violations().empty
    assert list(table.method) == ["dual", "pca", "random", "jl"]
    again, _, table2 = run_embedding_config(resolved)
    assert again.metrics.equals(res.metrics) and table2.max_distortion.equals(table.max_distortion)
    dual = table.set_index("method").max_distortion
    assert dual["dual"] < dual["pca"] < dual["random"]          # the paper's ordering on this instance


def test_cli_runs_an_embedding_config_and_lists_the_kind(tmp_path, capsys):
    assert "embedding" in kinds()
    status = main(["run", str(CONFIG), "--rounds", "20", "--out", str(tmp_path / "e")])
    assert status == 0
    out = capsys.readouterr().out
    assert "max distortion" in out and "% improvement" in out and "dual bound" in out
    for f in ("metrics.parquet", "config.toml", "report.md", "report.png", "solution.npz"):
        assert (tmp_path / "e" / f).is_file(), f
    V = np.load(tmp_path / "e" / "solution.npz")["V"]
    assert V.shape == (64, 10) and np.allclose(V.T @ V, np.eye(10), atol=1e-12)
    assert set(load_run(tmp_path / "e").metrics.metric) >= {"dual", "distortion", "regret"}
    assert any("embedding" in title for title, _ in listings())


def test_bad_embedding_configs():
    with pytest.raises(UnknownNameError, match="did you mean 'points'"):
        run_embedding_config({"embedding": {"pointz": 10}}, rounds=5)
    with pytest.raises(ConfigError, match="distinct images"):
        run_embedding_config({"embedding": {"points": 1000}}, rounds=5)
    with pytest.raises(ConfigError, match="deterministic"):
        run_embedding_config({"embedding": {"data": "gaussian", "points": 5, "d": 3, "n_components": 1}},
                             rounds=5, replicates=4)
    with pytest.raises(ConfigError, match="baselines"):
        run_embedding_config({"embedding": {"baselines": ["tsne"]}}, rounds=5)
    with pytest.raises(ConfigError, match="embedding.file"):
        run_embedding_config({"embedding": {"data": "file", "file": "missing.npy"}}, rounds=5)


def test_points_from_a_file(tmp_path):
    pts = np.random.default_rng(0).standard_normal((8, 4))
    np.save(tmp_path / "p.npy", pts)
    np.savetxt(tmp_path / "p.csv", pts, delimiter=",")
    a = run_embedding_config({"embedding": {"data": "file", "file": str(tmp_path / "p.npy"), "n_components": 2,
                                            "baselines": []}}, rounds=10)[2]
    b = run_embedding_config({"embedding": {"data": "file", "file": str(tmp_path / "p.csv"), "n_components": 2,
                                            "baselines": []}}, rounds=10)[2]
    assert a.max_distortion.iloc[0] == pytest.approx(b.max_distortion.iloc[0], abs=1e-12)


def test_experiment_script_small(tmp_path):
    cvxpy()  # the Fantope SDP baseline solves with cvxpy
    mod = _load("near_isometric")
    raw, table = mod.run(digits=(5,), sizes=(12,), ks=(3,), subsets=2, T=60, sdp_sizes=(12,), sdp_subsets=1,
                         out=tmp_path)
    assert (tmp_path / "near_isometric.png").is_file() and (tmp_path / "near_isometric.md").is_file()
    assert set(table.method) == {"dual", "PCA", "random", "JL", "SDP"}
    # the SDP's value is d̂⋆ ≥ every dual bound, and ≤ every orthonormal embedding's distortion
    sdp = raw[raw.method == "SDP"].set_index(["k", "subset"])
    dual = raw[raw.method == "dual"].set_index(["k", "subset"]).loc[sdp.index]
    assert (dual.dual_bound <= sdp.dual_bound + 1e-4).all() and (sdp.dual_bound <= dual.eps + 1e-4).all()
    imp = table.set_index(["k", "method"]).improvement_mean
    assert np.isfinite(imp.loc[(3, "PCA")]) and np.isnan(imp.loc[(3, "dual")])


def test_saved_run_reports_as_an_embedding(tmp_path, capsys):
    assert main(["run", str(CONFIG), "--rounds", "15", "--out", str(tmp_path / "e")]) == 0
    capsys.readouterr()
    assert main(["report", str(tmp_path / "e")]) == 0
    out = capsys.readouterr().out
    assert "dual bound" in out and "% improvement" in out and "NaN" not in out
