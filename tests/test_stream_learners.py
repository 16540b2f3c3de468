"""Gradient PCA and the autoencoders against closed forms (SPEC §4): Theorem 1.7, Baldi–Hornik, shrunk PCA."""
import numpy as np
import pytest
from sklearn.decomposition import PCA

import onlinelab as ol
from onlinelab.learners.streaming_gradient_pca import gradient_pca, pca_gradient, pca_objective
from onlinelab.subspace_metrics import sin2_theta

from .test_stream_oja import _drive


def test_theorem_1_7_gradient_matches_central_differences():
    rng = np.random.default_rng(0)
    U = rng.standard_normal((1, 7, 3))          # a general U, not orthonormal: the formula must hold anywhere
    X = rng.standard_normal((1, 7, 30))
    G = pca_gradient(U, X)
    h = 1e-5
    fd = np.zeros_like(U)
    for idx in np.ndindex(U.shape[1:]):
        E = np.zeros_like(U)
        E[(0,) + idx] = h
        fd[(0,) + idx] = (pca_objective(U + E, X)[0] - pca_objective(U - E, X)[0]) / (2 * h)
    # central differences are exact for the cubic-in-h part up to h²·f''' ≈ 1e-10 · scale
    assert np.abs(G - fd).max() <= 1e-6 * np.abs(G).max()


def test_pca_objective_matches_dense_formula():
    rng = np.random.default_rng(1)
    U, X = rng.standard_normal((2, 5, 2)), rng.standard_normal((2, 5, 9))
    dense = np.linalg.norm(U @ np.swapaxes(U, 1, 2) @ X - X, axis=(1, 2)) ** 2
    np.testing.assert_allclose(pca_objective(U, X), dense, rtol=1e-12)


@pytest.mark.parametrize("line_search", ["none", "armijo"])
def test_gradient_pca_on_fixed_matrix_reaches_sklearn_pca(line_search):
    rng = np.random.default_rng(2)
    X = rng.standard_normal((12, 300)) * np.linspace(3, 0.5, 12)[:, None]
    U, hist = gradient_pca(X, k=3, iters=2000 if line_search == "none" else 200, line_search=line_search)
    ref = PCA(n_components=3, svd_solver="full").fit(X.T)   # sklearn centres; our X is centred in expectation
    V = np.linalg.svd(X, full_matrices=False)[0][:, :3]     # uncentred top-3, what f(U) optimises
    assert sin2_theta(U, V)[0] < 1e-8
    assert sin2_theta(U, ref.components_.T)[0] < 0.05
    assert np.all(np.diff(hist) <= 1e-9 * hist[0])          # monotone: safe step / Armijo both descend
    np.testing.assert_allclose(hist[-1], np.sum(X ** 2) - np.sum(np.linalg.svd(X, compute_uv=False)[:3] ** 2),
                               rtol=1e-9)


def test_gradient_pca_stream_converges():
    env = ol.make_environment("spiked-stream", d=15, k=2, spikes=[6.0, 4.0], block=20)
    res = ol.simulate(env, [ol.make_learner("gradient-pca", k=2)], T=1500, replicates=3, seed=0)
    assert res.final("sin2_theta").max() < 0.05


def test_linear_autoencoder_span_tends_to_pca_span():
    env = ol.make_environment("spiked-stream", d=8, k=2, spikes=[5.0, 3.0], block=50)
    lrn = ol.make_learner("linear-ae", k=2, step=0.05)
    st = _drive(lrn, env, 100_000, 50, R=3)
    # Baldi–Hornik: span → top-2 eigenvectors of Σ (known exactly); constant-step noise floor ~ step
    assert sin2_theta(lrn.subspace(st), env.subspace).max() < 0.01
    W = st.Wd @ np.swapaxes(st.We, 1, 2)
    P = env.subspace @ env.subspace.T
    assert np.linalg.norm(W - P, axis=(1, 2)).max() < 0.1  # the map itself → the PCA projector


def test_denoising_linear_autoencoder_tends_to_shrunk_pca():
    sigma = 1.0
    env = ol.make_environment("spiked-stream", d=6, k=2, spikes=[5.0, 3.0], block=50)
    lam, U = np.linalg.eigh(env.covariance_at(0.0))
    lam, U = lam[::-1][:2], U[:, ::-1][:, :2]
    W_star = (U * (lam / (lam + sigma ** 2))) @ U.T         # SPEC §4 closed form
    errors = {}
    for step in (0.05, 0.02):
        lrn = ol.make_learner("denoising-ae", k=2, noise=sigma, step=step)
        st = _drive(lrn, env, 200_000, 50, R=3)
        W = st.Wd @ np.swapaxes(st.We, 1, 2)
        errors[step] = np.linalg.norm(W - W_star, axis=(1, 2)) / np.linalg.norm(W_star)
    # Constant-step SGD sits in an O(step) ball around the minimiser: the error is small and shrinks with the
    # step (so it is not a bias), and the target is clearly the shrunk map, not the plain projector U Uᵀ.
    assert errors[0.02].max() < 0.05
    assert errors[0.02].mean() < errors[0.05].mean()
    assert np.linalg.norm(U @ U.T - W_star) / np.linalg.norm(W_star) > 4 * errors[0.02].max()


def test_tanh_autoencoder_reconstructs_about_as_well_as_pca():
    env = ol.make_environment("spiked-stream", d=10, k=2, spikes=[5.0, 3.0], block=20)
    res = ol.simulate(env, {"tanh": ol.make_learner("tanh-ae", k=2), "pca": ol.make_learner("batch-pca", k=2)},
                      T=2000, replicates=2, seed=0)
    err = res.final("reconstruction_error").groupby(level="learner").mean()
    assert err["tanh"] < err["pca"] + 0.1  # no bound for tanh AEs (SPEC §4): report against PCA's loss


def test_comparators_agree_with_sklearn_on_the_same_stream():
    env = ol.make_environment("spiked-stream", d=10, k=2, block=10)
    res = ol.simulate(env, [ol.make_learner("batch-pca", k=2), ol.make_learner("incremental-pca", k=2)],
                      T=300, replicates=2, seed=0)
    assert res.final("sin2_theta").max() < 0.05
