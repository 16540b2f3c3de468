"""The iterative-method, embedding-game and spectral-embedding results draw like every other result:
``plot`` returns ``(Figure, ndarray of Axes)``, axes are labelled, the legend sits outside the axes, each
rate curve has its own line style, and curves with replicates carry a band (docs/guide, theory §6, §5, §7)."""
import matplotlib
import numpy as np
import pytest
from matplotlib.collections import PolyCollection

from onlinelab.bregman import robust_pca
from onlinelab.embedding.embed import NearIsometricEmbedding
from onlinelab.manifold.experiment import run_grid
from onlinelab.manifold.result import ManifoldResult
from tests.runs.test_figures import _bound_lines, assert_legend_outside

matplotlib.use("Agg")


def _common(fig, axes):
    assert isinstance(axes, np.ndarray) and axes.ndim == 1 and all(a.figure is fig for a in axes)
    for ax in axes:
        assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title()
    assert_legend_outside(fig)


def test_iterative_method_plot(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2)) @ rng.normal(size=(2, 15))
    X[rng.random(X.shape) < 0.05] += 5.0
    _, _, res = robust_pca(X, iters=60)
    fig, axes = res.plot()
    _common(fig, axes)
    styles = [(ln.get_linestyle(), ln.get_marker()) for ln in _bound_lines(axes[0])]
    assert styles and len(set(styles)) == len(styles), "one style per rate curve"
    res.save(tmp_path / "run")
    assert (tmp_path / "run" / "report.png").stat().st_size > 0


def test_embedding_game_plot():
    rng = np.random.default_rng(1)
    emb = NearIsometricEmbedding(n_components=2, T=20).fit(rng.normal(size=(12, 5)))
    fig, axes = emb.result_.plot()
    _common(fig, axes)
    assert any(isinstance(c, PolyCollection) for c in axes[0].collections), "the bracket of p⋆ is shaded"


def test_manifold_plot():
    frame = run_grid("helix", ["le", "pca"], m=150, draws=2, n_neighbors=(8, 12), seed=0)
    fig, axes = ManifoldResult.from_frame(frame, seed=0).plot()
    _common(fig, axes)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt
    plt.close("all")
