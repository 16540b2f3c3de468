"""Online PCA in compression form: keep k directions, pay the energy of what is discarded
(theory §2 "Rank k", docs/theory/02-online-pca.md).

``pca-compression``: L_t = x_t x_tᵀ with ‖x_t‖ = 1 (so 0 ⪯ L_t ⪯ I, ‖L_t‖₂ = 1), x_t ∝ Q z_t + noise·g_t
for a fixed random d × k basis Q per replicate (drawn in ``reset``) and z_t, g_t standard normal.  The
learner plays a rank-m projector, m = d − k (domain ``fantope:m``: mixed strategies are the
trace-m points mW, W a capped density matrix); the comparator is the best rank-m projector in
hindsight, Σ of the m smallest eigenvalues of Σ_t L_t, i.e. the compression loss of the best
k-dimensional subspace.

>>> PCACompression(d=6, k=2).domain
'fantope:4'
"""
from __future__ import annotations

import numpy as np

from onlinelab import errors
from onlinelab.core import validation as v
from onlinelab.core.base import Environment
from onlinelab.core.registry import register_environment
from onlinelab.geometry.subspaces import check_rank, orthonormalize
from onlinelab.losses.projection import ProjectionLoss


@register_environment("pca-compression")
class PCACompression(Environment):
    """Unit vectors near a hidden k-dimensional subspace; a rank-(d − k) projector pays ‖P x_t‖².

    Parameters
    ----------
    d : int, default 8
        Dimension of the losses (≥ 2).

    k : int, default 2
        Dimension of the hidden subspace; the learner plays rank-m projectors, m = d − k.
    noise : float, default 0.5
        Standard deviation of the isotropic noise around the subspace, before normalising.
    """

    psd = True
    loss_bound = 1.0
    domain = "fantope:6"
    reference_learner = "capped-meg"

    def __init__(self, d: int = 8, k: int = 2, noise: float = 0.5):
        super().__init__(d=d)
        self.k = check_rank(k, self.d)
        self.noise = v.real("noise", noise)
        if self.noise < 0:
            raise errors.ConfigError(f"noise must be ≥ 0, got {noise!r}")
        self.domain = f"fantope:{self.d - self.k}"

    def reset(self, rng, T):
        super().reset(rng, T)
        self._Q = orthonormalize(self.rng.normal((self.d, self.k)))

    def emit(self, t, history):
        x = np.einsum("rik,rk->ri", self._Q, self.rng.normal(self.k)) + self.noise * self.rng.normal(self.d)
        x /= np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-300)
        return ProjectionLoss(x, coef=1.0, rank=self.d - self.k)
