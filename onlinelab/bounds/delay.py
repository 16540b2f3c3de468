"""Regret bounds under delayed feedback, as data (theory §8, docs/theory/08-bandits-delays.md).

With delays on, a learner's own (undelayed) bounds stay listed but gain the assumption
"every d_t = 0", so they apply only when no feedback was late.  Added:

* ``delayed-ogd`` — projected gradient descent (``omd`` with the Euclidean map) on a ball of
  radius R started at its centre, fixed step η, gradients ‖g_t‖₂ ≤ G:
  R_t ≤ R²/(2η) + η G² (t/2 + D_t) [derived], D_t = Σ_{s≤t} min(d_s, t − s) the delay that
  can have acted by round t.  With η = R/(G√(T + 2D)) it is RG√(T + 2D).
* ``delayed-exp3-rate`` — √((K t + D_t) ln K), the O(√((KT + D) ln K)) rate of delayed Exp3; its
  constant is not confirmed, so it is shown, never checked (assumption "constant confirmed" false).

>>> float(delayed_ogd_value(radius=1.0, G=1.0, eta=0.1, t=100, D=50))   # 1/0.2 + 0.1·(50 + 50)
15.0
"""
from __future__ import annotations

import dataclasses

import numpy as np

from onlinelab.bounds.base import Bound


def delayed_ogd_value(radius: float, G: float, eta: float, t, D):
    """R²/(2η) + η G² (t/2 + D)."""
    return radius ** 2 / (2 * eta) + eta * G ** 2 * (np.asarray(t, dtype=float) / 2 + np.asarray(D, dtype=float))


def _D_curve(channel, stats) -> np.ndarray:
    return np.array([channel.D_at[int(t)] for t in np.asarray(stats.t)], dtype=float)


def delayed_ogd(radius: float, G: float, eta: float, assumptions: dict, channel) -> Bound:
    """The delayed-OGD bound on a ball (see the module docstring); pointwise (a deterministic learner)."""
    return Bound("delayed-ogd", "theory §8 delayed OGD [derived]",
                 f"R²/(2η) + η·G²·(t/2 + D_t)  (R {radius:.4g}, G {G:.4g}, η {eta:.4g})",
                 {f"η = {eta:.4g} > 0": eta > 0, **assumptions},
                 lambda s: delayed_ogd_value(radius, G, eta, s.t, _D_curve(channel, s)) + 0.0 * s.comparator,
                 pointwise=True)


def delayed_exp3_rate(K: int, channel) -> Bound:
    """√((K t + D_t) ln K): the delayed-Exp3 rate, constant unconfirmed (listed, never checked)."""
    return Bound("delayed-exp3-rate", "theory §8 delayed Exp3 (rate only)", "√((K·t + D_t)·ln K)",
                 {"constant confirmed (only the rate in D is)": False},
                 lambda s: np.sqrt((K * np.asarray(s.t, dtype=float) + _D_curve(channel, s)) * np.log(K))
                 + 0.0 * s.comparator)


def _ogd_on_ball(learner, ctx):
    if getattr(learner, "name", "") != "omd" or getattr(learner, "regularizer", None) not in ("euclidean", "frobenius"):
        return None
    dom = learner.resolve_domain(ctx)
    return dom if dom.kind == "ball" else None


def delayed_bounds(learner, ctx, own: list, channel) -> list:
    """``own`` bounds made conditional on zero delays, plus the delayed bounds that apply to ``learner``.

    Lower bounds (``Bound.lower``) stay as they are: late feedback cannot lower the regret a policy must pay.
    """
    tau = getattr(learner, "max_delay_tolerated", 0)   # the Joulani reduction tolerates delays up to τ
    undelayed = ({"every d_t = 0 (undelayed feedback)": channel.max_delay == 0} if tau == 0 else
                 {f"every d_t ≤ τ = {tau}": channel.max_delay <= tau})
    out = [b if getattr(b, "lower", False) else dataclasses.replace(b, assumptions={**b.assumptions, **undelayed})
           for b in own]
    dom = _ogd_on_ball(learner, ctx)
    if dom is not None:
        eta = learner.resolved_params(ctx)["gamma"]
        out.append(delayed_ogd(dom.radius, ctx.loss_bound, eta, {
            "z₀ = the ball's centre": learner.z0 is None,
            "α_t ≡ 1 (unweighted regret)": learner.weights in ("constant", 1.0),
            "‖g_t‖₂ ≤ G = loss_bound (declared, checked every round)": bool(np.isfinite(ctx.loss_bound)),
        }, channel))
    if getattr(learner, "name", "") == "exp3":
        out.append(delayed_exp3_rate(ctx.d, channel))
    return out
