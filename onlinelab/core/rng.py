"""Seeds and batched random streams: one independent stream per (role, label, environment, replicate), no global RNG.

A run has one root seed.  Every stream is ``SeedSequence(root, spawn_key=key + (r,))`` for replicate r,
where the key is derived from *labels*, never from a position in a list:

* an environment's stream: ``(role, crc32(environment label))``;
* a learner's stream: ``(role, crc32(learner label), crc32(environment label))`` — so a learner facing
  two environments draws independently in each;
* the shared streams of the feedback models (random delays, Poisson arrivals): the environment's key
  with their own name (``"delay/<env>"``, ``"arrivals/<env>"``), and an adaptive delay adversary's
  own stream: the learner's key in role ``"delay"``.

So adding or removing a learner (or an environment) never changes another one's numbers, and
replicate r's stream does not depend on how many replicates run (see docs/guide/writing-environments.md,
"Randomness").

`BatchRNG` serves draws for all R replicates at once from per-replicate
buffers that are refilled in blocks, so the Python loop over replicates runs once
per block (default 512 draws per replicate), not once per round.  Replicate r's
draws are its own generator's, in order, whatever R is.

>>> rng = BatchRNG.from_seed(0, "learner", "meg", replicates=3, env="spiked-covariance")
>>> rng.random(2).shape
(3, 2)
>>> one = BatchRNG.from_seed(0, "learner", "meg", replicates=1, env="spiked-covariance")
>>> bool((one.random(2)[0] == BatchRNG.from_seed(0, "learner", "meg", 5, env="spiked-covariance").random(2)[0]).all())
True
"""
from __future__ import annotations

import zlib

import numpy as np

from onlinelab.errors import ConfigError

ROLES = {"environment": 1, "learner": 2, "game": 3, "data": 4, "delay": 5}


def stream_key(role: str, name: str, env: str | None = None) -> tuple[int, ...]:
    """The spawn key of a stream, before its replicate: ``(role, crc32(name))``, plus ``crc32(env)`` when given.

    Parameters
    ----------
    role : {"environment", "learner", "game", "data", "delay"}
        Who draws from the stream.
    name : str
        The label of the learner or environment.
    env : str or None, default None
        The label of the environment a learner (or a per-learner delay adversary) faces.

    Examples
    --------
    >>> stream_key("learner", "meg", "top-direction") != stream_key("learner", "meg", "spiked-covariance")
    True
    """
    if role not in ROLES:
        raise ConfigError(f"random stream role must be one of {sorted(ROLES)}, got {role!r}")
    key = (ROLES[role], zlib.crc32(str(name).encode("utf8")))
    return key if env is None else key + (zlib.crc32(str(env).encode("utf8")),)


def seed_sequences(root: int, role: str, name: str, replicates: int,
                   env: str | None = None) -> list[np.random.SeedSequence]:
    """One SeedSequence per replicate for the stream of ``name`` in ``role`` (facing environment ``env``).

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
    env : str or None, default None
        The environment label, for a learner's stream (see `stream_key`).
    """
    key = stream_key(role, name, env)
    return [np.random.SeedSequence(int(root), spawn_key=key + (r,)) for r in range(replicates)]


class _Buffer:
    """Per-replicate block buffer of one kind of draw (uniform or standard normal)."""

    def __init__(self, gens, method: str, block: int):
        self.gens, self.method, self.block = gens, method, block
        self.data = np.empty((len(gens), 0))
        self.pos = 0

    def take(self, n: int) -> np.ndarray:
        have = self.data.shape[1] - self.pos
        if n > have:   # refill: the rest, then each stream's next draws written in place (no stacking copies)
            fresh = np.empty((len(self.gens), have + max(self.block, n)))
            fresh[:, :have] = self.data[:, self.pos:]
            for g, row in zip(self.gens, fresh, strict=True):
                getattr(g, self.method)(out=row[have:])
            self.data, self.pos = fresh, 0
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
    def from_seed(cls, root: int, role: str, name: str, replicates: int, block: int = 512,
                  env: str | None = None) -> BatchRNG:
        """The streams of ``name`` in ``role`` (facing ``env``), one per replicate (see `seed_sequences`)."""
        return cls(seed_sequences(root, role, name, replicates, env), block=block)

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
