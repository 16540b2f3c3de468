"""The linear methods: PCA, LPP and ONPP as trace problems on d × d matrices (theory §7).

Each finds V (d × k) and embeds Y = Vᵀ(x − mean), so ``transform`` maps points never seen (a
prefix of a stream fits, the rest is embedded out of sample):

* **PCA**: the **top** k eigenvectors of X̄ᵀX̄ (the notes print "bottom": erratum), VᵀV = I;
* **LPP**: X̄ᵀ L X̄ v = λ X̄ᵀ D X̄ v, smallest k — Laplacian eigenmaps restricted to linear maps, with
  X centred by its D-weighted mean so that Y D 1 = 0 as in LE;
* **ONPP**: LLE's M, bottom k eigenvectors of X̄ᵀ M X̄ with VᵀV = I.

When the data span fewer than d dimensions (always when d ≥ m), X̄ᵀDX̄ is singular: LPP and ONPP
then work in the PCA subspace of the non-zero variances (``pca_rank_``) and say so with a warning.

>>> import numpy as np
>>> X = np.random.default_rng(0).normal(size=(50, 4)) * [5.0, 1.0, 0.1, 0.01]
>>> pca = PCA(n_components=1).fit(X)
>>> bool(abs(pca.components_[0, 0]) > 0.99)
True
"""
from __future__ import annotations

import warnings

import numpy as np

from onlinelab.core import validation as v
from onlinelab.core.docs import shared_params
from onlinelab.manifold.base import MANIFOLD_PARAMS, LinearEmbedding
from onlinelab.manifold.core import trace_optimize
from onlinelab.manifold.graphs import laplacian_problem, require_connected
from onlinelab.manifold.laplacian import WEIGHTS, affinity_matrix
from onlinelab.manifold.lle import lle_matrix, lle_weights


@shared_params(MANIFOLD_PARAMS)
class PCA(LinearEmbedding):
    """Principal component analysis through the trace solver: V = top-k eigenvectors of the scatter X̄ᵀX̄.

    Attributes after ``fit``: ``components_`` (d, k), ``mean_``, ``eigenvalues_`` (of X̄ᵀX̄),
    ``explained_variance_`` (eigenvalues / (m − 1), scikit-learn's convention), ``embedding_`` = X̄V.

    Parameters
    ----------
    n_components : int, default 2
        k (at most d).
    {params: solver}
    """

    def __init__(self, n_components=2, solver="auto"):
        self.n_components, self.solver = n_components, solver

    def _validate_components(self, m):
        return v.integer("n_components", self.n_components, minimum=1)

    def _fit(self, X):
        self.mean_ = X.mean(axis=0)
        Xc = X - self.mean_
        sol = trace_optimize(Xc.T @ Xc, k=self.n_components, largest=True, solver=self.solver)
        self.components_ = sol.vectors
        self.explained_variance_ = sol.eigenvalues / max(X.shape[0] - 1, 1)
        return Xc @ sol.vectors, sol.eigenvalues


def _support(Xc: np.ndarray, method: str) -> np.ndarray:
    """Orthonormal basis (d, r) of the span of the centred data; warns when r < d."""
    _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    r = int(np.sum(s > s[0] * 1e-10)) if s.size and s[0] > 0 else 0
    if r < Xc.shape[1]:
        warnings.warn(f"{method}: the data span {r} of {Xc.shape[1]} dimensions (m = {Xc.shape[0]} points), so "
                      f"the constraint matrix is singular; solving in the {r}-dimensional PCA subspace", UserWarning,
                      stacklevel=5)
    return Vt[:r].T


class _Projection(LinearEmbedding):
    """Shared by LPP and ONPP: solve on the data's PCA support P, then components_ = P V."""

    def _validate_components(self, m):
        return v.integer("n_components", self.n_components, minimum=1)

    def _solve(self, X, mean, A_of, B_of, name):
        self.mean_ = mean
        Xc = X - mean
        P = _support(Xc, name)
        self.pca_rank_ = P.shape[1]
        if self.n_components > P.shape[1]:
            from onlinelab.errors import ConfigError
            raise ConfigError(f"n_components = {self.n_components} exceeds the {P.shape[1]} dimensions the data "
                              f"span; use n_components <= {P.shape[1]}")
        Z = Xc @ P
        B = B_of(Z)
        sol = trace_optimize(A_of(Z), B, k=self.n_components, solver=self.solver)
        self.components_ = P @ sol.vectors
        return Xc @ self.components_, sol.eigenvalues


@shared_params(MANIFOLD_PARAMS)
class LPP(_Projection):
    """Locality preserving projections (He–Niyogi): Laplacian eigenmaps restricted to Y = Vᵀ(x − mean).

    Attributes after ``fit``: ``components_`` (d, k) with Vᵀ X̄ᵀDX̄ V = I, ``mean_`` (the D-weighted mean),
    ``eigenvalues_``, ``affinity_``, ``pca_rank_``, ``embedding_``.

    Parameters
    ----------
    n_components : int, default 2
        k.
    n_neighbors : int, default 10
        t of the graph.
    weights : {"heat", "binary", "ale", "vrle"}, default "heat"
        Edge weights, as in `onlinelab.manifold.LaplacianEigenmaps`.
    mode : {"union", "mutual"}, default "union"
        t-NN symmetrisation.
    bandwidth : float, optional
        Kernel denominator (see LaplacianEigenmaps).
    radius : float, default 10.0
        VRLE's R.
    {params: solver}
    """

    def __init__(self, n_components=2, n_neighbors=10, weights="heat", mode="union", bandwidth=None, radius=10.0,
                 solver="auto"):
        self.n_components, self.n_neighbors, self.weights, self.mode = n_components, n_neighbors, weights, mode
        self.bandwidth, self.radius, self.solver = bandwidth, radius, solver

    def _fit(self, X):
        v.choice("weights", self.weights, tuple(w for w in WEIGHTS if w != "precomputed"))
        W, _ = affinity_matrix(X, self.weights, self.n_neighbors, self.mode, None, self.bandwidth, self.radius)
        require_connected(W, f"raise n_neighbors (now {self.n_neighbors})")
        self.affinity_ = W
        L, D = laplacian_problem(W)
        deg = D.diagonal()
        mean = deg @ X / deg.sum()
        return self._solve(X, mean, lambda Z: Z.T @ (L @ Z), lambda Z: Z.T @ (D @ Z), "LPP")


@shared_params(MANIFOLD_PARAMS)
class ONPP(_Projection):
    """Orthogonal neighbourhood preserving projections (Kokiopoulou–Saad): LLE's M with VᵀV = I.

    Attributes after ``fit``: ``components_`` (d, k) orthonormal, ``mean_``, ``eigenvalues_``,
    ``weights_`` (LLE's W), ``pca_rank_``, ``embedding_``.

    Parameters
    ----------
    n_components : int, default 2
        k.
    n_neighbors : int, default 10
        K of the LLE weights.
    reg : float, default 1e-3
        Regulariser of the local Gram matrices.
    {params: solver}
    """

    def __init__(self, n_components=2, n_neighbors=10, reg=1e-3, solver="auto"):
        self.n_components, self.n_neighbors, self.reg, self.solver = n_components, n_neighbors, reg, solver

    def _fit(self, X):
        self.weights_ = lle_weights(X, self.n_neighbors, self.reg)
        M = lle_matrix(self.weights_)
        return self._solve(X, X.mean(axis=0), lambda Z: Z.T @ (M @ Z), lambda Z: None, "ONPP")
