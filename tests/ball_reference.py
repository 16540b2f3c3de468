"""Exact minimiser of ½xᵀAx + bᵀx over the ball ‖x‖ ≤ r (A ⪰ 0) by the secular equation, for tests.

KKT: (A + μI)x = −b, μ ≥ 0, μ(r − ‖x‖) = 0.  If A ≻ 0 and ‖A⁻¹b‖ ≤ r the minimiser is interior (μ = 0);
otherwise μ > 0 solves ‖x(μ)‖ = r with x(μ) = −(A + μI)⁻¹b, ‖x(μ)‖² = Σ_i (q_iᵀb)²/(λ_i + μ)² strictly
decreasing in μ.  Bracket: at μ = 0⁺ the norm exceeds r, at μ = ‖b‖/r it is ≤ ‖b‖/(λ_min + ‖b‖/r) ≤ r.
(The "hard case" b ⟂ bottom eigenspace has probability zero for the random data used here.)
Written independently of :func:`onlinelab.losses.vector.quadratic_argmin`.
"""
import numpy as np
from scipy.optimize import brentq


def ball_argmin(A, b, r=1.0):
    lam, Q = np.linalg.eigh(0.5 * (A + A.T))
    beta = Q.T @ b
    if lam[0] > 0 and np.linalg.norm(beta / lam) <= r:
        return -Q @ (beta / lam)

    def excess(mu):
        with np.errstate(divide="ignore"):
            return np.linalg.norm(beta / (lam + mu)) - r
    hi = np.linalg.norm(b) / r
    if excess(hi) >= 0:                         # only when ‖x(‖b‖/r)‖ = r exactly (λ_min = 0)
        return -Q @ (beta / (lam + hi))
    mu = brentq(excess, 0.0, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
    return -Q @ (beta / (lam + mu))


def ball_min(A, b, r=1.0):
    x = ball_argmin(A, b, r)
    return 0.5 * x @ A @ x + b @ x, x
