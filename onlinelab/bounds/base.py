"""Theoretical regret bounds as data: a formula over the run's loss statistics plus the assumptions it needs.

A `Bound` is evaluated on `LossStats` (per replicate, at each checkpoint t):
``spec_sq`` = Σ_{s≤t} ‖L_s‖₂², ``fro_sq`` = Σ_{s≤t} ‖L_s‖_F², ``comparator`` = λ_min(Σ_{s≤t} L_s).
Each bound keeps a fixed η and replaces the horizon by t, which the proofs allow
(the smoothed comparator of Lemma 9 is built for horizon t).  ``assumptions`` maps
a readable statement to whether it held in this run; a bound is *applicable* when
all held, and only then may a mean regret above it be called a violation.

Bounds whose regret notion is the pseudo-regret of a randomised learner carry the
assumption "oblivious adversary": against an adaptive one the per-replicate mean
over-estimates the pseudo-regret (theory §1.1, docs/theory/01-bandit-pca.md), so the comparison is not a test.

>>> import numpy as np
>>> b = meg_worst_case(d=4, eta=0.1)
>>> stats = LossStats(t=np.array([100]), spec_sq=np.array([[100.0]]), fro_sq=np.array([[100.0]]),
...                   comparator=np.array([[0.0]]))
>>> round(float(b.curve(stats)[0, 0]), 4)   # log(4)/0.1 + 0.1/2 * 100
18.8629
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

TOL = 1e-12


class LossStats:
    """Checkpoint rounds ``t`` (C,), ``comparator`` (R, C) and cumulative loss statistics (R, C) by name.

    Statistics are whatever the loss type accumulates (``MatrixLoss``: ``spec_sq``, ``fro_sq``);
    they read as attributes, e.g. ``stats.spec_sq``.

    Parameters
    ----------
    t : array-like
        Checkpoint rounds, shape ``(C,)``.
    comparator : array-like
        λ_min(Σ_{s≤t} L_s) per replicate and checkpoint, shape ``(R, C)``.
    **sums
        Cumulative loss statistics by name, each ``(R, C)``: ``spec_sq`` = Σ‖L_s‖₂², ``fro_sq`` = Σ‖L_s‖_F², …
    """

    def __init__(self, t, comparator, **sums):
        self.t, self.comparator, self.sums = np.asarray(t), np.asarray(comparator), sums

    def __getattr__(self, name):
        try:
            return self.__dict__["sums"][name]
        except KeyError:
            raise AttributeError(f"no loss statistic {name!r}; this run accumulated "
                                 f"{sorted(self.__dict__.get('sums', {}))}") from None


@dataclass(frozen=True)
class Bound:
    """A regret bound: ``curve(stats)`` gives its value per replicate and checkpoint.

    ``pointwise=True`` when it bounds every replicate's regret (deterministic learners, whose
    regret is a function of the loss sequence): then a single replicate above it is a
    violation.  Otherwise it bounds the expected regret and the replicate mean is compared.

    Parameters
    ----------
    name : str
        Short identifier, e.g. ``"meg-worst-case"``.
    ref : str
        Where the bound is stated, as ``"theory §2 …"`` (a section of docs/theory).
    formula : str
        The formula as shown in reports and legends.
    assumptions : dict
        Readable statement → whether it held in this run; the bound applies only when all held.
    curve : callable
        ``curve(stats)`` → the bound per replicate and checkpoint, from a `LossStats`.
    pointwise : bool, default False
        True when it bounds every replicate's regret (deterministic learners); False when it bounds
        the expected regret (compared with the replicate mean).
    reference : bool, default False
        True for a rate known only up to its constant (an O(·) drawn with constant 1): it is drawn
        and tabulated as a reference curve of the right slope but never checked as a bound.
    lower : bool, default False
        True for a lower bound (Lai–Robbins, minimax; theory §10): the regret lies above it only
        asymptotically or on a worst-case instance, so it is drawn as a reference curve and never
        flagged as violated.
    metric : str, default "regret"
        The recorded metric the bound is about: ``"regret"`` (against the best fixed action in
        hindsight) or ``"pseudo_regret"`` (against the arms' means, `onlinelab.core.arm_metrics`).
    """

    name: str
    ref: str
    formula: str
    assumptions: dict
    curve: Callable[[LossStats], np.ndarray]
    pointwise: bool = False
    reference: bool = False
    lower: bool = False
    metric: str = "regret"

    @property
    def checked(self) -> bool:
        """Whether a run above the curve is a violation: an upper bound with a confirmed constant."""
        return not (self.reference or self.lower)

    @property
    def holds(self) -> bool:
        return all(self.assumptions.values())

    def failed(self) -> list[str]:
        return [k for k, ok in self.assumptions.items() if not ok]


def _log(t) -> np.ndarray:
    return np.log(np.asarray(t, dtype=float))


def _norm_ok(ctx) -> dict:
    return {"‖L_t‖₂ ≤ 1 (declared, checked every round)": ctx.loss_bound <= 1.0}


def _oblivious(ctx) -> dict:
    return {"oblivious adversary (per-replicate mean estimates the pseudo-regret)": not ctx.adaptive}


def c_d(d: int) -> float:
    """Stability constant of the dense estimator, max(8, 2d(d−1)) [derived, theory §1.5].

    Parameters
    ----------
    d : int
        Dimension.
    """
    return float(max(8, 2 * d * (d - 1)))


def logdet_dense(d: int, eta: float, gamma: float, ctx) -> Bound:
    """theory §1.5 Theorem 3 with the corrected constant: d log t/η + η c_d Σ E ℓ_s² + 2, using E ℓ_s² ≤ ‖L_s‖₂².

    Parameters
    ----------
    d : int
        Dimension.
    eta : float
        The learner's learning rate η.
    gamma : float
        The learner's exploration rate γ.
    ctx : Context
        The run's context (declared norm bound, sign, adaptivity).
    """
    cd = c_d(d)
    return Bound(
        "logdet-dense-thm3", "theory §1.5 Theorem 3 (c_d corrected)",
        f"d·log t/η + η·{cd:g}·Σ‖L_s‖₂² + 2",
        {"γ = 0": gamma == 0, f"η = {eta:.4g} ≤ 1/(2d) = {1 / (2 * d):.4g}": eta <= 1 / (2 * d) + TOL,
         **_norm_ok(ctx), **_oblivious(ctx)},
        lambda s: d * _log(s.t) / eta + eta * cd * s.spec_sq + 2.0,
    )


def logdet_first_order(d: int, eta: float, gamma: float, ctx) -> Bound:
    """theory §1.5 first-order bound: 2d log t/η + 4η d² L* + 4, for PSD losses and η ≤ 1/(4d²).

    Parameters
    ----------
    d : int
        Dimension.
    eta : float
        The learner's learning rate η.
    gamma : float
        The learner's exploration rate γ.
    ctx : Context
        The run's context (declared norm bound, sign, adaptivity).
    """
    return Bound(
        "logdet-first-order", "theory §1.5 first-order bound [derived]",
        "2d·log t/η + 4η·d²·L* + 4",
        {"γ = 0": gamma == 0, f"η = {eta:.4g} ≤ 1/(4d²) = {1 / (4 * d * d):.4g}": eta <= 1 / (4 * d * d) + TOL,
         "L_t ⪰ 0 (declared, checked every round)": ctx.psd is True, **_norm_ok(ctx), **_oblivious(ctx)},
        lambda s: 2 * d * _log(s.t) / eta + 4 * eta * d * d * np.maximum(s.comparator, 0.0) + 4.0,
    )


def logdet_sparse(d: int, eta: float, gamma: float, ctx) -> Bound:
    """theory §1.5 Theorem 6: d log t/η + 2γt + 2 + 8η d Σ‖L_s‖_F² (exploration cost 2γt, γ = ηd).

    Parameters
    ----------
    d : int
        Dimension.
    eta : float
        The learner's learning rate η.
    gamma : float
        The learner's exploration rate γ.
    ctx : Context
        The run's context (declared norm bound, sign, adaptivity).
    """
    return Bound(
        "logdet-sparse-thm6", "theory §1.5 Theorem 6 (exploration term corrected)",
        "d·log t/η + 2γ·t + 2 + 8η·d·Σ‖L_s‖_F²",
        {f"η = {eta:.4g} ≤ 1/(2d) = {1 / (2 * d):.4g}": eta <= 1 / (2 * d) + TOL,
         f"γ = {gamma:.4g} = η·d": abs(gamma - eta * d) <= 1e-9 * max(1.0, gamma),
         **_norm_ok(ctx), **_oblivious(ctx)},
        lambda s: d * _log(s.t) / eta + 2 * gamma * s.t + 2.0 + 8 * eta * d * s.fro_sq,
    )


def logdet_full_information(d: int, eta: float, gamma: float, ctx) -> Bound:
    """theory §2 log-det OMD with full information: (d−1) log t/η + 2ηt + 2 for η ≤ ½ (deterministic learner).

    Parameters
    ----------
    d : int
        Dimension.
    eta : float
        The learner's learning rate η.
    gamma : float
        The learner's exploration rate γ.
    ctx : Context
        The run's context (declared norm bound, sign, adaptivity).
    """
    return Bound(
        "logdet-full-info", "theory §2 log-det OMD, full information [derived]",
        "(d−1)·log t/η + 2η·t + 2",
        {"γ = 0": gamma == 0, f"η = {eta:.4g} ≤ 1/2": eta <= 0.5 + TOL, **_norm_ok(ctx)},
        lambda s: (d - 1) * _log(s.t) / eta + 2 * eta * s.t + 2.0 + 0.0 * s.comparator,
        pointwise=True,
    )


def meg_worst_case(d: int, eta: float, ctx=None) -> Bound:
    """theory §2 MEG worst case: log d/η + (η/2) Σ‖L_s‖₂² (any symmetric losses; deterministic learner).

    Parameters
    ----------
    d : int
        Dimension.
    eta : float
        The learner's learning rate η.
    ctx : Context or None
        The run's context.
    """
    return Bound(
        "meg-worst-case", "theory §2 MEG worst case [std]",
        "log d/η + (η/2)·Σ‖L_s‖₂²",
        {"η > 0": eta > 0},
        lambda s: np.log(d) / eta + 0.5 * eta * s.spec_sq,
        pointwise=True,
    )


def meg_first_order(d: int, eta: float, ctx) -> Bound:
    """theory §2 MEG first order, 0 ⪯ L_t ⪯ I: Σ⟨W_t, L_t⟩ ≤ (η L* + log d)/(1 − e^{−η}), minus L*.

    Parameters
    ----------
    d : int
        Dimension.
    eta : float
        The learner's learning rate η.
    ctx : Context or None
        The run's context.
    """
    return Bound(
        "meg-first-order", "theory §2 MEG first order [std]",
        "(η·L* + log d)/(1 − e^{−η}) − L*",
        {"L_t ⪰ 0 (declared, checked every round)": ctx.psd is True, **_norm_ok(ctx)},
        lambda s: (eta * s.comparator + np.log(d)) / (1 - np.exp(-eta)) - s.comparator,
        pointwise=True,
    )
