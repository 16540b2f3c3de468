"""Neighbourhood graphs and Laplacians (theory §7, docs/theory/07-spectral.md).

A graph is a symmetric CSR matrix whose stored entries are the edges and whose values are the
Euclidean edge lengths (an edge between duplicate points is an explicitly stored 0).  Nearest
neighbours come from a tree search, so no dense ``m × m`` array is formed.

* `knn_graph` — t nearest neighbours, symmetrised by ``"union"`` (i ~ j if either is among
  the other's t nearest) or ``"mutual"`` (both);
* `epsilon_graph` — every pair closer than ε;
* `heat_weights` / `binary_weights` — W on the edges, 0 off them, W_ii = 0;
* `require_connected` — a disconnected graph is a `onlinelab.errors.DisconnectedGraphError`
  naming the number of components (each adds a zero eigenvalue to the Laplacian);
* `laplacian_problem` — the (A, B) pair handed to the trace solver for each normalisation.

>>> import numpy as np
>>> X = np.array([[0.0], [1.0], [2.0], [10.0]])
>>> knn_graph(X, 1, "union").toarray()
array([[0., 1., 0., 0.],
       [1., 0., 1., 0.],
       [0., 1., 0., 8.],
       [0., 0., 8., 0.]])
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.neighbors import NearestNeighbors

from onlinelab.core import validation as v
from onlinelab.errors import DisconnectedGraphError
from onlinelab.manifold.checks import check_count, check_points

MODES = ("union", "mutual")
NORMALIZATIONS = ("generalized", "symmetric", "unnormalized")


def edge_lengths(X: np.ndarray, pattern: sp.csr_matrix) -> sp.csr_matrix:
    """The graph with ``pattern``'s edges weighted by their Euclidean lengths (zeros kept as edges).

    Parameters
    ----------
    X : numpy.ndarray
        Points as rows, ``(m, d)``.
    pattern : scipy.sparse.csr_matrix
        Which pairs are edges (any stored entry).
    """
    pattern = sp.csr_matrix(pattern)
    pattern.sort_indices()
    rows = np.repeat(np.arange(pattern.shape[0]), np.diff(pattern.indptr))
    diff = X[rows]
    diff -= X[pattern.indices]
    d = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    return sp.csr_matrix((d, pattern.indices.copy(), pattern.indptr.copy()), shape=pattern.shape)


def directed_knn(X: np.ndarray, n_neighbors: int) -> tuple[np.ndarray, np.ndarray]:
    """Distances and indices ``(m, t)`` of each point's t nearest other points, nearest first.

    Parameters
    ----------
    X : numpy.ndarray
        Points as rows.
    n_neighbors : int
        t.
    """
    return NearestNeighbors(n_neighbors=n_neighbors).fit(X).kneighbors()


def _pattern(m: int, rows: np.ndarray, cols: np.ndarray) -> sp.csr_matrix:
    return sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(m, m))


def knn_graph(X, n_neighbors: int, mode: str = "union") -> sp.csr_matrix:
    """Symmetric t-nearest-neighbour graph of the rows of ``X`` with edge lengths as values.

    Parameters
    ----------
    X : array_like
        Points as rows, ``(m, d)``.
    n_neighbors : int
        t, the neighbours of each point (the point itself excluded).
    mode : {"union", "mutual"}, default "union"
        ``"union"``: i ~ j if j is among i's t nearest or i among j's; ``"mutual"``: both.
    """
    X = check_points(X)
    t = check_count("n_neighbors", n_neighbors, X.shape[0])
    v.choice("mode", mode, MODES)
    _, ind = directed_knn(X, t)
    m = X.shape[0]
    P = _pattern(m, np.repeat(np.arange(m), t), ind.ravel())
    P = P + P.T if mode == "union" else P.multiply(P.T)
    return edge_lengths(X, P)


def epsilon_graph(X, epsilon: float) -> sp.csr_matrix:
    """Graph joining every pair of distinct rows of ``X`` at distance ≤ ``epsilon``.

    Parameters
    ----------
    X : array_like
        Points as rows, ``(m, d)``.
    epsilon : float
        Radius of the ball.
    """
    X = check_points(X)
    epsilon = v.positive_float("epsilon", epsilon)
    P = NearestNeighbors(radius=epsilon).fit(X).radius_neighbors_graph(mode="connectivity")
    P = sp.csr_matrix(P)
    P.setdiag(0)
    P.eliminate_zeros()
    return edge_lengths(X, P)


def heat_weights(G: sp.csr_matrix, bandwidth: float | None = None) -> sp.csr_matrix:
    """W_ij = exp(-‖x_i − x_j‖² / bandwidth) on the edges of ``G``, 0 elsewhere.

    Parameters
    ----------
    G : scipy.sparse.csr_matrix
        Graph with edge lengths as values.
    bandwidth : float, optional
        The denominator (σ² in the paper, t in the notes); default the mean squared edge
        length, which makes the weights independent of the data's units.
    """
    sq = G.data ** 2
    if bandwidth is None:
        bandwidth = float(sq.mean()) if sq.size and sq.mean() > 0 else 1.0
    bandwidth = v.positive_float("bandwidth", bandwidth)
    return sp.csr_matrix((np.exp(-sq / bandwidth), G.indices, G.indptr), shape=G.shape)


def binary_weights(G: sp.csr_matrix) -> sp.csr_matrix:
    """W_ij = 1 on the edges of ``G``, 0 elsewhere.

    Parameters
    ----------
    G : scipy.sparse.csr_matrix
        Graph (values ignored).
    """
    return sp.csr_matrix((np.ones_like(G.data), G.indices, G.indptr), shape=G.shape)


def require_connected(W: sp.csr_matrix, fix: str) -> None:
    """Raise `onlinelab.errors.DisconnectedGraphError` unless ``W``'s positive weights connect every point.

    Parameters
    ----------
    W : scipy.sparse.csr_matrix
        Symmetric weights.
    fix : str
        What the user should change, e.g. "raise n_neighbors (now 5)".
    """
    support = sp.csr_matrix(W, copy=True)
    support.eliminate_zeros()
    n, labels = connected_components(support, directed=False)
    if n > 1:
        sizes = np.sort(np.bincount(labels))[::-1]
        shown = ", ".join(str(s) for s in sizes[:5]) + (", ..." if n > 5 else "")
        raise DisconnectedGraphError(
            f"the neighbourhood graph has {n} connected components (sizes {shown}); the Laplacian then has "
            f"{n} zero eigenvalues and the embedding would only separate the pieces; {fix}", n)


def laplacian_problem(W: sp.csr_matrix, normalization: str = "generalized"):
    """The pair (A, B) whose bottom eigenvectors (after the constant one) are Laplacian eigenmaps.

    ``"generalized"``: A = L = D − W, B = D (Belkin–Niyogi, Y D Yᵀ = I); ``"symmetric"``:
    A = I − D^{-1/2} W D^{-1/2}, B = I (the normalised form, Ŷ = Y D^{1/2}); ``"unnormalized"``:
    A = L, B = I (Y Yᵀ = I, the bottom singular vectors of L).

    Parameters
    ----------
    W : scipy.sparse.csr_matrix
        Symmetric non-negative weights with zero diagonal.
    normalization : {"generalized", "symmetric", "unnormalized"}, default "generalized"
        Which constraint the embedding satisfies.
    """
    v.choice("normalization", normalization, NORMALIZATIONS)
    deg = np.asarray(W.sum(axis=1)).ravel()
    D = sp.diags(deg, format="csr")
    L = (D - W).tocsr()
    if normalization == "generalized":
        return L, D
    if normalization == "unnormalized":
        return L, None
    W = sp.csr_matrix(W)
    inv = 1.0 / np.sqrt(deg)
    rows = np.repeat(np.arange(W.shape[0]), np.diff(W.indptr))
    scaled = sp.csr_matrix((W.data * inv[rows] * inv[W.indices], W.indices, W.indptr), shape=W.shape)
    return (sp.identity(W.shape[0], format="csr") - scaled).tocsr(), None
