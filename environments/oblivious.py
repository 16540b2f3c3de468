"""Oblivious adversarial sequences: fixed before the game, whatever the learner does.

* ``switching`` — PSD losses x xᵀ whose direction x (a noisy coordinate axis) moves to the
  next axis every ``block`` rounds, so the best direction in hindsight is only visible late.
* ``ftl-alternating`` — the sequence that breaks follow-the-leader (theory §2, docs/theory/02-online-pca.md):
  L₁ = diag(½, 0), then diag(0, 1), diag(1, 0), … (in the first two coordinates);
  FTL's regret is ≈ T/2 (500 at T = 1000), FTL+'s −499.5.

>>> import numpy as np
>>> from onlinelab.core.rng import BatchRNG
>>> env = FTLAlternating(d=2); env.reset(BatchRNG.from_seed(0, "environment", "x", 1), 3)
>>> env.emit(2, None).dense()[0]
array([[0., 0.],
       [0., 1.]])
"""
from __future__ import annotations

import numpy as np

from onlinelab import errors
from onlinelab.core import validation as v
from onlinelab.core.base import Environment
from onlinelab.core.registry import register_environment
from onlinelab.losses.matrix import DenseLoss, FactoredLoss


@register_environment("switching")
class Switching(Environment):
    """Oblivious PSD losses x xᵀ on a noisy coordinate axis that switches every ``block`` rounds.

    Parameters
    ----------
    d : int, default 8
        Dimension of the losses (≥ 2).

    block : int, default 50
        Rounds between switches of the targeted axis.
    noise : float, default 0.3
        Standard deviation of the Gaussian blur added to the axis before normalising.
    """

    psd = True
    loss_bound = 1.0

    def __init__(self, d: int = 8, block: int = 50, noise: float = 0.3):
        super().__init__(d=d)
        self.block = v.integer("block", block, minimum=1)
        self.noise = v.real("noise", noise)
        if self.noise < 0:
            raise errors.ConfigError(f"noise must be >= 0, got {noise!r}")

    def emit(self, t, history):
        axis = ((t - 1) // self.block) % (self.d - 1)  # the last axis is never targeted
        x = self.noise * self.rng.normal(self.d)
        x[:, axis] += 1.0
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        return FactoredLoss(x, coef=1.0)


@register_environment("ftl-alternating")
class FTLAlternating(Environment):
    """The FTL-breaking sequence diag(½,0), diag(0,1), diag(1,0), … in the first two coordinates.

    Parameters
    ----------
    d : int, default 2
        Dimension of the losses (≥ 2). The sequence lives in the first two coordinates.
    """

    psd = True
    loss_bound = 1.0

    def __init__(self, d: int = 2):
        super().__init__(d=d)

    def emit(self, t, history):
        L = np.zeros((self.d, self.d))
        if t == 1:
            L[0, 0] = 0.5
        elif t % 2 == 0:
            L[1, 1] = 1.0
        else:
            L[0, 0] = 1.0
        return DenseLoss(np.broadcast_to(L, (self.replicates, self.d, self.d)))
