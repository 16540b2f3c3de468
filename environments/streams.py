"""Sample streams for streaming PCA and autoencoders, each with a known target subspace
(theory §4, docs/theory/04-streaming.md).

* ``spiked-stream`` — x ~ N(0, Σ), Σ = noise·I + U diag(spikes − noise) Uᵀ, U a fixed random
  d × k basis; b samples per round, drawn in O(dk) each (never through a d × d square root).
* ``rotating-subspace`` — the same, but U turns at ``speed`` radians per sample towards k
  further orthonormal directions: a drifting target for tracking.
* ``digits-stream`` — scikit-learn's bundled 8 × 8 digits (1797 × 64, scaled to [0, 1] and
  centred), each replicate in its own random order, or sorted by class (an adversarial
  order: the stream shows one digit at a time); the target is the batch-PCA subspace.
  ``n_samples`` keeps a subsample, chosen by ``subset_seed`` and *not* by the run's seed: the
  subsample defines the data set (its batch-PCA subspace is the one target ``truth()`` reports
  for every replicate, fixed at construction like ``spiked-stream``'s ``basis_seed``); what the
  run's seed randomises, per replicate, is the order in which that data set is streamed.

Every round is one `onlinelab.losses.streaming.SampleLoss` (the b samples as
factors), so regret is compression regret against the best rank-k projection in hindsight.
At checkpoints the environment scores any learner with a ``subspace(state)`` method:
``sin2_theta``, ``sin_theta_fro``, ``explained_variance`` (tr QᵀΣQ / tr Σ) and
``reconstruction_error`` on fixed held-out samples, via the learner's ``reconstruct``.

>>> env = SpikedStream(d=6, k=2)
>>> env.subspace.shape, env.gap
((6, 2), 2.0)
"""
from __future__ import annotations

import numpy as np

from onlinelab.core import validation as v
from onlinelab.core.base import Environment
from onlinelab.core.blocks import LossBlock
from onlinelab.core.docs import Param, shared_params
from onlinelab.core.protocol import EigenPlay
from onlinelab.core.registry import register_environment
from onlinelab.errors import ConfigError
from onlinelab.geometry import subspace_metrics as M
from onlinelab.geometry.subspaces import check_rank
from onlinelab.losses.streaming import SampleLoss

# The spiked streams' shared parameters (onlinelab.core.docs).
_SPIKED_PARAMS = {
    "d": Param("int", "Dimension of the samples."),
    "k": Param("int", "Dimension of the target subspace, 1 ≤ k < d."),
    "spikes": Param("list of float or None", "The k variances along the target subspace, each above ``noise``; "
                                             "``None`` spaces them evenly from 5 down to 3."),
    "noise": Param("float", "Variance in every other direction (the eigengap is min(spikes) − noise)."),
    "block": Param("int", "Samples per round (one SampleLoss carries the block)."),
    "basis_seed": Param("int", "Seed of the fixed random target basis (the same for every replicate and run seed)."),
    "n_test": Param("int", "Held-out samples for the reconstruction-error metric."),
}


class SubspaceStream(Environment):
    """Base: ``k``, ``block`` and the checkpoint metrics against ``truth()`` = (basis, covariance)."""

    psd = False
    loss_bound = float("inf")  # Gaussian samples have no norm bound; data streams set their own
    reference_learner = "oja"  # what `onlinelab check env` runs against these streams

    @property
    def samples_per_round(self) -> int:
        """Samples one round carries (``block``): figures draw streams against samples, not rounds."""
        return self.block

    def truth(self) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def test_samples(self) -> np.ndarray:
        """Held-out samples (d, n) for the reconstruction error."""
        raise NotImplementedError

    def population_play(self):
        """The projector onto the true top-k subspace, for every replicate (``comparator="truth"``)."""
        U = self.truth()[0]
        return EigenPlay(np.ones((self.replicates, U.shape[1])), np.broadcast_to(U, (self.replicates,) + U.shape))

    def checkpoint_metrics(self, learner, state) -> dict:
        if not hasattr(learner, "subspace"):
            return {}
        U, cov = self.truth()
        Q = learner.subspace(state)
        return {"sin2_theta": M.sin2_theta(Q, U), "sin_theta_fro": M.sin_theta_fro(Q, U),
                "explained_variance": M.explained_variance(Q, cov),
                "reconstruction_error": M.reconstruction_error(learner.reconstruct(state, self.test_samples()),
                                                               self.test_samples())}


@register_environment("spiked-stream")
@shared_params(_SPIKED_PARAMS)
class SpikedStream(SubspaceStream):
    """Gaussian samples with a spiked covariance (top-k subspace known), ``block`` samples per round.

    Parameters
    ----------
    {params: d, k, spikes, noise, block, basis_seed, n_test}
    """

    def __init__(self, d: int = 20, k: int = 3, spikes=None, noise: float = 1.0, block: int = 1,
                 basis_seed: int = 0, n_test: int = 256):
        super().__init__(d=d)
        self.k = check_rank(k, self.d)
        self.noise = v.positive_float("noise", noise)
        self.spikes = None if spikes is None else [v.real(f"spikes[{i}]", s) for i, s in enumerate(spikes)]
        self._spikes = np.linspace(5.0, 3.0, self.k) if spikes is None else np.asarray(self.spikes)
        if len(self._spikes) != self.k:
            raise ConfigError(f"spikes must list k = {self.k} variances, got {len(self._spikes)}: {spikes!r}")
        for i, s in enumerate(self._spikes):
            if s <= self.noise:
                raise ConfigError(f"spikes[{i}] = {float(s)!r} must exceed noise = {self.noise!r} so that the spiked "
                                  "subspace is the top-k one; raise the spike or lower the noise")
        self.block = v.integer("block", block, minimum=1)
        self.basis_seed = v.integer("basis_seed", basis_seed, minimum=0)
        self.n_test = v.integer("n_test", n_test, minimum=1)
        basis, _ = np.linalg.qr(np.random.default_rng(self.basis_seed).standard_normal((self.d, 2 * self.k)))
        self._basis = basis  # first k columns: the subspace; next k: where a rotating subspace turns to
        self.subspace = basis[:, : self.k]
        self._angle = 0.0
        self._test_G = np.random.default_rng(self.basis_seed + 1).standard_normal((self.d, self.n_test))

    @property
    def gap(self) -> float:
        """λ_k − λ_{k+1} of Σ."""
        return float(self._spikes.min() - self.noise)

    def basis_at(self, angle: float) -> np.ndarray:
        return self.subspace if angle == 0 else \
            np.cos(angle) * self._basis[:, : self.k] + np.sin(angle) * self._basis[:, self.k: 2 * self.k]

    def covariance_at(self, angle: float) -> np.ndarray:
        U = self.basis_at(angle)
        return self.noise * np.eye(self.d) + (U * (self._spikes - self.noise)) @ U.T

    def _draw(self, G: np.ndarray, angle: float) -> np.ndarray:
        """x = √noise·g + U diag(√spike − √noise) Uᵀ g for Gaussian g, columnwise: O(dk) per sample."""
        U = self.basis_at(angle)
        scale = np.sqrt(self._spikes) - np.sqrt(self.noise)
        return np.sqrt(self.noise) * G + (U * scale) @ (U.T @ G)

    def angle(self, t: int) -> float:
        return 0.0

    def emit(self, t, history):
        self._angle = self.angle(t)
        return SampleLoss(self._draw(self.rng.normal((self.d, self.block)), self._angle), k=self.k)

    @property
    def block_rounds(self) -> int:
        """Rounds per emitted block: about 4 MB of samples."""
        return max(1, min(64, 2 ** 19 // (self.d * self.block)))

    def emit_block(self, t, n):
        """n rounds at once (a fixed subspace only): the same draws as n calls of `emit`."""
        if type(self).angle is not SpikedStream.angle:
            return None  # a moving subspace: round by round
        G = np.swapaxes(self.rng.normal((n, self.d, self.block)), 0, 1)     # (n, R, d, b)
        return LossBlock.of_rows(SampleLoss, self._draw(G, 0.0), k=self.k)

    def truth(self):
        return self._at_angle()[:2]

    def test_samples(self):
        return self._at_angle()[2]

    def _at_angle(self):
        """(basis, covariance, held-out samples) at the current angle, computed once per angle (checkpoints)."""
        cached = self.__dict__.get("_truth_cache")
        if cached is None or cached[0] != self._angle:
            a = self._angle
            cached = self.__dict__["_truth_cache"] = (a, self.basis_at(a), self.covariance_at(a),
                                                      self._draw(self._test_G, a))
        return cached[1:]


@register_environment("rotating-subspace")
@shared_params(_SPIKED_PARAMS)
class RotatingSubspace(SpikedStream):
    """A spiked stream whose subspace turns at ``speed`` radians per sample (needs 2k ≤ d).

    Parameters
    ----------
    {params: d, k, spikes, noise, block, basis_seed, n_test}

    speed : float, default 0.001
        Rotation of the subspace, in radians per sample (needs 2k ≤ d).
    """

    def __init__(self, d: int = 20, k: int = 2, spikes=None, noise: float = 1.0, block: int = 1,
                 basis_seed: int = 0, n_test: int = 256, speed: float = 1e-3):
        if 2 * v.integer("k", k, minimum=1) > v.integer("d", d, minimum=2):
            raise ConfigError(f"rotating-subspace needs 2k <= d (k directions turn towards k others), got k = {k}, "
                              f"d = {d}")
        super().__init__(d=d, k=k, spikes=spikes, noise=noise, block=block, basis_seed=basis_seed, n_test=n_test)
        self.speed = v.real("speed", speed)

    def angle(self, t: int) -> float:
        return self.speed * t * self.block


@register_environment("digits-stream")
class DigitsStream(SubspaceStream):
    """scikit-learn's digits (scaled, centred) streamed in random order or sorted by class; target: batch PCA.

    ``n_samples`` (optional) keeps a fixed subsample drawn with ``subset_seed``: it is part of the data set's
    definition (the target subspace is its batch PCA), so the run's seed does not change it; the run's seed
    changes the streaming order of each replicate (``order="random"``) or the order within each class ("sorted").

    Parameters
    ----------
    k : int, default 5
        Dimension of the target subspace (batch PCA of the data set).
    order : {"random", "sorted"}, default "random"
        Each replicate in its own random order, or sorted by class (one digit at a time).
    block : int, default 1
        Samples per round.
    n_samples : int or None, default None
        Keep a subsample of this size; ``None`` keeps all 1797 images.
    subset_seed : int, default 0
        Seed of the subsample (part of the data set, not of the run: the run's seed sets the order).
    """

    def __init__(self, k: int = 5, order: str = "random", block: int = 1, n_samples: int | None = None,
                 subset_seed: int = 0):
        from sklearn.datasets import load_digits
        X, y = load_digits(return_X_y=True)
        super().__init__(d=X.shape[1])
        self.k = check_rank(k, self.d)
        self.order = v.choice("order", order, ("random", "sorted"))
        self.block = v.integer("block", block, minimum=1)
        self.n_samples = None if n_samples is None else v.integer("n_samples", n_samples, minimum=1)
        self.subset_seed = v.integer("subset_seed", subset_seed, minimum=0)
        if self.n_samples is not None:  # the data set itself (see the class docstring), not a run's randomness
            keep = np.random.default_rng(self.subset_seed).permutation(len(y))[: self.n_samples]
            X, y = X[keep], y[keep]
        self.data = X / 16.0 - (X / 16.0).mean(axis=0)
        self.labels = y
        self.subspace, var = M.pca_basis(self.data, self.k)  # raises for too few samples
        self.covariance = self.data.T @ self.data / len(y)
        self.loss_bound = float(np.einsum("ij,ij->i", self.data, self.data).max())

    def reset(self, rng, T):
        super().reset(rng, T)
        n = len(self.labels)
        keys = rng.random(n)  # (R, n): a per-replicate shuffle
        self._order = np.argsort(keys, axis=1) if self.order == "random" else \
            np.lexsort((keys, np.broadcast_to(self.labels, keys.shape)), axis=1)
        self._pos = 0

    def emit(self, t, history):
        n = len(self.labels)
        idx = self._order[:, (self._pos + np.arange(self.block)) % n]  # (R, b); later epochs repeat the order
        self._pos += self.block
        return SampleLoss(np.swapaxes(self.data[idx], 1, 2), k=self.k)

    def truth(self):
        return self.subspace, self.covariance

    def test_samples(self):
        return self.data.T
