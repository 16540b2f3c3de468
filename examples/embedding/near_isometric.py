"""The source paper's MNIST protocol on scikit-learn's digits (theory §5): maximum distortion against k.

MNIST cannot be downloaded here; scikit-learn's bundled 8×8 digits (d = 64) stand in for it.
For digits 2, 4, 5, 7 and r = 46, 101, 142 points (n = 1035, 5050, 10011 pairs — the paper's 1K, 5K
and 10K sizes), ``subsets`` random subsets each, and k ∈ {5, 7, 10, 15, 20, 30, 40}: the dual
algorithm (:class:`onlinelab.embedding.NearIsometricEmbedding`, T = 120, η = √2/√(nT)) against PCA,
a random orthonormal projection, a scaled Gaussian (JL) map and, on the sizes listed in
``sdp_sizes`` and the first ``sdp_subsets`` subsets, the Fantope SDP with top-k rounding (cvxpy, SCS,
``sdp_time_limit`` seconds; a solve that does not finish is left out and the ``finished`` column says
how many did).  Table: maximum distortion, mean ± sd over the subsets,
and the paper's "% improvement" 100·(ε_baseline − ε_dual)/ε_baseline, mean ± sd.

Run ``python examples/embedding/near_isometric.py [out_dir] [--quick]`` for the table and figure; it prints
a line per fit to stderr (done/total, elapsed, estimated time left).  Why the full protocol is slow: it makes
4 digits × 3 sizes × 7 k × 5 subsets = 420 dual fits (each T = 120 rounds over up to 10 011 pairs: about a
minute at r = 142 on a loaded 2-core machine) and 28 SDP solves of up to ``sdp_time_limit`` = 60 s each, so
hours in all.  ``--quick`` runs digit 2, r = 46, k ∈ {5, 10, 20}, 2 subsets, no SDP (6 fits, minutes).
The tests and the notebook call :func:`run` with a small size.
"""
from __future__ import annotations

import pathlib
import sys
import time

import numpy as np
import pandas as pd

from onlinelab.embedding.baselines import fantope_sdp, jl_gaussian, max_distortion_of, pca, random_orthonormal
from onlinelab.embedding.embed import NearIsometricEmbedding
from onlinelab.embedding.pairs import unit_differences
from onlinelab.experiment.kinds.embedding import digit_points

DIGITS = (2, 4, 5, 7)
SIZES = (46, 101, 142)
KS = (5, 7, 10, 15, 20, 30, 40)
METHODS = ("dual", "PCA", "random", "JL", "SDP")


def one_instance(digit: int, r: int, k: int, seed: int, T: int = 120, sdp: bool = False,
                 sdp_time_limit: float = 60.0) -> list[dict]:
    """Rows (method, max distortion, seconds, dual bound) for one random subset."""
    pts = digit_points(digit, r, seed)
    X = unit_differences(pts)
    t0 = time.perf_counter()
    emb = NearIsometricEmbedding(k, T=T).fit(pts)
    rows = [{"method": "dual", "eps": emb.max_distortion_, "seconds": time.perf_counter() - t0,
             "dual_bound": emb.dual_bound_}]
    d = X.shape[1]
    for name, A in (("PCA", pca(pts, k)), ("random", random_orthonormal(d, k, seed)), ("JL", jl_gaussian(d, k, seed))):
        rows.append({"method": name, "eps": max_distortion_of(X, A)})
    if sdp:
        res = fantope_sdp(X, k, time_limit=sdp_time_limit)
        rows.append({"method": "SDP", "eps": max_distortion_of(X, res.V) if res.finished else np.nan,
                     "seconds": res.seconds, "dual_bound": res.value if res.finished else np.nan})
    base = {"digit": digit, "r": r, "n": len(X), "k": k, "subset": seed}
    return [{**base, **row} for row in rows]


def run(digits=DIGITS, sizes=SIZES, ks=KS, subsets: int = 5, T: int = 120, sdp_sizes=(46,), sdp_subsets: int = 1,
        sdp_time_limit: float = 60.0, out=None, progress: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(raw, table): one raw row per instance and method; the table of mean ± sd; files in ``out``; with
    ``progress``, a line per fit on stderr."""
    rows, done, total, start = [], 0, len(digits) * len(sizes) * len(ks) * subsets, time.perf_counter()
    if out is not None:
        out = pathlib.Path(out)
        out.mkdir(parents=True, exist_ok=True)
    for digit in digits:
        for r in sizes:
            for k in ks:
                for seed in range(subsets):
                    rows += one_instance(digit, r, k, seed, T, r in sdp_sizes and seed < sdp_subsets, sdp_time_limit)
                    done += 1
                    if progress:
                        _report(rows[-1], done, total, start)
            if out is not None:     # what is finished stays readable if the run stops midway
                pd.DataFrame(rows).to_csv(out / "near_isometric_raw.csv", index=False)
    raw = pd.DataFrame(rows)
    table = summarise(raw)
    if out is not None:
        raw.to_csv(out / "near_isometric_raw.csv", index=False)
        (out / "near_isometric.md").write_text(table.to_string(index=False, float_format="%.3f") + "\n")
        figure(raw).savefig(out / "near_isometric.png", dpi=110)
    return raw, table


def _report(last: dict, done: int, total: int, start: float) -> None:
    spent = time.perf_counter() - start
    print(f"[{done}/{total}] digit {last['digit']}, r = {last['r']}, k = {last['k']}, subset {last['subset']}: "
          f"{spent:.0f} s elapsed, about {spent / done * (total - done):.0f} s left", file=sys.stderr, flush=True)


def summarise(raw: pd.DataFrame) -> pd.DataFrame:
    """Mean ± sd of the maximum distortion per (digit, n, k, method) and the % improvement of the dual over it."""
    dual = raw[raw.method == "dual"].set_index(["digit", "r", "k", "subset"])["eps"]
    raw = raw.join(dual.rename("eps_dual"), on=["digit", "r", "k", "subset"])
    raw["improvement"] = 100 * (raw["eps"] - raw["eps_dual"]) / raw["eps"]
    g = raw.groupby(["digit", "n", "k", "method"], sort=False)
    table = g.agg(eps_mean=("eps", "mean"), eps_sd=("eps", "std"), finished=("eps", "count"),
                  improvement_mean=("improvement", "mean"), improvement_sd=("improvement", "std")).reset_index()
    table.loc[table.method == "dual", ["improvement_mean", "improvement_sd"]] = np.nan
    return table


def figure(raw: pd.DataFrame):
    """Maximum distortion (mean ± sd over subsets) against k; one panel per (digit, size)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    digits, sizes = sorted(raw.digit.unique()), sorted(raw.r.unique())
    fig, axes = plt.subplots(len(digits), len(sizes), figsize=(3.2 * len(sizes), 2.6 * len(digits)),
                             squeeze=False, sharex=True)
    for i, digit in enumerate(digits):
        for j, r in enumerate(sizes):
            ax = axes[i, j]
            sub = raw[(raw.digit == digit) & (raw.r == r)]
            for c, m in enumerate(METHODS):
                s = sub[sub.method == m].groupby("k")["eps"].agg(["mean", "std"]).dropna(subset=["mean"])
                if len(s):
                    ax.errorbar(s.index, s["mean"], yerr=s["std"].fillna(0), color=f"C{c}", marker="o", ms=3,
                                lw=1.2, capsize=2, label=m)
            ax.set_title(f"digit {digit}, n = {r * (r - 1) // 2}", fontsize=8)
            ax.grid(True, alpha=0.3)
            if i == len(digits) - 1:
                ax.set_xlabel("k")
            if j == 0:
                ax.set_ylabel("max distortion")
    axes[0, 0].legend(fontsize=6)
    fig.tight_layout()
    return fig


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="the source's protocol on scikit-learn's digits (theory §5)")
    ap.add_argument("out", nargs="?", default=str(pathlib.Path("runs") / "near_isometric"))
    ap.add_argument("--ks", type=int, nargs="+", default=list(KS))
    ap.add_argument("--subsets", type=int, default=5)
    ap.add_argument("--sdp-subsets", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="digit 2, r = 46, k = 5, 10, 20, 2 subsets, no SDP")
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    size = (dict(digits=(2,), sizes=(46,), ks=(5, 10, 20), subsets=2, sdp_subsets=0) if args.quick else
            dict(ks=tuple(args.ks), subsets=args.subsets, sdp_subsets=args.sdp_subsets))
    _, tab = run(**size, out=out, progress=True)
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(tab.to_string(index=False, float_format="%.3f"))
    print(f"written to {out}")
