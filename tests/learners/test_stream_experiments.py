"""The streaming experiments in examples/streaming/ run end to end on a small size."""
import importlib.util
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2] / "examples" / "streaming"


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
    res, table = _load("spiked_convergence").run(rounds=300, replicates=4, out=tmp_path)
    assert (tmp_path / "spiked_convergence.png").is_file()
    assert len(table) == 9 and np.all(np.isfinite(table.to_numpy()))
    # Exact target on the same samples: batch PCA (refresh = 10 divides 300, so it ends on all 3000 samples).
    # Oja with η_n = c/(n + t0) has, per pair (i in the subspace, j outside) with gap h = λ_i − λ_j and c·h > 1/2,
    # the asymptotic error c²h²/(2ch − 1) times batch PCA's (the SGD-versus-empirical-risk variance ratio); the
    # config's c = 1 and h ≤ 5 − 1 = 4 give at most 16/7.  Paired by replicate (same stream), mean + 3 SE < 0.
    final = res.final("sin2_theta")
    oja = final.xs("oja-block-10", level="learner").to_numpy()
    batch = final.xs("batch-pca(k=3, refresh=10)", level="learner").to_numpy()
    excess = oja - 16 / 7 * batch
    assert excess.mean() + 3 * excess.std(ddof=1) / np.sqrt(len(excess)) < 0, (oja, batch)
