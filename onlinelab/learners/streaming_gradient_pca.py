"""Gradient PCA with a polar retraction, on a stream of mini-batches or on a fixed data matrix
(theory §4, docs/theory/04-streaming.md).

Objective (Theorem 1.7 of the source paper, checked in theory §4), for samples as the columns
of ``X`` (d × n) and ``C = X Xᵀ``:

    f(U) = ‖U Uᵀ X − X‖_F²,    ∇f(U) = 2 (C U UᵀU + U UᵀC U − 2 C U).

``C U = X (Xᵀ U)`` is computed from the samples, O(dkn), so C is never formed.  A step is
``U ← polar(U − η ∇f(U))`` (the closest orthonormal basis).  Step sizes:

* ``line_search="none"``: ``η = step / (16 λ_max(C))`` — ``step = 1`` is the safe step of theory §4 on
  ``{‖U‖₂ ≤ 1}``; λ_max comes from the small n × n Gram matrix ``XᵀX`` (or d × d if smaller);
* ``line_search="armijo"``: start at ``step / λ_max(C)`` and halve until
  ``f(U⁺) ≤ f(U) − 10⁻⁴ η ‖∇f‖²`` (per replicate; at most 30 halvings).

On a stream, each round's b samples give ``C_t = X_t X_tᵀ / b`` and one step; the
multiplier ``step`` then follows ``schedule`` over rounds (constant by default; "inverse"
shrinks the mini-batch noise floor like SGD).  The objective is non-convex, so no rate
bound applies (Lemma 6.22 does not cover it).  `gradient_pca` runs the same step on
a fixed matrix.

>>> import numpy as np
>>> X = np.random.default_rng(0).standard_normal((6, 200)) * np.array([3, 2, 1, 1, 1, 1.0])[:, None]
>>> U, hist = gradient_pca(X, k=2, iters=300)
>>> bool(hist[-1] <= hist[0]) and U.shape == (6, 2)
True
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from onlinelab.core import validation as v
from onlinelab.core.docs import shared_params
from onlinelab.core.registry import register_learner
from onlinelab.core.rng import BatchRNG
from onlinelab.errors import ConfigError
from onlinelab.geometry.subspaces import check_rank, polar, random_basis
from onlinelab.learners.streaming_base import STREAM_PARAMS, StepSchedule, SubspaceLearner, check_finite, samples_of

ARMIJO_C, ARMIJO_SHRINK, ARMIJO_MAX = 1e-4, 0.5, 30


def pca_objective(U: np.ndarray, X: np.ndarray) -> np.ndarray:
    """f(U) = ‖U Uᵀ X − X‖_F² per replicate; U (R, d, k), X (R, d, n); O(dkn)."""
    Y = np.swapaxes(U, 1, 2) @ X                    # (R, k, n)
    G = np.swapaxes(U, 1, 2) @ U                    # (R, k, k)
    return (np.einsum("rdn,rdn->r", X, X) - 2 * np.einsum("rkn,rkn->r", Y, Y)
            + np.einsum("rkn,rkl,rln->r", Y, G, Y))


def pca_gradient(U: np.ndarray, X: np.ndarray) -> np.ndarray:
    """∇f(U) = 2 (C U UᵀU + U UᵀC U − 2 C U), C = X Xᵀ, without forming C (Theorem 1.7)."""
    XtU = np.swapaxes(X, 1, 2) @ U                  # (R, n, k)
    CU = X @ XtU                                    # (R, d, k)
    UtU = np.swapaxes(U, 1, 2) @ U
    UtCU = np.swapaxes(XtU, 1, 2) @ XtU
    return 2.0 * (CU @ UtU + U @ UtCU - 2.0 * CU)


def top_eigenvalue(X: np.ndarray) -> np.ndarray:
    """λ_max(X Xᵀ) per replicate from the smaller of the two Gram matrices."""
    n, d = X.shape[2], X.shape[1]
    gram = np.swapaxes(X, 1, 2) @ X if n <= d else X @ np.swapaxes(X, 1, 2)
    return np.linalg.eigvalsh(gram)[:, -1]


def retraction_step(U: np.ndarray, X: np.ndarray, step, line_search: str) -> np.ndarray:
    """One gradient step on f (samples X) followed by the polar retraction, for all replicates."""
    grad = pca_gradient(U, X)
    lam = np.maximum(top_eigenvalue(X), np.finfo(float).tiny)
    step = np.broadcast_to(np.asarray(step, dtype=float), lam.shape)
    if line_search == "none":
        return polar(U - (step / (16.0 * lam))[:, None, None] * grad)
    eta = step / lam
    f0 = pca_objective(U, X)
    g2 = np.einsum("rdk,rdk->r", grad, grad)
    new = polar(U - eta[:, None, None] * grad)
    todo = pca_objective(new, X) > f0 - ARMIJO_C * eta * g2
    for _ in range(ARMIJO_MAX):
        if not todo.any():
            break
        eta = np.where(todo, eta * ARMIJO_SHRINK, eta)
        idx = np.flatnonzero(todo)
        new[idx] = polar(U[idx] - eta[idx, None, None] * grad[idx])
        todo[idx] = pca_objective(new[idx], X[idx]) > f0[idx] - ARMIJO_C * eta[idx] * g2[idx]
    return new


class GradientPCAState(NamedTuple):
    Q: np.ndarray   # (R, d, k), orthonormal (polar factor)
    rounds: int


@register_learner("gradient-pca")
@shared_params(STREAM_PARAMS)
class GradientPCA(SubspaceLearner):
    """Gradient descent on ‖UUᵀX − X‖² with a polar retraction, one step per mini-batch (theory §4).

    Parameters
    ----------
    {params: k}

    step : float, default 1.0
        Step multiplier: η = step / (16 λ_max(C)) with ``line_search="none"`` (``step = 1`` is the safe
        step of theory §4), the initial trial step with Armijo.
    line_search : {"none", "armijo"}, default "none"
        Fixed safe step or Armijo backtracking.
    schedule : {"constant", "inverse", "inverse_sqrt"}, default "constant"
        Decay of the step multiplier over samples n.
    {params: t0}
    """

    def __init__(self, k: int = 1, step: float = 1.0, line_search: str = "none", schedule: str = "constant",
                 t0: float = 0.0):
        self.k = v.integer("k", k, minimum=1)
        self.step, self.schedule, self.t0 = step, schedule, t0
        StepSchedule(schedule, step, t0)  # validate now
        self.line_search = v.choice("line_search", line_search, ("none", "armijo"))

    def init(self, ctx, rng) -> GradientPCAState:
        return GradientPCAState(random_basis(rng, ctx.replicates, ctx.d, self.check_k(ctx)), 0)

    def update(self, state: GradientPCAState, play, feedback, rng) -> GradientPCAState:
        X = samples_of(feedback.loss, "gradient-PCA update")
        step = StepSchedule(self.schedule, self.step, self.t0)(state.rounds + 1)
        Q = retraction_step(state.Q, X / np.sqrt(X.shape[2]), step, self.line_search)
        return GradientPCAState(Q, state.rounds + 1)


def gradient_pca(X, k: int, iters: int = 200, step: float = 1.0, line_search: str = "none",
                 seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Gradient PCA on a fixed data matrix ``X`` (d × n, samples as columns; centre it first if needed).

    Returns the orthonormal basis ``U`` (d × k) and the objective ``f`` before each step and
    after the last (length ``iters + 1``).
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ConfigError(f"X must be a d × n matrix (samples as columns), got shape {X.shape}")
    check_finite(X, "gradient_pca data")
    d, n = X.shape
    k = check_rank(k, d)
    if n < k:
        raise ConfigError(f"the data set has {n} samples, fewer than k = {k}; gradient PCA needs at least k samples")
    iters = v.integer("iters", iters, minimum=1)
    step = v.positive_float("step", step)
    line_search = v.choice("line_search", line_search, ("none", "armijo"))
    U = random_basis(BatchRNG.from_seed(seed, "learner", "gradient-pca", 1), 1, d, k)
    Xb = X[None]
    hist = [float(pca_objective(U, Xb)[0])]
    for _ in range(iters):
        U = retraction_step(U, Xb, step, line_search)
        hist.append(float(pca_objective(U, Xb)[0]))
    return U[0], np.asarray(hist)
