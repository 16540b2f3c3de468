"""Each correction of theory §7 to the source documents: the printed formula fails, the corrected one holds.

Every "printed" formula is written out here exactly as the source prints it; the corrected one is
either written out too or is the library's (checked against an independent reference elsewhere).
"""
import warnings

import numpy as np
import pytest
import scipy.linalg as la

from onlinelab.manifold import LaplacianEigenmaps, ale_weights, helix, knn_graph, local_scales, vrle_radii


@pytest.fixture(scope="module")
def graph():
    X, _ = helix(200, random_state=7)
    le = LaplacianEigenmaps(n_components=2, n_neighbors=8, solver="dense").fit(X)
    W = le.affinity_.toarray()
    return X, W, np.diag(W.sum(1)), le


def test_normalised_laplacian_needs_d_to_the_minus_half(graph):
    _, W, D, _ = graph
    d = np.diag(D)
    gen = la.eigh(D - W, D, eigvals_only=True)
    printed = np.eye(len(d)) - np.sqrt(d)[:, None] * W * np.sqrt(d)[None, :]     # I − D^{1/2} W D^{1/2}
    corrected = np.eye(len(d)) - W / np.sqrt(np.outer(d, d))                   # I − D^{-1/2} W D^{-1/2}
    assert np.allclose(np.linalg.eigvalsh(corrected), gen, atol=1e-10)
    assert np.allclose(corrected @ np.sqrt(d), 0, atol=1e-12)                  # D^{1/2}1 spans the kernel
    assert not np.allclose(np.linalg.eigvalsh(printed), gen, atol=1e-2)
    assert np.linalg.norm(printed @ np.sqrt(d)) > 1e-2 * np.linalg.norm(np.sqrt(d))


def test_proposition_3_2_needs_a_normalisation_and_means_the_unnormalised_variant(graph):
    _, W, D, le = graph
    L = D - W
    # as printed (no constraint) the objective Σ W_ij‖y_i − y_j‖² = 2 tr(Y L Yᵀ) ≥ 0 is minimised by Y = 0
    Y0 = np.zeros((2, len(W)))
    assert 2 * np.trace(Y0 @ L @ Y0.T) == 0.0 < 2 * le.eigenvalues_.sum()
    # "bottom singular vectors of L" are the Y Yᵀ = I variant, not Belkin–Niyogi's Y D Yᵀ = I
    _, _, Vt = np.linalg.svd(L)
    sv = Vt[-3:-1][::-1].T
    un = LaplacianEigenmaps(n_components=2, n_neighbors=8, normalization="unnormalized").fit(graph[0]).embedding_
    cos_un = np.linalg.svd(np.linalg.qr(sv)[0].T @ np.linalg.qr(un)[0], compute_uv=False)
    cos_gen = np.linalg.svd(np.linalg.qr(sv)[0].T @ np.linalg.qr(le.embedding_)[0], compute_uv=False)
    assert cos_un.min() > 1 - 1e-10
    assert cos_gen.min() < 0.999                                   # a different embedding on a non-regular graph


def test_ale_as_printed_is_a_complete_graph(graph):
    X = graph[0]
    m, t = X.shape[0], 8
    A, _, _ = local_scales(X, t)
    dist = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    near = np.zeros((m, m), bool)
    order = np.argsort(dist + np.diag(np.full(m, np.inf)), axis=1)[:, :t]
    near[np.arange(m)[:, None], order] = True
    mutual = near & near.T
    D_printed = np.where(mutual, dist / np.sqrt(np.outer(A, A)), 0.0)          # D = 0 "else"
    W_printed = np.exp(-D_printed ** 2 / t)
    np.fill_diagonal(W_printed, 0.0)
    assert np.count_nonzero(W_printed) == m * (m - 1)                           # every pair is joined
    # non-neighbours weigh most
    assert W_printed[~mutual & ~np.eye(m, dtype=bool)].min() == 1.0 > W_printed[mutual].max()
    W, _ = ale_weights(X, t)
    assert W.nnz == mutual.sum() and np.all(W.toarray()[~mutual] == 0)          # corrected: non-edges weigh 0


def test_vrle_radius_is_an_integer_computed_without_overflow():
    X, _ = helix(300, random_state=8)
    A, _, _ = local_scales(X * 1e-3, 10)                                         # the same data in other units
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        e = np.exp(1.0 / A)                                                     # as printed: e^{1/A_i}
        r_printed = 1 + 10 * e / e.mean()
    assert not np.all(np.isfinite(r_printed))                                   # overflow: inf/inf
    r = vrle_radii(A, 10, m=300)
    assert r.dtype.kind == "i" and r.min() >= 1 and r.max() <= 299
    # where the printed form is finite it agrees with the log-domain one after rounding
    A1, _, _ = local_scales(X, 10)
    e1 = np.exp(1.0 / A1)
    r1 = 1 + 10 * e1 / e1.mean()
    assert not np.allclose(r1, np.rint(r1))                                     # printed radii are not counts
    assert np.array_equal(vrle_radii(A1, 10, m=300), np.clip(np.rint(r1), 1, 299).astype(int))


def test_vrle_radii_depend_on_the_units_of_the_data():
    """Not an erratum of the formula but a property users must know: e^{1/A} is not scale-free."""
    X, _ = helix(400, random_state=9)
    spread = []
    for c in (0.1, 1.0, 10.0):
        A, _, _ = local_scales(c * X, 10)
        spread.append(np.std(vrle_radii(A, 10, m=400)))
    assert spread[0] > spread[1] > spread[2]
    assert knn_graph(X, 10).nnz == knn_graph(0.1 * X, 10).nnz                    # plain t-NN is scale-free


@pytest.fixture(scope="module")
def cloud():
    X = np.random.default_rng(11).normal(size=(40, 3)) * [3.0, 2.0, 1.0] + 5.0
    Xs = X - X.mean(0)
    d2 = ((X[:, None] - X[None]) ** 2).sum(-1)
    return X, Xs @ Xs.T, d2


def test_centring_matrix_is_one_over_m(cloud):
    from onlinelab.manifold import double_centre
    X, Kstar, S = cloud
    m = len(X)
    printed = np.eye(m) - 0.5 * np.ones((m, m))
    corrected = np.eye(m) - np.ones((m, m)) / m
    assert not np.allclose(-0.5 * printed @ S @ printed, Kstar, atol=1e-3)
    assert np.abs(-0.5 * corrected @ S @ corrected - Kstar).max() < 1e-12 * np.abs(Kstar).max()
    assert np.abs(double_centre(S) - Kstar).max() < 1e-12 * np.abs(Kstar).max()


def test_lemma_5_7_sign_and_theorem_5_10(cloud):
    X, Kstar, S = cloud
    K = X @ X.T
    k = np.diag(K)
    assert not np.allclose(K, 0.5 * (k[:, None] + k[None, :] + S))             # printed: + D_ij²
    assert np.allclose(K, 0.5 * (k[:, None] + k[None, :] - S), atol=1e-10)
    m = len(X)
    H = np.eye(m) - np.ones((m, m)) / m
    Dist = np.sqrt(S)
    assert not np.allclose(Kstar / m, -0.5 * H @ Dist @ H, atol=1e-3)           # printed: (1/m)X*ᵀX* = −½HDH
    assert not np.allclose(Kstar, -0.5 * H @ Dist @ H, atol=1e-3)               # the 1/m alone is not the fix
    assert np.allclose(Kstar, -0.5 * H @ S @ H, atol=1e-10)                     # squared distances, no 1/m


def test_classical_mds_minimises_strain_not_stress():
    from onlinelab.manifold import ClassicalMDS, strain, stress
    X, _ = helix(150, random_state=12)
    Y = ClassicalMDS(n_components=2).fit_transform(X)
    # strain: any perturbation of the MDS solution is worse (it is the Eckart–Young optimum)
    rng = np.random.default_rng(13)
    assert all(strain(X, Y + 1e-2 * rng.normal(size=Y.shape)) > strain(X, Y) for _ in range(5))
    # stress: the stress gradient at the MDS solution is not zero, and a small step down lowers the stress
    E = np.sqrt(((Y[:, None] - Y[None]) ** 2).sum(-1))
    Dist = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    ratio = np.where(E > 0, (E - Dist) / np.where(E > 0, E, 1.0), 0.0)
    grad = 2 * (ratio.sum(1)[:, None] * Y - ratio @ Y)                            # ∂/∂y_i Σ_{i<j}(‖y_i−y_j‖−Δ_ij)²
    step = 1e-4 / np.abs(grad).max()
    assert stress(X, Y - step * grad) < stress(X, Y)


def test_pca_takes_the_top_eigenvectors(cloud):
    from onlinelab.manifold import PCA
    X, _, _ = cloud
    Xb = (X - X.mean(0)).T                                                       # the notes' d × m layout
    vals, U = np.linalg.eigh(Xb @ Xb.T)
    bottom, top = U[:, :2], U[:, -2:]                                            # printed "bottom" vs corrected "top"

    def var(V):
        return np.trace(V.T @ Xb @ Xb.T @ V)

    assert var(bottom) < var(top)
    import sklearn.decomposition as skd
    ref = skd.PCA(2).fit(X).components_.T
    assert np.linalg.svd(np.linalg.qr(PCA(2).fit(X).components_)[0].T @ ref, compute_uv=False).min() > 1 - 1e-10
    assert np.linalg.svd(bottom.T @ ref, compute_uv=False).min() < 0.5
