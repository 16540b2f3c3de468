"""Relative entropies of one-parameter reward families and the KL-UCB upper confidence index (theory §10).

KL-UCB (Garivier and Cappé 2011) plays the arm with the largest

    U = max{q ≥ μ̂ : kl(μ̂, q) ≤ level},   level = f(t)/N,

where kl is the relative entropy of the reward family at means μ̂ and q.  For Gaussian rewards
of known variance σ², kl(p, q) = (p − q)²/(2σ²) and U = μ̂ + σ√(2·level) in closed form.  For
Bernoulli rewards, kl(p, q) = p ln(p/q) + (1 − p) ln((1 − p)/(1 − q)) has no inverse in closed form:
`kl_ucb_bernoulli` solves for every entry of an array at once by Newton's method started
above the root, where it converges monotonically (kl(p, ·) is convex and increasing on [p, 1)), to
1e-12 in q.  The starting point is the smaller of two upper bounds on the root: Pinsker's
p + √(level/2) and 1 − exp(−(level + h(p))/(1 − p)) (h the binary entropy), which follows from
kl(p, q) ≥ (1 − p) ln(1/(1 − q)) − h(p).

>>> import numpy as np
>>> round(float(kl_bernoulli(0.5, 0.9)), 6)
0.510826
>>> q = kl_ucb_bernoulli(np.array([0.5]), np.array([0.510826]))
>>> round(float(q[0]), 5)
0.9
"""
from __future__ import annotations

import numpy as np
from scipy.special import xlogy

NEWTON_TOL = 1e-12    # the Newton step below which the iterate is final (its error is then far smaller)
MAX_NEWTON = 60       # far beyond what the starting point needs (3 to 6 steps on random instances)


def kl_bernoulli(p, q) -> np.ndarray:
    """kl(p, q) = p ln(p/q) + (1 − p) ln((1 − p)/(1 − q)) for Bernoulli means p, q in [0, 1] (0 ln 0 = 0).

    Parameters
    ----------
    p, q : float or array-like
        Means in [0, 1], broadcast together; kl is +inf where q ∈ {0, 1} and p ≠ q.

    Examples
    --------
    >>> float(kl_bernoulli(0.3, 0.3)), float(kl_bernoulli(0.0, 0.5)) == float(np.log(2))
    (0.0, True)
    """
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = xlogy(p, p) - xlogy(p, q) + xlogy(1 - p, 1 - p) - xlogy(1 - p, 1 - q)
    return np.where(p == q, 0.0, out)


def kl_gaussian(p, q, sigma: float = 1.0) -> np.ndarray:
    """kl(p, q) = (p − q)²/(2σ²): Gaussian rewards of means p, q and one known standard deviation σ.

    Parameters
    ----------
    p, q : float or array-like
        Means, broadcast together.
    sigma : float, default 1.0
        The rewards' standard deviation σ > 0.

    Examples
    --------
    >>> float(kl_gaussian(0.0, 1.0, sigma=0.5))
    2.0
    """
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    return (p - q) ** 2 / (2.0 * sigma * sigma)


def kl_ucb_gaussian(mean, level, sigma: float = 1.0) -> np.ndarray:
    """max{q ≥ mean : (mean − q)²/(2σ²) ≤ level} = mean + σ√(2·level), entry by entry.

    Parameters
    ----------
    mean : array-like
        Empirical means μ̂.
    level : array-like
        The right-hand side f(t)/N ≥ 0.
    sigma : float, default 1.0
        The rewards' standard deviation σ > 0.

    Examples
    --------
    >>> float(kl_ucb_gaussian(0.5, 2.0, sigma=1.0))
    2.5
    """
    return np.asarray(mean, dtype=float) + sigma * np.sqrt(2.0 * np.maximum(np.asarray(level, dtype=float), 0.0))


def _binary_entropy(p: np.ndarray) -> np.ndarray:
    return -xlogy(p, p) - xlogy(1 - p, 1 - p)


def kl_ucb_bernoulli(mean, level) -> np.ndarray:
    """max{q ∈ [mean, 1] : kl(mean, q) ≤ level} for Bernoulli kl, entry by entry, to 1e-10 (see the module).

    Entries with ``level ≤ 0`` give ``mean``, entries with ``mean ≥ 1`` give 1, entries with ``mean = 0``
    the closed form 1 − e^{−level} (kl(0, q) = −ln(1 − q)).

    Parameters
    ----------
    mean : array-like
        Empirical means μ̂ in [0, 1].
    level : array-like
        The right-hand side f(t)/N, broadcast with ``mean``.

    Examples
    --------
    >>> q = kl_ucb_bernoulli(np.array([0.0, 0.2, 1.0]), np.array([np.log(2), 0.0, 3.0]))
    >>> np.round(q, 12).tolist()
    [0.5, 0.2, 1.0]
    """
    p, level = np.broadcast_arrays(np.clip(np.asarray(mean, dtype=float), 0.0, 1.0),
                                   np.maximum(np.asarray(level, dtype=float), 0.0))
    out = np.where(p >= 1.0, 1.0, np.where(p <= 0.0, -np.expm1(-level), p))   # the entries in closed form
    live = (p > 0.0) & (p < 1.0) & (level > 0.0)
    every = bool(live.all())
    if not every and not live.any():
        return out
    p, level = (p, level) if every else (p[live], level[live])
    q_of_p = 1.0 - p
    neg_c = -(p * np.log(p) + q_of_p * np.log(q_of_p)) + level   # h(p) + level
    q = np.minimum(p + np.sqrt(level / 2.0), -np.expm1(-neg_c / q_of_p))   # two upper bounds on the root
    top = q >= 1.0                # the root is within rounding of 1 (the second bound is tight there)
    if top.any():
        q = np.where(top, 0.5 * (1.0 + p), q)   # a harmless stand-in for the Newton steps, set to 1 below
    active = np.ones(q.shape, dtype=bool)   # each entry stops at its own tolerance, as it would alone: an index
    for _ in range(MAX_NEWTON):              # does not depend on how many others are solved beside it
        g = -p * np.log(q) - q_of_p * np.log1p(-q) - neg_c                # kl(p, q) − level: ≥ 0 above the root
        above = q > p                        # not when p + √(level/2) rounds to p: then p is the root (step 0)
        step = np.where(above, np.maximum(g * q * (1.0 - q) / np.where(above, q - p, 1.0), 0.0), 0.0)   # g/g'
        q = np.where(active, q - step, q)
        active &= step > NEWTON_TOL          # (a NaN step stops its entry)
        if not active.any():
            break
    if top.any():
        q[top] = 1.0
    if every:
        return q
    out[live] = q
    return out
