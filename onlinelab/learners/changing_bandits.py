"""Index policies for arms whose means change: sliding-window UCB and discounted UCB (theory §10).

Garivier and Moulines (2011) forget old rewards so that the index follows a change of the best arm:

* ``sw-ucb`` — the statistics of the last τ rewards only: N_i(τ) pulls of arm i among them,
  X̄_i(τ) their mean, index X̄_i(τ) + B√(ξ ln(min(n, τ))/N_i(τ)) (n the rewards observed so far);
* ``d-ucb``  — every reward weighted by γ^age: N_i(γ) = Σ γ^{n−s} 1{I_s = i}, X̄_i(γ) the weighted mean,
  index X̄_i(γ) + 2B√(ξ ln n(γ)/N_i(γ)), n(γ) = Σ_i N_i(γ).

B bounds the rewards (1 for rewards in [0, 1]) and ξ > 1/2 in their analysis (0.6 by default, their
experiments' value).  An arm with no reward in the window (N = 0) has index +inf.  The tuned defaults
are theirs for one change point: τ = 2B√(T ln T), γ = 1 − 1/(4B√T).  With Υ change points and the
tuning for Υ, both have regret O(√(Υ T) ln T) — a rate, drawn as a reference, not a checked bound.

Under delayed feedback "the last τ rewards" are the last τ to arrive.

>>> import onlinelab as ol
>>> res = ol.simulate("piecewise-arms", [SlidingWindowUCB(window=200), DiscountedUCB(discount=0.99)],
...                   T=400, replicates=2, seed=0)
>>> res.learners
['sw-ucb(window=200)', 'd-ucb(discount=0.99)']
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from onlinelab.bounds.bandits import changing_rate
from onlinelab.core import validation as v
from onlinelab.core.registry import register_learner
from onlinelab.errors import ConfigError
from onlinelab.learners.index_bandits import index_compiled
from onlinelab.learners.stochastic_base import (
    StochasticBandit,
    add_reward,
    fresh_stats,
    rounds_ahead,
    safe_counts,
    unplayed_first,
)


def _xi_and_scale(xi, scale, name) -> tuple[float, float]:
    xi = v.real("xi", xi)
    if xi <= 0:
        raise ConfigError(f"xi must be > 0 (the exploration weight of {name}; Garivier and Moulines take xi > 1/2), "
                          f"got {xi!r}; e.g. xi = 0.6")
    scale = v.real("scale", scale)
    if scale <= 0:
        raise ConfigError(f"scale must be > 0 (B, a bound on the rewards: 1 for rewards in [0, 1]), got {scale!r}; "
                          "e.g. scale = 1.0")
    return xi, scale


class _Forgetting(StochasticBandit):
    def instance_bounds(self, instance, ctx) -> list:
        """Garivier and Moulines' O(√(Υ T) ln T) on piecewise-stationary arms (a reference curve)."""
        return [] if instance.stationary else [changing_rate(self.name, instance, ctx)]


class WindowState(NamedTuple):
    """Window counts ``N``, ``S`` (R, K), rewards observed ``n`` (R, 1), the last τ arms (R, τ; −1: empty) and
    rewards (R, τ), and ``pos`` (1,): the slot the next reward overwrites."""

    N: np.ndarray
    S: np.ndarray
    n: np.ndarray
    arms: np.ndarray
    rewards: np.ndarray
    pos: np.ndarray


@register_learner("sw-ucb")
class SlidingWindowUCB(_Forgetting):
    """Sliding-window UCB (Garivier and Moulines 2011): UCB on the last τ rewards.

    Parameters
    ----------
    window : int or None
        τ ≥ 1, the number of most recent rewards kept; None takes 2B√(T ln T) (their tuning for one change).
    xi : float
        ξ > 0 in the exploration bonus B√(ξ ln min(n, τ)/N_i(τ)).
    scale : float
        B > 0, a bound on the rewards.
    """

    def __init__(self, window: int | None = None, xi: float = 0.6, scale: float = 1.0):
        if window is not None:
            window = v.integer("window", window)
            if window < 1:
                raise ConfigError(f"window must be >= 1 (sw-ucb keeps the last `window` rewards), got {window!r}; "
                                  "e.g. window = 1000, or None for 2·√(T ln T)")
        self.window = window
        self.xi, self.scale = _xi_and_scale(xi, scale, "sw-ucb")

    def resolved_params(self, ctx) -> dict:
        T = max(ctx.T, 2)
        tau = self.window if self.window is not None else int(np.ceil(2 * self.scale * np.sqrt(T * np.log(T))))
        return {"window": int(tau), "xi": self.xi, "scale": self.scale}

    def _fresh(self, ctx, R, K):
        tau = self.resolved_params(ctx)["window"]
        return WindowState(*fresh_stats(R, K), np.full((R, tau), -1), np.zeros((R, tau)), np.zeros(1, dtype=int))

    def _choose(self, state, rng):
        N, tau = safe_counts(state.N), state.arms.shape[1]
        bonus = self.scale * np.sqrt(self.xi * np.log(np.clip(state.n, 1.0, tau)) / N)
        return unplayed_first(state.S / N + bonus, state.N).argmax(axis=1), None

    def _observe(self, state, arm, x, rng):
        j = int(state.pos[0])
        old = state.arms[:, j]
        if old[0] >= 0:                      # the window is full (all replicates fill it together): drop its oldest
            rows = np.arange(old.shape[0])
            state.N[rows, old] -= 1.0
            state.S[rows, old] -= state.rewards[:, j]
        state.arms[:, j], state.rewards[:, j] = arm, x
        state.pos[0] = (j + 1) % state.arms.shape[1]
        return add_reward(state, arm, x)

    def _compiled_block(self, state, losses, rng):
        m, tau, pos = losses.shape[0], state.arms.shape[1], int(state.pos[0])
        pre = np.log(np.clip(rounds_ahead(state.n, m), 1.0, tau))
        out = index_compiled(3, state, losses, pre, a=self.scale, b=self.xi, window=(state.arms, state.rewards, pos))
        if out is not None:
            state.pos[0] = (pos + m) % tau
        return out


@register_learner("d-ucb")
class DiscountedUCB(_Forgetting):
    """Discounted UCB (Garivier and Moulines 2011): UCB on rewards weighted by γ^age.

    Parameters
    ----------
    discount : float or None
        γ in (0, 1]; 1 forgets nothing.  None takes 1 − 1/(4B√T) (their tuning for one change).
    xi : float
        ξ > 0 in the exploration bonus 2B√(ξ ln n(γ)/N_i(γ)).
    scale : float
        B > 0, a bound on the rewards.
    """

    def __init__(self, discount: float | None = None, xi: float = 0.6, scale: float = 1.0):
        if discount is not None:
            discount = v.real("discount", discount)
            if not 0.0 < discount <= 1.0:
                raise ConfigError(f"discount must lie in (0, 1] (the weight γ of a reward one round older), got "
                                  f"{discount!r}; e.g. discount = 0.99, or None for 1 − 1/(4·√T)")
        self.discount = discount
        self.xi, self.scale = _xi_and_scale(xi, scale, "d-ucb")

    def resolved_params(self, ctx) -> dict:
        gamma = self.discount if self.discount is not None else 1.0 - 1.0 / (4 * self.scale * np.sqrt(max(ctx.T, 1)))
        return {"discount": float(gamma), "xi": self.xi, "scale": self.scale}

    def _fresh(self, ctx, R, K):
        return DiscountState(*fresh_stats(R, K), self.resolved_params(ctx)["discount"])

    def _choose(self, state, rng):
        N = safe_counts(state.N)
        total = np.maximum(np.add.accumulate(state.N, axis=1)[:, -1:], 1.0)     # Σ_i N_i, left to right
        bonus = 2 * self.scale * np.sqrt(self.xi * np.log(total) / N)
        return unplayed_first(state.S / N + bonus, state.N).argmax(axis=1), None

    def _observe(self, state, arm, x, rng):
        if state.gamma != 1.0:
            state.N[...] *= state.gamma
            state.S[...] *= state.gamma
        return add_reward(state, arm, x)

    def _compiled_block(self, state, losses, rng):
        return index_compiled(4, state, losses, np.zeros((1, 1)), a=2 * self.scale, b=self.xi, gamma=state.gamma)


class DiscountState(NamedTuple):
    """Discounted counts ``N``, sums ``S`` (R, K), rewards observed ``n`` (R, 1) and the discount γ."""

    N: np.ndarray
    S: np.ndarray
    n: np.ndarray
    gamma: float
