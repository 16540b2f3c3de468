"""Thompson sampling for stochastic bandits: Beta–Bernoulli, and Gaussian with known variance (theory §10).

Each round draws one mean per arm from its posterior and plays the arm of the largest draw:

* ``family="bernoulli"`` — prior Beta(1, 1) on each arm's mean, posterior Beta(1 + S_i, 1 + F_i) after
  S_i successes and F_i failures.  A reward x ∈ [0, 1] counts as a success with probability x (a
  Bernoulli trial with a uniform of the learner's stream, the trick of Agrawal and Goyal 2012; a
  0/1 reward is its own trial).  The draw is G_a/(G_a + G_b) for independent Gamma(1 + S_i) and
  Gamma(1 + F_i) variates by Marsaglia and Tsang's rejection method, each round taking a fixed budget
  of 2K + P normals and uniforms of the replicate's own stream: every variate's own pair, then a
  shared pool for the rejected ones (`onlinelab.learners.stochastic_draws.pooled_gamma`), so a
  compiled block (`onlinelab.kernels.stochastic_sampling`) can be handed the same numbers.
* ``d-thompson`` (`DiscountedThompson`) — the same draws on counts discounted by γ each round.
* ``family="gaussian"`` — rewards N(μ_i, σ²) with σ known, a flat prior: the posterior of μ_i is
  N(μ̂_i, σ²/N_i); each arm is pulled once first.

Every round takes the same numbers from the replicate's own stream, so a replicate's draws never depend on
another replicate's, and a block played whole (by the kernel or the numpy loop) draws exactly what round by
round draws.  The play's ``mixed`` is the one-hot vector
of the played arm (the probability that each arm's draw is largest has no closed form).

>>> import onlinelab as ol
>>> res = ol.simulate("bernoulli-arms", [ThompsonSampling()], T=200, replicates=2, seed=0)
>>> res.learners
['thompson']
"""
from __future__ import annotations

import numpy as np

from onlinelab.bounds.bandits import asymptotic_rate
from onlinelab.core import validation as v
from onlinelab.core.registry import register_learner
from onlinelab.errors import ConfigError
from onlinelab.kernels.stochastic_sampling import thompson_bernoulli_block
from onlinelab.learners.changing_bandits import DiscountState
from onlinelab.learners.index_bandits import check_family, index_compiled
from onlinelab.learners.stochastic_base import (
    StochasticBandit,
    add_reward,
    fresh_stats,
    play_compiled,
    safe_counts,
    unplayed_first,
)
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
        gamma = float(getattr(state, "gamma", 1.0))
        return play_compiled(thompson_bernoulli_block, state, losses, rng,
                             [("normal", width), ("random", width), ("random", 1)],
                             lambda draws, plays, realized: (state.N, state.S, draws[0], _logs(draws[1]),
                                                             draws[2][:, :, 0], losses, plays, realized, gamma))


def _logs(u: np.ndarray) -> np.ndarray:
    """np.log of the block's uniforms, as the numpy path takes them (a uniform of 0 gives −inf, which accepts its
    candidate when v > 0, on both paths)."""
    with np.errstate(divide="ignore"):
        return np.log(u)


@register_learner("d-thompson")
class DiscountedThompson(ThompsonSampling):
    """Discounted Thompson sampling for changing Bernoulli arms (Raj and Kalyani 2017): Beta(1 + S_γ, 1 + F_γ).

    Every round all arms' success and failure counts are multiplied by γ before the new reward's Bernoulli
    trial is added to the pulled arm's, so a reward observed s rounds ago weighs γ^s and the posterior
    forgets a change of the best arm.  The draws are Thompson sampling's (shapes ≥ 1, so the same
    Marsaglia–Tsang variates); γ = 1 is Thompson sampling.  No regret bound is drawn for it.

    Parameters
    ----------
    discount : float
        γ in (0, 1]; rewards older than about 1/(1 − γ) rounds count little.  The default 0.99 is a choice,
        not a tuning from theory.

    Examples
    --------
    >>> import onlinelab as ol
    >>> ol.simulate("piecewise-arms", [DiscountedThompson(discount=0.95)], T=200, replicates=2, seed=0).learners
    ['d-thompson(discount=0.95)']
    """

    reference_environment = "piecewise-arms"

    def __init__(self, discount: float = 0.99):
        discount = v.real("discount", discount)
        if not 0.0 < discount <= 1.0:
            raise ConfigError(f"discount must lie in (0, 1] (the weight γ of a reward one round older), got "
                              f"{discount!r}; e.g. discount = 0.99")
        self.discount = discount
        self.family, self.sigma = "bernoulli", 1.0

    def instance_bounds(self, instance, ctx) -> list:
        return []

    def _fresh(self, ctx, R, K):
        return DiscountState(*fresh_stats(R, K), self.discount)

    _compiled_block = ThompsonSampling._compiled_block      # its kernel discounts (this class's own entry)

    def _observe(self, state, arm, x, rng):
        x = (rng.random() < x).astype(float)         # the Bernoulli trial, as Thompson sampling draws it
        if state.gamma != 1.0:
            state.N[...] *= state.gamma
            state.S[...] *= state.gamma
        return add_reward(state, arm, x)
