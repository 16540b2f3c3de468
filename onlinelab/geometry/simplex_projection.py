"""The threshold of the Euclidean projection onto the probability simplex (theory §2).

Π_Δ(y) = max(y − τ, 0) with τ the root of the convex, decreasing, piecewise-linear
f(τ) = Σ_i max(y_i − τ, 0) − 1.  Two exact ways to find τ, per row:

* the sort rule of theory §2 (ρ is an *index*, the erratum of the embedding paper's Algorithm 2):
  O(n log n), vectorised over rows — used for rows shorter than ``NEWTON_FROM``;
* Michelot's iteration τ ← (Σ_{y_i>τ} y_i − 1)/#{y_i > τ} from τ₀ = (Σy − 1)/n: expected O(n), one
  row at a time — used for long rows (the embedding game's simplex of 10⁴ pairs, theory §5.6), where it
  is two to three times faster than sorting.

Both sum the same active coordinates, in a different order, so they agree to rounding (~1e-16).

>>> import numpy as np
>>> simplex_threshold(np.array([[0.5, 0.5, -1.0]]))
array([[0.]])
>>> y = np.random.default_rng(0).standard_normal((2, 5000)) / 100
>>> bool(np.abs(simplex_threshold(y) - sorted_threshold(y)).max() < 1e-15)
True
"""
from __future__ import annotations

import numpy as np

NEWTON_FROM = 1024      # rows at least this long go through Michelot's iteration (faster than a sort from here on)
NEWTON_STEPS = 50       # after this many steps the sort rule finishes on the candidates left


def sorted_threshold(y: np.ndarray) -> np.ndarray:
    """τ per row, shape (..., 1), by the sort rule of theory §2: ρ = #{j : u_j + (1 − Σ_{i≤j} u_i)/j > 0}.

    Parameters
    ----------
    y : numpy.ndarray, shape (..., n)
        Points, one per row.
    """
    u = -np.sort(-y, axis=-1)
    css = np.cumsum(u, axis=-1)
    j = np.arange(1, u.shape[-1] + 1)
    rho = np.sum(u + (1.0 - css) / j > 0, axis=-1)          # an index (count of positives), not a value
    return (np.take_along_axis(css, rho[..., None] - 1, axis=-1) - 1.0) / rho[..., None]


def newton_threshold(z: np.ndarray, guess: float | None = None) -> float:
    """τ for one row by Michelot's iteration, finished by the sort rule after ``NEWTON_STEPS`` steps.

    Each step is a Newton step on f from the left (f(τ₀) ≥ 0 since Σ(z − τ₀) = 1, and the tangent of a
    convex function lies below it), so τ rises to the root and never passes it: a coordinate at or below
    some τ_t is zero in the projection, the candidate set only shrinks, and the loop ends when no candidate
    drops — then τ = (Σ_A z − 1)/|A| with every z in A above τ, the exact root.  Usually < 10 steps, each
    O(candidates left).

    A ``guess`` above τ₀ (e.g. the threshold of a recent, similar row) is tried first, at the cost of one
    pass: (Σ_{z>guess} z − 1)/#{z > guess} is below the root whatever the guess (any subset's is), and when
    it is at least the guess, f(guess) ≥ 0 — the guess is below the root too and the iteration starts from
    its candidates; otherwise it starts from that subset's value.  The candidates end as {z > τ} either
    way, so the guess changes the work, not the answer (theory §5.6: a third fewer passes in the
    embedding game, whose thresholds move little between rounds).

    Parameters
    ----------
    z : numpy.ndarray, shape (n,)
        One row.
    guess : float or None, default None
        A guess at τ; ignored when not above the usual start or when the row is not finite.
    """
    row = z
    total = z.sum()
    tau = (total - 1.0) / z.size
    if guess is not None and guess > tau and np.isfinite(total):
        keep = z.compress(z > guess)
        if keep.size:
            low = (keep.sum() - 1.0) / keep.size            # a subset's value: below the root
            if low < guess:                                 # the guess was above the root: restart from low
                keep = z.compress(z > low)
                low = (keep.sum() - 1.0) / keep.size
            z, tau = keep, low                              # τ = (Σ_z − 1)/|z|, z ⊇ {z_i above the root}
    for _ in range(NEWTON_STEPS):
        keep = z.compress(z > tau)
        if keep.size == z.size:
            return float(tau)
        if keep.size == 0:                      # only a NaN gets here: leave it to the sort rule, as short rows
            return float(sorted_threshold(row)[0])
        z = keep
        tau = (z.sum() - 1.0) / z.size
    return float(sorted_threshold(z)[0])        # the dropped coordinates are below the root: exact on z


def simplex_threshold(y: np.ndarray, guess: float | None = None) -> np.ndarray:
    """τ per row (shape (..., 1)) such that max(y − τ, 0) is the projection of y onto the simplex.

    Parameters
    ----------
    y : numpy.ndarray, shape (..., n)
        Points, one per row (float).
    guess : float or None, default None
        For one long row, a guess at τ that may save passes (`newton_threshold`); never changes τ.
    """
    if y.shape[-1] < NEWTON_FROM:
        return sorted_threshold(y)
    if y.size == y.shape[-1]:                   # one row (an OMD step of one replicate): no list to stack
        return np.full(y.shape[:-1] + (1,), newton_threshold(y.reshape(-1), guess))
    rows = y.reshape(-1, y.shape[-1])
    return np.array([newton_threshold(row) for row in rows]).reshape(y.shape[:-1] + (1,))
