"""Plain SGD with a weighted averaged iterate — the machinery of the autoencoders, checked on a convex stream.

theory §4, docs/theory/04-streaming.md (machine-learning notes, Theorem 3.3): for a convex, L-smooth ``E``
whose stochastic gradients have variance ≤ σ², SGD ``w^{k+1} = w^k − τ_k ∇e_{i_k}(w^k)`` with ``τ_k ≤ 1/L`` and
the average ``w̄^K = Σ τ_k w^{k+1} / Σ τ_k`` satisfies (proven constant, [derived])

    E E(w̄^K) − E* ≤ ‖w⁰ − ŵ‖² / (2 Σ τ_k) + σ² Σ τ_k² / Σ τ_k.

This learner uses first-order feedback (the simulator hands it ``∇e_t(w_t)``) and keeps the
sums the bound needs; ``environments/least_squares.py`` supplies a stream on which E, E*, ŵ,
L and σ² are known exactly and logs the suboptimality beside the bound.

>>> import onlinelab as ol
>>> env = ol.make_environment("least-squares-stream", d=3)
>>> res = ol.simulate(env, [SGD(step=0.05)], T=500, seed=0)
>>> bool((res.final("suboptimality") <= res.final("sgd_bound")).all())
True
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from onlinelab.core.base import Learner
from onlinelab.core.docs import shared_params
from onlinelab.core.protocol import Play
from onlinelab.core.registry import register_learner
from onlinelab.errors import DomainError
from onlinelab.learners.streaming_base import STREAM_PARAMS, StepSchedule, check_finite


class SGDState(NamedTuple):
    w: np.ndarray        # (R, d) current iterate
    wsum: np.ndarray     # (R, d) Σ τ_k w^{k+1}
    tau_sum: float       # Σ τ_k
    tau_sq_sum: float    # Σ τ_k²
    k: int               # steps taken


@register_learner("sgd")
@shared_params(STREAM_PARAMS)
class SGD(Learner):
    """Stochastic gradient descent from w⁰ = 0 with step schedule τ_k and the τ-weighted average iterate.

    Parameters
    ----------
    step : float, default 0.1
        Step constant c > 0 of the schedule; the bound of theory §4 needs τ_k ≤ 1/L.
    {params: schedule, t0}
    """

    feedback = "first_order"
    plays = "euclidean"
    reference_environment = "least-squares-stream"  # what `onlinelab check learner sgd` plays

    def __init__(self, step: float = 0.1, schedule: str = "constant", t0: float = 0.0):
        self.step, self.schedule, self.t0 = step, schedule, t0
        StepSchedule(schedule, step, t0)  # validate now

    def init(self, ctx, rng) -> SGDState:
        if ctx.domain != "euclidean":
            raise DomainError(f"sgd plays unconstrained vectors (domain 'euclidean') but the environment's domain is "
                              f"{ctx.domain!r}; pair it with e.g. 'least-squares-stream', or use 'oja' for PCA streams")
        z = np.zeros((ctx.replicates, ctx.d))
        return SGDState(z, z.copy(), 0.0, 0.0, 0)

    def act(self, state: SGDState, rng) -> Play:
        return Play(state.w)

    def update(self, state: SGDState, play, feedback, rng) -> SGDState:
        grad = check_finite(np.asarray(feedback.gradient, dtype=float), "SGD gradient")
        tau = float(StepSchedule(self.schedule, self.step, self.t0)(state.k + 1))  # τ_k = s(k + 1), k = 0, 1, …
        w = state.w - tau * grad
        return SGDState(w, state.wsum + tau * w, state.tau_sum + tau, state.tau_sq_sum + tau ** 2, state.k + 1)

    def averaged(self, state: SGDState) -> np.ndarray:
        """w̄ = Σ τ_k w^{k+1} / Σ τ_k (the iterate Theorem 3.3 bounds)."""
        return state.wsum / state.tau_sum if state.tau_sum > 0 else state.w
