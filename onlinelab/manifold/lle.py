"""Locally linear embedding: reconstruction weights and the bottom eigenvectors of (I − W)ᵀ(I − W) (theory §7).

For each point, weights w over its K nearest neighbours minimise ‖x_i − Σ_j w_ij x_j‖² with
Σ_j w_ij = 1: with the local Gram C_jl = (x_i − x_j)ᵀ(x_i − x_l), solve (C + ρ tr(C) I) w = 1 and
normalise (ρ keeps C invertible when K exceeds the dimension).  M = (I − W)ᵀ(I − W) has the
constant vector in its kernel; the embedding is eigenvectors 2 … k+1 from the bottom, Y Yᵀ = I.
ONPP (`onlinelab.manifold.linear`) reuses W and M.

>>> import numpy as np
>>> X = np.random.default_rng(0).normal(size=(30, 3))
>>> W = lle_weights(X, 5)
>>> bool(np.allclose(np.asarray(W.sum(axis=1)).ravel(), 1.0))
True
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from onlinelab.core import validation as v
from onlinelab.core.docs import shared_params
from onlinelab.errors import DataError
from onlinelab.manifold.base import MANIFOLD_PARAMS, ManifoldEstimator
from onlinelab.manifold.checks import check_count, check_points
from onlinelab.manifold.core import trace_optimize
from onlinelab.manifold.graphs import directed_knn


def lle_weights(X, n_neighbors: int, reg: float = 1e-3) -> sp.csr_matrix:
    """Sparse ``(m, m)`` reconstruction weights, each row supported on the point's K nearest and summing to 1.

    Parameters
    ----------
    X : array_like
        Points as rows, ``(m, d)``.
    n_neighbors : int
        K.
    reg : float, default 1e-3
        ρ: C + ρ tr(C) I (scikit-learn's default).
    """
    X = check_points(X)
    m = X.shape[0]
    K = check_count("n_neighbors", n_neighbors, m)
    reg = v.positive_float("reg", reg)
    dist, ind = directed_knn(X, K)
    if np.any(dist[:, 0] == 0):
        i = int(np.flatnonzero(dist[:, 0] == 0)[0])
        raise DataError(f"X has duplicate points (row {i} coincides with row {int(ind[i, 0])}); LLE's local "
                        "reconstruction is degenerate there: drop duplicates first, e.g. np.unique(X, axis=0)")
    Z = X[ind] - X[:, None, :]                          # (m, K, d): neighbours relative to the point
    C = Z @ Z.transpose(0, 2, 1)                        # local Gram matrices
    tr = np.trace(C, axis1=1, axis2=2)
    C[:, np.arange(K), np.arange(K)] += (reg * tr)[:, None]
    w = np.linalg.solve(C, np.ones((m, K, 1)))[..., 0]
    w /= w.sum(axis=1, keepdims=True)
    return sp.csr_matrix((w.ravel(), ind.ravel(), np.arange(0, m * K + 1, K)), shape=(m, m))


def lle_matrix(W: sp.csr_matrix) -> sp.csr_matrix:
    """M = (I − W)ᵀ(I − W), sparse.

    Parameters
    ----------
    W : scipy.sparse.csr_matrix
        Reconstruction weights.
    """
    E = sp.identity(W.shape[0], format="csr") - W
    return (E.T @ E).tocsr()


@shared_params(MANIFOLD_PARAMS)
class LocallyLinearEmbedding(ManifoldEstimator):
    """Standard LLE (Roweis–Saul), solved by the trace solver with ``skip=1`` (theory §7).

    Attributes after ``fit``: ``embedding_`` (m, k) with orthonormal columns, ``eigenvalues_``,
    ``weights_`` (sparse W), ``reconstruction_error_`` (Σ of the kept eigenvalues, tr(Y M Yᵀ)).

    Parameters
    ----------
    n_components : int, default 2
        k.
    n_neighbors : int, default 10
        K.
    reg : float, default 1e-3
        Regulariser ρ of the local Gram matrices.
    {params: solver, random_state}
    """

    def __init__(self, n_components=2, n_neighbors=10, reg=1e-3, solver="auto", random_state=0):
        self.n_components, self.n_neighbors, self.reg = n_components, n_neighbors, reg
        self.solver, self.random_state = solver, random_state

    def _fit(self, X):
        self.weights_ = lle_weights(X, self.n_neighbors, self.reg)
        sol = trace_optimize(lle_matrix(self.weights_), k=self.n_components, skip=1, solver=self.solver,
                             lower_bound=0.0, random_state=self.random_state)
        self.reconstruction_error_ = sol.value
        return sol.vectors, sol.eigenvalues
