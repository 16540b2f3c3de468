"""Random convex quadratics on a ball: ℓ_t(x) = ½(x − c_t)ᵀA_t(x − c_t), A_t ⪰ μI, ‖A_t‖₂ ≤ 1, ‖c_t‖ ≤ 1.

Oblivious, i.i.d.: A_t = Q diag(a) Qᵀ with a uniform in [μ, 1] and a random rotation Q, c_t
uniform in the unit ball.  Domain ``ball:1``; the gradient over the ball is at most
‖A_t‖₂(1 + ‖c_t‖) ≤ 2 = ``loss_bound`` (checked every round).  The comparator is the exact
minimiser of the summed quadratic over the ball (`onlinelab.losses.vector.quadratic_argmin`).

>>> RandomQuadratics(d=3).domain
'ball:1'
"""
from __future__ import annotations

import numpy as np

from onlinelab.core import validation as v
from onlinelab.core.base import Environment
from onlinelab.core.registry import register_environment
from onlinelab.geometry.domains import Ball
from onlinelab.losses.vector import QuadraticLoss


@register_environment("quadratic-ball")
class RandomQuadratics(Environment):
    """I.i.d. random convex quadratics ½(x − c)ᵀA(x − c) on the unit ball (curvature in [mu, 1]).

    Parameters
    ----------
    d : int, default 5
        Dimension of the ball.
    mu : float, default 0.1
        Lower end of the curvature: A_t ⪰ μI, so every loss is μ-strongly convex.
    """

    domain = "ball:1"
    loss_bound = 2.0
    loss_offers = frozenset({"leader"})  # quadratics: not linear, so no prescient closed form
    reference_learner = "omd"      # projected gradient descent, for check_environment

    def __init__(self, d: int = 5, mu: float = 0.1):
        super().__init__(d=d)
        self.mu = v.unit_interval("mu", mu)

    def reset(self, rng, T):
        super().reset(rng, T)
        self.ball = Ball(self.d, 1.0)

    def emit(self, t, history):
        d = self.d
        Q, _ = np.linalg.qr(self.rng.normal((d, d)))
        a = self.mu + (1 - self.mu) * self.rng.random(d)
        A = np.einsum("rik,rk,rjk->rij", Q, a, Q)
        A = 0.5 * (A + np.swapaxes(A, 1, 2))
        c = self.rng.normal(d)
        c *= (self.rng.random()[:, None] ** (1 / d)) / np.linalg.norm(c, axis=1, keepdims=True)
        return QuadraticLoss(A, -np.einsum("rij,rj->ri", A, c), self.ball)
