"""The trace solver and Laplacian eigenmaps against independent references (theory §7).

References: brute-force optimisation over the constraint set (Ky Fan), plain loops (the Laplacian
identity, ALE/VRLE weights from dense distances), numpy/scipy dense eigensolvers, and
scikit-learn's SpectralEmbedding on the same precomputed affinity.

Subspaces are compared by principal angles.  Tolerance: both sides solve to machine precision
(residual ‖r‖ ≲ 1e-12·‖L‖); by Davis–Kahan sin θ ≤ ‖r‖ / gap, so with the eigengap asserted
≥ 1e-4 (relative) a sin θ above 1e-6 is a real difference, not round-off.
"""
import numpy as np
import pytest
import scipy.linalg as la
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.manifold import SpectralEmbedding

from onlinelab.errors import ConfigError, DataError, DisconnectedGraphError, UnknownNameError
from onlinelab.manifold import (
    LaplacianEigenmaps,
    ale_weights,
    helix,
    knn_graph,
    laplacian_problem,
    trace_optimize,
    vrle_radii,
    vrle_weights,
)


def sin_max_angle(U, V):
    """sin of the largest principal angle between the column spans of U and V."""
    Qu, Qv = np.linalg.qr(U)[0], np.linalg.qr(V)[0]
    c = np.linalg.svd(Qu.T @ Qv, compute_uv=False)
    return float(np.sqrt(max(0.0, 1.0 - c.min() ** 2)))


@pytest.fixture(scope="module")
def roll():
    return helix(300, random_state=0)


# ---- trace_optimize -------------------------------------------------------------------------------

@pytest.mark.parametrize("largest", [False, True])
@pytest.mark.parametrize("with_B", [False, True])
def test_ky_fan_sum_matches_brute_force_over_the_constraint_set(largest, with_B):
    rng = np.random.default_rng(1)
    m, k = 5, 2
    G = rng.standard_normal((m, m))
    A = (G + G.T) / 2
    H = rng.standard_normal((m, m))
    B = H @ H.T + m * np.eye(m) if with_B else np.eye(m)
    Lc = np.linalg.cholesky(B)
    sign = -1.0 if largest else 1.0

    def objective(z):   # V = L⁻ᵀ Q with Q orthonormal spans exactly {V : VᵀBV = I}
        Q = np.linalg.qr(z.reshape(m, k))[0]
        V = la.solve_triangular(Lc.T, Q)
        return sign * np.trace(V.T @ A @ V)

    # the trace has no spurious local minima on this set, so a few starts find the optimum
    best = min(minimize(objective, rng.standard_normal(m * k), method="BFGS").fun for _ in range(3))
    sol = trace_optimize(A, B if with_B else None, k=k, largest=largest)
    assert sol.value == pytest.approx(sign * best, abs=1e-6)
    V = sol.vectors
    assert np.allclose(V.T @ B @ V, np.eye(k), atol=1e-10)
    assert np.trace(V.T @ A @ V) == pytest.approx(sol.value, abs=1e-10)


def test_skip_drops_the_most_extreme_pairs_and_solvers_agree():
    rng = np.random.default_rng(2)
    m = 520
    vals = np.sort(rng.uniform(0, 10, m))
    Q = np.linalg.qr(rng.standard_normal((m, m)))[0]
    A = (Q * vals) @ Q.T
    for largest in (False, True):
        ref = vals[::-1] if largest else vals
        for solver in ("dense", "arpack", "lobpcg"):
            sol = trace_optimize(A, k=3, skip=1, largest=largest, solver=solver, lower_bound=0.0, tol=1e-10)
            assert np.allclose(sol.eigenvalues, ref[1:4], atol=1e-6), solver
    assert trace_optimize(A, k=3, skip=1).solver == "arpack"   # auto: m > 500, few pairs


# ---- Laplacian eigenmaps ---------------------------------------------------------------------------

def test_laplacian_identity_by_a_plain_loop():
    rng = np.random.default_rng(3)
    m, k = 12, 3
    W = rng.uniform(0, 1, (m, m)) * (rng.uniform(size=(m, m)) < 0.4)
    W = np.triu(W, 1) + np.triu(W, 1).T
    Y = rng.standard_normal((k, m))
    lhs = sum(W[i, j] * np.sum((Y[:, i] - Y[:, j]) ** 2) for i in range(m) for j in range(m))
    L = np.diag(W.sum(1)) - W
    assert lhs == pytest.approx(2 * np.trace(Y @ L @ Y.T), rel=1e-13)


@pytest.mark.parametrize("weights", ["heat", "binary", "ale", "vrle"])
def test_le_matches_sklearn_spectral_embedding_on_the_same_affinity(roll, weights):
    X, _ = roll
    le = LaplacianEigenmaps(n_components=2, n_neighbors=10, weights=weights, radius=12).fit(X)
    W = le.affinity_
    ref = SpectralEmbedding(n_components=2, affinity="precomputed", random_state=0).fit_transform(W.toarray())
    L, D = laplacian_problem(W)
    ev = la.eigh(L.toarray(), D.toarray(), eigvals_only=True, subset_by_index=[0, 3])
    assert ev[0] == pytest.approx(0, abs=1e-10) and ev[3] - ev[2] > 1e-4 * ev[3]   # gap behind the tolerance
    assert sin_max_angle(le.embedding_, ref) < 1e-6
    Y = le.embedding_.T
    assert np.allclose(Y @ D @ Y.T, np.eye(2), atol=1e-8)          # Y D Yᵀ = I
    assert np.allclose(Y @ D @ np.ones(X.shape[0]), 0, atol=1e-8)  # Y D 1 = 0
    # the objective at the optimum is Σ W_ij‖y_i − y_j‖² = 2 Σ λ
    C = W.tocoo()
    obj = np.sum(C.data * np.sum((Y[:, C.row] - Y[:, C.col]) ** 2, axis=0))
    assert obj == pytest.approx(2 * le.eigenvalues_.sum(), rel=1e-8)


def test_normalizations_against_dense_eigensolvers(roll):
    X, _ = roll
    gen = LaplacianEigenmaps(n_components=3, n_neighbors=8, solver="dense").fit(X)
    W = gen.affinity_.toarray()
    d = W.sum(1)
    sym = LaplacianEigenmaps(n_components=3, n_neighbors=8, normalization="symmetric").fit(X)
    un = LaplacianEigenmaps(n_components=3, n_neighbors=8, normalization="unnormalized").fit(X)
    Lsym = np.eye(len(d)) - W / np.sqrt(np.outer(d, d))
    _, U = np.linalg.eigh(Lsym)
    assert sin_max_angle(sym.embedding_, U[:, 1:4]) < 1e-6
    assert sin_max_angle(sym.embedding_, np.sqrt(d)[:, None] * gen.embedding_) < 1e-6   # Ŷ = Y D^{1/2}
    _, s, Vt = np.linalg.svd(np.diag(d) - W)          # "bottom singular vectors of L"
    assert sin_max_angle(un.embedding_, Vt[-4:-1][::-1].T) < 1e-6
    assert np.allclose(un.embedding_.T @ un.embedding_, np.eye(3), atol=1e-10)


def test_sparse_path_matches_dense_path():
    X, _ = helix(800, random_state=4)
    a = LaplacianEigenmaps(n_components=2, n_neighbors=10, solver="dense").fit(X)
    b = LaplacianEigenmaps(n_components=2, n_neighbors=10, solver="auto").fit(X)
    assert sin_max_angle(a.embedding_, b.embedding_) < 1e-6
    assert np.allclose(a.eigenvalues_, b.eigenvalues_, rtol=1e-8, atol=1e-14)


def test_ale_and_vrle_weights_against_dense_reference(roll):
    X, _ = roll
    m, t, R = X.shape[0], 7, 9.0
    dist = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    order = np.argsort(dist + np.diag(np.full(m, np.inf)), axis=1)
    A = np.array([np.sqrt(np.sum(dist[i, order[i, :t]] ** 2)) / t for i in range(m)])
    near = np.zeros((m, m), bool)
    for i in range(m):
        near[i, order[i, :t]] = True
    mutual = near & near.T
    ref = np.where(mutual, np.exp(-(dist / np.sqrt(np.outer(A, A))) ** 2 / t), 0.0)
    W, A_ale = ale_weights(X, t)
    assert np.allclose(A_ale, A, rtol=1e-12) and np.allclose(W.toarray(), ref, atol=1e-14)
    Wv, _, r = vrle_weights(X, t, R)
    e = np.exp(1.0 / A)
    r_ref = np.clip(np.rint(1 + R * e / e.mean()), 1, m - 1).astype(int)
    assert np.array_equal(r, r_ref)
    edge = np.zeros((m, m), bool)
    for i in range(m):
        edge[i, order[i, :r_ref[i]]] = True
    edge |= edge.T
    ref_v = np.where(edge, np.exp(-(dist / np.sqrt(np.outer(A, A))) ** 2 / t), 0.0)
    assert np.allclose(Wv.toarray(), ref_v, atol=1e-14)


# ---- bad input -------------------------------------------------------------------------------------

def test_bad_input_is_a_clear_error(roll):
    X, _ = roll
    with pytest.raises(ConfigError, match="n_components must be < the number of points m = 300"):
        LaplacianEigenmaps(n_components=300).fit(X)
    with pytest.raises(ConfigError, match="n_neighbors must be < the number of points"):
        LaplacianEigenmaps(n_neighbors=300).fit(X)
    for bad in (np.nan, np.inf):
        Z = X.copy()
        Z[5, 1] = bad
        with pytest.raises(DataError, match="NaN or infinite entries in 1 row.*row 5"):
            LaplacianEigenmaps().fit(Z)
    with pytest.raises(UnknownNameError, match="did you mean 'vrle'"):
        LaplacianEigenmaps(weights="vrl").fit(X)
    with pytest.raises(UnknownNameError, match="normalization"):
        LaplacianEigenmaps(normalization="sym").fit(X)
    with pytest.raises(DataError, match="coincide"):
        ale_weights(np.repeat(X[:20], 6, axis=0), 5)
    with pytest.raises(ConfigError, match="k \\+ skip"):
        trace_optimize(np.eye(3), k=3, skip=1)


def test_disconnected_graph_names_the_components_and_the_fix():
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(0, 1, (40, 2)), rng.normal(100, 1, (30, 2)), rng.normal(-100, 1, (20, 2))])
    with pytest.raises(DisconnectedGraphError, match="3 connected components \\(sizes 40, 30, 20\\).*n_neighbors") as e:
        LaplacianEigenmaps(n_neighbors=5).fit(X)
    assert e.value.n_components == 3
    with pytest.raises(DisconnectedGraphError, match="raise epsilon"):
        LaplacianEigenmaps(epsilon=5.0).fit(X)
    with pytest.raises(DisconnectedGraphError, match="raise radius"):
        LaplacianEigenmaps(weights="vrle", n_neighbors=5, radius=3).fit(X)


def test_estimator_conventions(roll):
    from sklearn.base import clone
    X, _ = roll
    le = LaplacianEigenmaps(n_components=3, weights="ale", n_neighbors=12)
    assert clone(le).get_params() == le.get_params()
    le.set_params(n_components=2)
    assert le.fit_transform(X).shape == (300, 2) and le.eigenvalues_.shape == (2,)
    knn = knn_graph(X, 5, "mutual")
    assert knn.nnz <= knn_graph(X, 5, "union").nnz and (knn != knn.T).nnz == 0
    assert vrle_radii(np.array([1e-4, 1e-4]), 3.0, m=2).tolist() == [1, 1]   # capped at m − 1, no overflow
    pre = LaplacianEigenmaps(weights="precomputed").fit(sp.csr_matrix(le.affinity_))
    assert sin_max_angle(pre.embedding_, le.embedding_) < 1e-6


def test_public_api_documents_every_parameter():
    import inspect

    import onlinelab.manifold as mf
    from tests.repo.test_docstrings import documented_parameters, parameters_of
    for name in mf.__all__:
        obj = getattr(mf, name)
        if not callable(obj) or (inspect.isclass(obj) and issubclass(obj, tuple)):
            continue
        target = obj.__init__ if inspect.isclass(obj) else obj
        missing = parameters_of(target) - documented_parameters(obj)
        assert not missing, f"{name}: Parameters section lacks {sorted(missing)}"
