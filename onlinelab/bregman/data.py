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
from onlinelab.core.sizes import FLOPS_PER_S, Estimate, check_array, check_estimate
from onlinelab.errors import ConfigError

#: n × s arrays a robust-PCA or completion solve keeps per instance (data, iterates, momentum, reference), for
#: the memory check of `low_rank` (onlinelab.core.sizes)
SOLVER_COPIES = 12


def _rngs(seed: int, R: int):
    return [np.random.default_rng(s) for s in np.random.SeedSequence(v.integer("seed", seed, minimum=0)).spawn(R)]


def check_instance(n, s, rank, replicates, *, prefix: str = "", replicates_field: str = "replicates",
                   iters: int | None = None) -> tuple:
    """``(n, s, rank, replicates)`` checked: whole numbers, a rank the n × s matrix can have, memory for the
    solve (`SOLVER_COPIES` arrays of n × s per instance, `onlinelab.core.sizes.check_array`) and, given
    ``iters``, its time (one SVD-sized 10·n·s·min(n, s) flops per iteration and instance).

    Parameters
    ----------
    n, s, rank, replicates : int
        The instance's shape, rank and count.
    prefix : str, default ""
        Prepended to the field names in messages (``"bregman."`` for a config's table).
    replicates_field : str, default "replicates"
        The name of the replicate count in messages (``"run.replicates"`` in a config).
    iters : int or None, default None
        Iterations of the solve (``run.rounds``), for the time estimate.

    >>> check_instance(10, 8, 50, 1)
    Traceback (most recent call last):
    ...
    onlinelab.errors.ConfigError: rank = 50 is larger than the matrix: an n × s = 10 × 8 matrix has rank at most 8; \
pick rank <= 8 or a larger n and s
    """
    n, s = v.integer(prefix + "n", n, minimum=1), v.integer(prefix + "s", s, minimum=1)
    r = v.integer(prefix + "rank", rank, minimum=1)
    if r > min(n, s):
        raise ConfigError(f"{prefix}rank = {r} is larger than the matrix: an n × s = {n} × {s} matrix has rank at "
                          f"most {min(n, s)}; pick {prefix}rank <= {min(n, s)} or a larger n and s")
    R = v.integer(replicates_field, replicates, minimum=1)
    check_array(f"{replicates_field} × {prefix}n × {prefix}s", (R, n, s), copies=SOLVER_COPIES,
                fix=f"lower {prefix}n, {prefix}s or {replicates_field}")
    if iters is not None:
        seconds = float(iters) * R * 10.0 * n * s * min(n, s) / FLOPS_PER_S
        check_estimate(Estimate(0.0, seconds), sizes=f"{prefix}n × {prefix}s = {n} × {s}, {replicates_field} = {R}, "
                       f"{iters} iterations", fix=f"lower {prefix}n, {prefix}s, {replicates_field} or the iterations")
    return n, s, r, R


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
    n, s, r, R = check_instance(n, s, rank, replicates)
    out = []
    for g in _rngs(seed, R):
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
