"""Density-adapted Laplacian weights: averaged LE (ALE) and variable-radius LE (VRLE) (theory §7).

Both rescale each edge by the local scales of its two ends,

    A_i = sqrt(Σ_{j ∈ N_t(i)} ‖x_i − x_j‖²) / t,      D_ij = ‖x_i − x_j‖ / sqrt(A_i A_j),
    W_ij = exp(−D_ij² / t)  on the edges,  0 elsewhere,

(the source prints e^{−D²/t} with D = 0 off the edges, i.e. weight 1 for every non-neighbour:
a complete graph; non-edges weigh 0 here).  ALE's edges are the mutual t-nearest pairs.  VRLE
gives point i its own neighbour count

    r_i = round(1 + R e^{1/A_i} / Z),   Z = (1/m) Σ_l e^{1/A_l},   1 ≤ r_i ≤ m − 1,

computed as ``exp(1/A_i − logmeanexp(1/A))`` so it never overflows, and joins i ~ j when j is
among i's r_i nearest or i among j's r_j nearest.  Dense regions (small A_i) get more
neighbours; the mean radius is about 1 + R.  Because e^{1/A_i} is not scale-free, the radii
depend on the units of X: multiplying X by c changes them (see the docs page).

>>> import numpy as np
>>> vrle_radii(np.array([1.0, 1.0, 1.0]), 4.0, m=10)
array([5, 5, 5])
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.special import logsumexp
from sklearn.neighbors import NearestNeighbors

from onlinelab.core import validation as v
from onlinelab.errors import DataError
from onlinelab.manifold.checks import check_count, check_points
from onlinelab.manifold.graphs import directed_knn, edge_lengths


def local_scales(X: np.ndarray, n_neighbors: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A_i = sqrt(Σ_{j∈N_t(i)} ‖x_i − x_j‖²) / t, with the t-NN distances and indices it came from.

    Parameters
    ----------
    X : numpy.ndarray
        Points as rows, ``(m, d)``.
    n_neighbors : int
        t.
    """
    dist, ind = directed_knn(X, n_neighbors)
    A = np.sqrt(np.sum(dist ** 2, axis=1)) / n_neighbors
    if np.any(A == 0):
        i = int(np.flatnonzero(A == 0)[0])
        raise DataError(f"point {i} and its {n_neighbors} nearest neighbours coincide (local scale A_i = 0), "
                        "so ALE/VRLE distances divide by zero; remove duplicate points or raise n_neighbors")
    return A, dist, ind


def _rescaled(X: np.ndarray, pattern: sp.csr_matrix, A: np.ndarray, bandwidth: float) -> sp.csr_matrix:
    G = edge_lengths(X, pattern)
    rows = np.repeat(np.arange(G.shape[0]), np.diff(G.indptr))
    D2 = G.data ** 2 / (A[rows] * A[G.indices])
    return sp.csr_matrix((np.exp(-D2 / bandwidth), G.indices, G.indptr), shape=G.shape)


def ale_weights(X, n_neighbors: int, bandwidth: float | None = None) -> tuple[sp.csr_matrix, np.ndarray]:
    """ALE weights on the mutual t-nearest-neighbour graph, and the local scales A.

    Parameters
    ----------
    X : array_like
        Points as rows, ``(m, d)``.
    n_neighbors : int
        t (neighbourhood size, and the kernel's denominator unless ``bandwidth`` is given).
    bandwidth : float, optional
        Denominator of exp(−D²/·); default t, as the paper prints.
    """
    X = check_points(X)
    m = X.shape[0]
    t = check_count("n_neighbors", n_neighbors, m)
    A, _, ind = local_scales(X, t)
    P = sp.csr_matrix((np.ones(m * t), (np.repeat(np.arange(m), t), ind.ravel())), shape=(m, m))
    h = float(t) if bandwidth is None else v.positive_float("bandwidth", bandwidth)
    return _rescaled(X, P.multiply(P.T).tocsr(), A, h), A


def vrle_radii(A: np.ndarray, radius: float, m: int) -> np.ndarray:
    """Integer neighbour counts r_i = round(1 + R e^{1/A_i}/Z) in [1, m − 1], computed in the log domain.

    Parameters
    ----------
    A : numpy.ndarray
        Local scales, ``(m,)``.
    radius : float
        R, the average extra neighbour count.
    m : int
        Number of points (caps the radii at m − 1).
    """
    inv = 1.0 / np.asarray(A, dtype=float)
    share = np.exp(inv - (logsumexp(inv) - np.log(inv.size)))   # e^{1/A_i} / Z without overflow
    return np.clip(np.rint(1.0 + radius * share), 1, m - 1).astype(int)


def variable_knn_pattern(X: np.ndarray, radii: np.ndarray) -> sp.csr_matrix:
    """Union graph of the directed r_i-nearest-neighbour relations (one tree query per distinct radius).

    Parameters
    ----------
    X : numpy.ndarray
        Points as rows.
    radii : numpy.ndarray
        Integer neighbour count of each point.
    """
    m = X.shape[0]
    tree = NearestNeighbors().fit(X)
    rows, cols = [], []
    for r in np.unique(radii):
        idx = np.flatnonzero(radii == r)
        ind = tree.kneighbors(X[idx], n_neighbors=min(int(r) + 1, m), return_distance=False)
        # drop the point itself (or, if a duplicate displaced it, the farthest of the r + 1)
        own = ind == idx[:, None]
        keep = ~own
        keep[~own.any(axis=1), -1] = False
        rows.append(np.repeat(idx, int(r)))
        cols.append(ind[keep])
    P = sp.csr_matrix((np.ones(sum(c.size for c in cols)), (np.concatenate(rows), np.concatenate(cols))), shape=(m, m))
    return (P + P.T).tocsr()


def vrle_weights(X, n_neighbors: int, radius: float,
                 bandwidth: float | None = None) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """VRLE weights, the local scales A and the integer radii r.

    Parameters
    ----------
    X : array_like
        Points as rows, ``(m, d)``.
    n_neighbors : int
        t, the neighbourhood that defines the local scales A_i (and the kernel's denominator).
    radius : float
        R, the average neighbour count.
    bandwidth : float, optional
        Denominator of exp(−D²/·); default t.
    """
    X = check_points(X)
    m = X.shape[0]
    t = check_count("n_neighbors", n_neighbors, m)
    radius = v.positive_float("radius", radius)
    A, _, _ = local_scales(X, t)
    r = vrle_radii(A, radius, m)
    h = float(t) if bandwidth is None else v.positive_float("bandwidth", bandwidth)
    return _rescaled(X, variable_knn_pattern(X, r), A, h), A, r
