"""The experiments of theory §6: Algorithm 9 against Algorithm 7,
video separation, completion against the sampling rate.

* `acceleration_table` — the §6 observation (120 × 60, rank 3, 5 % outliers): the iteration at
  which Algorithm 9's residual ½‖L + S − X‖² first reaches (and from which it stays below) Algorithm
  7's residual after 1500 iterations, per random instance.
* `separate_video` — robust PCA of `onlinelab.bregman.data.synthetic_video`: precision and
  recall of the detected foreground (|S| above a threshold) and the background's error.
* `completion_table` — relative error of Algorithm 11 against the fraction of observed entries.

>>> t = completion_table(n=12, s=10, rank=1, fractions=[0.9], iters=200, seeds=[0])
>>> list(t.columns)
['fraction', 'seed', 'rel_error', 'rank', 'residual']
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from onlinelab.bregman.completion import complete_matrix
from onlinelab.bregman.data import low_rank, low_rank_plus_sparse, synthetic_video
from onlinelab.bregman.rpca import robust_pca


def acceleration_table(n: int = 120, s: int = 60, rank: int = 3, outliers: float = 0.05, size: float = 10.0,
                       iters: int = 1500, seeds=(0, 1, 2, 3, 4), gamma=None, alpha=None) -> pd.DataFrame:
    """Per instance: Algorithm 7's residual after ``iters`` iterations and when Algorithm 9 reaches it.

    Parameters
    ----------
    n, s : int, default 120, 60
        Shape.
    rank : int, default 3
        Rank of the low-rank part.
    outliers : float, default 0.05
        Fraction of outliers.
    size : float, default 10.0
        Outlier magnitude.
    iters : int, default 1500
        Algorithm 7's iterations (Algorithm 9 runs as many).
    seeds : sequence of int, default (0, …, 4)
        One instance per seed.
    gamma, alpha : float or None, default None
        As `onlinelab.bregman.robust_pca` (None: its defaults).
    """
    rows = []
    every = range(1, iters + 1)
    for seed in seeds:
        X = low_rank_plus_sparse(n, s, rank, outliers, size, 1, seed)[0][0]
        _, _, r7 = robust_pca(X, alpha, gamma, accelerated=False, iters=iters, checkpoints=[iters], reference=False)
        target = float(r7.final("residual").iloc[0])
        _, _, r9 = robust_pca(X, alpha, gamma, accelerated=True, iters=iters, checkpoints=every, reference=False)
        res9 = r9.curve("residual")["mean"].to_numpy()
        below = res9 <= target
        above = np.flatnonzero(~below)
        params = r9.meta["learners"][r9.learners[0]]["params"]
        rows.append({"seed": seed, "gamma": params["gamma"][0], "alpha": params["alpha"][0],
                     "alg7_residual": target, "alg9_first": int(np.argmax(below)) + 1 if below.any() else None,
                     "alg9_stays": int(above[-1]) + 2 if len(above) else 1,
                     "alg9_residual": float(res9[-1])})
    return pd.DataFrame(rows)


def separate_video(iters: int = 300, threshold: float = 0.02, gamma=None, **video) -> dict:
    """Robust PCA of the synthetic video: foreground precision/recall and background error.

    Parameters
    ----------
    iters : int, default 300
        Algorithm 9 iterations.
    threshold : float, default 0.02
        |S| above it counts as foreground (intensities are in [0, 1]).
    gamma : float or None, default None
        γ (None: 10·σ̂(X)).
    **video
        Passed to `onlinelab.bregman.data.synthetic_video`.
    """
    X, B, M = synthetic_video(**video)
    L, S, res = robust_pca(X, gamma=gamma, iters=iters, reference=False)
    det = np.abs(S) > threshold
    tp = int((det & M).sum())
    return {"precision": tp / max(int(det.sum()), 1), "recall": tp / int(M.sum()),
            "background_mae": float(np.abs(L - B)[~M].mean()), "rank": int(res.final("rank").iloc[0]),
            "L": L, "S": S, "X": X, "mask": M, "result": res}


def completion_table(n: int = 40, s: int = 40, rank: int = 2, fractions=(0.2, 0.3, 0.4, 0.5, 0.6, 0.8),
                     iters: int = 1000, seeds=(0, 1, 2), gamma=None) -> pd.DataFrame:
    """Relative error ‖L − X‖_F/‖X‖_F of Algorithm 11 against the fraction of observed entries.

    Parameters
    ----------
    n, s : int, default 40, 40
        Shape.
    rank : int, default 2
        Rank.
    fractions : sequence of float
        Fractions of observed entries (each entry kept independently).
    iters : int, default 1000
        Iterations.
    seeds : sequence of int, default (0, 1, 2)
        One matrix and mask per seed.
    gamma : float or None, default None
        γ (None: 5·√(ns)·rms of the observed entries).
    """
    rows = []
    for seed in seeds:
        X = low_rank(n, s, rank, 1, seed)[0]
        u = np.random.default_rng(10_000 + seed).random(X.shape)
        for p in fractions:
            mask = u < p
            L, res = complete_matrix(np.where(mask, X, np.nan), gamma=gamma, iters=iters, reference=False,
                                     checkpoints=[iters])
            rows.append({"fraction": p, "seed": seed, "rel_error": float(np.linalg.norm(L - X) / np.linalg.norm(X)),
                         "rank": int(res.final("rank").iloc[0]), "residual": float(res.final("residual").iloc[0])})
    return pd.DataFrame(rows)
