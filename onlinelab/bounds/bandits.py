"""Stochastic bandit bounds as data: UCB1's and MOSS's upper bounds, asymptotic rates, and lower bounds (theory §10).

An arms environment describes its instance as an `ArmInstance` (reward means, family, change
points) and hands `arms_bounds` to the simulator through ``Environment.instance_bounds``: every
bandit learner facing it gets the lower bounds, and a learner that knows gap-dependent bounds of its
own lists them in ``instance_bounds(instance, ctx)``.  The curves are about the pseudo-regret
(``metric="pseudo_regret"``, `onlinelab.core.arm_metrics`), Σ_i Δ_i N_i(t), in expectation.
With μ* = max μ_i, Δ_i = μ* − μ_i and kl the relative entropy of the family:

* UCB1 (Auer, Cesa-Bianchi and Fischer 2002, Theorem 1), rewards in [0, 1]:
  8·Σ_{Δ_i > 0} ln t/Δ_i + (1 + π²/3)·Σ_i Δ_i, for every t — a checked bound;
* MOSS (Audibert and Bubeck 2009), rewards in [0, 1], horizon n: 49√(nK) at every t ≤ n (the
  pseudo-regret only grows) — checked;
* KL-UCB (Garivier and Cappé 2011) and Thompson sampling (Agrawal and Goyal 2013; Kaufmann, Korda and
  Munos 2012): (1 + ε)·Σ Δ_i ln t/kl(μ_i, μ*) plus terms whose constants the papers leave implicit —
  drawn with ε = 0 and those terms dropped, as a reference, never checked;
* Lai and Robbins (1985), consistent policies: liminf R̄_t/ln t ≥ Σ_{Δ_i > 0} Δ_i/kl(μ_i, μ*), drawn as
  t ↦ Σ Δ_i/kl(μ_i, μ*)·ln t (``lower=True``: never flagged; a ratio near or below 1 at finite t is allowed);
* minimax (Auer, Cesa-Bianchi, Freund and Schapire 2002, Theorem 5.1): every policy has, on some
  Bernoulli instance, R̄_t ≥ min(√(Kt), t)/20 (``lower=True``).

>>> inst = ArmInstance(means=(0.9, 0.8))
>>> round(inst.lai_robbins_constant(), 4)      # 0.1/kl(0.8, 0.9)
2.2521
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from onlinelab.bounds.base import Bound
from onlinelab.geometry.kl import kl_bernoulli, kl_gaussian

MOSS_CONSTANT = 49.0     # Audibert and Bubeck (2009): sup R̄_n ≤ 49√(nK)
MINIMAX_CONSTANT = 1 / 20  # Auer et al. (2002), Theorem 5.1: inf sup R̄_n ≥ min(√(nK), n)/20


@dataclass(frozen=True)
class ArmInstance:
    """The stochastic instance an arms environment plays: reward means, their family, change points.

    Parameters
    ----------
    means : tuple of float
        Reward means μ_i of the arms (of the first phase, for piecewise-stationary arms).
    family : str, default "bernoulli"
        "bernoulli" (rewards in {0, 1}) or "gaussian" (rewards N(μ_i, σ²)).
    sigma : float, default 1.0
        σ of the Gaussian family.
    changes : tuple of int, default ()
        Rounds at which the means change (empty: stationary).
    """

    means: tuple
    family: str = "bernoulli"
    sigma: float = 1.0
    changes: tuple = ()

    @property
    def stationary(self) -> bool:
        return not self.changes

    @property
    def bounded(self) -> bool:
        """Whether the rewards lie in [0, 1] (the Bernoulli family)."""
        return self.family == "bernoulli"

    def gaps(self) -> np.ndarray:
        mu = np.asarray(self.means, dtype=float)
        return mu.max() - mu

    def kl(self, p, q) -> np.ndarray:
        """The family's relative entropy kl(p, q)."""
        return kl_bernoulli(p, q) if self.family == "bernoulli" else kl_gaussian(p, q, self.sigma)

    def lai_robbins_constant(self) -> float:
        """Σ_{Δ_i > 0} Δ_i/kl(μ_i, μ*) (inf if some suboptimal arm has kl = 0, impossible for distinct means)."""
        mu = np.asarray(self.means, dtype=float)
        gaps = self.gaps()
        sub = gaps > 0
        return float(np.sum(gaps[sub] / self.kl(mu[sub], mu.max())))


def _t(stats) -> np.ndarray:
    return np.asarray(stats.t, dtype=float)


def _stationary(instance: ArmInstance, ctx) -> dict:
    return {"stationary stochastic arms (means fixed over the run)": instance.stationary,
            "stochastic (oblivious) environment": not ctx.adaptive}


def lai_robbins(instance: ArmInstance, ctx) -> Bound:
    """The Lai–Robbins lower bound t ↦ Σ Δ_i/kl(μ_i, μ*)·ln t, a reference curve (``lower=True``).

    Parameters
    ----------
    instance : ArmInstance
        The arms.
    ctx : Context
        The run's context.
    """
    c = instance.lai_robbins_constant()
    return Bound("lai-robbins", "theory §10 Lai and Robbins (1985), asymptotic lower bound [paper]",
                 f"Σ Δ_i/kl(μ_i, μ*)·ln t = {c:.4g}·ln t ({instance.family} kl)", _stationary(instance, ctx),
                 lambda s: c * np.log(np.maximum(_t(s), 1.0)), lower=True, metric="pseudo_regret")


def minimax_lower(K: int, ctx) -> Bound:
    """The minimax lower bound min(√(Kt), t)/20 of Auer et al. (2002), a reference curve (``lower=True``).

    Parameters
    ----------
    K : int
        Number of arms.
    ctx : Context
        The run's context.
    """
    return Bound("minimax-lower", "theory §10 Auer et al. (2002) Thm 5.1, worst-case lower bound [paper]",
                 f"min(√(K t), t)/20 (K {K}), on the worst Bernoulli instance", {"K ≥ 2 arms": K >= 2},
                 lambda s: MINIMAX_CONSTANT * np.minimum(np.sqrt(K * _t(s)), _t(s)), lower=True,
                 metric="pseudo_regret")


def ucb1_bound(instance: ArmInstance, ctx) -> Bound:
    """UCB1's finite-time bound 8 Σ_{Δ_i > 0} ln t/Δ_i + (1 + π²/3) Σ Δ_i (Auer et al. 2002, Theorem 1).

    Parameters
    ----------
    instance : ArmInstance
        The arms.
    ctx : Context
        The run's context.
    """
    gaps = instance.gaps()
    a, b = 8.0 * float(np.sum(1.0 / gaps[gaps > 0])), (1.0 + np.pi ** 2 / 3) * float(gaps.sum())
    return Bound("ucb1-regret", "theory §10 UCB1, Auer et al. (2002) Thm 1 [paper]",
                 f"8·Σ ln t/Δ_i + (1 + π²/3)·Σ Δ_i = {a:.4g}·ln t + {b:.4g}",
                 {"rewards in [0, 1]": instance.bounded, **_stationary(instance, ctx)},
                 lambda s: a * np.log(np.maximum(_t(s), 1.0)) + b, metric="pseudo_regret")


def moss_bound(instance: ArmInstance, horizon: int, ctx) -> Bound:
    """MOSS's minimax bound 49√(nK) for its horizon n, at every t ≤ n (Audibert and Bubeck 2009).

    Parameters
    ----------
    instance : ArmInstance
        The arms.
    horizon : int
        The horizon n MOSS was tuned for.
    ctx : Context
        The run's context.
    """
    K = len(instance.means)
    value = MOSS_CONSTANT * np.sqrt(horizon * K)
    return Bound("moss-regret", "theory §10 MOSS, Audibert and Bubeck (2009) [paper]",
                 f"49·√(n K) = {value:.4g} (n {horizon}, K {K})",
                 {"rewards in [0, 1]": instance.bounded, f"run's T = {ctx.T} ≤ horizon n = {horizon}": ctx.T <= horizon,
                  **_stationary(instance, ctx)},
                 lambda s: value + 0.0 * _t(s), metric="pseudo_regret")


def asymptotic_rate(name: str, source: str, instance: ArmInstance, ctx) -> Bound:
    """(1 + ε)·Σ Δ_i ln t/kl(μ_i, μ*) with ε = 0 and the implicit lower-order terms dropped: a reference curve.

    Parameters
    ----------
    name : str
        The learner's name (the curve is ``<name>-asymptotic``).
    source : str
        The paper stating it.
    instance : ArmInstance
        The arms.
    ctx : Context
        The run's context.
    """
    c = instance.lai_robbins_constant()
    return Bound(f"{name}-asymptotic", f"theory §10 {source} (constants implicit) [paper]",
                 f"(1 + ε)·Σ Δ_i ln t/kl(μ_i, μ*) + o(ln t), drawn as {c:.4g}·ln t", _stationary(instance, ctx),
                 lambda s: c * np.log(np.maximum(_t(s), 1.0)), reference=True, metric="pseudo_regret")


def changing_rate(name: str, instance: ArmInstance, ctx) -> Bound:
    """Garivier and Moulines' O(√(Υ t)·ln t) for Υ change points, with constant 1: a reference curve.

    Parameters
    ----------
    name : str
        The learner's name.
    instance : ArmInstance
        The arms (piecewise stationary).
    ctx : Context
        The run's context.
    """
    ups = max(len(instance.changes), 1)
    return Bound(f"{name}-rate", "theory §10 Garivier and Moulines (2011), rate only [paper]",
                 f"√(Υ t)·ln t (Υ = {ups} change points), constant unknown",
                 {"piecewise-stationary arms": not instance.stationary},
                 lambda s: np.sqrt(ups * _t(s)) * np.log(np.maximum(_t(s), 2.0)), reference=True,
                 metric="pseudo_regret")


def exp3_ix_reference(K: int, T: int, eta: float, gamma: float, ctx, delta: float = 0.05) -> Bound:
    """Neu (2015)'s high-probability bound 2√(2KT ln K) + (√(2KT/ln K) + 1)·ln(2/δ), as a flat reference curve.

    Parameters
    ----------
    K, T : int
        Arms and horizon.
    eta, gamma : float
        The learner's η and γ (the bound is stated for η = 2γ = √(2 ln K/(KT))).
    ctx : Context
        The run's context.
    delta : float, default 0.05
        The confidence level δ.
    """
    value = 2 * np.sqrt(2 * K * T * np.log(K)) + (np.sqrt(2 * K * T / np.log(K)) + 1) * np.log(2 / delta)
    return Bound("exp3-ix-hp", "theory §10 Exp3-IX, Neu (2015) Thm 1 (constant unchecked) [paper]",
                 f"2√(2KT ln K) + (√(2KT/ln K) + 1)·ln(2/δ) = {value:.4g} w.p. 1 − δ, δ = {delta}",
                 {"η = 2γ": abs(eta - 2 * gamma) <= 1e-12 * eta, "ℓ_t ∈ [0, 1]^K": ctx.loss_bound <= 1.0},
                 lambda s: value + 0.0 * _t(s), reference=True)


def arms_bounds(instance: ArmInstance, ctx, learner) -> list:
    """The bounds an arms environment adds for ``learner``: the lower bounds (bandit learners on stationary arms)
    and the learner's own ``instance_bounds(instance, ctx)``, if it has that method.

    Parameters
    ----------
    instance : ArmInstance
        The arms.
    ctx : Context
        The run's context.
    learner : Learner
        The learner being scored.
    """
    if getattr(learner, "feedback", None) != "bandit":
        return []
    out = [lai_robbins(instance, ctx), minimax_lower(len(instance.means), ctx)] if instance.stationary else []
    own = getattr(learner, "instance_bounds", None)
    return out + (list(own(instance, ctx)) if own is not None else [])
