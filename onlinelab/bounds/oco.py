"""Regret bounds of the OCO learners as data (theory §3.2, docs/theory/03-oco-fenchel.md),
evaluated on the run's loss statistics.

The FTRL / OMD bound is ``range/η + η/(2β)·Σ‖g_t‖*²`` where ``range`` = sup_u D_φ(u, z₁)
(= R(u) − min R for FTRL started at argmin R), β the regulariser's strong convexity and
‖·‖* its dual norm, read from the loss statistic named by the mirror map (``spec_sq`` for
entropy — ‖·‖∞, the spectral norm on matrices — and ``fro_sq`` for the Euclidean map).
Prescient learners: FTL+ and BESTRESP+ have regret ≤ 0 (be-the-leader), FTRL+ ≤ range/η,
OMD+ ≤ D_φ(u, z₀)/γ.  FTL on strongly convex losses: Σ‖g_t‖²/(2λ_{1:t}).  Capped MEG: theory §2 "Rank k".
Curves take the cumulative statistics at each checkpoint t.

>>> import numpy as np
>>> from onlinelab.bounds.base import LossStats
>>> b = ftrl_bound("ftrl", range_=np.log(4), beta=1.0, eta=0.1, stat="spec_sq", assumptions={})
>>> s = LossStats(np.array([100]), np.zeros((1, 1)), spec_sq=np.array([[100.0]]))
>>> round(float(b.curve(s)[0, 0]), 4)
18.8629
"""
from __future__ import annotations

import numpy as np

from onlinelab.bounds.base import Bound

ZERO_TOL = 1e-9  # be-the-leader bounds are 0; allow rounding relative to the comparator's size


def ftrl_bound(name: str, range_: float, beta: float, eta: float, stat: str, assumptions: dict,
               ref: str = "theory §3.2 FTRL [std]") -> Bound:
    """range/η + η/(2β) Σ‖g_t‖*² (FTRL, and OMD with γ for η: Lemma 6.21).

    Parameters
    ----------
    name : str
        The learner's name (the bound is called ``"<name>-regret"``).
    range_ : float
        max ψ − min ψ of the regulariser over the domain.
    beta : float
        Strong convexity β of the regulariser.
    eta : float
        Learning rate (or OMD's γ).
    stat : str
        Loss statistic holding Σ‖α_t g_t‖*² (``"fro_sq"`` or ``"spec_sq"``).
    assumptions : dict
        Further assumptions and whether they held.
    ref : str, default "theory §3.2 FTRL [std]"
        Reference into the theory pages.
    """
    return Bound(f"{name}-regret", ref, f"range/η + η/(2β)·Σ{stat}  (range {range_:.4g}, β {beta:.4g}, η {eta:.4g})",
                 {f"η = {eta:.4g} > 0": eta > 0, f"finite regulariser range ({range_:.4g})": bool(np.isfinite(range_)),
                  **assumptions},
                 lambda s: range_ / eta + eta / (2 * beta) * getattr(s, stat), pointwise=True)


def prescient_bound(name: str, range_: float, eta: float, assumptions: dict, ref: str) -> Bound:
    """range/η for FTRL+ / OMD+ (0 for FTL+ and BESTRESP+: pass range_ = 0).

    Parameters
    ----------
    name : str
        The learner's name.
    range_ : float
        max ψ − min ψ (0 for FTL+ and BESTRESP+).
    eta : float
        Learning rate (0 when ``range_`` is 0).
    assumptions : dict
        Assumptions and whether they held.
    ref : str
        Reference into the theory pages.
    """
    const = range_ / eta if eta else 0.0
    return Bound(f"{name}-prescient", ref, f"{const:.4g} (be-the-leader)",
                 {f"finite regulariser range ({range_:.4g})": bool(np.isfinite(range_)), **assumptions},
                 lambda s: const + ZERO_TOL * (1.0 + np.abs(s.comparator)), pointwise=True)


def capped_meg_bounds(d: int, m: int, eta: float, tuned_for: float | None, ctx) -> list:
    """Capped MEG, rank-m projectors, 0 ⪯ L_t ⪯ I (theory §2 "Rank k"), with D = m log(d/m) = m·sup KL(U‖I/d).

    First order, any η: Σ⟨mW_t, L_t⟩ ≤ (ηL* + D)/(1 − e^{−η}), so regret ≤ that − L* [std form, D derived].
    Tuned, η = ln(1 + √(2D/L̂)) with L̂ ≥ L*: regret ≤ √(2L̂D) + D [derived] (``tuned_for`` = L̂, else None).

    Parameters
    ----------
    d : int
        Dimension.
    m : int
        Rank of the played projectors, m = d − k.
    eta : float
        Learning rate.
    tuned_for : float or None
        L̂ the learning rate was tuned for, or ``None`` when η was given.
    ctx : Context
        The run's context.
    """
    D = m * np.log(d / m)
    held = {"L_t ⪰ 0 (declared, checked every round)": ctx.psd is True,
            "‖L_t‖₂ ≤ 1 (declared, checked every round)": ctx.loss_bound <= 1.0}
    out = [Bound("capped-meg-first-order", "theory §2 Rank k, MEG first-order form [derived]",
                 f"(η·L* + m log(d/m))/(1 − e^{{−η}}) − L*  (η {eta:.4g}, m log(d/m) {D:.4g})", held,
                 lambda s: (eta * s.comparator + D) / (1 - np.exp(-eta)) - s.comparator, pointwise=True)]
    if tuned_for is not None:
        out.append(Bound("capped-meg-tuned", "theory §2 Rank k [derived]",
                         f"√(2 L̂ m log(d/m)) + m log(d/m), L̂ = {tuned_for:.4g}",
                         {**held, f"L̂ = {tuned_for:.4g} ≥ m·T·loss_bound ≥ L* (L* ≤ m·λ_max(Σ L_s) ≤ m·Σ‖L_s‖₂)":
                          bool(tuned_for >= m * ctx.T * ctx.loss_bound * (1 - 1e-12))},
                         lambda s: np.sqrt(2 * tuned_for * D) + D + 0.0 * s.comparator, pointwise=True))
    return out


def ftl_strongly_convex_bound(assumptions: dict) -> Bound:
    """FTL when ℓ_t is λ_t-strongly convex (w.r.t. ‖·‖₂): regret ≤ Σ_t ‖g_t‖₂²/(2λ_{1:t}) [std] (theory §3.2 table).

    The losses report λ_t as the statistic ``curvature`` and a bound on ‖g_t‖₂² as ``fro_sq``; only their
    sums at checkpoints c₁ < c₂ < … are kept, so the curve charges the rounds in (c_{j−1}, c_j] at the
    smaller λ_{1:c_{j−1}} (λ_{1:s} only grows; exact when c_j = c_{j−1} + 1): valid, slightly looser.  It
    needs c₁ = 1 (λ_{1:1} known) and is +inf where the losses report no curvature (e.g. linear losses).

    Parameters
    ----------
    assumptions : dict
        Further assumptions and whether they held.
    """
    def curve(s):
        lam = getattr(s, "curvature", None) if "curvature" in s.sums else None
        if lam is None:
            return np.full(np.shape(s.comparator), np.inf)
        fro, t = s.fro_sq, np.asarray(s.t)
        single = np.diff(t, prepend=0) == 1                 # a one-round segment: its λ_{1:t} is known exactly
        den = np.where(single, lam, np.concatenate([np.zeros_like(lam[:, :1]), lam[:, :-1]], axis=1))
        inc = np.diff(fro, axis=1, prepend=0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(inc > 0, inc / (2 * den), 0.0)
        return np.cumsum(np.where(den > 0, step, np.where(inc > 0, np.inf, 0.0)), axis=1)
    return Bound("ftl-strongly-convex", "theory §3.2 FTL, λ_t-strongly convex losses [std]",
                 "Σ_t ‖g_t‖₂²/(2λ_{1:t}), λ_{1:t} read at the previous checkpoint",
                 {"ℓ_t λ_t-strongly convex, λ_t = the losses' 'curvature' statistic (+inf bound if none)": True,
                  **assumptions}, curve, pointwise=True)
