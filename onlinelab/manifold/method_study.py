"""Two studies of theory §7: every method × k on two data sets, and the linear methods on a stream.

`methods_table` — for the digits (64 dimensions; k = 2, 4, 8, 16) and the helix (3 dimensions;
k = 1, 2), every method with one neighbour count t = 10: trustworthiness, t-similarity (t = 10) and
the seconds of the fit, as a table and a figure (each score against k, one line per method); VRLE with R = 40.

`stream_out_of_sample` — the digits (scaled and centred, as the ``digits-stream`` environment
serves them) arrive in one random order and the last ``test`` points are held out.  For each prefix
length n, PCA, LPP and ONPP are fitted on the first n points and embed the held-out points with
``transform``; Oja's learner (theory §4) reads the same n points as a stream, one block per round,
and its subspace embeds the held-out points too.  Scores on the held-out points: t-similarity and
trustworthiness against their original coordinates; the last prefix is everything but the held-out
points.  LPP/ONPP on short prefixes (and on digits, whose border pixels are constant) work in the
data's PCA subspace (theory §7.8); the warning saying so is silenced here.

``examples/manifold/methods_table.py`` and ``examples/manifold/stream_out_of_sample.py`` run them at
full size; the tests and notebook 05 with small sizes.
"""
from __future__ import annotations

import pathlib
import warnings

import numpy as np
import pandas as pd

from onlinelab.core.registry import make_environment, make_learner
from onlinelab.environments.streams import DigitsStream
from onlinelab.learners.streaming_base import fit
from onlinelab.manifold.experiment import METHODS, run_grid
from onlinelab.manifold.linear import LPP, ONPP, PCA
from onlinelab.manifold.quality import t_similarity, trustworthiness
from onlinelab.manifold.result import ManifoldResult

KS = {"digits": (2, 4, 8, 16), "helix": (1, 2)}


def methods_table(m_digits: int | None = None, m_helix: int = 2000, ks=None, methods=tuple(METHODS),
                  n_neighbors: int = 10, vrle_radius: float = 40.0, seed: int = 0, out=None) -> pd.DataFrame:
    """Summary table (one row per data set × method × k); with ``out`` also methods_table.md and .png there.

    Parameters
    ----------
    m_digits : int, optional
        A random subset of the digits (default all 1797).
    m_helix : int, default 2000
        Helix points.
    ks : dict, optional
        ``{"digits": (...), "helix": (...)}`` embedding dimensions; default k = 2, 4, 8, 16 and 1, 2.
    methods : tuple of str
        Method names (default all).
    n_neighbors : int, default 10
        t of every graph.
    vrle_radius : float, default 40.0
        VRLE's R (on the 2000-point helix R ≤ 10 mostly disconnects the graph: theory §7.10).
    seed : int, default 0
        Seed of the draws.
    out : path-like, optional
        Folder for the table and figure.
    """
    ks = ks or KS
    frames = []
    with warnings.catch_warnings():   # LPP/ONPP on digits: constant border pixels, solved in the PCA subspace
        warnings.filterwarnings("ignore", message=".*PCA subspace")
        for name, m in (("digits", m_digits), ("helix", m_helix)):
            frames.append(run_grid(name, list(methods), m=m, n_components=list(ks[name]), n_neighbors=[n_neighbors],
                                   radius=[vrle_radius], seed=seed))
    table = ManifoldResult.from_frame(pd.concat(frames, ignore_index=True), seed=seed).summary()
    table = table[["environment", "method", "n_components", "failed", "trustworthiness", "t_similarity", "seconds"]]
    table = table.sort_values(["environment", "method", "n_components"]).reset_index(drop=True)
    if out is not None:
        out = pathlib.Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "methods_table.md").write_text("```\n" + table.to_string(index=False, float_format="%.4f") + "\n```\n")
        _figure(table).savefig(out / "methods_table.png", dpi=110)
    return table


def _figure(table: pd.DataFrame):
    import matplotlib.pyplot as plt
    envs = list(dict.fromkeys(table.environment))
    fig, axes = plt.subplots(len(envs), 3, figsize=(13, 3.4 * len(envs)), squeeze=False)
    for i, env in enumerate(envs):
        t = table[table.environment == env]
        for j, score in enumerate(("trustworthiness", "t_similarity", "seconds")):
            ax = axes[i, j]
            for n, (method, g) in enumerate(t.groupby("method", sort=False)):
                ax.plot(g.n_components, g[score], marker="o", color=f"C{n % 10}", label=method)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("k")
            ax.set_ylabel(score)
            ax.set_title(env, fontsize=9)
            ax.grid(True, alpha=0.3)
            if score == "seconds":
                ax.set_yscale("log")
    axes[0, 0].legend(fontsize=7)
    fig.tight_layout()
    return fig


PREFIXES = (100, 200, 400, 800, 1200)


class FixedOrderDigits(DigitsStream):
    """The digits stream in one given order (every replicate), so Oja reads exactly the prefix the batch methods see.

    Parameters
    ----------
    stream_order : array_like of int
        Permutation of the 1797 digits.
    k : int, default 5
        Target subspace dimension.
    block : int, default 10
        Samples per round.
    """

    def __init__(self, stream_order, k: int = 5, block: int = 10):
        super().__init__(k=k, block=block)
        self.stream_order = np.asarray(stream_order, dtype=np.intp)

    def reset(self, rng, T):
        super().reset(rng, T)
        self._order = np.broadcast_to(self.stream_order, self._order.shape)


def stream_out_of_sample(prefixes=PREFIXES, k: int = 5, test: int = 500, block: int = 10, t: int = 10,
                         seed: int = 0, out=None) -> pd.DataFrame:
    """Held-out scores per (method, prefix length); with ``out`` also stream_out_of_sample.md and .png there.

    Parameters
    ----------
    prefixes : tuple of int
        Prefix lengths n (a last one, all but the held-out points, is added).
    k : int, default 5
        Embedding dimension.
    test : int, default 500
        Held-out points at the end of the stream.
    block : int, default 10
        Samples per round for Oja.
    t : int, default 10
        Neighbourhood size of the scores.
    seed : int, default 0
        Seed of the stream order and of Oja.
    out : path-like, optional
        Folder for the table and figure.
    """
    env0 = make_environment("digits-stream", k=k)
    X = env0.data
    order = np.random.default_rng(seed).permutation(len(X))
    held = X[order[-test:]]
    rows = []
    for n in list(prefixes) + [len(X) - test]:
        train = X[order[:n]]
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*PCA subspace")
            models = {"PCA": PCA(k), "LPP": LPP(k, n_neighbors=10), "ONPP": ONPP(k, n_neighbors=10)}
            embedded = {name: est.fit(train).transform(held) for name, est in models.items()}
        oja = make_learner("oja", k=k, qr="block")
        state = fit(oja, FixedOrderDigits(order, k=k, block=block), max(1, n // block), seed=seed)
        embedded["Oja"] = held @ oja.subspace(state)[0]
        for name, Y in embedded.items():
            rows.append({"method": name, "prefix": n, "t_similarity": t_similarity(held, Y, t),
                         "trustworthiness": trustworthiness(held, Y, t)})
    table = pd.DataFrame(rows)
    if out is not None:
        out = pathlib.Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "stream_out_of_sample.md").write_text("```\n" + table.to_string(index=False, float_format="%.4f")
                                                     + "\n```\n")
        _stream_figure(table).savefig(out / "stream_out_of_sample.png", dpi=110)
    return table


def _stream_figure(table: pd.DataFrame):
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.6))
    for ax, score in zip(axes, ("t_similarity", "trustworthiness"), strict=True):
        for name, g in table.groupby("method", sort=False):
            ax.plot(g.prefix, g[score], marker="o", label=name)
        ax.set_xscale("log")
        ax.set_xlabel("prefix length n (points seen)")
        ax.set_ylabel(f"{score} on held-out points")
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig
