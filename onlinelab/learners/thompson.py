"""Thompson sampling for stochastic bandits: Beta–Bernoulli, and Gaussian with known variance (theory §10).

Each round draws one mean per arm from its posterior and plays the arm of the largest draw:

* ``family="bernoulli"`` — prior Beta(1, 1) on each arm's mean, posterior Beta(1 + S_i, 1 + F_i) after
  S_i successes and F_i failures.  A reward x ∈ [0, 1] counts as a success with probability x (a
  Bernoulli trial with a uniform of the learner's stream, the trick of Agrawal and Goyal 2012; a
  0/1 reward is its own trial).  The draw is G_a/(G_a + G_b) for independent Gamma(1 + S_i) and
  Gamma(1 + F_i) variates, each drawn by Marsaglia and Tsang's exact rejection method
  (`standard_gamma`) from one normal and one uniform of the replicate's own stream, vectorised
  over replicates and arms; the rare rejected draw is redrawn from that replicate's generator alone.
* ``family="gaussian"`` — rewards N(μ_i, σ²) with σ known, a flat prior: the posterior of μ_i is
  N(μ̂_i, σ²/N_i); each arm is pulled once first.

A replicate's draws depend on its own data only (the Gaussian family and the first try of every Gamma
variate take the same numbers each round), so they never depend on another replicate's, and a block
played whole draws exactly what round by round draws.  The play's ``mixed`` is the one-hot vector
of the played arm (the probability that each arm's draw is largest has no closed form).

>>> import onlinelab as ol
>>> res = ol.simulate("bernoulli-arms", [ThompsonSampling()], T=200, replicates=2, seed=0)
>>> res.learners
['thompson']
"""
from __future__ import annotations

import numpy as np

from onlinelab.bounds.bandits import asymptotic_rate
from onlinelab.core.registry import register_learner
from onlinelab.kernels.stochastic_sampling import thompson_bernoulli_block
from onlinelab.learners.index_bandits import check_family, index_compiled
from onlinelab.learners.stochastic_base import StochasticBandit, add_reward, play_compiled, safe_counts, unplayed_first
from onlinelab.learners.stochastic_draws import pool_size, pooled_gamma


@register_learner("thompson")
class ThompsonSampling(StochasticBandit):
    """Thompson sampling: Beta(1, 1) priors on Bernoulli arms, or a flat prior on Gaussian arms of known σ.

    Parameters
    ----------
    family : {"bernoulli", "gaussian"}
        The reward model: Bernoulli (rewards in [0, 1], Beta posteriors) or Gaussian of known σ.
    sigma : float
        σ of the Gaussian model (ignored for Bernoulli), > 0.
    """

    def __init__(self, family: str = "bernoulli", sigma: float = 1.0):
        self.family, self.sigma = check_family(family, sigma, "thompson")

    def instance_bounds(self, instance, ctx) -> list:
        """The asymptotic rate of Agrawal and Goyal / Kaufmann et al. when the model is the arms' (a reference)."""
        same = instance.family == self.family and (self.family == "bernoulli" or instance.sigma == self.sigma)
        src = "Thompson sampling, Agrawal and Goyal (2013) Thm 1; Kaufmann, Korda and Munos (2012)"
        return [asymptotic_rate("thompson", src, instance, ctx)] if same else []

    def posterior(self, state) -> tuple[np.ndarray, np.ndarray]:
        """The posterior's parameters per replicate and arm, (R, K) each: Beta (1 + S, 1 + F) for Bernoulli,
        the Gaussian's mean and standard deviation (NaN and inf for an arm never pulled) otherwise.

        Parameters
        ----------
        state : ArmStats
            The learner's state.
        """
        if self.family == "bernoulli":
            return 1.0 + state.S, 1.0 + state.N - state.S
        with np.errstate(divide="ignore", invalid="ignore"):
            return state.S / state.N, self.sigma / np.sqrt(state.N)

    def _choose(self, state, rng):
        K = state.N.shape[1]
        if self.family == "bernoulli":
            width = 2 * K + pool_size(2 * K)
            z, u = rng.normal(width), rng.random(width)
            g = pooled_gamma(np.concatenate([1.0 + state.S, 1.0 + state.N - state.S], axis=1), z, u)
            draw = g[:, :K] / (g[:, :K] + g[:, K:])              # Beta(1 + S, 1 + F)
            return draw.argmax(axis=1), None
        N = safe_counts(state.N)
        draw = state.S / N + (self.sigma / np.sqrt(N)) * rng.normal(K)
        return unplayed_first(draw, state.N).argmax(axis=1), None

    def _observe(self, state, arm, x, rng):
        if self.family == "bernoulli":
            x = (rng.random() < x).astype(float)     # the Bernoulli trial: 1 with probability x
        return add_reward(state, arm, x)

    def _compiled_block(self, state, losses, rng):
        K = state.N.shape[1]
        if self.family == "gaussian":
            return index_compiled(5, state, losses, np.zeros((1, 1)), a=self.sigma, rng=rng)
        width = 2 * K + pool_size(2 * K)
        return play_compiled(thompson_bernoulli_block, state, losses, rng,
                             [("normal", width), ("random", width), ("random", 1)],
                             lambda draws, plays, realized: (state.N, state.S, draws[0], draws[1], draws[2][:, :, 0],
                                                             losses, plays, realized))
