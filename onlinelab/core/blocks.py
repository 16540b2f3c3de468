"""Blocks of rounds from oblivious environments: validated, counted and compared once per block.

An oblivious environment does not look at the learners, so it may draw n rounds at once:
``Environment.emit_block(t, n)`` returns a `LossBlock` — the n per-round losses the
learners see, round by round as always, and one *stacked* loss holding all of them (rows
``i·R … (i+1)·R − 1`` are round ``t + i``).  The simulator validates the stacked loss once,
adds its statistics and feeds the comparator once per block, and cuts blocks at checkpoints so
every recorded metric sees exactly the rounds it would round by round.  Learners' plays and
losses are bit-identical to round-by-round emission; sums over rounds (comparator, bound
statistics) are the same sums in another order (equal to rounding, ~1e-16 relative per term).
See docs/guide/writing-environments.md.

>>> import numpy as np
>>> from onlinelab.losses.matrix import FactoredLoss
>>> x = np.arange(12.0).reshape(3, 2, 2) + 1          # 3 rounds, R = 2 replicates, d = 2
>>> block = LossBlock.of_rows(FactoredLoss, x, coef=1.0)
>>> block.n, block.stacked.shape, block.rounds[1].factors[:, :, 0].tolist()
(3, (6, 2), [[5.0, 6.0], [7.0, 8.0]])
"""
from __future__ import annotations

import numpy as np

from onlinelab.core.watchdog import call
from onlinelab.errors import LossError, ProtocolError


class LossBlock:
    """n consecutive rounds of one oblivious environment.

    Parameters
    ----------
    stacked : loss
        One loss holding every round, replicate axis of length n·R, round-major.
    rounds : list
        The n per-round losses (each with the replicate axis R), views of the same data.
    """

    plays_wanted = True
    """Whether the simulator will read the block's stacked plays.  It sets this to False, just before a
    learner's ``play_block``, when it needs only the learner's state and the expected losses it returns (no
    per-arm metrics): that learner may then return None for the plays, provided it returns the expected losses
    (see docs/guide/writing-learners.md), and a compiled kernel need not write an (n, R, K) array."""

    def __init__(self, stacked, rounds):
        self.stacked, self._rounds = stacked, list(rounds)
        self.n = len(self._rounds)
        self._lazy = None

    @property
    def rounds(self) -> list:
        """The n per-round losses; a block from `of_rows` builds them on first read (a learner that
        plays the block whole never needs them)."""
        if self._rounds is None:
            self._rounds = [self._round(i) for i in range(self.n)]
        return self._rounds

    def _round(self, i: int):
        """Round i of a block from `of_rows`, built from its rows of the stacked data."""
        flat, R, kw = self._lazy
        make = type(self.stacked)   # (the class itself is not kept: a checkpoint stores data, not classes)
        if flat.dtype == np.float64 and hasattr(make, "trusted"):
            make = make.trusted      # so its per-round float views need no conversion or checks
        return make(flat[i * R:(i + 1) * R], **kw)

    def first_round(self):
        """Round 1 of the block alone (a block from `of_rows` builds just that one, not all n)."""
        return self._round(0) if self._rounds is None else self._rounds[0]

    @rounds.setter
    def rounds(self, rounds) -> None:   # checkpoints written before the rounds were built lazily store them whole
        self._rounds, self._lazy = list(rounds), None

    @classmethod
    def of_rows(cls, loss_cls, rows, **kw) -> LossBlock:
        """A block of ``loss_cls(rows[i], **kw)`` for rows of shape (n, R, ...), sharing one stacked copy.

        Parameters
        ----------
        loss_cls : type
            The loss class, e.g. `onlinelab.FactoredLoss` or `onlinelab.losses.vector.LinearLoss`.
        rows : numpy.ndarray
            The n rounds' data, shape ``(n, R, ...)``.
        **kw
            Further arguments of ``loss_cls`` (a coefficient, a domain, a rank).
        """
        rows = np.ascontiguousarray(rows)
        n, R = rows.shape[:2]
        flat = rows.reshape((n * R,) + rows.shape[2:])
        stacked = loss_cls(flat, **kw)   # converts and checks the whole block's data once
        block = cls(stacked, ())
        block.n, block._rounds, block._lazy = n, None, (flat, R, kw)
        return block

    def validate(self, where_of, R: int, d: int, bound, psd) -> None:
        """Check every round at once; on a failure, find and report the first bad round exactly as round by round.

        Parameters
        ----------
        where_of : callable
            ``where_of(i)`` names round i of the block in messages.
        R, d : int
            Replicates and dimension.
        bound : float or None
            The environment's declared loss bound.
        psd : bool or None
            The environment's declared sign.
        """
        try:
            self.stacked.validate(where_of(0), self.n * R, d, bound, psd)
        except LossError:
            for i, loss in enumerate(self.rounds):
                loss.validate(where_of(i), R, d, bound, psd)
            raise

    def statistics(self, R: int) -> dict:
        """The per-round statistics of the loss type, summed over the block: name → (R,)."""
        return {k: np.asarray(val, dtype=float).reshape(self.n, R).sum(axis=0)
                for k, val in self.stacked.statistics().items()}


def rounds_per_block(replicates: int, d: int, budget: int = 2 ** 21, most: int = 8192) -> int:
    """Rounds per block for an environment of small vector losses: about ``budget`` bytes of float losses.

    The per-block work (emission, checks, comparator, recording, a learner's call) is a fixed cost, so
    tiny rounds want long blocks — with a compiled learner (`onlinelab.kernels`) that fixed cost is most of
    the time at 64 rounds a block — while the block's losses should stay within a few megabytes.

    Parameters
    ----------
    replicates, d : int
        R and the length of one replicate's loss vector.
    budget : int, default 2 MiB
        Bytes of float64 losses per block.
    most : int, default 8192
        The longest block.

    >>> rounds_per_block(20, 10)
    1310
    """
    return int(max(64, min(most, budget // (8 * max(replicates, 1) * max(d, 1)))))


def blocks_match_emit(cls) -> bool:
    """Whether ``cls`` emits blocks that agree with its ``emit``: its ``emit_block`` is defined no higher in the
    class tree than its ``emit``, so a subclass that overrides only ``emit`` plays round by round.

    Parameters
    ----------
    cls : type
        An Environment subclass.
    """
    def owner(name):
        return next(k for k in cls.__mro__ if name in k.__dict__)
    block_owner = owner("emit_block")
    return block_owner.__module__ != "onlinelab.core.base" and issubclass(block_owner, owner("emit"))


class BlockFeed:
    """Serves an oblivious environment's losses round by round from blocks that end at checkpoints.

    ``pending`` (``{"block": LossBlock or None, "pos": int}``) is part of the run's checkpointed state,
    so a run resumed mid-block continues with the very same block.

    Parameters
    ----------
    env : Environment
        The (shared) oblivious environment.
    tracker : LossTracker
        Its loss tracker: one ``add_block`` per block.
    pending : dict
        The current block and the position in it.
    checkpoints : array-like of int
        The run's checkpoint rounds (blocks never straddle one).
    env_label : str
        The environment's label, for messages.
    R : int
        Replicates.
    """

    def __init__(self, env, tracker, pending, checkpoints, env_label, R):
        self.env, self.tracker, self.pending, self.env_label, self.R = env, tracker, pending, env_label, R
        self.ckpts = np.asarray(sorted(int(c) for c in checkpoints))

    def next(self, t: int):
        """Round t's loss, emitting (and validating, counting, comparing) a new block when the last one is spent."""
        pending = self.pending
        block = pending["block"]
        if block is None or pending["pos"] >= block.n:
            block = self._fresh(t)
            pending.update(block=block, pos=0)
            if block is None:  # declined (or a one-round block): the ordinary round
                return self._single(t)
        pending["pos"] += 1
        return block.rounds[pending["pos"] - 1]

    def next_block(self, t: int):
        """``(block, None)``: a fresh block from round t, taken whole; or ``(None, loss)``: round t alone
        (the environment declined, or a run resumed mid-block finishes that block round by round)."""
        pending = self.pending
        block = pending["block"]
        if block is not None and pending["pos"] < block.n:
            return None, self.next(t)
        block = self._fresh(t)
        if block is None:
            pending.update(block=None, pos=0)
            return None, self._single(t)
        pending.update(block=block, pos=block.n)
        return block, None

    def _fresh(self, t: int):
        """The checked and counted block of rounds t, … (up to the next checkpoint), or None when declined."""
        env = self.env
        n = min(int(env.block_rounds), int(self.ckpts[np.searchsorted(self.ckpts, t)]) - t + 1)
        block = call(f"emit_block of environment {self.env_label!r}", t, env.emit_block, t, n) if n > 1 else None
        if block is None:
            return None
        if block.n != n:
            raise ProtocolError(f"environment {self.env_label!r}: emit_block({t}, {n}) returned {block.n} rounds; "
                                f"return exactly n = {n}")
        block.validate(lambda i: self._where(t + i), self.R, env.d, env.loss_bound, env.psd)
        self.tracker.add_block(block)
        return block

    def _single(self, t: int):
        env = self.env
        loss = call(f"emit of environment {self.env_label!r}", t, env.emit, t, None)  # onlinelab.core.watchdog
        loss.validate(self._where(t), self.R, env.d, env.loss_bound, env.psd)
        self.tracker.add(loss)
        return loss

    def _where(self, t: int) -> str:
        return f"environment {self.env_label!r}, round {t}"
