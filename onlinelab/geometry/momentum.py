"""Nesterov/FISTA extrapolation sequences shared by every accelerated method here (theory §6, §9).

Two rules for t_k, both with t_1 = 1, t_k ≥ (k+1)/2 and t_{k+1}² − t_{k+1} ≤ t_k², which is all the
proof of the 2‖x⁰ − x̂‖²/(τ(k+1)²) rate uses [std]:

* ``"recursive"`` t_{k+1} = (1 + √(1 + 4t_k²))/2 (Beck–Teboulle);
* ``"linear"``    t_k = (k + 1)/2.

β_k = (t_k − 1)/t_{k+1}, and y^k = x^k + β_k (x^k − x^{k−1}).  The notes' Algorithms 9 and 11 use
β = (t_{k+1} − 1)/t_{k+1} instead (``momentum="notes"``): it converges in practice but no rate is
proved for it, so the rate curve is marked not applicable.  (The notes' claim t_k ≥ k is false:
t_2 = 1.618; the true fact is t_k ≥ (k+1)/2.)

>>> tuple(round(b, 4) for b in betas(4, "recursive"))
(0.0, 0.2818, 0.434, 0.5311)
>>> tuple(betas(3, "linear"))
(0.0, 0.25, 0.4)
"""
from __future__ import annotations

import math

import numpy as np

from onlinelab.core import validation as v

RULES = ("recursive", "linear")
MOMENTA = ("fista", "notes")


def t_value(k: int, rule: str, prev: float | None = None) -> float:
    """t_k (k ≥ 1) under ``rule``; the recursive rule needs ``prev`` = t_{k−1} for k ≥ 2.

    Parameters
    ----------
    k : int
        Index k ≥ 1.
    rule : {"recursive", "linear"}
        The t_k rule.
    prev : float or None, default None
        t_{k−1} (recursive rule only).
    """
    if k == 1:
        return 1.0
    if rule == "linear":
        return (k + 1) / 2.0
    return (1.0 + math.sqrt(1.0 + 4.0 * prev * prev)) / 2.0


class Momentum:
    """The β_k of an accelerated method, advanced one iteration at a time (explicit, picklable state).

    Parameters
    ----------
    rule : {"recursive", "linear"}, default "recursive"
        The t_k rule.
    momentum : {"fista", "notes"}, default "fista"
        β_k = (t_k − 1)/t_{k+1} (proved rate) or the notes' (t_{k+1} − 1)/t_{k+1} (no proved rate).
    """

    def __init__(self, rule: str = "recursive", momentum: str = "fista"):
        self.rule = v.choice("t_rule", rule, RULES)
        self.momentum = v.choice("momentum", momentum, MOMENTA)
        self.k, self.t = 1, 1.0

    def next_beta(self) -> float:
        """Advance k → k + 1 and return β_k, the weight of x^k − x^{k−1} in y^k."""
        t_next = t_value(self.k + 1, self.rule, self.t)
        beta = (self.t - 1.0) / t_next if self.momentum == "fista" else (t_next - 1.0) / t_next
        self.k, self.t = self.k + 1, t_next
        return beta

    @property
    def proved(self) -> bool:
        """Whether the 1/k² rate is proved for this choice (FISTA's β, either t rule)."""
        return self.momentum == "fista"


def betas(n: int, rule: str = "recursive", momentum: str = "fista") -> list[float]:
    """The first ``n`` weights β_1, …, β_n.

    Parameters
    ----------
    n : int
        How many.
    rule : {"recursive", "linear"}, default "recursive"
        The t_k rule.
    momentum : {"fista", "notes"}, default "fista"
        Which β formula.
    """
    m = Momentum(rule, momentum)
    return [m.next_beta() for _ in range(n)]


def restarted_fista(mapping, x0, target, max_iter: int):
    """Accelerated fixed-point iteration x ← mapping(y) with O'Donoghue–Candès gradient restart, per replicate.

    ``mapping(y)`` is one (proximal) gradient step from y; the step length ‖y − mapping(y)‖ (over all
    axes but the first) is the stopping measure.  Used for reference solutions (G⋆, E⋆), where only
    the limit matters: restarting whenever the momentum points uphill makes FISTA fast on the
    locally strongly convex problems it meets here.  Returns ``(x, step_norm, iterations)``.

    Parameters
    ----------
    mapping : callable
        y (R, …) → the next iterate (R, …).
    x0 : numpy.ndarray
        Start, shape (R, …).
    target : numpy.ndarray
        Per-replicate tolerance on the step length, shape (R,).
    max_iter : int
        Iteration cap.
    """
    axes = tuple(range(1, np.ndim(x0)))
    shape = (-1,) + (1,) * len(axes)
    x_prev, y, x = x0.copy(), x0.copy(), x0.copy()
    t, k = np.ones(x0.shape[0]), 0
    norm = np.full(x0.shape[0], np.inf)
    live = np.ones(x0.shape[0], dtype=bool)
    while k < max_iter:
        # each replicate has its own momentum and stops at its own tolerance (its rows are then frozen), so its
        # iterates never depend on the other replicates (docs/architecture.md, "Determinism")
        x_new = mapping(y)
        step = y - x_new
        k += 1
        x = np.where(live.reshape(shape), x_new, x)
        norm = np.where(live, np.sqrt(np.sum(step * step, axis=axes)), norm)
        live &= ~(norm <= target)
        if not live.any():
            break
        restart = np.sum(step * (x - x_prev), axis=axes) > 0          # momentum points uphill: reset it
        t_next = (1.0 + np.sqrt(1.0 + 4.0 * t * t)) / 2.0
        beta = np.where(restart, 0.0, (t - 1.0) / t_next).reshape(shape)
        y, x_prev = np.where(live.reshape(shape), x + beta * (x - x_prev), y), x
        t = np.where(restart, 1.0, t_next)
    return x, norm, k
