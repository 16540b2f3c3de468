"""The exact minimiser of a weighted hinge objective with a ridge term, through its dual box-QP (theory §9).

The comparator of the hinge losses on a data set (`onlinelab.losses.datasets`) and a check for the
SVM dual of `onlinelab.bregman.svm`.
"""
from __future__ import annotations

import numpy as np

from onlinelab.geometry.linalg import rows_at
from onlinelab.geometry.momentum import restarted_fista


def hinge_argmin(At, c, rho, s, domain, tol: float = 1e-12) -> np.ndarray:
    """argmin_{x∈K} Σ_i c_i max(0, 1 − ã_i·x) + (ρ/2)‖x‖² − ⟨s, x⟩ per row, through the dual box-QP.

    With max(0, z) = max_{λ∈[0,1]} λz the minimum over x of the Lagrangian is at x(λ) = Π_K((s + Ãᵀλ)/ρ)
    (K = ℝⁿ or a box: the projection of the unconstrained minimiser, the quadratic being isotropic), and
    λ ∈ ∏[0, c_i] maximises the concave, (‖Ã‖²/ρ)-smooth dual — by restarted FISTA until the projected
    step is below tol·max(1, ‖c‖).  Used as the exact comparator of the hinge losses (theory §9).

    Parameters
    ----------
    At : numpy.ndarray
        Rows ã_i = y_i a_i, shape (N, n).
    c : numpy.ndarray
        Sample weights (R, N), ≥ 0.
    rho : numpy.ndarray
        Ridge weights (R,), > 0.
    s : numpy.ndarray
        Linear tilts (R, n).
    domain : Domain
        ℝⁿ or a box.
    tol : float, default 1e-12
        Relative tolerance on the dual step.
    """
    c, rho, s = np.asarray(c, float), np.asarray(rho, float), np.asarray(s, float)
    proj = domain.project if domain.kind == "box" else (lambda x: x)
    # each row's own step, from the samples it weighs (λ_i ∈ [0, c_i] = {0} elsewhere), and row-by-row products:
    # a replicate's minimiser never depends on the other rows (docs/architecture.md, "Determinism")
    norms = np.array([np.linalg.norm(At[row > 0], 2) if np.any(row > 0) else 0.0 for row in c])
    step = (rho / np.maximum(norms ** 2, 1e-300))[:, None]

    def x_of(lam):
        return proj((s + rows_at(lam, At)) / rho[:, None])

    def mapping(lam):
        return np.clip(lam + step * (1.0 - rows_at(x_of(lam), At.T)), 0.0, c)

    target = tol * np.maximum(1.0, np.linalg.norm(c, axis=1)) * step[:, 0]
    lam, _, _ = restarted_fista(mapping, 0.5 * c, target, 200000)
    return x_of(lam)
