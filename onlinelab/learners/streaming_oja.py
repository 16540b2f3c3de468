"""Oja's streaming PCA with three QR cadences, and Krasulina's update for one component
(theory §4, docs/theory/04-streaming.md).

Oja: ``Q_t = qr(Q_{t−1} + η_t x_t (x_tᵀ Q_{t−1}))``, ``Q₀ = qr(Gaussian d × k)``, O(dk) per sample
plus O(dk²) per QR.  The cadence ``qr`` says when the QR runs:

* ``"step"``     — after every sample (the textbook form);
* ``"periodic"`` — every ``qr_every`` samples; in between the basis drifts from orthonormal
  by O(η · qr_every) and is played as it is (metrics orthonormalise it first);
* ``"block"``    — once per round on the whole block ``X`` of b samples:
  ``Q ← qr(Q + X diag(η_{n+1..n+b}) Xᵀ Q)`` — one GEMM and one QR, equal to b sequential
  steps to first order in η, and the fast path on BLAS.

Steps are counted in samples n; `onlinelab.learners.streaming_base.StepSchedule` gives
``η_n = c/(n + t₀)`` by default.  theory §4 writes ``c/(gap (n + t₀))``: pass ``step = c/gap``.
With ``c·gap`` above ½ the theory (and the tests) see ``sin²θ = Õ(1/n)``.

Krasulina (k = 1): ``w ← w + η (x xᵀ w − ((xᵀw)²/‖w‖²) w)``, with ``w`` kept unnormalised.

>>> import onlinelab as ol
>>> env = ol.make_environment("spiked-stream", d=10, k=2, block=10)
>>> res = ol.simulate(env, [Oja(k=2, qr="block")], T=200, replicates=2, seed=0)
>>> bool(res.final("sin2_theta").max() < 0.1)
True
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from onlinelab.core import validation as v
from onlinelab.core.docs import shared_params
from onlinelab.core.registry import register_learner
from onlinelab.geometry.subspaces import orthonormalize, random_basis
from onlinelab.learners.streaming_base import STREAM_PARAMS, StepSchedule, SubspaceLearner, samples_of, subspace_play

CADENCES = ("step", "periodic", "block")


class OjaState(NamedTuple):
    Q: np.ndarray       # (R, d, k) basis (orthonormal right after a QR)
    n: int              # samples seen
    since_qr: int       # samples since the last QR (0: Q is orthonormal)


def _schedule(learner) -> StepSchedule:
    return StepSchedule(learner.schedule, learner.step, learner.t0)


@register_learner("oja")
@shared_params(STREAM_PARAMS)
class Oja(SubspaceLearner):
    """Oja's streaming PCA, k components, QR every step, every m steps, or once per block.

    Parameters
    ----------
    {params: k}

    {params: step, schedule, t0}

    qr : {"step", "periodic", "block"}, default "step"
        When the QR runs: after every sample, every ``qr_every`` samples, or once per block.
    qr_every : int, default 10
        Samples between QR factorisations when ``qr="periodic"``.
    """

    def __init__(self, k: int = 1, step: float = 1.0, schedule: str = "inverse", t0: float = 10.0,
                 qr: str = "step", qr_every: int = 10):
        self.k = v.integer("k", k, minimum=1)
        self.step, self.schedule, self.t0 = step, schedule, t0
        _schedule(self)  # validates step, schedule and t0 now
        self.qr = v.choice("qr", qr, CADENCES)
        self.qr_every = v.integer("qr_every", qr_every, minimum=1)

    def init(self, ctx, rng) -> OjaState:
        return OjaState(random_basis(rng, ctx.replicates, ctx.d, self.check_k(ctx)), 0, 0)

    def update(self, state: OjaState, play, feedback, rng) -> OjaState:
        X = samples_of(feedback.loss, "Oja update")
        b = X.shape[2]
        eta = _schedule(self)(state.n + 1 + np.arange(b))
        if self.qr == "block":
            Q = orthonormalize(state.Q + (X * eta) @ (np.swapaxes(X, 1, 2) @ state.Q))
            return OjaState(Q, state.n + b, 0)
        Q, since = state.Q, state.since_qr
        for j in range(b):
            x = X[:, :, j]
            Q = Q + eta[j] * x[:, :, None] * np.einsum("rd,rdk->rk", x, Q)[:, None, :]
            since += 1
            if self.qr == "step" or since >= self.qr_every:
                Q, since = orthonormalize(Q), 0
        return OjaState(Q, state.n + b, since)

    def act(self, state: OjaState, rng):
        return subspace_play(state.Q)  # between periodic QRs: played as it is (see module docstring)

    def subspace(self, state: OjaState) -> np.ndarray:
        return state.Q if state.since_qr == 0 else orthonormalize(state.Q)

    def resolved_params(self, ctx) -> dict:
        return {**self.get_params(), "first_step": float(_schedule(self)(1.0))}


class KrasulinaState(NamedTuple):
    w: np.ndarray       # (R, d, 1), unnormalised
    n: int


@register_learner("krasulina")
@shared_params(STREAM_PARAMS)
class Krasulina(SubspaceLearner):
    """Krasulina's streaming top eigenvector (k = 1), one sample at a time.

    Parameters
    ----------
    {params: step, schedule, t0}
    """

    k = 1

    def __init__(self, step: float = 1.0, schedule: str = "inverse", t0: float = 10.0):
        self.step, self.schedule, self.t0 = step, schedule, t0
        _schedule(self)

    def init(self, ctx, rng) -> KrasulinaState:
        return KrasulinaState(random_basis(rng, ctx.replicates, ctx.d, self.check_k(ctx)), 0)

    def update(self, state: KrasulinaState, play, feedback, rng) -> KrasulinaState:
        X = samples_of(feedback.loss, "Krasulina update")
        eta = _schedule(self)(state.n + 1 + np.arange(X.shape[2]))
        w = state.w[:, :, 0]
        for j in range(X.shape[2]):
            x = X[:, :, j]
            y = np.einsum("rd,rd->r", x, w)
            w = w + eta[j] * (x * y[:, None] - (y ** 2 / np.einsum("rd,rd->r", w, w))[:, None] * w)
        return KrasulinaState(w[:, :, None], state.n + X.shape[2])

    def subspace(self, state: KrasulinaState) -> np.ndarray:
        return state.w / np.linalg.norm(state.w, axis=1, keepdims=True)
