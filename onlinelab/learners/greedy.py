"""ε-greedy with a decaying schedule, ε_t = min(1, cK/(d²t)) (Auer, Cesa-Bianchi and Fischer 2002; theory §10).

In round t (t = rewards observed + 1) the policy plays the empirically best arm with probability
1 − ε_t and a uniformly random arm with probability ε_t: p_t = (1 − ε_t)·e_{greedy} + ε_t/K, and the
arm is drawn from p_t with one uniform of the learner's stream (`onlinelab.core.rng.BatchRNG.categorical`).
The empirically best arm is the largest μ̂_i, an arm never pulled counting as +inf (ties: the lowest).
Auer et al. take 0 < d ≤ min_{Δ_i > 0} Δ_i and c > 0; for c large enough (c > 5 in their Theorem 3)
the regret grows as ln T.  The defaults, c = 0.15 and d = 0.05 (the smallest gap of the classic 10 arms),
explore far less than the theorem's c > 5, which on those arms plays uniformly for the first 20 000 rounds.
The play's ``mixed`` is p_t, so the recorded regret is the conditional expectation over the draw.

>>> import onlinelab as ol
>>> res = ol.simulate("bernoulli-arms", [EpsilonGreedy(c=0.5)], T=200, replicates=2, seed=0)
>>> res.learners
['epsilon-greedy(c=0.5)']
"""
from __future__ import annotations

import numpy as np

from onlinelab.core import validation as v
from onlinelab.core.registry import register_learner
from onlinelab.core.rng import categorical_from
from onlinelab.errors import ConfigError
from onlinelab.kernels.stochastic_sampling import epsilon_greedy_block
from onlinelab.learners.stochastic_base import StochasticBandit, play_compiled, safe_counts, unplayed_first


@register_learner("epsilon-greedy")
class EpsilonGreedy(StochasticBandit):
    """ε-greedy with ε_t = min(1, cK/(d² t)).

    Parameters
    ----------
    c : float
        c > 0, the schedule's constant.
    d : float
        d in (0, 1], a lower bound on the smallest positive gap.
    """

    def __init__(self, c: float = 0.15, d: float = 0.05):
        self.c = v.real("c", c)
        if self.c <= 0:
            raise ConfigError(f"c must be > 0 (epsilon-greedy explores with probability min(1, cK/(d²t))), got "
                              f"{self.c!r}; e.g. c = 5")
        self.d = v.real("d", d)
        if not 0.0 < self.d <= 1.0:
            raise ConfigError(f"d must lie in (0, 1] (a lower bound on the smallest gap between arm means), got "
                              f"{self.d!r}; e.g. d = 0.1")

    def epsilon(self, t, K: int) -> np.ndarray:
        """ε_t = min(1, cK/(d² t)) for round(s) t ≥ 1.

        Parameters
        ----------
        t : array-like
            Rounds.
        K : int
            Arms.
        """
        return np.minimum(1.0, self.c * K / (self.d * self.d * np.asarray(t, dtype=float)))

    def _choose(self, state, rng):
        K = state.N.shape[1]
        greedy = unplayed_first(state.S / safe_counts(state.N), state.N).argmax(axis=1)
        eps = self.epsilon(state.n + 1.0, K)                        # (R, 1)
        p = np.broadcast_to(eps / K, state.N.shape).copy()
        p[np.arange(p.shape[0]), greedy] += 1.0 - eps[:, 0]
        return categorical_from(p, rng.random()), p

    def _compiled_block(self, state, losses, rng):
        return play_compiled(epsilon_greedy_block, state, losses, rng, [("random", 1)],
                             lambda draws, plays, realized: (state.N, state.S, state.n, draws[0], losses, plays,
                                                             realized, self.c, self.d))
