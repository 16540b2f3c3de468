"""Errata of theory §5.1 and §5.5, checked numerically before they were written.

§5.1: relaxing V to unit (not orthogonal) columns does not give the dual the code uses: that relaxation's dual
function is 1 − k μ₁(M(λ)), below g(λ) = 1 − Σ_{j≤k} μ_j(M(λ)) whenever μ₁ > μ_k. g is the dual of the Fantope
relaxation: min over P in F_k = {0 ⪯ P ⪯ I, tr P = k} of 1 − ⟨M(λ), P⟩.

§5.5: the source's Theorem 2.1 rests on d̂* ≥ 1 − σ₁²/n, which fails also when k < rank X (full-rank data).
"""
import numpy as np

from onlinelab.embedding.dual import dual_value, max_distortion, weighted_gram


def _unit_rows(rng, n, scales):
    X = rng.normal(size=(n, len(scales))) * np.asarray(scales)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def test_unit_column_relaxation_has_another_dual_function():
    rng = np.random.default_rng(0)
    X, k = _unit_rows(rng, 40, [1.0, 0.8, 0.6, 0.5, 0.3, 0.2]), 3
    for _ in range(20):
        lam = rng.dirichlet(np.ones(len(X)))
        M = weighted_gram(X, lam)
        mu = np.linalg.eigvalsh(M)[::-1]
        # V with k unit columns, all equal to the top eigenvector u₁: Σ_i λ_i (1 − ‖Vᵀx_i‖²) = 1 − k μ₁,
        # and no unit-column V goes lower (each column's v ᵀ M v ≤ μ₁): the relaxation's dual function
        u1 = np.linalg.eigh(M)[1][:, -1]
        V = np.repeat(u1[:, None], k, axis=1)
        lagrangian = float(np.sum(lam * (1 - np.sum((X @ V) ** 2, axis=1))))
        assert abs(lagrangian - (1 - k * mu[0])) < 1e-12
        assert lagrangian < dual_value(X, lam, k) - 1e-3   # strictly below g(λ) (μ₁ > μ_k here)


def test_g_is_the_fantope_minimum_of_the_lagrangian():
    rng = np.random.default_rng(1)
    X, k = _unit_rows(rng, 30, [1.0, 0.7, 0.5, 0.4, 0.2]), 2
    lam = rng.dirichlet(np.ones(len(X)))
    M = weighted_gram(X, lam)
    w, U = np.linalg.eigh(M)
    g = dual_value(X, lam, k)
    projector = U[:, -k:] @ U[:, -k:].T                     # attains g
    assert abs((1 - np.sum(M * projector)) - g) < 1e-12
    for _ in range(500):                                    # random Fantope points never go below it
        Q = np.linalg.qr(rng.normal(size=(5, 5)))[0]
        theta = rng.dirichlet(np.ones(5)) * k
        while theta.max() > 1:                              # eigenvalues in [0, 1] summing to k
            theta = np.minimum(theta, 1)
            theta += (k - theta.sum()) * (theta < 1) / max((theta < 1).sum(), 1)
        P = (Q * theta) @ Q.T
        assert 1 - np.sum(M * P) >= g - 1e-12


def test_theorem_2_1_step_fails_on_full_rank_data():
    # points in ℝ³ close to a plane, all three singular values non-zero, k = 2 < rank X = 3
    rng = np.random.default_rng(2)
    X, k = _unit_rows(rng, 60, [1.0, 0.9, 0.05]), 2
    sigma = np.linalg.svd(X, compute_uv=False)
    assert sigma.min() > 0.1
    claimed = 1 - sigma[0] ** 2 / len(X)                    # what the proof needs d̂* to reach
    V = np.linalg.svd(X, full_matrices=False)[2][:k].T      # the top-2 principal directions: an orthonormal V
    upper = max_distortion(X, V)                            # d̂* ≤ p* ≤ ε(V) (weak duality)
    assert upper < claimed / 2, (upper, claimed)            # measured: ε(V) = 0.033 against 0.464
