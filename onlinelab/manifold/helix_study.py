"""The paper's helix experiment (theory §7.10): LE, ALE and VRLE side by side, and Remark 4.2 made measurable.

The paper (§4) draws m = 2000 points of the helix x = (θ cos θ, θ sin θ, h), θ ~ U[1.5π, 4.5π],
h ~ U[0, 10], embeds them with LE, ALE and VRLE and shows pictures; its Remark 4.2 says ALE and
VRLE are "extremely sensitive" to t (ALE) and R (VRLE) while LE is "relatively invariant" to
its neighbour count.  Here that claim is measured: for each method and each value of its
parameter, the unrolling score (largest |Spearman ρ| of an embedding axis with θ) and the
trustworthiness (t = 10) over ``draws`` independent draws of the points — mean, standard
deviation, and the failures (a disconnected graph is refused, not embedded).  Sensitivity of a
method = the range (max − min) over its sweep of the mean score.

``python examples/manifold/helix_le.py [out_dir]`` runs the full size (m = 2000, 10 draws) and writes
``helix_pictures.png``, ``remark_4_2.md`` and ``remark_4_2.png``; the tests and notebook 05 call
`pictures` and `sensitivity` with small sizes.

>>> summary, spread = sensitivity(m=120, draws=1, le_t=(8,), ale_t=(8,), vrle_r=(8,))
>>> sorted(spread.method)
['ale', 'le', 'vrle']
"""
from __future__ import annotations

import pathlib

import numpy as np
import pandas as pd

from onlinelab.errors import DisconnectedGraphError
from onlinelab.manifold.data import helix
from onlinelab.manifold.experiment import run_grid
from onlinelab.manifold.laplacian import LaplacianEigenmaps
from onlinelab.manifold.result import ManifoldResult

LE_T = (5, 7, 10, 15, 20, 30)
ALE_T = (5, 7, 10, 15, 20, 30)
VRLE_R = (2, 5, 10, 20, 40, 80)
VRLE_T = 10


def pictures(m: int = 2000, t: int = 10, R: float = 40, seed: int = 0):
    """Figure: the helix and its LE, ALE and VRLE embeddings, coloured by θ (the paper's figures 3–6).

    A refused fit (disconnected graph) is shown as a panel saying so.

    Parameters
    ----------
    m : int, default 2000
        Points.
    t : int, default 10
        Neighbour count of all three.
    R : float, default 40
        VRLE's average neighbour count (at m = 2000, R ≤ 10 mostly disconnects the helix: theory §7.10).
    seed : int, default 0
        Seed of the draw.
    """
    import matplotlib.pyplot as plt
    X, theta = helix(m, random_state=seed)
    fig = plt.figure(figsize=(13, 3.2))
    ax = fig.add_subplot(1, 4, 1, projection="3d")
    ax.scatter(*X.T, c=theta, s=3, cmap="viridis")
    ax.set_title(f"helix, m = {m}", fontsize=9)
    for i, (name, est) in enumerate([("LE", LaplacianEigenmaps(n_neighbors=t)),
                                     ("ALE", LaplacianEigenmaps(n_neighbors=t, weights="ale")),
                                     ("VRLE", LaplacianEigenmaps(n_neighbors=t, weights="vrle", radius=R))]):
        a = fig.add_subplot(1, 4, i + 2)
        try:
            Y = est.fit_transform(X)
            a.scatter(Y[:, 0], Y[:, 1], c=theta, s=3, cmap="viridis")
        except DisconnectedGraphError as exc:   # refused, not embedded: say so in the panel
            a.text(0.5, 0.5, f"graph disconnected\n({exc.n_components} components)", ha="center", va="center")
        a.set_title(f"{name} (t = {t}" + (f", R = {R:g})" if name == "VRLE" else ")"), fontsize=9)
        a.set_xticks([])
        a.set_yticks([])
    fig.tight_layout()
    return fig


def sensitivity(m: int = 2000, draws: int = 10, le_t=LE_T, ale_t=ALE_T, vrle_r=VRLE_R, seed: int = 0,
                out=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(per-setting summary, per-method sensitivity) of unrolling and trustworthiness; files under ``out``.

    Parameters
    ----------
    m : int, default 2000
        Points per draw.
    draws : int, default 10
        Independent draws of the helix.
    le_t, ale_t : tuple of int
        The t swept for LE and ALE.
    vrle_r : tuple of float
        The R swept for VRLE (at t = 10).
    seed : int, default 0
        Seed of the draws.
    out : path-like, optional
        Folder for remark_4_2.md and remark_4_2.png.
    """
    frame = pd.concat([
        run_grid("helix", ["le"], m=m, draws=draws, n_neighbors=list(le_t), seed=seed),
        run_grid("helix", ["ale"], m=m, draws=draws, n_neighbors=list(ale_t), seed=seed),
        run_grid("helix", ["vrle"], m=m, draws=draws, n_neighbors=[VRLE_T], radius=list(vrle_r), seed=seed),
    ], ignore_index=True)
    summary = ManifoldResult.from_frame(frame, seed=seed).summary()
    summary["parameter"] = np.where(summary.method == "vrle", "R", "t")
    summary["value"] = np.where(summary.method == "vrle", summary.radius, summary.n_neighbors)
    cols = ["method", "parameter", "value", "draws", "failed", "unrolling", "unrolling_sd", "trustworthiness",
            "trustworthiness_sd"]
    summary = summary[cols].sort_values(["method", "value"], key=lambda c: c.map({"le": 0, "ale": 1, "vrle": 2})
                                        if c.name == "method" else c).reset_index(drop=True)
    spread = summary.groupby("method", sort=False).agg(
        settings=("value", "size"), failed_fits=("failed", "sum"),
        unrolling_min=("unrolling", "min"), unrolling_max=("unrolling", "max"),
        unrolling_range=("unrolling", lambda s: s.max() - s.min()),
        unrolling_sd_max=("unrolling_sd", "max"),
        trust_range=("trustworthiness", lambda s: s.max() - s.min())).reset_index()
    if out is not None:
        out = pathlib.Path(out)
        out.mkdir(parents=True, exist_ok=True)
        with pd.option_context("display.width", 200, "display.max_columns", 20):
            (out / "remark_4_2.md").write_text(
                f"# Remark 4.2 on the helix (m = {m}, {draws} draws)\n\n```\n"
                f"{summary.to_string(index=False, float_format='%.4f')}\n```\n\nSensitivity (range over the sweep "
                f"of the mean score):\n\n```\n{spread.to_string(index=False, float_format='%.4f')}\n```\n")
        _figure(summary).savefig(out / "remark_4_2.png", dpi=110)
    return summary, spread


def _figure(summary: pd.DataFrame):
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(3, 3, figsize=(12, 8), sharey="row", sharex="col")
    for j, method in enumerate(("le", "ale", "vrle")):
        s = summary[summary.method == method]
        for i, score in enumerate(("unrolling", "trustworthiness", "failed")):
            ax = axes[i, j]
            if score == "failed":
                ax.plot(s.value, s.failed / s.draws, marker="o", color="C3")
                ax.set_ylabel("fraction of fits refused\n(graph disconnected)")
                ax.set_xlabel(("R" if method == "vrle" else "t") + f" ({method.upper()})")
            else:
                ax.errorbar(s.value, s[score], yerr=s[f"{score}_sd"], marker="o", capsize=3)
                ax.set_ylabel(score)
            ax.set_xscale("log")
            ax.set_xticks(list(s.value), [f"{x:g}" for x in s.value])
            ax.minorticks_off()
            ax.grid(True, alpha=0.3)
    fig.suptitle("Remark 4.2 on the helix: mean ± sd over draws (refused fits excluded)", fontsize=10)
    fig.tight_layout()
    return fig
