"""Classical MDS and Isomap: the top eigenpairs of a double-centred squared-distance matrix (theory §7).

With H = I − (1/m) 1 1ᵀ and squared distances S_ij = ‖x_i − x_j‖², K = −½ H S H = X*ᵀX* exactly
for centred points X* (the source documents print ½ 1 1ᵀ in H, +D_ij² in the entrywise form and
a spurious 1/m with plain distances: all corrected here).  MDS keeps Y = Λ_k^{1/2} Z_kᵀ from the
top-k eigenpairs of K; that minimises the **strain** ‖K − YᵀY‖_F (not the stress).  On Euclidean
distances it equals the PCA scores up to column signs.  Isomap does the same on squared
geodesic distances (Dijkstra on the neighbourhood graph).  A non-Euclidean Δ makes K
indefinite: the negative part is reported (``smallest_eigenvalue_``) and left out.

>>> import numpy as np
>>> X = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0]])
>>> np.allclose(double_centre(squared_distances(X)), (X - X.mean(0)) @ (X - X.mean(0)).T)
True
"""
from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

from onlinelab.core import validation as v
from onlinelab.core.docs import shared_params
from onlinelab.core.sizes import check_array
from onlinelab.errors import DataError
from onlinelab.manifold.base import MANIFOLD_PARAMS, ManifoldEstimator
from onlinelab.manifold.checks import check_count
from onlinelab.manifold.core import trace_optimize
from onlinelab.manifold.graphs import MODES, binary_weights, directed_knn, epsilon_graph, knn_graph, require_connected


def squared_distances(X: np.ndarray) -> np.ndarray:
    """Dense ``(m, m)`` squared Euclidean distances between the rows of ``X`` (exact zeros on the diagonal).

    Parameters
    ----------
    X : numpy.ndarray
        Points as rows.
    """
    sq = np.einsum("ij,ij->i", X, X)
    S = np.maximum(sq[:, None] + sq[None, :] - 2.0 * (X @ X.T), 0.0)
    np.fill_diagonal(S, 0.0)
    return S


def double_centre(S: np.ndarray, overwrite: bool = False) -> np.ndarray:
    """K = −½ H S H with H = I − (1/m) 1 1ᵀ, computed by subtracting row, column and grand means.

    Parameters
    ----------
    S : numpy.ndarray
        Symmetric ``(m, m)`` squared dissimilarities.
    overwrite : bool, default False
        Compute K in the memory of ``S`` (no m × m temporaries).
    """
    r = S.mean(axis=0)
    K = S if overwrite else S.astype(float, copy=True)
    K -= r[None, :]
    K -= r[:, None]
    K += r.mean()
    K *= -0.5
    return K


@shared_params(MANIFOLD_PARAMS)
def mds_from_kernel(K: np.ndarray, k: int, solver: str = "auto", random_state=0):
    """Top-k eigenpairs of K scaled to coordinates Y = Z_k Λ_k^{1/2} (points as rows), and the eigenvalues.

    Parameters
    ----------
    K : numpy.ndarray
        Symmetric ``(m, m)`` Gram matrix.
    k : int
        Embedding dimension.
    {params: solver, random_state}
    """
    sol = trace_optimize(K, k=k, largest=True, solver=solver, random_state=random_state)
    lam = sol.eigenvalues
    return sol.vectors * np.sqrt(np.maximum(lam, 0.0)), lam


@shared_params(MANIFOLD_PARAMS)
class ClassicalMDS(ManifoldEstimator):
    """Classical (Torgerson) MDS: the embedding whose Gram matrix is closest to −½HΔ²H in Frobenius norm.

    Attributes after ``fit``: ``embedding_`` (m, k), ``eigenvalues_`` (top k of K), ``smallest_eigenvalue_``
    (negative when Δ is not Euclidean; a warning says so).

    Parameters
    ----------
    n_components : int, default 2
        k.
    dissimilarity : {"euclidean", "precomputed"}, default "euclidean"
        ``"precomputed"`` takes ``X`` as a symmetric ``(m, m)`` matrix of distances Δ (not squared).
    {params: solver, random_state}
    """

    def __init__(self, n_components=2, dissimilarity="euclidean", solver="auto", random_state=0):
        self.n_components, self.dissimilarity, self.solver, self.random_state = (n_components, dissimilarity,
                                                                                  solver, random_state)

    def _check_input(self, X):
        """The points, and room for the dense m × m distances, kernel and its copy (`onlinelab.core.sizes`)."""
        X = super()._check_input(X)
        check_array(f"m = {X.shape[0]} points", (X.shape[0], X.shape[0]), copies=3,
                    fix="embed a subset of the points, or use a method on a sparse neighbour graph (le, lle)")
        return X

    def _fit(self, X):
        v.choice("dissimilarity", self.dissimilarity, ("euclidean", "precomputed"))
        if self.dissimilarity == "euclidean":
            S = squared_distances(X)
        else:
            if X.shape[0] != X.shape[1] or not np.allclose(X, X.T) or (X < 0).any():
                raise DataError(f"a precomputed dissimilarity must be a square symmetric non-negative matrix, "
                                f"got shape {X.shape}; pass distances, not points, or use dissimilarity='euclidean'")
            S = X ** 2
        return self._embed(double_centre(S, overwrite=True), check=self.dissimilarity == "precomputed")

    def _embed(self, K, check: bool):
        Y, lam = mds_from_kernel(K, self.n_components, self.solver, self.random_state)
        self._kernel, self._smallest = K, None
        if check and self.smallest_eigenvalue_ < -1e-9 * max(abs(lam[0]), 1.0):
            warnings.warn(f"the dissimilarities are not Euclidean: K = -HΔ²H/2 has negative eigenvalues "
                          f"(smallest {self._smallest:.4g}, largest {lam[0]:.4g}); the embedding uses the positive "
                          "part", UserWarning, stacklevel=3)
        return Y, lam

    @property
    def smallest_eigenvalue_(self) -> float:
        """Smallest eigenvalue of K = −½HΔ²H: negative when Δ is not Euclidean (computed on first access)."""
        if getattr(self, "_smallest", None) is None:
            self._smallest = float(trace_optimize(self._kernel, k=1, solver=self.solver,
                                                  random_state=self.random_state).eigenvalues[0])
        return self._smallest


@shared_params(MANIFOLD_PARAMS)
class Isomap(ClassicalMDS):
    """Isomap: classical MDS on squared geodesic distances of the neighbourhood graph (theory §7).

    Attributes after ``fit``: ``embedding_``, ``eigenvalues_``, ``smallest_eigenvalue_`` (geodesics are
    rarely exactly Euclidean; no warning), ``dist_matrix_`` (m, m) geodesic distances.

    Parameters
    ----------
    n_components : int, default 2
        k.
    n_neighbors : int, default 10
        t of the t-NN graph.
    mode : {"union", "mutual"}, default "union"
        t-NN symmetrisation.
    epsilon : float, optional
        ε-ball graph instead of t-NN.
    {params: solver, random_state}
    """

    def __init__(self, n_components=2, n_neighbors=10, mode="union", epsilon=None, solver="auto", random_state=0):
        self.n_components, self.n_neighbors, self.mode, self.epsilon = n_components, n_neighbors, mode, epsilon
        self.solver, self.random_state = solver, random_state

    def _fit(self, X):
        v.choice("mode", self.mode, MODES)
        if self.epsilon is None and self.mode == "union":
            # the directed t-NN graph: Dijkstra with directed=False walks each edge both ways, i.e. the union graph
            t = check_count("n_neighbors", self.n_neighbors, X.shape[0])
            dist, ind = directed_knn(X, t)
            G = sp.csr_matrix((dist.ravel(), ind.ravel(), np.arange(0, X.shape[0] * t + 1, t)), shape=(len(X),) * 2)
        else:   # each undirected edge once
            G = sp.triu(knn_graph(X, self.n_neighbors, self.mode) if self.epsilon is None
                        else epsilon_graph(X, self.epsilon), format="csr")
        fix = (f"raise n_neighbors (now {self.n_neighbors})" if self.epsilon is None
               else f"raise epsilon (now {self.epsilon})")
        require_connected(binary_weights(G), fix)   # zero-length edges (duplicates) still connect
        self.dist_matrix_ = shortest_path(G, method="D", directed=False)
        return self._embed(double_centre(self.dist_matrix_ ** 2, overwrite=True), check=False)
