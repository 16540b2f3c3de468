"""Prediction with expert advice on the simplex: linear losses ⟨ℓ_t, p⟩ with ℓ_t ∈ [0, 1]ⁿ
(theory §3.1, docs/theory/03-oco-fenchel.md).

* ``experts-stochastic`` — i.i.d. Bernoulli losses; expert 0 has mean ½ − gap, the others ½.
* ``experts-adversarial`` — oblivious but hostile to leaders: uniform losses in which the
  favoured expert (mean ¼) changes every ``block`` rounds, cycling through the experts,
  so the best expert in hindsight shifts and FTL keeps chasing it.

Both declare ``domain = "simplex"`` and ``loss_bound = 1`` (‖ℓ_t‖∞ ≤ 1, checked every round).

>>> ExpertsStochastic(d=4).domain
'simplex'
"""
from __future__ import annotations

import numpy as np

from onlinelab import errors
from onlinelab.core import validation as v
from onlinelab.core.base import Environment
from onlinelab.core.registry import register_environment
from onlinelab.geometry.domains import Simplex
from onlinelab.losses.vector import LinearLoss


class _Experts(Environment):
    psd = None
    loss_bound = 1.0
    domain = "simplex"

    def reset(self, rng, T):
        super().reset(rng, T)
        self._simplex = Simplex(self.d)


@register_environment("experts-stochastic")
class ExpertsStochastic(_Experts):
    """I.i.d. Bernoulli expert losses; expert 0 is better by ``gap``.

    Parameters
    ----------
    d : int, default 10
        Number of experts.
    gap : float, default 0.1
        Expert 0's advantage: its mean loss is ½ − gap, the others' ½ (0 ≤ gap ≤ ½).
    """

    def __init__(self, d: int = 10, gap: float = 0.1):
        super().__init__(d=d)
        self.gap = v.unit_interval("gap", gap)
        if self.gap > 0.5:
            raise errors.ConfigError(f"gap must be ≤ 0.5 (means stay in [0, 1]), got {gap!r}")

    def emit(self, t, history):
        means = np.full(self.d, 0.5)
        means[0] -= self.gap
        return LinearLoss((self.rng.random(self.d) < means).astype(float), self._simplex)


@register_environment("experts-adversarial")
class ExpertsAdversarial(_Experts):
    """Uniform losses; the favoured expert (mean ¼) moves to the next one every ``block`` rounds.

    Parameters
    ----------
    d : int, default 10
        Number of experts.
    block : int, default 25
        Rounds before the favoured expert (mean loss ¼) moves to the next one.
    """

    def __init__(self, d: int = 10, block: int = 25):
        super().__init__(d=d)
        self.block = v.integer("block", block, minimum=1)

    def emit(self, t, history):
        loss = self.rng.random(self.d)
        good = ((t - 1) // self.block) % self.d
        loss[:, good] *= 0.5
        return LinearLoss(loss, self._simplex)
