"""Bandits on the simplex: a full-information simplex learner fed importance-weighted loss estimates (theory §8).

The multi-armed bandit is the diagonal case of bandit PCA (docs/theory/08-bandits-delays.md):
K arms, losses ℓ_t ∈ [0, 1]^K, the learner draws I_t ~ p_t and sees only ℓ_t(I_t).  Each
learner here is a *wrapper*: it keeps the state of an existing full-information learner
(`onlinelab.learners.mirror_descent`), mixes in exploration, samples the arm, and hands
the inner learner the unbiased estimate ℓ̂_t(i) = ℓ_t(i)·1{I_t = i}/p_t(i) as an ordinary
linear loss (its gradient, through the inner learner's ``update_gradient``).  No update rule is
written twice.

* ``exp3``       — FTRL with the entropy (Hedge) on ℓ̂: p_t ∝ exp(−η Σ_{s<t} ℓ̂_s), no exploration;
  η = √(2 ln K/(KT)) by default; E regret ≤ ln K/η + ηKT/2 [std].
* ``exp3-auer``  — Auer et al.'s Exp3 (the update of SMPyBandits' ``Exp3``, which, unlike this one, first
  pulls each arm once): rewards x = 1 − ℓ, exploration γ,
  p = (1 − γ) q + γ/K with q ∝ w, w_i ← w_i exp(γ x̂_i/K): the same entropic FTRL with η = γ/K
  fed −x̂ (an unbiased estimate of ℓ − 1; the shift by 1 leaves q unchanged).
  Bound G_max − E G ≤ (e − 1) γ G_max + K ln K/γ [paper].
* ``logbarrier-bandit`` — greedy OMD with the log-barrier on ℓ̂ (the diagonal log-det learner);
  rate Õ(√(KT)), constant unconfirmed: listed as data, never checked.

On an oblivious environment's block of rounds the wrappers play the block in one loop of their own
(`BanditSimplex.play_block`): the same inner calls and draws, bit for bit, without the
simulator's per-round objects.

The play's ``mixed`` is p_t (so ``regret`` is the conditional expected regret
Σ⟨p_t, ℓ_t⟩ − min_i Σ ℓ_t(i)); its ``action`` is the one-hot vector of I_t, and ``info`` holds I_t,
p_t and the inner play.

>>> import onlinelab as ol
>>> res = ol.simulate("bernoulli-arms", [Exp3Auer(gamma=0.05)], T=500, replicates=4, seed=0)
>>> bool(res.violations().empty)
True
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from onlinelab.bounds.base import Bound
from onlinelab.core import validation as v
from onlinelab.core.base import Learner
from onlinelab.core.protocol import Context, Play
from onlinelab.core.registry import register_learner
from onlinelab.core.rng import categorical_from
from onlinelab.errors import ConfigError, DomainError
from onlinelab.kernels import simplex as simplex_kernels
from onlinelab.learners.mirror_descent import FTRL, OMD


class BanditState(NamedTuple):
    inner: Any      # the wrapped full-information learner's state (an OCOState: carries η and the simplex)
    K: int
    gamma: float    # exploration mixed into the inner learner's play


_EYES: dict[int, np.ndarray] = {}
EYE_MAX = 4096   # the most arms whose K × K identity one_hot caches (128 MB)


def one_hot(arm: np.ndarray, K: int) -> np.ndarray:
    """Row r is e_{arm[r]}: (R, K) (rows of a cached identity: one gather per round; for more than
    ``EYE_MAX`` arms the identity's K² entries would not fit, so the rows are written directly)."""
    if K > EYE_MAX:
        out = np.zeros((len(arm), K))
        out[np.arange(len(arm)), arm] = 1.0
        return out
    eye = _EYES.get(K)
    if eye is None:
        eye = _EYES.setdefault(K, np.eye(K))
    return eye[arm]


def importance_weighted(p: np.ndarray, arm: np.ndarray, value: np.ndarray, onehot=None) -> np.ndarray:
    """ℓ̂(i) = value·1{arm = i}/p(i), per replicate: (R, K); unbiased for the loss vector when arm ~ p.

    ``onehot`` (the play's action, ``one_hot(arm, K)``) saves rebuilding it; ⟨e_arm, p⟩ = p(arm) exactly.
    """
    onehot = one_hot(arm, p.shape[1]) if onehot is None else onehot
    return onehot * (np.asarray(value, dtype=float) / np.vecdot(onehot, p))[:, None]


def _losses_in_unit_interval(ctx) -> dict:
    return {"ℓ_t ∈ [0, 1]^K (loss_bound ≤ 1 and losses declared ≥ 0)": ctx.loss_bound <= 1.0 and ctx.psd is True,
            "oblivious adversary (the replicate mean estimates the expected regret)": not ctx.adaptive}


class BanditSimplex(Learner):
    """Base of the wrappers: inner full-information learner, exploration mix, sampling, importance weighting."""

    _ix = 0.0   # implicit exploration added to p(arm) in the estimate's denominator (Exp3-IX sets it)

    feedback = "bandit"
    reference_environment = "bernoulli-arms"   # what `onlinelab check learner` plays it against
    plays = "simplex"                          # the K arms: vector losses on the simplex only
    _base: Learner   # the inner learner's code path (its step size lives in the inner state)

    def _inner(self, ctx) -> Learner:
        raise NotImplementedError

    def _exploration(self, ctx) -> float:
        return 0.0

    def _estimate(self, p, arm, value, onehot=None):
        return importance_weighted(p, arm, value, onehot)

    def _check(self, ctx):
        if ctx.domain != "simplex":
            raise DomainError(f"{self.name} plays on the simplex of K arms but the environment's domain is "
                              f"{ctx.domain!r}; use an arms environment such as 'bernoulli-arms'")

    def init(self, ctx, rng) -> BanditState:
        self._check(ctx)
        inner_ctx = Context(d=ctx.d, T=ctx.T, replicates=ctx.replicates, domain="simplex")
        return BanditState(self._inner(ctx).init(inner_ctx, rng), ctx.d, self._exploration(ctx))

    def act(self, state: BanditState, rng) -> Play:
        inner_play = self._base.act(state.inner, rng)
        q, gamma, K = inner_play.mixed, state.gamma, state.K
        p = q if gamma == 0 else (1 - gamma) * q + gamma / K
        arm = rng.categorical(p)
        return Play(p, one_hot(arm, K), {"arm": arm, "p": p, "inner": inner_play})

    def update(self, state: BanditState, play: Play, feedback, rng) -> BanditState:
        est = self._estimate(play.info["p"], play.info["arm"], feedback.value, play.action)
        inner = self._base.update_gradient(state.inner, play.info["inner"], est)   # ℓ̂ as a linear loss: its gradient
        return BanditState(inner, state.K, state.gamma)


    def _plays_as_base(self) -> bool:
        """Whether this object plays and updates as the wrappers here do — the loop of `play_block` repeats
        exactly that — around an inner FTRL or OMD, which draw nothing (so the block's uniforms can be taken at
        once)."""
        return (type(self).act is BanditSimplex.act and type(self).update is BanditSimplex.update
                and type(self._base) in (FTRL, OMD))

    def play_block(self, state: BanditState, block, rng):
        """A block of an oblivious environment's linear losses in one call (onlinelab.core.slot), else None.

        A bandit's rounds cannot be vectorised over time (round t's estimate depends on round t's draw),
        but the wrapper can play them in one loop of its own: the same inner ``act``/``update`` calls
        and the same draws as `act` and `update` round by round, without the per-round
        play, feedback and recording objects.  The inner learners (FTRL, OMD) draw nothing, so the
        block's n uniforms for the arms are taken at once: the numbers n calls of ``rng.categorical``
        would use, in the same order.  Returns ``(state, plays, realized)``: p_t stacked like the
        block's losses, (n·R, K), and ℓ_t(I_t), (n, R); the compiled kernel adds ``expected``, ⟨p_t, ℓ_t⟩
        (n, R), and returns None for the plays when ``block.plays_wanted`` is False.
        """
        G = getattr(block.stacked, "G", None)
        if not getattr(block.stacked, "is_linear", False) or G is None or not self._plays_as_base():
            return None
        n, K, gamma = block.n, state.K, state.gamma
        losses = G.reshape(n, -1, K)
        R = losses.shape[1]
        rows = np.arange(R)
        uniforms = rng.random(n).T.copy()                       # (n, R): round i's uniform per replicate
        base, inner = self._base, state.inner
        mirror = base.kernel_mirror(inner)        # 0 entropy, 1 log-barrier, None: the numpy loop below
        if type(self).__dict__.get("compiled_block") and mirror is not None and (mirror == 0 or type(base) is OMD):
            out = self._kernel_block(state, losses, uniforms, getattr(block, "plays_wanted", True))
            if out is not None:                                 # the compiled loop: the same draws and numbers
                return out
        plays, realized = np.empty((n, R, K)), np.empty((n, R))
        for i in range(n):
            inner_play = base.act(inner, rng)
            p = plays[i]
            if gamma == 0:
                p[...] = inner_play.mixed
            else:                                               # (1 − γ) q + γ/K, as act() computes it
                np.multiply(inner_play.mixed, 1 - gamma, out=p)
                p += gamma / K
            arm = categorical_from(p, uniforms[i])
            onehot = one_hot(arm, K)
            value = realized[i] = losses[i, rows, arm]          # ℓ_t(I_t) = ⟨ℓ_t, e_{I_t}⟩
            inner = base.update_gradient(inner, inner_play, self._estimate(p, arm, value, onehot))
        return BanditState(inner, K, gamma), plays.reshape(n * R, K), realized

    def _kernel_block(self, state: BanditState, losses, uniforms, keep: bool):
        """`play_block` through `onlinelab.kernels.simplex.exp3_block` (the inner FTRL's entropy) or
        `logbarrier_bandit_block` (OMD's log-barrier); None when numba cannot compile here."""
        n, R, K = losses.shape
        base, inner = self._base, state.inner
        ftrl = type(base) is FTRL
        acc = np.zeros((R, K)) if inner.acc is None else np.array(inner.acc, dtype=float)
        z, prev, alphas = np.array(inner.z, dtype=float), np.empty((R, K)), base.alphas(inner.t, n)
        if ftrl:
            shift = -1.0 if type(self) is Exp3Auer else 0.0      # Exp3-Auer feeds (ℓ − 1)·1{arm}/p
            ix = float(self._ix)                                  # Exp3-IX feeds ℓ·1{arm}/(p + γ)
            out = simplex_kernels.run(simplex_kernels.exp3_block, losses, uniforms, alphas, acc,
                                      inner.acc is not None, z, float(inner.scale), float(state.gamma), shift, ix,
                                      prev, keep)
        else:
            out = simplex_kernels.run(simplex_kernels.logbarrier_bandit_block, losses, uniforms, alphas, z,
                                      float(inner.scale), float(state.gamma), prev, keep)
        if out is None:
            return None
        plays, realized, expected = out
        inner = inner._replace(z=z, acc=acc if ftrl else None, prev=prev, t=inner.t + n)
        return BanditState(inner, K, state.gamma), plays.reshape(n * R, K) if keep else None, realized, expected


@register_learner("exp3")
class Exp3(BanditSimplex):
    """Exp3, loss-based: Hedge (entropic FTRL) on importance-weighted loss estimates, no explicit exploration.

    Parameters
    ----------
    eta : float or None
        Learning rate; None takes √(2 ln K/(K T)).
    """

    compiled_block = True   # this exact class plays blocks in a kernel; a subclass, the numpy loop

    def __init__(self, eta: float | None = None):
        self.eta = None if eta is None else v.positive_float("eta", eta)
        self._base = FTRL(regularizer="entropy", domain="simplex")

    def resolved_params(self, ctx) -> dict:
        K = ctx.d
        return {"eta": float(self.eta if self.eta is not None else np.sqrt(2 * np.log(K) / (K * ctx.T)))}

    def _inner(self, ctx):
        return FTRL(regularizer="entropy", eta=self.resolved_params(ctx)["eta"], domain="simplex")

    def bounds(self, ctx) -> list:
        K, eta = ctx.d, self.resolved_params(ctx)["eta"]
        return [Bound("exp3-regret", "theory §8 Exp3 [std]", f"ln K/η + η·K·t/2  (K {K}, η {eta:.4g})",
                      _losses_in_unit_interval(ctx),
                      lambda s: np.log(K) / eta + eta * K * np.asarray(s.t, dtype=float) / 2 + 0.0 * s.comparator)]


@register_learner("exp3-auer")
class Exp3Auer(BanditSimplex):
    """Exp3 of Auer et al. (2002) on rewards 1 − ℓ with exploration γ, sampling from round 1 (theory §8).

    Its update is SMPyBandits' ``Exp3``'s; SMPyBandits also plays each arm once before it samples.

    Parameters
    ----------
    gamma : float or None
        Exploration rate in (0, 1]; None takes min(1, √(K ln K/((e − 1) T))), the tuning for G_max ≤ T.
    """

    compiled_block = True   # this exact class plays blocks in a kernel; a subclass, the numpy loop

    def __init__(self, gamma: float | None = None):
        if gamma is not None:
            gamma = v.real("gamma", gamma)
            if not 0.0 < gamma <= 1.0:
                raise ConfigError(f"gamma must lie in (0, 1] (exploration rate of exp3-auer), got {gamma!r}; "
                                  "e.g. gamma = 0.01, or leave it unset for the tuned value")
        self.gamma = gamma
        self._base = FTRL(regularizer="entropy", domain="simplex")

    def resolved_params(self, ctx) -> dict:
        K = ctx.d
        tuned = min(1.0, float(np.sqrt(K * np.log(K) / ((np.e - 1) * ctx.T))))
        return {"gamma": float(self.gamma if self.gamma is not None else tuned)}

    def _exploration(self, ctx):
        return self.resolved_params(ctx)["gamma"]

    def _inner(self, ctx):
        return FTRL(regularizer="entropy", eta=self._exploration(ctx) / ctx.d, domain="simplex")

    def _estimate(self, p, arm, value, onehot=None):  # −x̂ = (ℓ − 1)·1{arm}/p: the reward estimate fed as a loss
        return importance_weighted(p, arm, value - 1.0, onehot)

    def bounds(self, ctx) -> list:
        K, g = ctx.d, self.resolved_params(ctx)["gamma"]
        return [Bound("exp3-auer-regret", "theory §8 Exp3 of Auer et al. [paper]",
                      f"(e − 1)·γ·G_max + K ln K/γ, G_max = t − min_i Σℓ_s(i)  (K {K}, γ {g:.4g})",
                      _losses_in_unit_interval(ctx),
                      lambda s: (np.e - 1) * g * (np.asarray(s.t, dtype=float) - s.comparator) + K * np.log(K) / g)]


@register_learner("logbarrier-bandit")
class LogBarrierBandit(BanditSimplex):
    """Bandit OMD with the log-barrier −Σ log p_i on importance-weighted estimates (the diagonal log-det learner).

    Parameters
    ----------
    eta : float or None
        Step size; None takes √(K ln T/T).
    """

    compiled_block = True   # this exact class plays blocks in a kernel; a subclass, the numpy loop

    def __init__(self, eta: float | None = None):
        self.eta = None if eta is None else v.positive_float("eta", eta)
        self._base = OMD(regularizer="log-barrier", domain="simplex")

    def resolved_params(self, ctx) -> dict:
        K, T = ctx.d, max(ctx.T, 2)
        return {"eta": float(self.eta if self.eta is not None else np.sqrt(K * np.log(T) / T))}

    def _inner(self, ctx):
        return OMD(regularizer="log-barrier", gamma=self.resolved_params(ctx)["eta"], domain="simplex")

    def bounds(self, ctx) -> list:
        K, eta = ctx.d, self.resolved_params(ctx)["eta"]
        return [Bound("logbarrier-bandit-rate", "theory §8 log-barrier bandit OMD (rate only)",
                      "K·ln t/η + η·t", {"constant confirmed (only the Õ(√(KT)) rate is)": False},
                      lambda s: K * np.log(np.maximum(np.asarray(s.t, dtype=float), 2)) / eta
                      + eta * np.asarray(s.t, dtype=float) + 0.0 * s.comparator)]
