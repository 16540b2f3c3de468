"""The base of the stochastic bandit policies: per-arm statistics, act/update, blocks played whole (theory §10).

A stochastic policy keeps, per replicate, statistics of the rewards it has observed on each of
the K arms (pulls N_i and reward sums S_i, or their windowed or discounted versions) and plays
the arm its rule picks from them.  Rewards are x = 1 − ℓ, the convention of the arms environments
(environments/arms.py: a Bernoulli arm of mean μ pays 1 with probability μ, its loss is 1 − reward).
A subclass writes two methods:

* ``_choose(state, rng)`` → ``(arm, p)``: the arm per replicate, (R,), and the play's distribution
  p_t (R, K), or None when the arm is a function of the state (p_t is then the one-hot vector of
  the arm);
* ``_observe(state, arm, x, rng)`` → state: the statistics after reward x of ``arm``, written into
  the state's arrays in place (the base hands it a copy in `StochasticBandit.update`).

Everything else is here: the play (``mixed`` = p_t, ``action`` = e_{I_t}), the update on the
realised loss, and `StochasticBandit.play_block`, which plays an oblivious environment's block
of rounds in one loop of ``_choose``/``_observe`` — the same calls, so the same draws in the same
order, as round by round (tests/learners/test_stochastic_bandits.py holds them bit-identical).

"t" in an index is the number of rewards observed so far plus one: the round, when feedback is not
delayed.  Under ``delay=`` a policy plays from the rewards that have arrived (a deterministic index
policy repeats its arm until news comes; Thompson sampling keeps sampling).

>>> import onlinelab as ol
>>> res = ol.simulate("bernoulli-arms", [ol.make_learner("ucb1")], T=200, replicates=2, seed=0)
>>> float(sum(res.final(f"pulls_{i}") for i in range(10)).mean())    # every round pulls one of the 10 arms
200.0
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from onlinelab.core.base import Learner
from onlinelab.core.protocol import Play
from onlinelab.errors import DomainError
from onlinelab.kernels import compiled_active, rowops
from onlinelab.learners.bandit_simplex import one_hot
from onlinelab.learners.stochastic_draws import take_rounds


class ArmStats(NamedTuple):
    """Per-replicate statistics of the observed rewards: ``N`` (R, K) pulls, ``S`` (R, K) reward sums,
    ``n`` (R, 1) rewards observed in all (a column, so that it broadcasts against the arms)."""

    N: np.ndarray
    S: np.ndarray
    n: np.ndarray


def fresh_stats(R: int, K: int) -> ArmStats:
    """Statistics before the first reward: zeros.

    Parameters
    ----------
    R, K : int
        Replicates and arms.
    """
    return ArmStats(np.zeros((R, K)), np.zeros((R, K)), np.zeros((R, 1)))


def add_reward(stats: ArmStats, arm: np.ndarray, x: np.ndarray) -> ArmStats:
    """N_arm += 1, S_arm += x, n += 1 per replicate, in place; returns ``stats``.

    Parameters
    ----------
    stats : ArmStats
        The statistics to update (modified).
    arm : numpy.ndarray
        The pulled arm per replicate, (R,).
    x : numpy.ndarray
        Its reward per replicate, (R,).
    """
    flat = flat_index(arm, stats.N.shape[1])
    stats.N.reshape(-1)[flat] += 1.0        # (views of the C-contiguous arrays: one flat scatter each)
    stats.S.reshape(-1)[flat] += x
    stats.n[...] += 1.0
    return stats


_OFFSETS: dict[tuple[int, int], np.ndarray] = {}


def flat_index(arm: np.ndarray, K: int) -> np.ndarray:
    """r·K + arm[r]: the entries (r, arm[r]) of an (R, K) array in its flat view (offsets cached per shape).

    Parameters
    ----------
    arm : numpy.ndarray
        One arm per replicate, (R,).
    K : int
        Arms.
    """
    key = (arm.shape[0], K)
    offsets = _OFFSETS.get(key)
    if offsets is None:
        offsets = _OFFSETS.setdefault(key, np.arange(arm.shape[0]) * K)
    return offsets + arm


def unplayed_first(index: np.ndarray, N: np.ndarray) -> np.ndarray:
    """``index`` with +inf on arms never observed (N = 0), so each arm is pulled once first, lowest index first.

    Parameters
    ----------
    index : numpy.ndarray
        The policy's index, (R, K) (modified).
    N : numpy.ndarray
        Pulls per arm, (R, K).
    """
    zero = N == 0
    if zero.any():
        index[zero] = np.inf
    return index


def safe_counts(N: np.ndarray) -> np.ndarray:
    """N with its zeros replaced by 1 (so an index divides without warnings; `unplayed_first` then
    overwrites those arms).

    Parameters
    ----------
    N : numpy.ndarray
        Pulls per arm, (R, K).
    """
    return N if N.all() else np.where(N == 0, 1.0, N)


class StochasticBandit(Learner):
    """Base of the stochastic bandit policies: see the module docstring."""

    feedback = "bandit"
    reference_environment = "bernoulli-arms"   # what `onlinelab check learner` plays it against
    plays = "simplex"                          # the K arms: vector losses on the simplex only

    def _fresh(self, ctx, R: int, K: int):
        """The state before round 1 (default: zero statistics)."""
        return fresh_stats(R, K)

    def _copy(self, state):
        """A copy whose arrays ``_observe`` may write into."""
        return type(state)(*(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in state))

    def _choose(self, state, rng) -> tuple[np.ndarray, np.ndarray | None]:
        raise NotImplementedError

    def _observe(self, state, arm, x, rng):
        return add_reward(state, arm, x)

    def init(self, ctx, rng):
        if ctx.domain != "simplex":
            raise DomainError(f"{self.name} plays one of K arms (the simplex) but the environment's domain is "
                              f"{ctx.domain!r}; use an arms environment such as 'bernoulli-arms' or 'gaussian-arms'")
        return self._fresh(ctx, ctx.replicates, ctx.d)

    def act(self, state, rng) -> Play:
        arm, p = self._choose(state, rng)
        onehot = one_hot(arm, state.N.shape[1])
        return Play(onehot if p is None else p, onehot, {"arm": arm})

    def update(self, state, play: Play, feedback, rng):
        x = 1.0 - np.asarray(feedback.value, dtype=float)      # reward = 1 − loss
        return self._observe(self._copy(state), play.info["arm"], x, rng)

    def _plays_as_base(self) -> bool:
        """Whether act and update are this class's: the loop of `play_block` repeats exactly them."""
        return type(self).act is StochasticBandit.act and type(self).update is StochasticBandit.update

    def play_block(self, state, block, rng):
        """A block of an oblivious environment's linear losses in one call (onlinelab.core.slot), else None.

        Round i of the block: ``_choose`` the arm, read its loss from the block, ``_observe`` the reward
        1 − ℓ_t(I_t) — the calls `act` and `update` make, in the same order, on one copy of the
        state.  Returns ``(state, plays, realized)``: p_t stacked like the block's losses, (n·R, K), and
        ℓ_t(I_t), (n, R).
        """
        G = getattr(block.stacked, "G", None)
        if not getattr(block.stacked, "is_linear", False) or G is None or not self._plays_as_base():
            return None
        n, K = block.n, state.N.shape[1]
        losses = G.reshape(n, -1, K)
        compiled = type(self).__dict__.get("_compiled_block")    # the built-in class itself, not a user's subclass
        if compiled is not None and compiled_active():
            out = compiled(self, self._copy(state), np.ascontiguousarray(losses, dtype=float), rng)
            if out is not None:
                return out
        rewards = (1.0 - losses).reshape(n, -1)              # 1 − ℓ, as update computes it from ℓ_t(I_t)
        arms = np.empty(losses.shape[:2], dtype=np.intp)
        mixed: dict[int, np.ndarray] = {}                   # rounds whose p_t is not the one-hot of the arm
        state = self._copy(state)
        for i in range(n):
            arm, p = self._choose(state, rng)
            arms[i] = arm
            if p is not None:
                mixed[i] = p
            state = self._observe(state, arm, rewards[i][flat_index(arm, K)], rng)
        plays = one_hot(np.arange(K), K)[arms]              # (n, R, K), filled once for the block
        for i, p in mixed.items():
            plays[i] = p
        realized = np.take_along_axis(losses, arms[:, :, None], axis=2)[:, :, 0]
        return state, plays.reshape(-1, K), realized


def rounds_ahead(n: np.ndarray, m: int) -> np.ndarray:
    """n + i for the block's rounds i = 0 … m − 1: the rewards observed before each round, (R, m).

    Parameters
    ----------
    n : numpy.ndarray
        Rewards observed before the block, (R, 1).
    m : int
        The block's rounds.
    """
    return n + np.arange(m, dtype=float)


def play_compiled(kern, state, losses: np.ndarray, rng, takes, args):
    """Play a block with the compiled kernel ``kern``; ``(state, plays, realized)``, or None for the numpy path.

    ``takes`` are the draws each round makes from ``rng`` (`onlinelab.learners.stochastic_draws.take_rounds`:
    the numbers the numpy rounds would take, the streams left where they would leave them); ``args(draws,
    plays, realized)`` builds the kernel's arguments, ``plays`` (n, R, K) zeros and ``realized`` (n, R).  The
    state's ``n`` grows by the block's rounds.  If the kernel's first call cannot compile, the streams are
    put back and None returned, so the numpy path draws the same numbers.

    Parameters
    ----------
    kern : onlinelab.kernels.Kernel
        The block kernel.
    state : NamedTuple
        A copy of the learner's state (its arrays are written in place).
    losses : numpy.ndarray
        The block's losses, (n, R, K).
    rng : BatchRNG
        The learner's streams.
    takes : list of (str, int)
        ``("normal" | "random", k)`` per draw of a round.
    args : callable
        The kernel's arguments from the draws and the output arrays.
    """
    if kern.get() is None:
        return None
    n, R, K = losses.shape
    saved = None
    if takes and not kern._first_call_ready:      # a first call may still fail to compile: keep the streams
        saved = [(b, b.data, b.pos) for b in (rng._uniform, rng._normal)], [g.bit_generator.state for g in rng.gens]
    draws = take_rounds(rng, takes, n) if takes else []
    plays, realized = np.zeros((n, R, K)), np.empty((n, R))
    if rowops.call(kern, *args(draws, plays, realized)) is None:
        if saved is not None:
            for b, data, pos in saved[0]:
                b.data, b.pos = data, pos
            for g, st in zip(rng.gens, saved[1], strict=True):
                g.bit_generator.state = st
        return None
    state.n[...] += n
    return state, plays.reshape(n * R, K), realized
