"""Rank-k online PCA by capped matrix exponentiated gradient
(Warmuth–Kuzmin; theory §2 "Rank k", docs/theory/02-online-pca.md).

Compression form: the learner discards an m-dimensional subspace, m = d − k, and pays
⟨P, L_t⟩ for its rank-m projector P.  Its parameter is a capped density matrix
W ∈ {0 ⪯ W ⪯ I/m, tr W = 1}; the mixed strategy is mW (a point of the Fantope ``fantope:m``).
Round t:

1. play: eigenvalues p of W (kept as log p with eigenvectors V); draw m indices by systematic
   sampling with inclusion probabilities m·p (`onlinelab.geometry.spectral.systematic_sample`, O(d)),
   so the frame U = V[:, idx] gives E[U Uᵀ] = mW exactly;
2. update (greedy MEG step, then the relative-entropy projection):
   H = V diag(log p) Vᵀ − η L_t, eigh(H) = V' diag(h) V'ᵀ, p' = min(1/m, τ softmax(h)) — the capping
   map of `onlinelab.geometry.mirror.capped_log_softmax` on eigenvalues, the same vector map capped
   Hedge uses on a simplex.  Only log p is stored, so tiny eigenvalues never meet a log.

``k=None`` reads m from the environment's domain ``fantope:m``; ``eta=None`` tunes
η = ln(1 + √(2D/L̂)), D = m log(d/m), L̂ = m·T·loss_bound ≥ L*, for regret ≤ √(2L̂D) + D.

>>> import onlinelab as ol
>>> res = ol.simulate("pca-compression", [CappedMEG()], T=200, replicates=2, seed=0)
>>> bool(res.violations().empty), sorted(res.bounds().bound)
(True, ['capped-meg-first-order', 'capped-meg-tuned'])
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from onlinelab.bounds.oco import capped_meg_bounds
from onlinelab.core import validation as v
from onlinelab.core.base import Learner
from onlinelab.core.protocol import EigenPlay, Play
from onlinelab.core.registry import register_learner
from onlinelab.errors import DomainError
from onlinelab.geometry.linalg import eigh
from onlinelab.geometry.mirror import capped_log_softmax
from onlinelab.geometry.specs import make_domain
from onlinelab.geometry.spectral import systematic_sample
from onlinelab.learners.oco_base import linear_term


class CappedMEGState(NamedTuple):
    logp: np.ndarray   # (R, d) log-eigenvalues of W
    V: np.ndarray      # (R, d, d) eigenvectors of W
    eta: float
    m: int


def sampled_frame(p_incl: np.ndarray, V: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Columns of V picked by systematic sampling with inclusion probabilities ``p_incl`` (Σ = m): (R, d, m)."""
    idx = systematic_sample(p_incl, u)
    return np.take_along_axis(V, idx[:, None, :], axis=2)


@register_learner("capped-meg")
class CappedMEG(Learner):
    """Capped MEG on capped density matrices; plays a random rank-m projector with E[P] = mW (m = d − k).

    Parameters
    ----------
    k : int or None, default None
        Number of directions kept; the learner plays rank-m projectors with m = d − k. ``None`` takes
        m from the environment's ``fantope:m`` domain (so k = d − m).
    eta : float or None, default None
        Learning rate η > 0; ``None`` tunes it to L̂ = m·T·loss_bound (theory §2, "Rank k").
    """

    feedback = "full"
    plays = "fantope"  # m = d − k of the environment's fantope:m (its comparator is the m smallest eigenvalues)
    reference_environment = "pca-compression"

    def __init__(self, k: int | None = None, eta: float | None = None):
        self.k = None if k is None else v.integer("k", k, minimum=1)
        self.eta = None if eta is None else v.positive_float("eta", eta)

    def _m(self, ctx) -> int:
        dom = make_domain(ctx.domain, ctx.d)
        env_m = int(round(dom.base.total)) if dom.kind == "fantope" else None
        if self.k is None:
            if env_m is None:
                raise DomainError(f"capped-meg needs k (it keeps k of d = {ctx.d} directions) or an environment on "
                                  f"'fantope:m'; the environment's domain is {ctx.domain!r}; pass k=...")
            return env_m
        m = ctx.d - self.k
        if not 1 <= m < ctx.d or (env_m is not None and env_m != m):
            fit = ctx.d - env_m if env_m else "between 1 and d − 1"
            raise DomainError(f"capped-meg: k = {self.k} gives m = d − k = {m}, but the environment plays "
                              f"{ctx.domain!r} in d = {ctx.d}; use k = {fit}")
        return m

    def _tuning(self, ctx):
        m = self._m(ctx)
        Lhat = m * max(ctx.T, 1) * ctx.loss_bound
        eta = self.eta if self.eta is not None else float(np.log1p(np.sqrt(2 * m * np.log(ctx.d / m) / Lhat)))
        return m, eta, (Lhat if self.eta is None else None)

    def resolved_params(self, ctx) -> dict:
        m, eta, _ = self._tuning(ctx)
        return {"k": ctx.d - m, "eta": eta}

    def init(self, ctx, rng) -> CappedMEGState:
        m, eta, _ = self._tuning(ctx)
        R, d = ctx.replicates, ctx.d
        return CappedMEGState(np.full((R, d), -np.log(d)), np.tile(np.eye(d), (R, 1, 1)), eta, m)

    def act(self, state: CappedMEGState, rng) -> Play:
        mp = state.m * np.exp(state.logp)
        frame = sampled_frame(mp, state.V, rng.random())
        return Play(EigenPlay(mp, state.V), EigenPlay(np.ones(frame.shape[::2]), frame))

    def update(self, state: CappedMEGState, play: Play, feedback, rng) -> CappedMEGState:
        L = np.asarray(linear_term(feedback.loss, play.mixed, self.name))
        H = (state.V * state.logp[:, None, :]) @ np.swapaxes(state.V, 1, 2) - state.eta * L
        h, V = eigh(H)
        return CappedMEGState(capped_log_softmax(h, 1.0 / state.m), V, state.eta, state.m)

    def bounds(self, ctx) -> list:
        m, eta, Lhat = self._tuning(ctx)
        return capped_meg_bounds(ctx.d, m, eta, Lhat, ctx)
