"""Adaptive adversaries: they read the learner's current mixed strategy Ŵ_t (never its sampled action).

``top-direction`` puts a unit PSD loss x xᵀ on the eigenvector of Ŵ_t with the largest
weight (optionally blurred by Gaussian noise): whatever the learner trusts most is what
costs it.  One instance per learner, seeded alike.

>>> TopDirection(d=3).adaptive
True
"""
from __future__ import annotations

import numpy as np

from onlinelab import errors
from onlinelab.core import validation as v
from onlinelab.core.base import Environment
from onlinelab.core.protocol import EigenPlay
from onlinelab.core.registry import register_environment
from onlinelab.losses.matrix import FactoredLoss


@register_environment("top-direction")
class TopDirection(Environment):
    """Adaptive: unit loss x xᵀ on the learner's heaviest eigen-direction (plus optional noise).

    Parameters
    ----------
    d : int, default 8
        Dimension of the losses (≥ 2).

    noise : float, default 0.1
        Standard deviation of the Gaussian blur added to the learner's top eigenvector.
    """

    adaptive = True
    psd = True
    loss_bound = 1.0
    history_window = 0  # needs only the current mixed strategy, so keep no past rounds

    def __init__(self, d: int = 8, noise: float = 0.1):
        super().__init__(d=d)
        self.noise = v.real("noise", noise)
        if self.noise < 0:
            raise errors.ConfigError(f"noise must be >= 0, got {noise!r}")

    def emit(self, t, history):
        mixed = history.mixed
        if isinstance(mixed, EigenPlay):
            x = mixed.top_vector()
        else:
            _, vecs = np.linalg.eigh(np.asarray(mixed))
            x = vecs[:, :, -1]
        x = x + self.noise * self.rng.normal(self.d)
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        return FactoredLoss(x, coef=1.0)
