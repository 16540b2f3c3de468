"""Two more corrections of theory §7.11 to its sources, checked numerically before they were written.

* The spectral paper's Proposition 5.4 builds Isomap's embedding from the top-k *singular* values and vectors of
  the kernel K = −½ H Δ H.  On the helix K has negative eigenvalues, and at k = 3 the third singular value belongs
  to one of them: the embedding must take the top-k *eigenvalues* (their positive part).
* The trace notes' normalised Laplacian eigenmaps state the centring constraint as Σ_i √D_ii y_i = 0.  With
  Ŷ = Y D^{1/2} it holds for Ŷ (Σ_i √D_ii ŷ_i = 0, i.e. Σ_i D_ii y_i = 0), not for Y.
"""
import numpy as np

from onlinelab.manifold import LaplacianEigenmaps, helix
from onlinelab.manifold.mds import Isomap


def test_isomap_kernel_needs_eigenvalues_not_singular_values():
    X, _ = helix(300, random_state=0)
    D = Isomap(n_components=2, n_neighbors=10).fit(X).dist_matrix_
    m = len(D)
    H = np.eye(m) - 1.0 / m
    K = -0.5 * H @ (D ** 2) @ H
    w, U = np.linalg.eigh(K)
    k = 3
    by_magnitude = np.argsort(-np.abs(w))[:k]                 # the top-k singular values of a symmetric K
    by_value = np.argsort(-w)[:k]
    assert w.min() < -1000                                   # measured: −1133.0
    assert (w[by_magnitude] < 0).any()                       # the third singular value is |−1133.0| > 943.2
    Y_sv = np.sqrt(np.abs(w[by_magnitude]))[:, None] * U[:, by_magnitude].T
    Y_ev = np.sqrt(np.maximum(w[by_value], 0))[:, None] * U[:, by_value].T
    strain_sv = np.linalg.norm(K - Y_sv.T @ Y_sv)
    strain_ev = np.linalg.norm(K - Y_ev.T @ Y_ev)
    assert strain_ev < 0.7 * strain_sv                       # measured: 1663.4 against 2740.0
    # the library's Isomap takes the eigenvalues: its 3-d embedding's Gram matrix is the eigenvalue one
    Y = Isomap(n_components=k, n_neighbors=10, solver="dense").fit(X).embedding_
    assert np.allclose(Y @ Y.T, Y_ev.T @ Y_ev, atol=1e-6 * np.abs(K).max())


def test_le_centring_constraint_holds_for_y_hat_not_y():
    X, _ = helix(200, random_state=7)
    W = LaplacianEigenmaps(n_components=2, n_neighbors=8, solver="dense").fit(X).affinity_.toarray()
    d = W.sum(axis=1)
    assert d.std() > 0.05 * d.mean()                         # a non-regular graph (on a regular one both hold)
    L_hat = np.eye(len(d)) - W / np.sqrt(np.outer(d, d))
    _, vecs = np.linalg.eigh(L_hat)
    Y_hat = vecs[:, 1:3].T                                   # rows ŷ: eigenvectors 2 and 3, (2, m)
    Y = Y_hat / np.sqrt(d)                                   # Y = Ŷ D^{−1/2}
    scale = np.abs(Y_hat).sum()
    assert np.abs(Y_hat @ np.sqrt(d)).max() < 1e-10 * scale  # Σ √D_ii ŷ_i = 0
    assert np.abs(Y @ d).max() < 1e-10 * scale               # the same: Σ D_ii y_i = 0 (Belkin–Niyogi)
    assert np.abs(Y @ np.sqrt(d)).max() > 1e-3 * scale       # as printed, Σ √D_ii y_i = 0, fails
