"""Index policies for stochastic bandits: UCB1, MOSS and KL-UCB (theory §10, docs/theory/10-stochastic-bandits.md).

Each plays, per replicate, the arm of largest index (ties: the lowest arm), after pulling every arm
once (an arm never observed has index +inf).  With N_i pulls of arm i, μ̂_i = S_i/N_i its mean reward
and n the rewards observed so far (n = t − 1 in round t without delays):

* ``ucb1``   — μ̂_i + √(2 ln n/N_i) (Auer, Cesa-Bianchi and Fischer 2002, "UCB1");
* ``moss``   — μ̂_i + √(max(ln(T/(K N_i)), 0)/N_i) (Audibert and Bubeck 2009); needs the horizon T;
* ``kl-ucb`` — max{q ≥ μ̂_i : N_i·kl(μ̂_i, q) ≤ f(n)} (Garivier and Cappé 2011), kl the relative entropy
  of Bernoulli rewards or of Gaussian rewards of known σ, f(n) = ln n + c·ln ln n by default (c = 0, as
  SMPyBandits' klUCB) or any increasing function given as ``exploration``.  The Bernoulli index is
  solved by `onlinelab.geometry.kl.kl_ucb_bernoulli` to 1e-10, the Gaussian one in closed form.

The play is deterministic given the state: ``mixed`` and ``action`` are the one-hot vector of the arm.

>>> import onlinelab as ol
>>> res = ol.simulate("bernoulli-arms", [UCB1(), KLUCB()], T=300, replicates=2, seed=0)
>>> res.learners
['ucb1', 'kl-ucb']
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from onlinelab.bounds import bandits as bb
from onlinelab.core import validation as v
from onlinelab.core.registry import register_learner
from onlinelab.errors import ConfigError
from onlinelab.geometry.kl import kl_ucb_bernoulli, kl_ucb_gaussian
from onlinelab.kernels.stochastic import index_block, klucb_block
from onlinelab.learners.stochastic_base import (
    StochasticBandit,
    fresh_stats,
    play_compiled,
    rounds_ahead,
    safe_counts,
    unplayed_first,
)

_NO_WINDOW = (np.full((1, 1), -1, dtype=np.int64), np.zeros((1, 1)), 0)
_NO_NORMALS = np.zeros((1, 1, 1))


def index_compiled(code: int, state, losses, pre, a=0.0, b=0.0, window=_NO_WINDOW, gamma=1.0, rng=None):
    """A block of the index policy ``code`` by `onlinelab.kernels.stochastic.index_block` (None: numpy path).

    Parameters
    ----------
    code : int
        The policy (0 UCB1, 1 MOSS, 2 Gaussian KL-UCB, 3 SW-UCB, 4 D-UCB, 5 Gaussian Thompson sampling).
    state : NamedTuple
        A copy of the state (written in place).
    losses : numpy.ndarray
        The block's losses, (n, R, K).
    pre : numpy.ndarray
        The per-round numbers the index takes from the reference, (R, n) (see the kernel's module).
    a, b, window, gamma
        The policy's constants, SW-UCB's window (arms, rewards, position) and D-UCB's discount.
    rng : BatchRNG or None
        Gaussian Thompson sampling's streams (K normals a round); None for the index policies, which draw nothing.
    """
    pre = np.ascontiguousarray(pre, dtype=float)
    takes = [("normal", state.N.shape[1])] if rng is not None else []
    return play_compiled(index_block, state, losses, rng, takes, lambda draws, plays, realized: (
        code, state.N, state.S, pre, losses, plays, realized, float(a), float(b), window[0], window[1],
        int(window[2]), float(gamma), draws[0] if draws else _NO_NORMALS))

FAMILIES = ("bernoulli", "gaussian")
_GRID = np.unique(np.concatenate([np.arange(1.0, 101.0), np.round(np.geomspace(100, 1e12, 221))]))


def check_family(family, sigma, name: str) -> tuple[str, float]:
    """The reward family ('bernoulli' or 'gaussian') and σ > 0 (used by the Gaussian family).

    Parameters
    ----------
    family : str
        'bernoulli' or 'gaussian'.
    sigma : float
        The Gaussian rewards' known standard deviation.
    name : str
        The policy, for messages.
    """
    family = v.choice("family", family, FAMILIES)
    sigma = v.real("sigma", sigma)
    if sigma <= 0:
        raise ConfigError(f"sigma must be > 0 (the standard deviation of {name}'s Gaussian rewards), got {sigma!r}; "
                          "e.g. sigma = 1.0")
    return family, sigma


def check_exploration(f, field: str = "exploration"):
    """An exploration function t ↦ f(t): vectorised, finite and increasing on t = 1 … 10¹² (else a ConfigError).

    It is evaluated on a grid of 321 values of t: every value must be finite, no value may be smaller
    than the one before, and the last must exceed the first.

    Parameters
    ----------
    f : callable or None
        The function (None: the default ln t + c ln ln t).
    field : str, default "exploration"
        The parameter's name, for messages.
    """
    if f is None:
        return None
    if not callable(f):
        raise ConfigError(f"{field} must be a function of t (e.g. lambda t: np.log(t)) or None for "
                          f"ln t + c·ln ln t, got {f!r}")
    try:
        values = np.broadcast_to(np.asarray(f(_GRID.copy()), dtype=float), _GRID.shape)
    except Exception as exc:  # noqa: BLE001  (any failure of the user's function is reported the same way)
        raise ConfigError(f"{field} must accept an array of rounds t and return one value per round; calling it on "
                          f"t = 1 … 1e12 raised {type(exc).__name__}: {exc}") from exc
    bad = ~np.isfinite(values)
    if bad.any():
        raise ConfigError(f"{field}(t) must be finite for t ≥ 1, got {values[bad][0]!r} at t = {_GRID[bad][0]:g}; "
                          "e.g. exploration = lambda t: np.log(t)")
    drop = np.flatnonzero(np.diff(values) < 0)
    if drop.size or values[-1] <= values[0]:
        where = (f"f({_GRID[drop[0] + 1]:g}) = {values[drop[0] + 1]:.6g} < f({_GRID[drop[0]]:g}) = "
                 f"{values[drop[0]]:.6g}" if drop.size else f"f(1) = {values[0]:.6g} and f(1e12) = {values[-1]:.6g}")
        raise ConfigError(f"{field} must be an increasing function of t (the confidence level grows with time), but "
                          f"{where}; use e.g. exploration = lambda t: np.log(t) + 3 * np.log(np.log(np.maximum(t, "
                          "np.e)))")
    return f


@register_learner("ucb1")
class UCB1(StochasticBandit):
    """UCB1 of Auer, Cesa-Bianchi and Fischer (2002): the arm maximising μ̂_i + √(2 ln n/N_i) (no parameters)."""

    def __init__(self):
        pass

    def instance_bounds(self, instance, ctx) -> list:
        """Auer et al.'s finite-time bound on the arms' instance (`onlinelab.bounds.bandits.ucb1_bound`)."""
        return [bb.ucb1_bound(instance, ctx)]

    def _choose(self, state, rng):
        N = state.N
        if N.all():                         # (every round after the first K: no arm left unpulled)
            index = np.sqrt(2.0 * np.log(state.n) / N)
            index += state.S / N
            return index.argmax(axis=1), None
        N = safe_counts(N)
        index = state.S / N + np.sqrt(2.0 * np.log(np.maximum(state.n, 1.0)) / N)
        return unplayed_first(index, state.N).argmax(axis=1), None

    def _compiled_block(self, state, losses, rng):
        return index_compiled(0, state, losses, np.log(np.maximum(rounds_ahead(state.n, losses.shape[0]), 1.0)))


class MOSSState(NamedTuple):
    """`onlinelab.learners.stochastic_base.ArmStats` and MOSS's T/K."""

    N: np.ndarray
    S: np.ndarray
    n: np.ndarray
    scale: float


@register_learner("moss")
class MOSS(StochasticBandit):
    """MOSS of Audibert and Bubeck (2009): the arm maximising μ̂_i + √(max(ln(T/(K N_i)), 0)/N_i).

    Parameters
    ----------
    horizon : int or None
        The horizon T in the index; None takes the run's T.
    """

    def __init__(self, horizon: int | None = None):
        self.horizon = None if horizon is None else v.integer("horizon", horizon, minimum=1)

    def resolved_params(self, ctx) -> dict:
        return {"horizon": int(self.horizon if self.horizon is not None else ctx.T)}

    def instance_bounds(self, instance, ctx) -> list:
        """49√(nK) for the horizon n (`onlinelab.bounds.bandits.moss_bound`)."""
        return [bb.moss_bound(instance, self.resolved_params(ctx)["horizon"], ctx)]

    def _fresh(self, ctx, R, K):
        return MOSSState(*fresh_stats(R, K), self.resolved_params(ctx)["horizon"] / K)

    def _choose(self, state, rng):
        N = safe_counts(state.N)
        index = state.S / N + np.sqrt(np.maximum(np.log(state.scale / N), 0.0) / N)
        return unplayed_first(index, state.N).argmax(axis=1), None

    def _compiled_block(self, state, losses, rng):
        return index_compiled(1, state, losses, np.zeros((1, 1)), a=state.scale)


@register_learner("kl-ucb")
class KLUCB(StochasticBandit):
    """KL-UCB of Garivier and Cappé (2011): the arm maximising max{q ≥ μ̂_i : N_i kl(μ̂_i, q) ≤ f(n)}.

    Parameters
    ----------
    family : {"bernoulli", "gaussian"}
        The reward family whose kl the index uses: Bernoulli (rewards in [0, 1]) or Gaussian of known σ.
    sigma : float
        σ of the Gaussian family (ignored for Bernoulli), > 0.
    c : float
        The default exploration function is f(n) = ln n + c·ln(ln n) (the ln ln term for n ≥ e); c ≥ 0.
        Garivier and Cappé's theorem takes c = 3; c = 0 is common in practice.
    exploration : callable or None
        Any increasing function f of the round count, vectorised over an array of counts; replaces
        ln n + c ln ln n.  Checked on t = 1 … 10¹²: a function that is not increasing is refused.

    Examples
    --------
    >>> KLUCB(exploration=lambda t: np.log(t) ** 2).exploration is not None
    True
    """

    def __init__(self, family: str = "bernoulli", sigma: float = 1.0, c: float = 0.0, exploration=None):
        self.family, self.sigma = check_family(family, sigma, "kl-ucb")
        self.c = v.real("c", c)
        if self.c < 0:
            raise ConfigError(f"c must be >= 0 (the weight of ln ln t in kl-ucb's exploration ln t + c ln ln t), got "
                              f"{self.c!r}; e.g. c = 0 or c = 3")
        self.exploration = check_exploration(exploration)

    def instance_bounds(self, instance, ctx) -> list:
        """Garivier and Cappé's asymptotic rate when the index's kl is the arms' (a reference curve)."""
        same = instance.family == self.family and (self.family == "bernoulli" or instance.sigma == self.sigma)
        return [bb.asymptotic_rate("kl-ucb", "KL-UCB, Garivier and Cappé (2011) Thm 1", instance, ctx)] if same else []

    def level(self, n: np.ndarray) -> np.ndarray:
        """f(n): the exploration function at n rewards observed (0 before the first).

        Parameters
        ----------
        n : numpy.ndarray
            Rewards observed so far, per replicate.
        """
        n = np.maximum(np.asarray(n, dtype=float), 1.0)
        if self.exploration is not None:
            return np.broadcast_to(np.asarray(self.exploration(n), dtype=float), n.shape)
        log_n = np.log(n)
        return log_n if self.c == 0 else log_n + self.c * np.log(np.maximum(log_n, 1.0))

    def _choose(self, state, rng):
        N = safe_counts(state.N)
        mean, level = state.S / N, self.level(state.n) / N
        if self.family == "bernoulli":
            index = kl_ucb_bernoulli(mean, level)
        else:
            index = kl_ucb_gaussian(mean, level, self.sigma)
        return unplayed_first(index, state.N).argmax(axis=1), None

    def _compiled_block(self, state, losses, rng):
        f = np.ascontiguousarray(np.broadcast_to(self.level(rounds_ahead(state.n, losses.shape[0])),
                                                 (state.N.shape[0], losses.shape[0])), dtype=float)
        if self.family == "gaussian":
            return index_compiled(2, state, losses, f, a=self.sigma)
        work = [np.empty(state.N.shape) for _ in range(4)] + [np.empty(state.N.shape, dtype=bool) for _ in range(2)]
        return play_compiled(klucb_block, state, losses, None, (), lambda draws, plays, realized: (
            state.N, state.S, f, losses, plays, realized, *work))
