"""Streaming autoencoders trained by SGD, gradients written out in numpy, batched over replicates
(theory §4, docs/theory/04-streaming.md).

Model, for a block ``X`` (d × b) and its input ``X̃`` (``X`` itself, or ``X + σN`` with fresh
Gaussian noise N every step for the denoising variant):

    A = W_eᵀ X̃ + b_e,   H = g(A),   X̂ = W_d H + b_d,   loss = (1/2b) ‖X̂ − X‖_F²

with g the identity (``linear-ae``; no biases: streams are centred) or tanh (``tanh-ae``).
Gradients (R the residual X̂ − X, D = (W_dᵀ R) ⊙ g'(A)):

    ∂W_d = R Hᵀ / b,  ∂b_d = mean_j R,  ∂W_e = X̃ Dᵀ / b,  ∂b_e = mean_j D.

Step ``η_n = s(n) / ē_n``: the schedule s (constant by default) divided by the running mean
energy ``ē_n`` of the samples seen, so one ``step`` suits data of any scale (as in normalised
LMS).  Theory: a linear AE's minima span the PCA subspace (Baldi–Hornik), its columns
neither orthonormal nor ordered; a denoising linear AE tends to the shrunk PCA map
``U_r diag(λ_i/(λ_i + σ²)) U_rᵀ``.  ``subspace(state)`` is the span of ``W_d`` (orthonormalised).

>>> import onlinelab as ol
>>> env = ol.make_environment("spiked-stream", d=8, k=2, block=10)
>>> res = ol.simulate(env, [LinearAE(k=2)], T=1000, replicates=2, seed=0)
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
from onlinelab.learners.streaming_base import STREAM_PARAMS, StepSchedule, SubspaceLearner, samples_of


class AEState(NamedTuple):
    We: np.ndarray      # (R, d, k) encoder
    Wd: np.ndarray      # (R, d, k) decoder
    be: np.ndarray      # (R, k, 1) encoder bias
    bd: np.ndarray      # (R, d, 1) decoder bias
    n: int              # samples seen
    energy: np.ndarray  # (R,) running mean of ‖x‖²


class _Autoencoder(SubspaceLearner):
    """Shared SGD machinery; subclasses fix ``activation`` and ``noise`` and register a name."""

    activation = "linear"
    noise = 0.0

    def _init_common(self, k, step, schedule, t0):
        self.k = v.integer("k", k, minimum=1)
        self.step, self.schedule, self.t0 = step, schedule, t0
        StepSchedule(schedule, step, t0)  # validate now

    def init(self, ctx, rng) -> AEState:
        R, d, k = ctx.replicates, ctx.d, self.check_k(ctx)
        Q = random_basis(rng, R, d, k)
        return AEState(Q.copy(), Q.copy(), np.zeros((R, k, 1)), np.zeros((R, d, 1)), 0, np.zeros(R))

    def _forward(self, state: AEState, Xin: np.ndarray):
        A = np.swapaxes(state.We, 1, 2) @ Xin + state.be
        H = np.tanh(A) if self.activation == "tanh" else A
        return H, state.Wd @ H + state.bd

    def reconstruct(self, state: AEState, X: np.ndarray) -> np.ndarray:
        return self._forward(state, X)[1]

    def subspace(self, state: AEState) -> np.ndarray:
        return orthonormalize(state.Wd)

    def update(self, state: AEState, play, feedback, rng) -> AEState:
        X = samples_of(feedback.loss, f"{type(self).__name__} update")
        R, d, b = X.shape
        Xin = X + self.noise * rng.normal((d, b)) if self.noise > 0 else X
        H, Xhat = self._forward(state, Xin)
        res = Xhat - X
        D = np.swapaxes(state.Wd, 1, 2) @ res
        if self.activation == "tanh":
            D = D * (1.0 - H ** 2)
        n = state.n + b
        energy = state.energy + (np.einsum("rdb,rdb->r", X, X) - b * state.energy) / n
        eta = StepSchedule(self.schedule, self.step, self.t0)(state.n + 1 + np.arange(b)).mean()
        eta = (eta / np.maximum(energy, np.finfo(float).tiny))[:, None, None]
        Wd = state.Wd - eta * (res @ np.swapaxes(H, 1, 2)) / b
        We = state.We - eta * (Xin @ np.swapaxes(D, 1, 2)) / b
        be, bd = state.be, state.bd
        if self.activation == "tanh":
            be = be - eta * D.mean(axis=2, keepdims=True)
            bd = bd - eta * res.mean(axis=2, keepdims=True)
        return AEState(We, Wd, be, bd, n, energy)

    def diagnostics(self, state: AEState) -> dict:
        return {}


@register_learner("linear-ae")
@shared_params(STREAM_PARAMS)
class LinearAE(_Autoencoder):
    """Linear autoencoder x ↦ W_d W_eᵀ x trained by SGD on ½‖x̂ − x‖²; its span tends to the PCA subspace.

    Parameters
    ----------
    {params: k}

    {params: step, schedule, t0}
    """

    def __init__(self, k: int = 1, step: float = 0.1, schedule: str = "constant", t0: float = 0.0):
        self._init_common(k, step, schedule, t0)


@register_learner("tanh-ae")
@shared_params(STREAM_PARAMS)
class TanhAE(_Autoencoder):
    """One-hidden-layer autoencoder x ↦ W_d tanh(W_eᵀ x + b_e) + b_d trained by SGD.

    Parameters
    ----------
    {params: k}

    {params: step, schedule, t0}
    """

    activation = "tanh"

    def __init__(self, k: int = 1, step: float = 0.1, schedule: str = "constant", t0: float = 0.0):
        self._init_common(k, step, schedule, t0)


@register_learner("denoising-ae")
@shared_params(STREAM_PARAMS)
class DenoisingAE(_Autoencoder):
    """Denoising autoencoder: reconstruct x from x + σn, fresh n ~ N(0, I) every step (linear or tanh).

    Parameters
    ----------
    {params: k}

    noise : float, default 0.5
        Standard deviation σ of the Gaussian noise added to each input (fresh every step).
    activation : {"linear", "tanh"}, default "linear"
        Encoder activation; linear with squared loss has the shrunk-PCA optimum of theory §4.

    {params: step, schedule, t0}
    """

    def __init__(self, k: int = 1, noise: float = 0.5, activation: str = "linear", step: float = 0.1,
                 schedule: str = "constant", t0: float = 0.0):
        self._init_common(k, step, schedule, t0)
        self.noise = v.positive_float("noise", noise)
        self.activation = v.choice("activation", activation, ("linear", "tanh"))
