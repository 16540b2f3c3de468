"""The streaming experiments in examples/streaming/ run end to end on a small size."""
import importlib.util
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1] / "examples" / "streaming"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_digits_t_similarity_experiment(tmp_path):
    table = _load("digits_tsimilarity").run(ks=(2, 8), epochs=1, out=tmp_path)
    assert (tmp_path / "digits_tsimilarity.png").is_file() and (tmp_path / "digits_tsimilarity.md").is_file()
    assert set(table.columns) == {"PCA", "random projection", "gradient PCA", "Oja", "linear AE"}
    # gradient PCA converges to PCA's subspace (same neighbourhoods); every score grows with k
    np.testing.assert_allclose(table["gradient PCA"], table["PCA"], atol=0.02)
    assert np.all(table.loc[8] > table.loc[2])
    assert table.loc[8, "PCA"] > table.loc[8, "random projection"]


def test_spiked_convergence_experiment(tmp_path):
    res, table = _load("spiked_convergence").run(rounds=300, replicates=2, out=tmp_path)
    assert (tmp_path / "spiked_convergence.png").is_file()
    assert len(table) == 9 and np.all(np.isfinite(table.to_numpy()))
    assert table.loc["oja-block-10", "sin2_theta"] < 0.1
