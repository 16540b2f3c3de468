"""How good an embedding is: trustworthiness, t-similarity, strain, stress, unrolling (theory §7).

* `trustworthiness` — penalises points that are near in the embedding but not in the data
  (Venna–Kaski): 1 − 2/(m t (2m − 3t − 1)) Σ_i Σ_{j ∈ U_i} (rank_i(j) − t), 1 = no intruders;
* `t_similarity` — fraction of each point's t nearest neighbours that survive (theory §4);
* `strain` — ‖K − Y Yᵀ‖_F with K = −½ H Δ² H, what classical MDS minimises;
* `stress` — Σ_{i<j} (‖y_i − y_j‖ − Δ_ij)², what the paper's Isomap statement prints;
* `unrolling` — the largest |Spearman ρ| between an embedding coordinate and a known latent
  coordinate (θ of the helix): 1 when one axis orders the points exactly as the manifold does.

>>> import numpy as np
>>> X = np.random.default_rng(0).normal(size=(40, 3))
>>> trustworthiness(X, X, 5), unrolling(X, X[:, 1])
(1.0, 1.0)
"""
from __future__ import annotations

import numpy as np
from scipy.stats import rankdata, spearmanr

from onlinelab.errors import ConfigError
from onlinelab.geometry.subspace_metrics import neighbours, t_similarity
from onlinelab.manifold.checks import check_count, check_points
from onlinelab.manifold.mds import double_centre, squared_distances

__all__ = ["trustworthiness", "t_similarity", "strain", "stress", "unrolling"]


def _pair(X, Y, precomputed: bool):
    Y = check_points(Y, "Y")
    if precomputed:
        X = np.asarray(X, dtype=float)
        if X.shape != (Y.shape[0], Y.shape[0]):
            raise ConfigError(f"a precomputed X must be the (m, m) distances of Y's m = {Y.shape[0]} points, "
                              f"got shape {X.shape}")
        return X ** 2, Y
    X = check_points(X)
    if X.shape[0] != Y.shape[0]:
        raise ConfigError(f"X and Y must have the same number of points (rows), got {X.shape[0]} and {Y.shape[0]}")
    return squared_distances(X), Y


def trustworthiness(X, Y, n_neighbors: int = 5) -> float:
    """Venna–Kaski trustworthiness of the embedding ``Y`` of ``X`` at ``n_neighbors`` (in [0, 1], 1 best).

    Parameters
    ----------
    X : array_like
        Original points as rows, ``(m, d)``.
    Y : array_like
        Embedding, ``(m, k)``.
    n_neighbors : int, default 5
        t; must be < m/2 (the normaliser is positive only then).
    """
    S, Y = _pair(X, Y, False)
    m = Y.shape[0]
    t = check_count("n_neighbors", n_neighbors, m)
    if 2 * m - 3 * t - 1 <= 0:
        raise ConfigError(f"trustworthiness needs n_neighbors < m/2, got {t} for m = {m}; "
                          f"use n_neighbors <= {(2 * m - 2) // 3}")
    np.fill_diagonal(S, np.inf)
    ranks = rankdata(S, method="ordinal", axis=1).astype(np.int64)   # rank 1 = nearest other point
    emb = neighbours(np.asarray(Y, dtype=float), t)
    r = ranks[np.arange(m)[:, None], emb]
    penalty = np.sum(np.maximum(r - t, 0))
    return float(1.0 - 2.0 / (m * t * (2.0 * m - 3.0 * t - 1.0)) * penalty)


def strain(X, Y, precomputed: bool = False) -> float:
    """‖K − Y Yᵀ‖_F with K = −½ H Δ² H: classical MDS's objective (Y centred, points as rows).

    Parameters
    ----------
    X : array_like
        Original points ``(m, d)``, or the ``(m, m)`` distances Δ when ``precomputed``.
    Y : array_like
        Embedding, ``(m, k)``.
    precomputed : bool, default False
        Whether ``X`` holds distances.
    """
    S, Y = _pair(X, Y, precomputed)
    Yc = Y - Y.mean(axis=0)
    return float(np.linalg.norm(double_centre(S) - Yc @ Yc.T))


def stress(X, Y, precomputed: bool = False) -> float:
    """Raw stress Σ_{i<j} (‖y_i − y_j‖ − Δ_ij)² (each pair once, as scikit-learn's MDS counts it).

    Parameters
    ----------
    X : array_like
        Original points ``(m, d)``, or the ``(m, m)`` distances Δ when ``precomputed``.
    Y : array_like
        Embedding, ``(m, k)``.
    precomputed : bool, default False
        Whether ``X`` holds distances.
    """
    S, Y = _pair(X, Y, precomputed)
    diff = np.sqrt(squared_distances(Y)) - np.sqrt(S)
    return float(np.sum(np.triu(diff, 1) ** 2))


def unrolling(Y, latent) -> float:
    """max_j |Spearman ρ(Y[:, j], latent)|: how well one embedding axis orders the points like the latent coordinate.

    Parameters
    ----------
    Y : array_like
        Embedding, ``(m, k)``.
    latent : array_like
        Known latent coordinate ``(m,)``, e.g. the helix's θ.
    """
    Y = check_points(Y, "Y")
    latent = np.asarray(latent, dtype=float).ravel()
    if latent.shape[0] != Y.shape[0]:
        raise ConfigError(f"latent must have one value per point ({Y.shape[0]}), got {latent.shape[0]}")
    return float(max(abs(spearmanr(Y[:, j], latent)[0]) for j in range(Y.shape[1])))
