"""Spectral dimensionality reduction on one trace-optimisation solver (theory §7, docs/theory/07-spectral.md).

Every method is `trace_optimize` on its own (A, B): Laplacian eigenmaps with heat, binary,
ALE and VRLE weights, classical MDS, Isomap, LLE, LPP, ONPP and PCA.

>>> from onlinelab.manifold import LaplacianEigenmaps, helix
>>> X, theta = helix(200, random_state=1)
>>> Y = LaplacianEigenmaps(n_components=2, weights="vrle", n_neighbors=8, radius=8).fit_transform(X)
>>> Y.shape
(200, 2)
"""
from onlinelab.manifold.core import TraceSolution, sign_fix, trace_optimize
from onlinelab.manifold.data import helix, load_dataset
from onlinelab.manifold.density import ale_weights, local_scales, vrle_radii, vrle_weights
from onlinelab.manifold.graphs import (
    binary_weights,
    epsilon_graph,
    heat_weights,
    knn_graph,
    laplacian_problem,
    require_connected,
)
from onlinelab.manifold.laplacian import LaplacianEigenmaps, affinity_matrix
from onlinelab.manifold.linear import LPP, ONPP, PCA
from onlinelab.manifold.lle import LocallyLinearEmbedding, lle_matrix, lle_weights
from onlinelab.manifold.mds import ClassicalMDS, Isomap, double_centre, squared_distances
from onlinelab.manifold.quality import strain, stress, t_similarity, trustworthiness, unrolling

__all__ = [
    "ClassicalMDS", "Isomap", "LPP", "LaplacianEigenmaps", "LocallyLinearEmbedding", "ONPP", "PCA", "TraceSolution",
    "affinity_matrix", "ale_weights", "binary_weights", "double_centre", "epsilon_graph", "heat_weights", "helix",
    "knn_graph", "laplacian_problem", "lle_matrix", "lle_weights", "load_dataset", "local_scales", "require_connected",
    "sign_fix", "squared_distances", "strain", "stress", "t_similarity", "trace_optimize", "trustworthiness",
    "unrolling", "vrle_radii", "vrle_weights",
]
