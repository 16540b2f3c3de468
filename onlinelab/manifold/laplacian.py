"""Laplacian eigenmaps with heat, binary, ALE and VRLE weights and three normalisations (theory §7).

Minimise Σ_ij W_ij ‖y_i − y_j‖² = 2 tr(Y L Yᵀ) under a normalisation, via the trace solver with
``skip=1`` (the constant vector, eigenvalue 0 on a connected graph):

* ``"generalized"`` (default, Belkin–Niyogi): L y = λ D y, Y D Yᵀ = I;
* ``"symmetric"``: bottom eigenvectors Ŷ of I − D^{-1/2} W D^{-1/2} (Ŷ = Y D^{1/2}, Ŷ Ŷᵀ = I);
* ``"unnormalized"``: bottom eigenvectors of L itself (Y Yᵀ = I; what "singular vectors of L" means).

>>> from onlinelab.manifold import LaplacianEigenmaps, helix
>>> X, theta = helix(300, random_state=0)
>>> LaplacianEigenmaps(n_components=2, n_neighbors=10).fit_transform(X).shape
(300, 2)
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from onlinelab.core import validation as v
from onlinelab.core.docs import shared_params
from onlinelab.errors import DataError
from onlinelab.manifold.base import MANIFOLD_PARAMS, ManifoldEstimator
from onlinelab.manifold.core import sign_fix, trace_optimize
from onlinelab.manifold.density import ale_weights, vrle_weights
from onlinelab.manifold.graphs import (
    NORMALIZATIONS,
    binary_weights,
    epsilon_graph,
    heat_weights,
    knn_graph,
    laplacian_problem,
    require_connected,
)

WEIGHTS = ("heat", "binary", "ale", "vrle", "precomputed")


def affinity_matrix(X, weights: str = "heat", n_neighbors: int = 10, mode: str = "union",
                    epsilon: float | None = None, bandwidth: float | None = None, radius: float = 10.0):
    """The weight matrix W (sparse, symmetric, zero diagonal) and a dict of by-products (scales A, radii r).

    Parameters
    ----------
    X : array_like
        Points as rows ``(m, d)``, or a symmetric affinity for ``weights="precomputed"``.
    weights : {"heat", "binary", "ale", "vrle", "precomputed"}, default "heat"
        Weight scheme.
    n_neighbors : int, default 10
        t: the graph's neighbour count (heat/binary), ALE's t, VRLE's scale neighbourhood.
    mode : {"union", "mutual"}, default "union"
        Symmetrisation of the t-NN graph for heat/binary (ALE always uses mutual pairs, VRLE the union).
    epsilon : float, optional
        Use the ε-ball graph instead of t-NN (heat/binary only).
    bandwidth : float, optional
        Kernel denominator: heat default = mean squared edge length; ALE/VRLE default = t.
    radius : float, default 10.0
        VRLE's average neighbour count R.
    """
    v.choice("weights", weights, WEIGHTS)
    extras: dict = {}
    if weights == "precomputed":
        W = sp.csr_matrix(X, dtype=float)
        if W.shape[0] != W.shape[1] or abs(W - W.T).max() > 1e-10 * (abs(W).max() or 1.0) or (W.data < 0).any():
            raise DataError(f"a precomputed affinity must be square, symmetric and non-negative, got shape {W.shape}")
        W.setdiag(0)
        W.eliminate_zeros()
    elif weights == "ale":
        W, extras["scales"] = ale_weights(X, n_neighbors, bandwidth)
    elif weights == "vrle":
        W, extras["scales"], extras["radii"] = vrle_weights(X, n_neighbors, radius, bandwidth)
    else:
        G = knn_graph(X, n_neighbors, mode) if epsilon is None else epsilon_graph(X, epsilon)
        W = heat_weights(G, bandwidth) if weights == "heat" else binary_weights(G)
    return W, extras


@shared_params(MANIFOLD_PARAMS)
class LaplacianEigenmaps(ManifoldEstimator):
    """Laplacian eigenmaps (LE) and its density-adapted variants ALE and VRLE (theory §7).

    Attributes after ``fit``: ``embedding_`` (m, k), ``eigenvalues_`` (k,), ``affinity_`` (W, sparse),
    and for ALE/VRLE ``scales_`` (A_i), for VRLE ``radii_`` (r_i).

    Parameters
    ----------
    n_components : int, default 2
        k, the embedding dimension.
    n_neighbors : int, default 10
        t, neighbours per point (ALE: mutual t-NN; VRLE: the neighbourhood of the local scale).
    weights : {"heat", "binary", "ale", "vrle", "precomputed"}, default "heat"
        Edge weights; ``"precomputed"`` takes ``X`` as a symmetric affinity matrix.
    normalization : {"generalized", "symmetric", "unnormalized"}, default "generalized"
        The constraint: Y D Yᵀ = I, Ŷ Ŷᵀ = I with Ŷ = Y D^{1/2}, or Y Yᵀ = I.
    mode : {"union", "mutual"}, default "union"
        t-NN symmetrisation for heat/binary weights.
    epsilon : float, optional
        ε-ball graph instead of t-NN (heat/binary).
    bandwidth : float, optional
        Kernel denominator (heat: mean squared edge length; ALE/VRLE: t).
    radius : float, default 10.0
        VRLE's average neighbour count R.
    {params: solver}
    random_state : int, default 0
        Seed of the iterative solver's start vector.
    """

    def __init__(self, n_components=2, n_neighbors=10, weights="heat", normalization="generalized", mode="union",
                 epsilon=None, bandwidth=None, radius=10.0, solver="auto", random_state=0):
        self.n_components, self.n_neighbors, self.weights = n_components, n_neighbors, weights
        self.normalization, self.mode, self.epsilon, self.bandwidth = normalization, mode, epsilon, bandwidth
        self.radius, self.solver, self.random_state = radius, solver, random_state

    def _check_input(self, X):
        if self.weights == "precomputed" and sp.issparse(X):
            X = sp.csr_matrix(X, dtype=float)
            if not np.all(np.isfinite(X.data)):
                raise DataError("the precomputed affinity has NaN or infinite entries")
            return X
        return super()._check_input(X)

    def _fit(self, X):
        v.choice("weights", self.weights, WEIGHTS)
        v.choice("normalization", self.normalization, NORMALIZATIONS)
        W, extras = affinity_matrix(X, self.weights, self.n_neighbors, self.mode, self.epsilon, self.bandwidth,
                                    self.radius)
        if self.weights == "vrle":
            fix = f"raise radius (now {self.radius}) or n_neighbors (now {self.n_neighbors})"
        elif self.epsilon is not None:
            fix = f"raise epsilon (now {self.epsilon})"
        elif self.weights == "precomputed":
            fix = "connect the affinity's pieces or embed each component on its own"
        elif self.weights == "ale":
            fix = f"raise n_neighbors (now {self.n_neighbors}): ALE joins mutual neighbours only"
        else:
            union = " or use mode='union'" if self.mode == "mutual" else ""
            fix = f"raise n_neighbors (now {self.n_neighbors}){union}"
        require_connected(W, fix)
        self.affinity_ = W
        self.scales_, self.radii_ = extras.get("scales"), extras.get("radii")
        # The generalised problem L y = λ D y is solved in its symmetric form (same eigenvalues, y = D^{-1/2} û):
        # a standard eigenproblem is cheaper for ARPACK than one with a mass matrix.
        A, B = laplacian_problem(W, "symmetric" if self.normalization == "generalized" else self.normalization)
        sol = trace_optimize(A, B, k=self.n_components, skip=1, solver=self.solver, lower_bound=0.0,
                             random_state=self.random_state)
        if self.normalization == "generalized":
            deg = np.asarray(W.sum(axis=1)).ravel()
            return sign_fix(sol.vectors / np.sqrt(deg)[:, None]), sol.eigenvalues
        return sol.vectors, sol.eigenvalues
