"""A block's random numbers drawn at once, as its rounds would draw them; Thompson's pooled Gamma draws (theory §10).

A compiled kernel (`onlinelab.kernels.stochastic`) plays a block of n rounds in one call, so it
cannot ask the learner's streams for numbers round by round.  `take_rounds` hands it, for every
round, the numbers that round would have taken — ``rng.normal(k)`` and ``rng.random(k)`` in a fixed
pattern per round — and leaves `onlinelab.core.rng.BatchRNG` in exactly the state n rounds of
those calls leave it: the same buffer refills, in the same order, from the same generators.  So the
compiled path and the numpy path consume the same numbers, and every later draw is the same too.

`pooled_gamma` is the numpy reference of Thompson sampling's Gamma variates under a fixed budget
of numbers per round: each of the m variates of a replicate's round first tries its own (normal,
uniform) pair by Marsaglia and Tsang's method, and the rejected ones, in order, try the pairs of a
pool of P extra pairs shared by the round.  Every round therefore takes exactly m + P normals and
m + P uniforms, whatever is rejected, and a kernel can be handed them in advance.  P is the
smallest pool that is exhausted with probability below 1e-15 per round at the worst acceptance
(shape 1, rejection 4.83 %): the negative binomial tail of `pool_size`.  Only when the pool is
exhausted (never seen) is a variate not exact: it is then d = shape − 1/3, close to its median.

>>> from onlinelab.core.rng import BatchRNG
>>> rng = BatchRNG.from_seed(0, "learner", "demo", replicates=2)
>>> (z,) = take_rounds(rng, [("normal", 3)], n=4)
>>> z.shape
(2, 4, 3)
>>> again = BatchRNG.from_seed(0, "learner", "demo", replicates=2)
>>> bool(all((again.normal(3) == z[:, i]).all() for i in range(4)))
True
"""
from __future__ import annotations

import numpy as np

POOL_EXHAUSTION = 1e-15       # the pool is exhausted with at most this probability per replicate-round
WORST_REJECTION = 0.048332255  # Marsaglia-Tsang's rejection probability at shape 1 (numerical quadrature)
_POOLS: dict[int, int] = {}


def pool_size(m: int) -> int:
    """P: pairs shared by a round's m Gamma variates so that P(more than P rejections) < 1e-15 at shape 1.

    Rejections are independent with probability at most 4.83 % each (shape ≥ 1; fewer as the shape grows),
    so the number of rejections before m acceptances is at most negative-binomial(m, 0.9517).

    Parameters
    ----------
    m : int
        Gamma variates per round.

    Examples
    --------
    >>> pool_size(20)
    19
    """
    if m not in _POOLS:
        from scipy.stats import nbinom
        P = 1
        while nbinom.sf(P, m, 1.0 - WORST_REJECTION) >= POOL_EXHAUSTION:
            P += 1
        _POOLS[m] = P
    return _POOLS[m]


def pooled_gamma(shape: np.ndarray, z: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Gamma(shape, 1) variates, (R, m), from m + P normals ``z`` and uniforms ``u`` per replicate (module docstring).

    With d = shape − 1/3 and c = 1/√(9d), a try (z, u) gives v = (1 + cz)³ and is accepted when v > 0 and
    ln u < z²/2 + d − dv + d ln v, returning d·v (Marsaglia and Tsang 2000: exactly Gamma(shape)).

    Parameters
    ----------
    shape : numpy.ndarray
        Shapes ≥ 1, (R, m).
    z, u : numpy.ndarray
        Standard normals and uniforms, (R, m + P): the first m are the variates' own tries, the rest the pool.

    Examples
    --------
    >>> g = pooled_gamma(np.full((1, 2), 2.0), np.zeros((1, 3)), np.full((1, 3), 0.5))
    >>> np.round(g, 6).tolist()           # z = 0 is accepted: d·1 = 5/3
    [[1.666667, 1.666667]]
    """
    m = shape.shape[1]
    d = shape - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    z0, u0 = z[:, :m], u[:, :m]
    v = 1.0 + c * z0
    v = v * v * v
    with np.errstate(divide="ignore"):
        ok = (v > 0) & (np.log(u0) < 0.5 * z0 * z0 + d - d * v + d * np.log(np.maximum(v, 1e-300)))
    out = d * v
    if not ok.all():
        for r in np.flatnonzero(~ok.all(axis=1)):
            k = m
            for j in np.flatnonzero(~ok[r]):
                out[r, j], k = _from_pool(float(d[r, j]), float(c[r, j]), z[r], u[r], k)
    return out


def _from_pool(d: float, c: float, z: np.ndarray, u: np.ndarray, k: int) -> tuple[float, int]:
    """The first accepted pool pair from position k on: (variate, next position); d when the pool is spent."""
    while k < z.shape[0]:
        zk, uk = float(z[k]), float(u[k])
        k += 1
        v = 1.0 + c * zk
        v = v * v * v
        if v > 0 and np.log(uk) < 0.5 * zk * zk + d - d * v + d * np.log(max(v, 1e-300)):
            return d * v, k
    return d, k


def take_rounds(rng, takes, n: int) -> list[np.ndarray]:
    """The numbers n rounds of ``takes`` draw, one (R, n, k) array per take, leaving ``rng`` as those rounds would.

    Each round calls, in order, ``rng.normal(k)`` or ``rng.random(k)`` for every ``(kind, k)`` of ``takes``.
    The buffers of `onlinelab.core.rng.BatchRNG` refill from the replicate's generator whenever a take does
    not fit; here the refills are found arithmetically (one Python step per refill, not per round) and done
    in the order the rounds would do them, so the generators and buffers end where the rounds leave them.

    Parameters
    ----------
    rng : BatchRNG
        The learner's streams.
    takes : list of (str, int)
        ``("normal" | "random", k)`` per call of a round, in call order.
    n : int
        Rounds.

    Examples
    --------
    >>> from onlinelab.core.rng import BatchRNG
    >>> rng = BatchRNG.from_seed(1, "learner", "demo", replicates=1)
    >>> u, z = take_rounds(rng, [("random", 1), ("normal", 2)], n=3)
    >>> u.shape, z.shape
    ((1, 3, 1), (1, 3, 2))
    """
    bufs = {"random": rng._uniform, "normal": rng._normal}
    kinds = sorted({kind for kind, _ in takes})
    per_round = {kind: sum(k for kk, k in takes if kk == kind) for kind in kinds}
    inclusive = []                     # (kind, k, consumption of that kind in a round up to and including the take)
    seen = dict.fromkeys(kinds, 0)
    for kind, k in takes:
        seen[kind] += k
        inclusive.append((kind, k, seen[kind]))
    # A kind's stream: the unread rest of its buffer, then every refill's fresh numbers in order.  Pass 1 finds the
    # refills (round, call, size) arithmetically; pass 2 draws them in that order straight into the streams.
    length = {kind: bufs[kind].data.shape[1] - bufs[kind].pos for kind in kinds}
    refills: list[tuple[str, int, int, int]] = []       # (kind, stream offset of its fresh numbers, size, read so far)
    while True:
        event = None                                    # the first take (round, order) that does not fit
        for order, (kind, k, upto) in enumerate(inclusive):
            room = length[kind] - upto                  # the take fits in round i iff i·c ≤ room
            i = 0 if room < 0 else room // per_round[kind] + 1
            if i < n and (event is None or (i, order) < event[:2]):
                event = (i, order, kind, k, upto)
        if event is None:
            break
        i, _, kind, k, upto = event
        size = max(bufs[kind].block, k)
        refills.append((kind, length[kind], size, i * per_round[kind] + upto - k))
        length[kind] += size
    R = len(rng.gens)
    streams = {}
    for kind in kinds:
        buf = bufs[kind]
        streams[kind] = np.empty((R, length[kind]))
        streams[kind][:, :buf.data.shape[1] - buf.pos] = buf.data[:, buf.pos:]
    for kind, offset, size, _ in refills:
        stream, method = streams[kind], bufs[kind].method
        for r, gen in enumerate(rng.gens):
            getattr(gen, method)(out=stream[r, offset:offset + size])
    for kind in kinds:
        buf, used = bufs[kind], n * per_round[kind]
        last = [read for kk, _, _, read in refills if kk == kind]
        if last:                                        # the buffer as the last refill left it, read up to the end
            buf.data, buf.pos = streams[kind][:, last[-1]:].copy(), used - last[-1]
        else:
            buf.pos += used
    served = {kind: streams[kind][:, :n * per_round[kind]].reshape(R, n, per_round[kind]) for kind in kinds}
    return [served[kind][:, :, upto - k:upto] for kind, k, upto in inclusive]
