"""Exp3-IX (Neu 2015): Exp3 with implicit exploration, the adversarial bandit with high-probability guarantees.

It is the Exp3 wrapper of `onlinelab.learners.bandit_simplex` (Hedge, i.e. entropic FTRL, on loss
estimates) with one change: the estimate is biased low by γ in the denominator,

    ℓ̃_t(i) = ℓ_t(i)·1{I_t = i}/(p_t(i) + γ),

which keeps the estimates' variance in check without mixing uniform exploration into p_t.  Neu's
tuning is η = 2γ = √(2 ln K/(KT)), the defaults here.  His high-probability bound (with probability
at least 1 − δ, regret ≤ 2√(2KT ln K) + (√(2KT/ln K) + 1)·ln(2/δ)) is listed as a reference curve at
δ = 0.05: its constant was not checked against the paper here (theory §10), so it is drawn, never
tested.  Oblivious blocks are played whole by the wrapper's loop, draws and all.

>>> import onlinelab as ol
>>> res = ol.simulate("adversarial-arms", [Exp3IX()], T=300, replicates=2, seed=0)
>>> res.learners
['exp3-ix']
"""
from __future__ import annotations

import numpy as np

from onlinelab.bounds.bandits import exp3_ix_reference
from onlinelab.core import validation as v
from onlinelab.core.registry import register_learner
from onlinelab.learners.bandit_simplex import BanditSimplex, one_hot
from onlinelab.learners.mirror_descent import FTRL


@register_learner("exp3-ix")
class Exp3IX(BanditSimplex):
    """Exp3-IX: Hedge on the implicit-exploration estimates ℓ·1{I = i}/(p_i + γ).

    Parameters
    ----------
    eta : float or None
        Learning rate η > 0; None takes √(2 ln K/(K T)).
    gamma : float or None
        Implicit exploration γ > 0; None takes η/2.
    """

    compiled_block = True   # blocks in onlinelab.kernels.simplex.exp3_block (a subclass plays the numpy loop)

    def __init__(self, eta: float | None = None, gamma: float | None = None):
        self.eta = None if eta is None else v.positive_float("eta", eta)
        self.gamma = None if gamma is None else v.positive_float("gamma", gamma)
        self._base = FTRL(regularizer="entropy", domain="simplex")
        self._ix = 0.0

    def resolved_params(self, ctx) -> dict:
        K = ctx.d
        eta = float(self.eta if self.eta is not None else np.sqrt(2 * np.log(K) / (K * max(ctx.T, 1))))
        return {"eta": eta, "gamma": float(self.gamma if self.gamma is not None else eta / 2)}

    def _inner(self, ctx):
        params = self.resolved_params(ctx)
        self._ix = params["gamma"]        # read by _estimate (the wrapper's hook takes no context)
        return FTRL(regularizer="entropy", eta=params["eta"], domain="simplex")

    def _estimate(self, p, arm, value, onehot=None):
        onehot = one_hot(arm, p.shape[1]) if onehot is None else onehot
        return onehot * (np.asarray(value, dtype=float) / (np.vecdot(onehot, p) + self._ix))[:, None]

    def bounds(self, ctx) -> list:
        params = self.resolved_params(ctx)
        return [exp3_ix_reference(ctx.d, ctx.T, params["eta"], params["gamma"], ctx)]
