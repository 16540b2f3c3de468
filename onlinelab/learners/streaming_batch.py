"""Comparator learners for streaming PCA: batch PCA on everything seen, and scikit-learn's IncrementalPCA.

They run in the same simulation as the streaming learners, so one run and one report put
them side by side (the protocol, docs/guide/writing-learners.md).  Neither is O(dk):

* ``batch-pca`` keeps the d × d second-moment sum ``S = Σ x xᵀ`` (one GEMM per block) and
  plays the top-k eigenvectors of S (one batched ``eigh`` every ``refresh`` rounds) — follow
  the leader for the compression loss, and the best-in-hindsight subspace at the end.
  Streams here are centred, so S is the (unnormalised) covariance.
* ``incremental-pca`` wraps ``sklearn.decomposition.IncrementalPCA``, one estimator per
  replicate (a Python loop over R: scikit-learn is not batched), fed in chunks of exactly
  ``batch_size`` samples as they arrive; it centres with its running mean.

>>> import onlinelab as ol
>>> env = ol.make_environment("spiked-stream", d=8, k=2, block=10)
>>> res = ol.simulate(env, [BatchPCA(k=2)], T=100, replicates=2, seed=0)
>>> bool(res.final("sin2_theta").max() < 0.1)
True
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from onlinelab.core import validation as v
from onlinelab.core.docs import shared_params
from onlinelab.core.registry import register_learner
from onlinelab.errors import ConfigError
from onlinelab.geometry.subspaces import random_basis
from onlinelab.learners.streaming_base import STREAM_PARAMS, SubspaceLearner, samples_of


class BatchPCAState(NamedTuple):
    S: np.ndarray   # (R, d, d) Σ x xᵀ so far
    Q: np.ndarray   # (R, d, k) top-k eigenvectors of S at the last refresh
    rounds: int


@register_learner("batch-pca")
@shared_params(STREAM_PARAMS)
class BatchPCA(SubspaceLearner):
    """Top-k eigenvectors of the second moment of all samples seen so far (refreshed every ``refresh`` rounds).

    Parameters
    ----------
    {params: k}

    refresh : int, default 1
        Recompute the top-k eigenvectors every this many rounds.
    """

    def __init__(self, k: int = 1, refresh: int = 1):
        self.k = v.integer("k", k, minimum=1)
        self.refresh = v.integer("refresh", refresh, minimum=1)

    def init(self, ctx, rng) -> BatchPCAState:
        k = self.check_k(ctx)
        return BatchPCAState(np.zeros((ctx.replicates, ctx.d, ctx.d)), random_basis(rng, ctx.replicates, ctx.d, k), 0)

    def update(self, state: BatchPCAState, play, feedback, rng) -> BatchPCAState:
        X = samples_of(feedback.loss, "batch-PCA update")
        S = state.S + X @ np.swapaxes(X, 1, 2)
        rounds = state.rounds + 1
        Q = state.Q
        if rounds % self.refresh == 0:
            Q = np.linalg.eigh(0.5 * (S + np.swapaxes(S, 1, 2)))[1][:, :, ::-1][:, :, : self.k].copy()
        return BatchPCAState(S, Q, rounds)


class IPCAState(NamedTuple):
    Q: np.ndarray           # (R, d, k) components (random until the first chunk is fitted)
    models: tuple           # one IncrementalPCA per replicate
    buffer: np.ndarray      # (R, d, m) samples waiting for a full chunk, m < batch_size


@register_learner("incremental-pca")
@shared_params(STREAM_PARAMS)
class IncrementalPCALearner(SubspaceLearner):
    """scikit-learn's IncrementalPCA, partial_fit on every full chunk of ``batch_size`` samples.

    Parameters
    ----------
    {params: k}

    batch_size : int, default 100
        Samples per ``partial_fit`` call of scikit-learn's IncrementalPCA.
    """

    def __init__(self, k: int = 1, batch_size: int = 100):
        self.k = v.integer("k", k, minimum=1)
        self.batch_size = v.integer("batch_size", batch_size, minimum=1)
        if self.batch_size < self.k:
            raise ConfigError(f"batch_size must be >= k = {self.k} (IncrementalPCA fits k components per chunk), "
                              f"got batch_size = {batch_size}")

    def init(self, ctx, rng) -> IPCAState:
        from sklearn.decomposition import IncrementalPCA
        k = self.check_k(ctx)
        models = tuple(IncrementalPCA(n_components=k) for _ in range(ctx.replicates))
        return IPCAState(random_basis(rng, ctx.replicates, ctx.d, k), models, np.zeros((ctx.replicates, ctx.d, 0)))

    def update(self, state: IPCAState, play, feedback, rng) -> IPCAState:
        X = samples_of(feedback.loss, "IncrementalPCA update")
        buf = np.concatenate([state.buffer, X], axis=2)
        m = self.batch_size
        full = buf.shape[2] // m
        if full == 0:
            return IPCAState(state.Q, state.models, buf)
        Q = state.Q.copy()
        for r, model in enumerate(state.models):
            for c in range(full):
                model.partial_fit(buf[r, :, c * m:(c + 1) * m].T)
            Q[r] = model.components_.T
        return IPCAState(Q, state.models, buf[:, :, full * m:])

    def reconstruct(self, state: IPCAState, X: np.ndarray) -> np.ndarray:
        """Projection through the running mean, as ``IncrementalPCA.inverse_transform(transform(x))``."""
        mean = np.stack([getattr(mdl, "mean_", np.zeros(X.shape[-2])) for mdl in state.models])[:, :, None]
        Q = state.Q
        return mean + Q @ (np.swapaxes(Q, 1, 2) @ (X - mean))
