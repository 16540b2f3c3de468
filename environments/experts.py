"""Prediction with expert advice on the simplex: linear losses ⟨ℓ_t, p⟩ with ℓ_t ∈ [0, 1]ⁿ
(theory §3.1, docs/theory/03-oco-fenchel.md).

* ``experts-stochastic`` — i.i.d. Bernoulli losses; expert 0 has mean ½ − gap, the others ½.
* ``experts-adversarial`` — oblivious but hostile to leaders: uniform losses in which the
  favoured expert (mean ¼) changes every ``block`` rounds, cycling through the experts,
  so the best expert in hindsight shifts and FTL keeps chasing it.

Both declare ``domain = "simplex"`` and ``loss_bound = 1`` (‖ℓ_t‖∞ ≤ 1, checked every round), and both
emit blocks of rounds (`onlinelab.core.blocks`): the same losses as round by round, so Hedge and OMD
play a block in one call (in one compiled loop, `onlinelab.kernels.simplex`).

>>> ExpertsStochastic(d=4).domain
'simplex'
"""
from __future__ import annotations

import numpy as np

from onlinelab import errors
from onlinelab.core import validation as v
from onlinelab.core.base import Environment
from onlinelab.core.blocks import LossBlock, rounds_per_block
from onlinelab.core.registry import register_environment
from onlinelab.environments.arms import threshold_rows
from onlinelab.geometry.domains import Simplex
from onlinelab.losses.vector import LinearLoss


class _Experts(Environment):
    psd = None
    loss_bound = 1.0
    domain = "simplex"

    def reset(self, rng, T):
        super().reset(rng, T)
        self._simplex = Simplex(self.d)

    @property
    def block_rounds(self) -> int:
        """Rounds per emitted block: about 2 MB of losses (`onlinelab.core.blocks.rounds_per_block`)."""
        return rounds_per_block(getattr(self, "replicates", 1), self.d)

    def _uniform_rows(self, n: int) -> np.ndarray:
        """n rounds' uniforms, (n, R, d): what n calls of ``self.rng.random(self.d)`` return, in order."""
        return np.swapaxes(self.rng.random((n, self.d)), 0, 1)


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

    def _means(self) -> np.ndarray:
        means = np.full(self.d, 0.5)
        means[0] -= self.gap
        return means

    def emit(self, t, history):
        return LinearLoss((self.rng.random(self.d) < self._means()).astype(float), self._simplex)

    def emit_block(self, t, n):
        """n rounds at once (onlinelab.core.blocks): the same uniforms, in the same order, as n calls of `emit`."""
        out = np.empty((n, self.replicates, self.d))
        threshold_rows(self.rng.random((n, self.d)), self._means()[None], True, out, 0)
        return LossBlock.of_rows(LinearLoss, out, domain=self._simplex)


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

    def _good(self, t):
        """The favoured expert of round(s) t."""
        return ((np.asarray(t) - 1) // self.block) % self.d

    def emit(self, t, history):
        loss = self.rng.random(self.d)
        loss[:, self._good(t)] *= 0.5
        return LinearLoss(loss, self._simplex)

    def emit_block(self, t, n):
        """n rounds at once (onlinelab.core.blocks): the same uniforms, in the same order, as n calls of `emit`,
        each round's favoured expert halved alike."""
        rows = np.array(self._uniform_rows(n))
        rows[np.arange(n), :, self._good(np.arange(t, t + n))] *= 0.5
        return LossBlock.of_rows(LinearLoss, rows, domain=self._simplex)
