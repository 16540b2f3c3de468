"""Test problems for robust PCA and matrix completion: random low-rank + sparse matrices
and a synthetic video (theory §6).

* `low_rank_plus_sparse` — L₀ = UVᵀ/√r with Gaussian factors (unit-variance entries) plus
  outliers ±``size`` on a random ``outliers`` fraction of entries; R independent instances stacked.
* `low_rank` — the same without outliers (for completion).
* `synthetic_video` — no image sequence ships with an installed package here (scikit-image
  is not a dependency, scipy's data sets download), so the video is *composed* from the two
  photographs bundled with scikit-learn: frames of the grey ``china.jpg`` (the static background,
  with a slow global brightness drift, so rank ≈ 1) over which a patch of ``flower.jpg`` slides
  (the sparse foreground).  Frames are the columns of X (pixels × frames); the true foreground
  mask comes with it.

>>> X, L0, S0 = low_rank_plus_sparse(20, 10, rank=2, outliers=0.1, replicates=2)
>>> X.shape, int(np.linalg.matrix_rank(L0[0]))
((2, 20, 10), 2)
"""
from __future__ import annotations

import numpy as np

from onlinelab.core import validation as v


def _rngs(seed: int, R: int):
    return [np.random.default_rng(s) for s in np.random.SeedSequence(v.integer("seed", seed, minimum=0)).spawn(R)]


def low_rank(n: int, s: int, rank: int, replicates: int = 1, seed: int = 0) -> np.ndarray:
    """R matrices UVᵀ/√r, U (n×r) and V (s×r) standard Gaussian: unit-variance entries, rank r.

    Parameters
    ----------
    n, s : int
        Shape.
    rank : int
        Rank r.
    replicates : int, default 1
        How many independent instances (the leading axis).
    seed : int, default 0
        Root seed (one spawned stream per instance).
    """
    n, s = v.integer("n", n, minimum=1), v.integer("s", s, minimum=1)
    r = v.integer("rank", rank, minimum=1)
    out = []
    for g in _rngs(seed, v.integer("replicates", replicates, minimum=1)):
        out.append(g.normal(size=(n, r)) @ g.normal(size=(r, s)) / np.sqrt(r))
    return np.stack(out)


def low_rank_plus_sparse(n: int, s: int, rank: int = 3, outliers: float = 0.05, size: float = 10.0,
                         replicates: int = 1, seed: int = 0):
    """(X, L₀, S₀), each (R, n, s): X = L₀ + S₀, S₀ = ±``size`` on a random ``outliers`` fraction of entries.

    Parameters
    ----------
    n, s : int
        Shape.
    rank : int, default 3
        Rank of L₀.
    outliers : float, default 0.05
        Fraction of corrupted entries.
    size : float, default 10.0
        Outlier magnitude (entries of L₀ have unit variance).
    replicates : int, default 1
        Independent instances.
    seed : int, default 0
        Root seed.
    """
    L0 = low_rank(n, s, rank, replicates, seed)
    frac = v.unit_interval("outliers", outliers)
    size = v.positive_float("size", size)
    S0 = np.zeros_like(L0)
    for r, g in enumerate(_rngs(seed + 1, L0.shape[0])):
        hit = g.random((n, s)) < frac
        S0[r][hit] = size * g.choice([-1.0, 1.0], size=int(hit.sum()))
    return L0 + S0, L0, S0


def synthetic_video(frames: int = 40, height: int = 48, width: int = 64, patch: int = 12):
    """(X, background, mask): a video composed from scikit-learn's bundled photographs (see the module docstring).

    X is (height·width, frames) with intensities in [0, 1]; ``background`` the same shape (the grey
    china.jpg with a brightness drift of ±5 %); ``mask`` (bool, same shape) marks the moving patch.

    Parameters
    ----------
    frames : int, default 40
        Number of frames.
    height, width : int, default 48, 64
        Frame size (the photographs are block-averaged down to it).
    patch : int, default 12
        Side of the moving square cut from flower.jpg.
    """
    from sklearn.datasets import load_sample_image

    def grey(name):
        im = load_sample_image(name).astype(float).mean(axis=2) / 255.0
        bh, bw = im.shape[0] // height, im.shape[1] // width
        return im[: bh * height, : bw * width].reshape(height, bh, width, bw).mean(axis=(1, 3))

    F = v.integer("frames", frames, minimum=2)
    bg, fg = grey("china.jpg"), grey("flower.jpg")
    p = v.integer("patch", patch, minimum=1)
    square = fg[height // 2 - p // 2: height // 2 - p // 2 + p, width // 2 - p // 2: width // 2 - p // 2 + p]
    X, B, M = (np.empty((height * width, F)) for _ in range(3))
    for f in range(F):
        b = bg * (1.0 + 0.05 * np.sin(2 * np.pi * f / F))
        frame, m = b.copy(), np.zeros((height, width), dtype=bool)
        top = int(round((height - p) * (0.5 + 0.4 * np.sin(2 * np.pi * f / F))))
        left = int(round((width - p) * f / (F - 1)))
        frame[top: top + p, left: left + p] = square
        m[top: top + p, left: left + p] = True
        X[:, f], B[:, f], M[:, f] = frame.ravel(), b.ravel(), m.ravel()
    return X, B, M.astype(bool)
