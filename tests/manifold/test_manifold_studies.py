"""The §7 studies (helix pictures, Remark 4.2, methods × k, linear methods on a stream)
run end to end on small sizes."""
import warnings

import numpy as np

from onlinelab.manifold.helix_study import pictures, sensitivity
from onlinelab.manifold.method_study import methods_table, stream_out_of_sample


def test_remark_4_2_sensitivity_and_pictures(tmp_path):
    summary, spread = sensitivity(m=150, draws=2, le_t=(4, 10), ale_t=(4, 10), vrle_r=(5,), out=tmp_path)
    assert (tmp_path / "remark_4_2.md").is_file() and (tmp_path / "remark_4_2.png").is_file()
    assert set(spread.method) == {"le", "ale", "vrle"}
    row = summary[(summary.method == "ale") & (summary.value == 4)].iloc[0]
    assert row.failed == 2 and np.isnan(row.unrolling)  # mutual 4-NN splits a 150-point helix: refused, not embedded
    ok = summary[summary.failed == 0]
    assert ok.unrolling.between(0, 1).all() and ok.unrolling.max() > 0.99   # (t = 10 short-circuits 150 points)
    assert len(pictures(m=150).axes) == 4


def test_methods_table_and_stream(tmp_path):
    table = methods_table(m_digits=150, m_helix=150, ks={"digits": (2,), "helix": (2,)},
                          methods=("le", "pca", "lpp"), out=tmp_path)
    assert (tmp_path / "methods_table.png").is_file() and len(table) == 6 and (table.failed == 0).all()
    mds_like = table[(table.method == "pca")].trustworthiness
    assert mds_like.between(0, 1).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")                     # the study silences only the PCA-subspace note
        stream = stream_out_of_sample(prefixes=(80,), test=200, out=tmp_path)
    assert set(stream.method) == {"PCA", "LPP", "ONPP", "Oja"} and set(stream.prefix) == {80, 1597}
    full = stream[stream.prefix == 1597].set_index("method")
    # fitted on 1597 points, batch PCA beats a single pass of Oja on held-out neighbourhoods only slightly, if at all
    assert full.loc["PCA", "t_similarity"] >= full.loc["Oja", "t_similarity"] - 0.05
