"""The pair structure of near-isometric embedding: unit differences of points and a fast supergradient (theory §5.6).

Fitted on points, the rows are x_ij = (p_i − p_j)/D_ij, and everything the game needs per round
from the pairs — ‖Vᵀx_ij‖² for all of them — follows from the r points alone (`UnitPairs`).

>>> import numpy as np
>>> pts = np.random.default_rng(0).standard_normal((6, 4))
>>> pairs = UnitPairs.from_points(pts)
>>> V = np.linalg.qr(np.random.default_rng(1).standard_normal((4, 2)))[0]
>>> pairs.X.shape, bool(np.allclose(pairs.captured(V), np.sum((pairs.X @ V) ** 2, axis=1)))
((15, 4), True)
"""
from __future__ import annotations

import numpy as np

from onlinelab.embedding.dual import _finite_matrix, captured
from onlinelab.errors import ConfigError

EPS = float(np.finfo(float).eps)
DOUBT = 1e-13   # a pair whose pair-path rounding bound exceeds this is computed directly (far below BRACKET_TOL 1e-9)


def check_pairs(r: int, d: int, T: int | None = None, *, field: str = "points", rounds_field: str = "T") -> None:
    """Refuse r points in dimension d whose n = r(r − 1)/2 pairs cannot fit in memory (or, given T, in time).

    The pairs hold n unit differences of length d (and the pair indices, and the r × r mask that lists them);
    a round of the game costs an O(n·d) supergradient and an O(d³) eigendecomposition (theory §5.6,
    docs/theory/05-near-isometric.md).  The estimate is `onlinelab.core.sizes`'s, shared with every run kind.

    Parameters
    ----------
    r, d : int
        Number of points and their dimension.
    T : int or None, default None
        Rounds of the game, for the time estimate.
    field, rounds_field : str
        How messages name r and T (``"embedding.points"`` and ``"run.rounds"`` in a config).

    >>> check_pairs(10 ** 7, 4, field="embedding.points")
    Traceback (most recent call last):
    ...
    onlinelab.errors.ConfigError: this run needs about 4.1 PB of memory (embedding.points = 10000000, ...
    """
    from onlinelab.core.sizes import FLOPS_PER_S, Estimate, check_estimate
    n = float(r) * (r - 1) / 2
    need = float(r) ** 2 + n * (2 * 8.0 * d + 16.0)
    seconds = 0.0 if T is None else float(T) * (4.0 * n * d + 15.0 * float(d) ** 3) / FLOPS_PER_S
    sizes = f"{field} = {r}, so {n:.3g} pairs, in dimension {d}" + ("" if T is None else f", {rounds_field} = {T}")
    check_estimate(Estimate(need, seconds), sizes=sizes, fix=f"embed fewer points (lower {field}) or a subset")


def point_pairs(points):
    """Centred points P, pair indices i < j (np.triu_indices order), unit differences and their squared norms.

    The differences are written row block by row block into one array and scaled in place (gathering
    P[i] − P[j] touched four arrays of n·d; this is a quarter of the memory and time, theory §5.6).

    Parameters
    ----------
    points : array-like, shape (r, d)
        At least two points, no duplicates, no NaN.

    Returns
    -------
    tuple
        ``(P, i, j, X, sq)``: centred points (r × d), pair indices, unit differences (n × d), D_ij².
    """
    P = _finite_matrix("points", points)
    if P.shape[0] < 2:
        raise ConfigError(f"points needs at least two rows (pairs are what is embedded), got {P.shape[0]}; "
                          "pass r ≥ 2 points")
    P = P - P.mean(axis=0)                       # differences are unchanged; the pair path's rounding shrinks
    r = P.shape[0]
    check_pairs(r, P.shape[1])
    i, j = np.triu_indices(r, 1)
    X = np.empty((i.size, P.shape[1]))
    start = 0
    for a in range(r - 1):
        np.subtract(P[a], P[a + 1:], out=X[start:start + r - 1 - a])
        start += r - 1 - a
    sq = np.einsum("ij,ij->i", X, X)
    zero = np.flatnonzero(sq == 0)
    if zero.size:
        a, b = int(i[zero[0]]), int(j[zero[0]])
        raise ConfigError(f"points has duplicate rows ({a} and {b}, and {zero.size - 1} more pairs): their difference "
                          "is zero and has no direction; drop duplicates first, e.g. np.unique(points, axis=0)")
    X /= np.sqrt(sq)[:, None]
    return P, i, j, X, sq


class UnitPairs:
    """The unit rows x_1..x_n with ‖Vᵀx_ℓ‖² for every pair at once — the supergradient (theory §5.6).

    Built by `from_points`, it keeps the centred points P (r × d) and, for x_ij = (p_i − p_j)/D_ij,
    computes ‖Vᵀx_ij‖² = ‖Y_i − Y_j‖²/D_ij² with Y = PV as (s_i + s_j − 2G_ij)/D_ij², G = YYᵀ,
    s_i = ‖Y_i‖² — all numerators at once as A Bᵀ with A = [Y, s, 1], B = [−2Y, 1, s]:
    r·d·k + r²·(k + 2) flops instead of the n·d·k = r²·d·k/2 of X·V.  Rounding: ‖Y_i‖ ≤ ‖p_i‖ for
    orthonormal V, so the numerator's cancellation costs at most about (d + k)·ε·(‖p_i‖ + ‖p_j‖)²
    absolute, i.e. (d + k)·ε·ρ² relative to the pair with ρ = max (‖p_i‖ + ‖p_j‖)/D_ij — small after
    centring (ρ² ≈ 23 for the 142 fives of the benchmark: a bound of 4e-13; measured 2e-15;
    tests/embedding/test_embedding_pairs.py).  Badly scaled points make ρ large and the pair path less exact:
    the pairs whose bound (d + k)·ε·ρ² exceeds `DOUBT` (clusters 10⁷ apart: ρ² ≈ 10¹⁴ within a cluster) are
    computed directly, ‖Vᵀx_ij‖² from their unit difference x_ij (formed by subtraction, so as exact as the
    data), and `rounding` reports the bound that remains.  Built from differences (`from_rows`) it computes X·V.

    Parameters
    ----------
    X : numpy.ndarray, shape (n, d)
        Unit rows.
    points : tuple or None, default None
        (centred points, flat index i·r + j of each pair, D_ij²) from `from_points`.
    """

    def __init__(self, X, points=None):
        self.X, self._points = X, points

    @classmethod
    def from_points(cls, points) -> UnitPairs:
        """The r(r−1)/2 unit differences of ``points`` (rows), with the pair structure kept.

        Parameters
        ----------
        points : array-like, shape (r, d)
            At least two points, no duplicates, no NaN.
        """
        P, i, j, X, sq = point_pairs(points)
        norms = np.sqrt(np.einsum("ij,ij->i", P, P))
        rho_sq = (norms[i] + norms[j]) ** 2 / sq          # ρ² per pair: the pair path's error is (d + k)·ε·ρ²
        return cls(X, (P, i * P.shape[0] + j, sq, rho_sq))

    def doubtful(self, k: int) -> np.ndarray:
        """Indices of the pairs whose pair-path rounding bound (d + k)·ε·ρ² exceeds `DOUBT` (computed directly).

        Parameters
        ----------
        k : int
            Target dimension.
        """
        if self._points is None:
            return np.empty(0, dtype=int)
        return np.flatnonzero(self._points[3] * ((self.X.shape[1] + k) * EPS) > DOUBT)

    def rounding(self, k: int) -> float:
        """A bound on the absolute rounding of ``captured`` (k columns) over every pair, scaled to the data: (d + k)·ε
        times ρ² on the pair path (at most `DOUBT` there, the rest being direct) or times 1 on the direct path, plus
        4ε·max ρ for the unit differences themselves (centring and subtracting points of norm ρ·D_ij).

        Parameters
        ----------
        k : int
            Target dimension.
        """
        unit = (self.X.shape[1] + k) * EPS
        if self._points is None:
            return unit
        rho_sq = self._points[3]
        kept = rho_sq[rho_sq * unit <= DOUBT]
        return float(max(unit, unit * kept.max(initial=0.0)) + 4 * EPS * np.sqrt(rho_sq.max()))

    @classmethod
    def from_rows(cls, X) -> UnitPairs:
        """Unit rows given directly (no pair structure): ‖Vᵀx‖² by X·V.

        Parameters
        ----------
        X : array-like, shape (n, d)
            Unit rows, e.g. `onlinelab.embedding.dual.unit_rows`'s.
        """
        return X if isinstance(X, cls) else cls(np.asarray(X, dtype=float))

    def captured(self, V: np.ndarray) -> np.ndarray:
        """‖Vᵀx_ℓ‖² for every row ℓ (see the class docstring for the pair path and its rounding).

        Parameters
        ----------
        V : numpy.ndarray, shape (d, k)
            Orthonormal columns.
        """
        if self._points is None:
            return captured(self.X, V)
        P, flat, sq, _ = self._points
        r, k = P.shape[0], V.shape[1]
        A, B = np.empty((r, k + 2)), np.empty((r, k + 2))       # A = [Y, s, 1], B = [−2Y, 1, s]:
        Y = A[:, :k]                                            # A Bᵀ = s_i + s_j − 2 G_ij in one product
        np.matmul(P, V, out=Y)
        np.einsum("ij,ij->i", Y, Y, out=A[:, k])
        np.multiply(Y, -2.0, out=B[:, :k])
        A[:, k + 1], B[:, k], B[:, k + 1] = 1.0, 1.0, A[:, k]
        out = (A @ B.T).take(flat)
        np.maximum(out, 0.0, out=out)                           # a rounded −0 is still a squared length
        out /= sq
        doubt = self.doubtful(k)
        if doubt.size:                                          # badly scaled pairs: directly, from x_ij
            out[doubt] = captured(self.X[doubt], V)
        return out


def unit_differences(points) -> np.ndarray:
    """The n = r(r−1)/2 normalised pairwise differences (u_i − u_j)/‖u_i − u_j‖, i < j, as rows.

    Parameters
    ----------
    points : array-like, shape (r, d)
        The points, one per row; r ≥ 2 and no two equal (a zero difference has no direction).
    """
    from onlinelab.embedding.pairs import point_pairs  # the pairs' module builds on this one's helpers
    return point_pairs(points)[3]
