"""Data sets of the spectral experiments, generated or bundled with scikit-learn (nothing downloads).

`helix` is the paper's helix (theory §7): θ ~ U[1.5π, 4.5π], h ~ U[0, 10],
x = (θ cos θ, θ sin θ, h) — a Swiss roll whose latent coordinate θ colours the figures and
scores the unrolling.

>>> X, theta = helix(5, random_state=0)
>>> X.shape, bool(np.allclose(np.hypot(X[:, 0], X[:, 1]), theta))
((5, 3), True)
"""
from __future__ import annotations

import numpy as np

from onlinelab.core import validation as v
from onlinelab.errors import ConfigError

DATASETS = ("helix", "digits")


def helix(m: int = 2000, noise: float = 0.0, random_state=None, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The paper's helix (a Swiss roll): points ``(m, 3)`` and their latent angle θ ``(m,)``.

    Parameters
    ----------
    m : int, default 2000
        Number of points.
    noise : float, default 0.0
        Standard deviation of Gaussian noise added to every coordinate.
    random_state : int or numpy.random.Generator, optional
        Seed.
    scale : float, default 1.0
        Multiplies the coordinates (the units of the data; VRLE's radii depend on them).
    """
    m = v.integer("m", m, minimum=2)
    rng = np.random.default_rng(random_state)
    theta = rng.uniform(1.5 * np.pi, 4.5 * np.pi, m)
    h = rng.uniform(0.0, 10.0, m)
    X = np.column_stack([theta * np.cos(theta), theta * np.sin(theta), h])
    if noise:
        X = X + rng.normal(0.0, v.positive_float("noise", noise), X.shape)
    return scale * X, theta


def load_dataset(name: str, m: int | None = None, random_state=None) -> tuple[np.ndarray, np.ndarray]:
    """Points and a colour/latent variable: ``"helix"`` (θ) or scikit-learn's bundled ``"digits"`` (the digit).

    Parameters
    ----------
    name : {"helix", "digits"}
        Data set.
    m : int, optional
        Number of points (helix default 2000; digits: the first m of 1797, default all).
    random_state : int, optional
        Seed of the helix draw.
    """
    v.choice("dataset", name, DATASETS)
    if name == "helix":
        return helix(2000 if m is None else m, random_state=random_state)
    from sklearn.datasets import load_digits
    X, y = load_digits(return_X_y=True)
    if m is not None:
        m = v.integer("m", m, minimum=2)
        if m > X.shape[0]:
            raise ConfigError(f"digits has {X.shape[0]} points, asked for m = {m}; use m <= {X.shape[0]}")
        X, y = X[:m], y[:m]
    return X.astype(float), y.astype(float)
