"""MDS, Isomap, LLE, PCA, LPP, ONPP and the embedding metrics against independent references (theory §7).

References: scikit-learn (Isomap, LocallyLinearEmbedding(method="standard"), its barycenter weights,
PCA, trustworthiness), closed forms (Eckart–Young for the strain, the double-centring identity),
plain loops and dense scipy eigensolvers written here.  Principal-angle tolerance: as in
test_manifold_le.py, sin θ ≤ residual / eigengap (Davis–Kahan) with machine-precision residuals;
the gaps are asserted so the tolerances below are ≥ 100 × that bound.
"""
import warnings

import numpy as np
import pytest
import scipy.linalg as la
import sklearn.decomposition as skd
import sklearn.manifold as skm

from onlinelab.errors import ConfigError, DataError
from onlinelab.manifold import (
    LPP,
    ONPP,
    PCA,
    ClassicalMDS,
    Isomap,
    LocallyLinearEmbedding,
    double_centre,
    helix,
    laplacian_problem,
    lle_matrix,
    lle_weights,
    squared_distances,
    strain,
    stress,
    trace_optimize,
    trustworthiness,
    unrolling,
)


def sin_max_angle(U, V):
    c = np.linalg.svd(np.linalg.qr(U)[0].T @ np.linalg.qr(V)[0], compute_uv=False)
    return float(np.sqrt(max(0.0, 1.0 - c.min() ** 2)))


def equal_up_to_column_signs(A, B, atol):
    s = np.sign(np.sum(A * B, axis=0))
    return np.allclose(A, B * s, atol=atol)


@pytest.fixture(scope="module")
def roll():
    return helix(300, random_state=0)


def test_double_centring_identity_and_its_entrywise_form():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4)) * 10
    Xs = X - X.mean(0)
    S = squared_distances(X)
    K = double_centre(S)
    assert np.abs(K - Xs @ Xs.T).max() < 1e-12 * np.abs(Xs @ Xs.T).max()
    m = len(X)
    H = np.eye(m) - np.ones((m, m)) / m
    assert np.allclose(K, -0.5 * H @ S @ H, atol=1e-10)
    d = np.diag(K)
    assert np.allclose(K, 0.5 * (d[:, None] + d[None, :] - S), atol=1e-10)


def test_mds_on_euclidean_distances_is_pca_scores_and_minimises_strain(roll):
    X, _ = roll
    mds = ClassicalMDS(n_components=2).fit(X)
    ref = skd.PCA(n_components=2).fit_transform(X)
    assert equal_up_to_column_signs(mds.embedding_, ref, atol=1e-9)
    # Eckart–Young: min strain over rank-2 Gram matrices = sqrt(Σ_{i>2} λ_i²) of the PSD K
    lam = np.linalg.eigvalsh(double_centre(squared_distances(X)))[::-1]
    assert strain(X, mds.embedding_) == pytest.approx(np.sqrt(np.sum(lam[2:] ** 2)), rel=1e-8)
    D = np.sqrt(squared_distances(X))
    with warnings.catch_warnings():
        warnings.simplefilter("error")                # Euclidean input: no negative-eigenvalue warning
        pre = ClassicalMDS(n_components=2, dissimilarity="precomputed").fit(D)
    assert equal_up_to_column_signs(pre.embedding_, mds.embedding_, atol=1e-8)


def test_non_euclidean_dissimilarities_are_reported():
    D = np.array([[0, 1, 1, 3], [1, 0, 1, 1], [1, 1, 0, 1], [3, 1, 1, 0]], float)   # violates the triangle inequality
    with pytest.warns(UserWarning, match="not Euclidean.*negative eigenvalues"):
        mds = ClassicalMDS(n_components=2, dissimilarity="precomputed").fit(D)
    assert mds.smallest_eigenvalue_ < 0
    with pytest.raises(DataError, match="square symmetric"):
        ClassicalMDS(dissimilarity="precomputed").fit(np.ones((3, 2)))


def test_isomap_matches_sklearn(roll):
    X, _ = roll
    ours = Isomap(n_components=2, n_neighbors=10).fit(X)
    ref = skm.Isomap(n_neighbors=10, n_components=2).fit(X)
    assert np.allclose(ours.dist_matrix_, ref.dist_matrix_, atol=1e-10)
    assert ours.eigenvalues_[1] > 1.05 * np.linalg.eigvalsh(double_centre(ours.dist_matrix_ ** 2))[-3]   # gap
    scale = np.abs(ref.embedding_).max()
    assert equal_up_to_column_signs(ours.embedding_, ref.embedding_, atol=1e-8 * scale)


def test_lle_weights_match_sklearn_barycenters_and_the_constrained_least_squares(roll):
    from sklearn.manifold._locally_linear import barycenter_kneighbors_graph
    X, _ = roll
    W = lle_weights(X, 10)
    ref = barycenter_kneighbors_graph(X, 10, reg=1e-3)
    assert np.abs(W - ref).max() < 1e-10
    assert np.allclose(np.asarray(W.sum(axis=1)).ravel(), 1.0, atol=1e-12)
    # with K ≤ d the regulariser is not needed: compare with the exact KKT solution of
    # min ‖x_i − Σ_j w_j x_j‖² s.t. Σ w_j = 1, written out for one point
    Y = np.random.default_rng(1).normal(size=(40, 6))
    Wy = lle_weights(Y, 3, reg=1e-12).toarray()
    i = 7
    nb = np.flatnonzero(Wy[i])
    Z = Y[nb]
    kkt = np.block([[2 * Z @ Z.T, np.ones((3, 1))], [np.ones((1, 3)), np.zeros((1, 1))]])
    w = np.linalg.solve(kkt, np.concatenate([2 * Z @ Y[i], [1.0]]))[:3]
    assert np.allclose(Wy[i, nb], w, atol=1e-8)


def test_lle_matches_sklearn_standard(roll):
    X, _ = roll
    ours = LocallyLinearEmbedding(n_components=2, n_neighbors=10).fit(X)
    ref = skm.LocallyLinearEmbedding(n_neighbors=10, n_components=2, method="standard", eigen_solver="dense").fit(X)
    ev = trace_optimize(lle_matrix(ours.weights_), k=4, solver="dense").eigenvalues
    assert ev[3] - ev[2] > 0.2 * ev[3]                # gap ≳ 1e-6 absolute vs residuals ~ 1e-15
    assert sin_max_angle(ours.embedding_, ref.embedding_) < 1e-5
    assert ours.reconstruction_error_ == pytest.approx(ref.reconstruction_error_, rel=1e-6)
    assert np.allclose(ours.embedding_.T @ ours.embedding_, np.eye(2), atol=1e-8)


def test_pca_matches_sklearn_and_transforms_new_points(roll):
    X, _ = roll
    ours = PCA(n_components=2).fit(X[:200])
    ref = skd.PCA(n_components=2).fit(X[:200])
    assert np.allclose(ours.explained_variance_, ref.explained_variance_, rtol=1e-10)
    assert equal_up_to_column_signs(ours.transform(X[200:]), ref.transform(X[200:]), atol=1e-9)


def test_lpp_and_onpp_against_dense_generalised_eigensolves(roll):
    from sklearn.manifold._locally_linear import barycenter_kneighbors_graph
    X, _ = roll
    lpp = LPP(n_components=2, n_neighbors=10).fit(X)
    L, D = laplacian_problem(lpp.affinity_)
    d = D.diagonal()
    Xc = X - d @ X / d.sum()
    vals, V = la.eigh(Xc.T @ (L @ Xc), Xc.T @ (D @ Xc))
    assert vals[2] - vals[1] > 1e-3 * vals[2]
    assert sin_max_angle(lpp.components_, V[:, :2]) < 1e-6   # sqrt(1 − cos²) floors at ~1e-8
    Y = lpp.embedding_.T
    assert np.allclose(Y @ D @ Y.T, np.eye(2), atol=1e-10) and np.allclose(Y @ d, 0, atol=1e-8)   # as LE
    assert np.allclose(lpp.transform(X), lpp.embedding_)
    onpp = ONPP(n_components=2, n_neighbors=10).fit(X)
    Wr = barycenter_kneighbors_graph(X, 10, reg=1e-3).toarray()
    E = np.eye(len(X)) - Wr
    Xc = X - X.mean(0)
    vals, V = np.linalg.eigh(Xc.T @ E.T @ E @ Xc)
    assert vals[2] - vals[1] > 1e-3 * vals[2]
    assert sin_max_angle(onpp.components_, V[:, :2]) < 1e-6
    assert np.allclose(onpp.components_.T @ onpp.components_, np.eye(2), atol=1e-12)


def test_linear_methods_reduce_by_pca_when_dimension_exceeds_points():
    X = np.random.default_rng(2).normal(size=(30, 50))
    with pytest.warns(UserWarning, match="LPP: the data span 29 of 50 dimensions.*PCA subspace"):
        lpp = LPP(n_components=2, n_neighbors=8).fit(X)
    assert lpp.pca_rank_ == 29 and lpp.components_.shape == (50, 2)
    with pytest.raises(ConfigError, match="exceeds the 29 dimensions"):
        with pytest.warns(UserWarning):
            ONPP(n_components=30, n_neighbors=8).fit(X)


def test_metrics_against_references(roll):
    X, theta = roll
    rng = np.random.default_rng(3)
    Y = X[:, :2] + rng.normal(0, 2.0, (len(X), 2))
    for t in (1, 5, 12):
        assert trustworthiness(X, Y, t) == pytest.approx(skm.trustworthiness(X, Y, n_neighbors=t), abs=1e-12)
    D = np.sqrt(squared_distances(X))
    E = np.sqrt(squared_distances(Y))
    loop = sum((E[i, j] - D[i, j]) ** 2 for i in range(len(X)) for j in range(i + 1, len(X)))
    assert stress(X, Y) == pytest.approx(loop, rel=1e-10)
    assert stress(D, Y, precomputed=True) == pytest.approx(loop, rel=1e-10)
    Yc = Y - Y.mean(0)
    Xc = X - X.mean(0)
    assert strain(X, Y) == pytest.approx(np.linalg.norm(Xc @ Xc.T - Yc @ Yc.T), rel=1e-10)

    def ranks(a):
        return np.argsort(np.argsort(a))   # no ties in continuous data

    rho = [abs(np.corrcoef(ranks(Y[:, j]), ranks(theta))[0, 1]) for j in range(2)]
    assert unrolling(Y, theta) == pytest.approx(max(rho), abs=1e-12)
    assert unrolling(np.column_stack([np.exp(theta), rng.normal(size=len(X))]), theta) == 1.0


def test_bad_input_for_the_other_methods(roll):
    X, _ = roll
    with pytest.raises(DataError, match="duplicate points \\(row"):
        LocallyLinearEmbedding(n_neighbors=5).fit(np.vstack([X, X[:3]]))
    with pytest.raises(ConfigError, match="n_components must be < the number of points"):
        Isomap(n_components=300).fit(X)
    with pytest.raises(ConfigError, match="n_neighbors must be < the number of points"):
        LocallyLinearEmbedding(n_neighbors=300).fit(X)
    Z = X.copy()
    Z[0, 0] = np.nan
    for est in (ClassicalMDS(), Isomap(), LocallyLinearEmbedding(), PCA(), LPP(), ONPP()):
        with pytest.raises(DataError, match="NaN or infinite"):
            est.fit(Z)
    with pytest.raises(DataError, match="fitted on 3"):
        PCA().fit(X).transform(np.ones((2, 4)))
    with pytest.raises(ConfigError, match="n_neighbors < m/2"):
        trustworthiness(X[:10], X[:10, :2], 7)
