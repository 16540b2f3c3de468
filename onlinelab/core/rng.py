"""Seeds and batched random streams: one independent stream per (role, name, replicate), no global RNG.

A run has one root seed.  Every environment and learner gets, for each replicate r,
the stream ``SeedSequence(root, spawn_key=(role, crc32(name), r))`` — the same keys
``SeedSequence.spawn`` would assign, but derived from the *name* rather than the
position in a list, so adding a learner to a run never changes another learner's
numbers, and replicate r's numbers do not depend on how many replicates run.

`BatchRNG` serves draws for all R replicates at once from per-replicate
buffers that are refilled in blocks, so the Python loop over replicates runs once
per block (default 512 draws per replicate), not once per round.

>>> rng = BatchRNG.from_seed(0, "learner", "meg", replicates=3)
>>> rng.random(2).shape
(3, 2)
"""
from __future__ import annotations

import zlib

import numpy as np

ROLES = {"environment": 1, "learner": 2, "game": 3, "data": 4}


def seed_sequences(root: int, role: str, name: str, replicates: int) -> list[np.random.SeedSequence]:
    """One SeedSequence per replicate for the stream of ``name`` in ``role``.

    Parameters
    ----------
    root : int
        The run's root seed.
    role : {"environment", "learner", "game", "data"}
        Who draws from the stream.
    name : str
        The label of the learner or environment (its stream depends on the name, not on a position).
    replicates : int
        Number of replicates R.
    """
    key = (ROLES[role], zlib.crc32(name.encode("utf8")))
    return [np.random.SeedSequence(int(root), spawn_key=key + (r,)) for r in range(replicates)]


class _Buffer:
    """Per-replicate block buffer of one kind of draw (uniform or standard normal)."""

    def __init__(self, gens, method: str, block: int):
        self.gens, self.method, self.block = gens, method, block
        self.data = np.empty((len(gens), 0))
        self.pos = 0

    def take(self, n: int) -> np.ndarray:
        if self.pos + n > self.data.shape[1]:
            size = max(self.block, n)
            rest = self.data[:, self.pos:]
            fresh = np.stack([getattr(g, self.method)(size) for g in self.gens])
            self.data = np.concatenate([rest, fresh], axis=1)
            self.pos = 0
        out = self.data[:, self.pos:self.pos + n]
        self.pos += n
        return out


class BatchRNG:
    """Random draws with a leading replicate axis; replicate r uses only its own stream.

    Parameters
    ----------
    seqs : list of numpy.random.SeedSequence
        One seed sequence per replicate (see `seed_sequences`).
    block : int, default 512
        Draws buffered per replicate and refill.
    """

    def __init__(self, seqs: list[np.random.SeedSequence], block: int = 512):
        self.gens = [np.random.Generator(np.random.PCG64(s)) for s in seqs]
        self._uniform = _Buffer(self.gens, "random", block)
        self._normal = _Buffer(self.gens, "standard_normal", block)

    @classmethod
    def from_seed(cls, root: int, role: str, name: str, replicates: int, block: int = 512) -> BatchRNG:
        return cls(seed_sequences(root, role, name, replicates), block=block)

    @property
    def replicates(self) -> int:
        return len(self.gens)

    def _shaped(self, buf: _Buffer, shape) -> np.ndarray:
        if isinstance(shape, tuple) and not shape:    # one draw per replicate (every round of a sampler)
            return buf.take(1)[:, 0]
        shape = (shape,) if np.isscalar(shape) else tuple(shape)
        n = int(np.prod(shape)) if shape else 1
        return buf.take(n).reshape((self.replicates,) + shape)

    def random(self, shape=()) -> np.ndarray:
        """Uniform [0, 1) draws of shape ``(R, *shape)``.

        Parameters
        ----------
        shape : int or tuple of int, default ()
            Shape of the draws per replicate.
        """
        return self._shaped(self._uniform, shape)

    def normal(self, shape=()) -> np.ndarray:
        """Standard normal draws of shape ``(R, *shape)``.

        Parameters
        ----------
        shape : int or tuple of int, default ()
            Shape of the draws per replicate.
        """
        return self._shaped(self._normal, shape)

    def signs(self, shape=()) -> np.ndarray:
        """Independent uniform ±1 of shape ``(R, *shape)``.

        Parameters
        ----------
        shape : int or tuple of int, default ()
            Shape of the draws per replicate.
        """
        return np.where(self.random(shape) < 0.5, -1.0, 1.0)

    def categorical(self, probs: np.ndarray) -> np.ndarray:
        """One index per replicate, ``P(i) = probs[r, i]`` (rows need not be exactly normalised).

        Parameters
        ----------
        probs : numpy.ndarray
            Non-negative weights, shape ``(R, n)``; each row need not sum exactly to 1.
        """
        return categorical_from(probs, self.random())


def categorical_from(probs: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The index drawn by `BatchRNG.categorical` from uniforms ``u`` (R,): the first i with
    Σ_{j≤i} probs[r, j] > u_r · Σ_j probs[r, j] (a learner that drew a block's uniforms at once).

    Parameters
    ----------
    probs : numpy.ndarray
        Non-negative weights, shape ``(R, n)``.
    u : numpy.ndarray
        Uniform [0, 1) draws, shape ``(R,)``.
    """
    cum = np.add.accumulate(probs, axis=1, dtype=float)
    u = u[:, None] * cum[:, -1:]
    cum[:, -1] = np.inf   # the first i with cum_i > u; u ≥ the total (rounding) picks the last index
    return (cum > u).argmax(axis=1)
