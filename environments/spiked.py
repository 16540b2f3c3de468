"""Stochastic online PCA: x_t ~ N(0, Σ) with a spiked covariance, loss L_t = −x_t x_tᵀ scaled to ‖L_t‖₂ ≤ 1.

Σ = noise·I + spike·P, where P projects onto a fixed ``rank``-dimensional subspace
(a random one drawn from ``basis_seed``, the same for every replicate).  The learner
that concentrates on the subspace gains most (the loss is negative semi-definite).
``normalize="unit"`` uses x/‖x‖ (‖L‖₂ = 1 exactly); ``"clip"`` uses x/max(‖x‖, radius),
with radius 2√tr Σ by default, keeping the Gaussian shape for all but rare samples.
The loss travels factored (its vector), see `onlinelab.FactoredLoss`.

>>> env = SpikedCovariance(d=4)
>>> env.subspace.shape
(4, 1)
"""
from __future__ import annotations

import numpy as np

from onlinelab import errors
from onlinelab.core import validation as v
from onlinelab.core.base import Environment
from onlinelab.core.blocks import LossBlock, rounds_per_block
from onlinelab.core.protocol import EigenPlay
from onlinelab.core.registry import register_environment
from onlinelab.geometry.linalg import rows_at
from onlinelab.losses.matrix import FactoredLoss


@register_environment("spiked-covariance")
class SpikedCovariance(Environment):
    """Stochastic rank-one losses −x xᵀ with x ~ N(0, noise·I + spike·P_subspace), normalised.

    Parameters
    ----------
    d : int, default 8
        Dimension of the losses (≥ 2).

    rank : int, default 1
        Dimension of the spiked subspace, 1 ≤ rank < d.
    spike : float, default 4.0
        Extra variance along the subspace: Σ = noise·I + spike·P.
    noise : float, default 1.0
        Isotropic variance.
    normalize : {"unit", "clip"}, default "unit"
        ``"unit"``: x/‖x‖ (‖L_t‖₂ = 1); ``"clip"``: x/max(‖x‖, radius), Gaussian shape for all but rare samples.
    radius : float or None, default None
        Clipping radius for ``normalize="clip"``; ``None`` takes 2√(tr Σ).
    basis_seed : int, default 0
        Seed of the fixed random subspace (the same for every replicate and run seed).
    """

    psd = False
    loss_bound = 1.0
    fro_sq_mean = 1.0

    def __init__(self, d: int = 8, rank: int = 1, spike: float = 4.0, noise: float = 1.0,
                 normalize: str = "unit", radius: float | None = None, basis_seed: int = 0):
        super().__init__(d=d)
        self.rank = v.integer("rank", rank, minimum=1)
        if self.rank >= self.d:
            raise errors.ConfigError(f"rank must be < d = {self.d}, got rank = {rank}")
        self.spike = v.positive_float("spike", spike)
        self.noise = v.positive_float("noise", noise)
        self.normalize = v.choice("normalize", normalize, ("unit", "clip"))
        self.radius = None if radius is None else v.positive_float("radius", radius)
        self.basis_seed = v.integer("basis_seed", basis_seed, minimum=0)
        q, _ = np.linalg.qr(np.random.default_rng(self.basis_seed).standard_normal((self.d, self.d)))
        self.subspace = q[:, : self.rank]
        self.sqrt_cov = np.sqrt(self.noise) * np.eye(self.d) + \
            (np.sqrt(self.noise + self.spike) - np.sqrt(self.noise)) * (self.subspace @ self.subspace.T)

    @property
    def covariance(self) -> np.ndarray:
        return self.sqrt_cov @ self.sqrt_cov

    def population_play(self):
        """A unit vector of the spiked subspace (every one is a top eigenvector of Σ), for ``comparator="truth"``."""
        U = self.subspace[:, :1]
        return EigenPlay(np.ones((self.replicates, 1)), np.broadcast_to(U, (self.replicates,) + U.shape))

    def emit(self, t, history):
        return FactoredLoss(self._normalized(rows_at(self.rng.normal(self.d), self.sqrt_cov)), coef=-1.0)

    @property
    def block_rounds(self) -> int:
        """Rounds per emitted block: about 2 MB of the dense d × d losses that the checks form (at least 64).
        Long blocks matter at small d, where a block's fixed work outweighs its rounds' (a compiled learner,
        onlinelab.kernels.logdet); the draws do not depend on how the rounds are cut."""
        return rounds_per_block(getattr(self, "replicates", 1), self.d * self.d)

    def emit_block(self, t, n):
        """n rounds at once: the same draws as n calls of `emit`, one vector per round and replicate."""
        x = self._normalized(rows_at(np.swapaxes(self.rng.normal((n, self.d)), 0, 1), self.sqrt_cov))  # (n, R, d)
        return LossBlock.of_rows(FactoredLoss, x, coef=-1.0)

    def _normalized(self, x):
        norm = np.linalg.norm(x, axis=-1, keepdims=True)
        if self.normalize == "unit":
            return x / np.maximum(norm, 1e-300)
        r = self.radius if self.radius is not None else 2 * np.sqrt(np.trace(self.covariance))
        return x / np.maximum(norm, r)
