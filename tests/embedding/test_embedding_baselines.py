"""Baselines of theory §5 and the identity d̂⋆ = the Fantope SDP's value (cvxpy, small instances)."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.decomposition import PCA

from onlinelab.embedding.baselines import (
    fantope_sdp,
    jl_gaussian,
    max_distortion_of,
    pair_distortions,
    pca,
    random_orthonormal,
)
from onlinelab.embedding.dual import dual_value
from onlinelab.embedding.embed import NearIsometricEmbedding
from onlinelab.embedding.game import play_embedding_game
from onlinelab.embedding.pairs import unit_differences
from onlinelab.errors import ConfigError
from tests.cvx_reference import cvxpy


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dual_value_equals_the_fantope_sdp_value(seed):
    cvxpy()  # the Fantope SDP baseline solves with cvxpy
    """g at the SDP's constraint multipliers equals the SDP value (Clarabel's tolerance ~1e-8; we allow 1e-6)."""
    pts = np.random.default_rng(seed).standard_normal((10, 5))
    X = unit_differences(pts)
    sdp = fantope_sdp(X, 2)
    assert sdp.finished
    assert abs(sdp.lam.sum() - 1) <= 1e-9 and sdp.lam.min() >= 0
    assert dual_value(X, sdp.lam, 2) == pytest.approx(sdp.value, abs=1e-6)
    scs = fantope_sdp(X, 2, solver="SCS", eps=1e-7)
    assert scs.value == pytest.approx(sdp.value, abs=1e-4)
    # the game brackets d̂⋆ from both sides; every orthonormal embedding is above it
    h = play_embedding_game(X, 2, T=400, eta=0.05).history().iloc[-1]
    assert h["dual_best"] <= sdp.value + 1e-6 <= h["distortion_projector"] + 2e-6
    emb = NearIsometricEmbedding(2, T=120).fit(pts)
    for V in (emb.components_, sdp.V, pca(pts, 2), random_orthonormal(5, 2, seed)):
        assert max_distortion_of(X, V) >= sdp.value - 1e-6


def test_pca_matches_scikit_learn():
    pts = np.random.default_rng(3).standard_normal((40, 7)) * np.arange(1, 8)
    V = pca(pts, 3)
    ref = PCA(3).fit(pts).components_.T
    assert np.allclose(V.T @ V, np.eye(3), atol=1e-12)
    assert np.linalg.norm(V @ V.T - ref @ ref.T) <= 1e-10


def test_random_maps():
    Q = random_orthonormal(20, 4, seed=1)
    assert np.allclose(Q.T @ Q, np.eye(4), atol=1e-12)
    assert not np.allclose(Q, random_orthonormal(20, 4, seed=2))
    # JL scaling: ‖Aᵀx‖² ~ χ²_k/k for unit x, mean 1 and variance 2/k; over N maps the mean's standard error
    # is √(2/(kN)), so |mean − 1| ≤ 4 SE fails with probability < 1e-4 for a correct scaling (and a map
    # scaled by √(d/k) or 1 instead would be off by hundreds of SE)
    x = np.random.default_rng(0).standard_normal(20)
    x /= np.linalg.norm(x)
    k, N = 4, 4000
    vals = np.array([1 - pair_distortions(x[None], jl_gaussian(20, k, seed=s))[0] for s in range(N)])
    assert abs(vals.mean() - 1) <= 4 * np.sqrt(2 / (k * N))


def test_sdp_time_limit_and_bad_input():
    cvxpy()  # the Fantope SDP baseline solves with cvxpy
    X = unit_differences(np.random.default_rng(0).standard_normal((30, 10)))
    res = fantope_sdp(X, 2, time_limit=1e-3)
    assert not res.finished
    with pytest.raises(ConfigError, match="solver"):
        fantope_sdp(X, 2, solver="MOSEK")
    with pytest.raises(ConfigError, match="below the data's dimension"):
        pca(np.ones((3, 2)) + np.eye(3, 2), 2)
