"""The source paper's PCA experiment on scikit-learn's digits: t-similarity (t = 10) against reduced dimension k.

Methods: batch PCA (scikit-learn), Gaussian random projection (scikit-learn), gradient PCA
(theory §4, safe step, on the centred data matrix), Oja (block cadence, ``epochs`` passes over
the data in random order) and the linear autoencoder (SGD, same passes; its code is the
encoder output ``W_eᵀ x``).  Each embedding is scored by :func:`onlinelab.geometry.subspace_metrics.t_similarity`:
the mean fraction of every point's 10 nearest neighbours that stay among its 10 nearest.

Run ``python examples/streaming/digits_tsimilarity.py [out_dir] [--quick]`` for the full table and
figure (k = 1, 2, 4, …, 32: over ten minutes on a loaded 2-core machine; ``--quick``: k = 1, 2, 4, 8 and one
pass), a line per k on stderr; the tests call :func:`run` with a few k and one pass.
"""
from __future__ import annotations

import pathlib
import sys
import time

import numpy as np
import pandas as pd

import onlinelab as ol
from onlinelab.geometry.subspace_metrics import t_similarity
from onlinelab.learners.streaming_base import fit
from onlinelab.learners.streaming_gradient_pca import gradient_pca

KS = (1, 2, 4, 8, 16, 32)


def embeddings(k: int, epochs: int = 3, seed: int = 0, block: int = 10) -> dict:
    """name → (n, k) embedding of the centred digits by each method."""
    from sklearn.decomposition import PCA
    from sklearn.random_projection import GaussianRandomProjection
    env = ol.make_environment("digits-stream", k=k, order="random", block=block)
    X = env.data
    rounds = int(np.ceil(epochs * len(X) / block))
    oja, ae = ol.make_learner("oja", k=k, qr="block"), ol.make_learner("linear-ae", k=k)
    s_oja, s_ae = fit(oja, env, rounds, seed=seed), fit(ae, env, rounds, seed=seed)
    U, _ = gradient_pca(X.T, k, iters=300, line_search="armijo", seed=seed)
    return {
        "PCA": PCA(k, svd_solver="full").fit_transform(X),
        "random projection": GaussianRandomProjection(k, random_state=seed).fit_transform(X),
        "gradient PCA": X @ U,
        "Oja": X @ oja.subspace(s_oja)[0],
        "linear AE": X @ s_ae.We[0],
    }


def run(ks=KS, t: int = 10, epochs: int = 3, seed: int = 0, out=None, progress: bool = False) -> pd.DataFrame:
    """Table of t-similarity (rows: k, columns: method); with ``out``, also table.md and figure.png there;
    with ``progress``, a line per k on stderr."""
    X = ol.make_environment("digits-stream", k=1).data
    rows, start = [], time.perf_counter()
    for i, k in enumerate(ks):
        if progress:
            print(f"[{i + 1}/{len(ks)}] k = {k} ({time.perf_counter() - start:.0f} s so far)",
                  file=sys.stderr, flush=True)
        for name, Y in embeddings(k, epochs, seed).items():
            rows.append({"k": k, "method": name, "t_similarity": t_similarity(X, Y, t)})
    table = pd.DataFrame(rows).pivot(index="k", columns="method", values="t_similarity")
    if out is not None:
        out = pathlib.Path(out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "digits_tsimilarity.md").write_text(table.to_markdown(floatfmt=".3f") if _has_tabulate()
                                                   else table.to_string(float_format="%.3f"))
        _figure(table, t).savefig(out / "digits_tsimilarity.png", dpi=110)
    return table


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
        return True
    except ImportError:
        return False


def _figure(table: pd.DataFrame, t: int):
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    for name in table.columns:
        ax.plot(table.index, table[name], marker="o", label=name)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("reduced dimension k")
    ax.set_ylabel(f"t-similarity (t = {t})")
    ax.set_title("digits (1797 × 64)")
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    import matplotlib
    matplotlib.use("Agg")
    args = [a for a in sys.argv[1:] if a != "--quick"]
    size = {"ks": (1, 2, 4, 8), "epochs": 1} if "--quick" in sys.argv[1:] else {}
    print(run(out=args[0] if args else "runs/streaming", progress=True, **size).to_string(float_format="%.3f"))
