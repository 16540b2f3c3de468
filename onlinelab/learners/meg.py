"""Matrix exponentiated gradient on the spectraplex, eigh-based with a max-shift
(theory §2, docs/theory/02-online-pca.md).

``W_{t+1} = exp(H_t)/tr exp(H_t)`` with ``H_t = −η Σ_{s≤t} L_s`` (lazy and greedy forms
coincide for constant η).  Each round takes one batched ``eigh(H) = V diag(h) Vᵀ`` and plays
``V diag(softmax(h)) Vᵀ``; ``log W`` is never taken.  The played direction for the realised
loss is an eigenvector ``v_I`` with ``I ~ softmax(h)``, so ``E[w wᵀ] = W``.

``eta=None`` takes ``√(2 log d / T)``, the worst-case tuning (regret ≤ √(2T log d)).

>>> import onlinelab as ol
>>> res = ol.simulate(ol.make_environment("spiked-covariance", d=4), [MEG()], T=100, seed=0)
>>> bool(res.final("regret").mean() <= (2 * 100 * np.log(4)) ** 0.5)
True
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from onlinelab import bounds as B
from onlinelab.core import validation as v
from onlinelab.core.base import Learner
from onlinelab.core.protocol import EigenPlay, Play
from onlinelab.core.registry import register_learner
from onlinelab.geometry.linalg import eigh, softmax
from onlinelab.kernels import meg as meg_kernels
from onlinelab.kernels import rowops
from onlinelab.kernels.switch import compiled_active
from onlinelab.losses.matrix import FactoredLoss

SMALL_D = 16    # the compiled block plays d ≤ SMALL_D, where per-call overhead is the cost (and its plays stay small)


class MEGState(NamedTuple):
    H: np.ndarray   # (R, d, d) = −η Σ_{s≤t} L_s
    eta: float


@register_learner("meg")
class MEG(Learner):
    """Matrix exponentiated gradient (von Neumann entropy FTRL) on the spectraplex, full information.

    Parameters
    ----------
    eta : float or None, default None
        Learning rate η > 0; ``None`` takes √(2 log d / T), the worst-case tuning (theory §2).
    """

    feedback = "full"
    plays = "spectraplex"

    def __init__(self, eta: float | None = None):
        self.eta = None if eta is None else v.positive_float("eta", eta)

    def resolved_params(self, ctx) -> dict:
        eta = self.eta if self.eta is not None else np.sqrt(2 * np.log(ctx.d) / ctx.T)
        return {"eta": float(eta)}

    def init(self, ctx, rng) -> MEGState:
        return MEGState(np.zeros((ctx.replicates, ctx.d, ctx.d)), self.resolved_params(ctx)["eta"])

    def act(self, state: MEGState, rng) -> Play:
        h, V = eigh(state.H)
        p = softmax(h)
        idx = rng.categorical(p)
        return Play(EigenPlay(p, V), np.take_along_axis(V, idx[:, None, None], axis=2)[:, :, 0])

    def update(self, state: MEGState, play: Play, feedback, rng) -> MEGState:
        return MEGState(state.H - state.eta * feedback.loss.dense(), state.eta)

    def play_block(self, state: MEGState, block, rng):
        """A block of an oblivious environment's rank-one losses in one compiled call (onlinelab.core.slot), else None.

        Only the built-in class at d ≤ 16, kernels switched on and compiling here: the block's n uniforms (the
        ones n calls of `act` would take) are drawn at once and `onlinelab.kernels.meg.meg_block` repeats `act`
        and `update` operation by operation.  Declining (None) leaves the slot to play the rounds through
        `act`/`update`: the numpy reference.  Returns ``(state, plays, realized)``.
        """
        X, (R, d) = getattr(block.stacked, "factors", None), state.H.shape[:2]
        if (type(self) is not MEG or d > SMALL_D or not compiled_active() or type(block.stacked) is not FactoredLoss
                or X.shape[2] != 1):
            return None
        n = block.n
        args = [np.ascontiguousarray(X[:, :, 0]).reshape(n, R, d), float(block.stacked.coef[0]), np.empty((0, R)),
                np.array(state.H, dtype=float), state.eta, np.empty((n, R, d)), np.empty((n, R, d, d)),
                np.empty((n, R))]
        if rowops.call(meg_kernels.meg_block, args[0][:0], *args[1:]) is None:   # zero rounds: compiled
            return None                                                          # before any draw (stream kept)
        args[2] = rng.random(n).T.copy()
        rowops.call(meg_kernels.meg_block, *args)
        return (MEGState(args[3], state.eta), EigenPlay(args[5].reshape(n * R, d), args[6].reshape(n * R, d, d)),
                args[7])

    def bounds(self, ctx) -> list:
        eta = self.resolved_params(ctx)["eta"]
        return [B.meg_worst_case(ctx.d, eta, ctx), B.meg_first_order(ctx.d, eta, ctx)]
