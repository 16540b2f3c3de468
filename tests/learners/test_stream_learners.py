"""Gradient PCA and the autoencoders against closed forms (theory §4): Theorem 1.7, Baldi–Hornik, shrunk PCA."""
import numpy as np
import pytest
from sklearn.decomposition import PCA

import onlinelab as ol
from onlinelab.core.base import label_of
from onlinelab.core.rng import BatchRNG
from onlinelab.geometry.subspace_metrics import sin2_theta
from onlinelab.learners.streaming_gradient_pca import gradient_pca, pca_gradient, pca_objective

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


def _mean_plus_3se(a):
    a = np.asarray(a, dtype=float)
    return a.mean() + 3 * a.std(ddof=1) / np.sqrt(len(a))


def test_gradient_pca_stream_converges():
    d, k = 15, 2
    env = ol.make_environment("spiked-stream", d=d, k=k, spikes=[6.0, 4.0], block=20)
    res = ol.simulate(env, [ol.make_learner("gradient-pca", k=k)], T=1500, replicates=8, seed=0)
    # Basis of 0.05: a subspace that learned nothing (random) has E sin²θ_max ≥ E‖sinΘ‖²_F / k = 1 − k/d = 0.87,
    # so 0.05 is far below it; the constant-step mini-batch noise floor (O(step), measured ≈ 0.01) and batch PCA's
    # statistical floor on the same 3·10⁴ samples (≈ 2·10⁻⁴) are far below 0.05.  Mean + 3 SE over replicates.
    assert 1 - k / d > 10 * 0.05
    assert _mean_plus_3se(res.final("sin2_theta")) < 0.05


def test_linear_autoencoder_span_tends_to_pca_span():
    env = ol.make_environment("spiked-stream", d=8, k=2, spikes=[5.0, 3.0], block=50)
    lrn = ol.make_learner("linear-ae", k=2, step=0.05)
    st = _drive(lrn, env, 100_000, 50, R=6)
    # Baldi–Hornik: span → top-2 eigenvectors of Σ (known exactly).  Constant-step SGD stops at a noise floor
    # O(step·λ) above it (measured ≈ 7·10⁻⁴ for sin²θ); a random 2-subspace of R⁸ has E sin²θ_max ≥ 1 − k/d = 0.75,
    # so 0.01 separates a learner that found the span from one that did not.  Mean + 3 SE over replicates.
    assert _mean_plus_3se(sin2_theta(lrn.subspace(st), env.subspace)) < 0.01
    W = st.Wd @ np.swapaxes(st.We, 1, 2)
    P = env.subspace @ env.subspace.T
    # The map itself → the PCA projector.  Broken alternatives sit far above 0.1: W = 0 has ‖W − P‖_F = √k = 1.41,
    # a random rank-k projector E‖W − P‖²_F = 2k(1 − k/d) = 3.
    assert _mean_plus_3se(np.linalg.norm(W - P, axis=(1, 2))) < 0.1


def test_denoising_linear_autoencoder_tends_to_shrunk_pca():
    sigma = 1.0
    env = ol.make_environment("spiked-stream", d=6, k=2, spikes=[5.0, 3.0], block=50)
    lam, U = np.linalg.eigh(env.covariance_at(0.0))
    lam, U = lam[::-1][:2], U[:, ::-1][:, :2]
    W_star = (U * (lam / (lam + sigma ** 2))) @ U.T         # theory §4 closed form
    errors = {}
    for step in (0.05, 0.02):
        lrn = ol.make_learner("denoising-ae", k=2, noise=sigma, step=step)
        st = _drive(lrn, env, 200_000, 50, R=3)
        W = st.Wd @ np.swapaxes(st.We, 1, 2)
        errors[step] = np.linalg.norm(W - W_star, axis=(1, 2)) / np.linalg.norm(W_star)
    # Constant-step SGD sits in an O(step) ball around the minimiser: the error is small and shrinks with the
    # step (so it is not a bias), and the target is clearly the shrunk map, not the plain projector U Uᵀ.
    # Basis of 0.05: the nearest wrong answer, the unshrunk projector U Uᵀ, is at relative distance
    # ‖diag(σ²/(λ+σ²))‖/‖W*‖ = 0.27 (asserted below to exceed 4× the worst replicate).  Mean + 3 SE over replicates.
    assert _mean_plus_3se(errors[0.02]) < 0.05
    assert errors[0.02].mean() < errors[0.05].mean()
    assert np.linalg.norm(U @ U.T - W_star) / np.linalg.norm(W_star) > 4 * errors[0.02].max()


def test_tanh_autoencoder_reconstructs_about_as_well_as_pca():
    # No bound for tanh AEs (theory §4): compare with PCA's loss on the same held-out samples, replicate by replicate.
    # The AE's reconstructions Wd tanh(Weᵀx + be) + bd lie in a k-dimensional affine set, so its population error
    # cannot go below PCA's: "as well as PCA" can only mean a small excess.  Scale of the excess: a k-subspace that
    # learned nothing (uniformly random Q) has E‖X − QQᵀX‖²/‖X‖² = 1 − k/d exactly (E QQᵀ = (k/d) I) on any X.
    # Require the AE to close at least 3/4 of the gap between that and PCA (mean + 3 SE of the paired excess).
    # Measured: excess ≈ 0.036 after 4·10⁴ samples and ≈ 0.011 after 1.6·10⁵ (still shrinking: training-limited).
    d, k = 10, 2
    env = ol.make_environment("spiked-stream", d=d, k=k, spikes=[5.0, 3.0], block=20)
    res = ol.simulate(env, {"tanh": ol.make_learner("tanh-ae", k=k), "pca": ol.make_learner("batch-pca", k=k)},
                      T=2000, replicates=4, seed=0)
    err = res.final("reconstruction_error")
    excess = err.xs("tanh", level="learner").to_numpy() - err.xs("pca", level="learner").to_numpy()
    random_excess = (1 - k / d) - err.xs("pca", level="learner").to_numpy().mean()
    assert _mean_plus_3se(excess) < 0.25 * random_excess, (excess, random_excess)


def test_comparators_agree_with_eigh_and_sklearn_on_the_same_stream():
    # Replay the simulator's stream (environment streams keyed by the environment's label, learner streams by the
    # learner's), then: batch-pca = top-k eigenvectors of Σ x xᵀ (numpy eigh), incremental-pca = scikit-learn's
    # IncrementalPCA fed the same chunks of batch_size samples (25: chunks straddle the rounds of 10).
    from sklearn.decomposition import IncrementalPCA
    d, k, b, T, R, seed = 10, 2, 10, 300, 2, 0
    env = ol.make_environment("spiked-stream", d=d, k=k, block=b)
    learners = [ol.make_learner("batch-pca", k=k), ol.make_learner("incremental-pca", k=k, batch_size=25)]
    res = ol.simulate(env, learners, T=T, replicates=R, seed=seed)
    replay = env.clone()
    replay.reset(BatchRNG.from_seed(seed, "environment", label_of(env), R), T)
    losses = [replay.emit(t, None) for t in range(1, T + 1)]
    X = np.concatenate([loss.factors for loss in losses], axis=2)         # (R, d, T·b)
    for lrn in learners:
        label = label_of(lrn)
        rng = BatchRNG.from_seed(seed, "learner", label, R)
        state = lrn.init(ol.Context(d=d, T=T, replicates=R), rng)
        for loss in losses:
            state = lrn.update(state, lrn.act(state, rng), ol.Feedback("full", loss=loss), rng)
        # the replay is the simulator's run: its reported metrics come out of this state
        for metric, value in env.checkpoint_metrics(lrn, state).items():
            sim = res.final(metric).xs(label, level="learner").to_numpy()
            np.testing.assert_allclose(sim, value, rtol=1e-12, atol=1e-15, err_msg=f"{label} {metric}")
        Q = lrn.subspace(state)
        for r in range(R):
            if lrn.name == "batch-pca":
                ref = np.linalg.eigh(X[r] @ X[r].T)[1][:, ::-1][:, :k]
            else:
                ipca = IncrementalPCA(n_components=k)
                for c in range(0, X.shape[2], 25):
                    ipca.partial_fit(X[r, :, c:c + 25].T)
                ref = ipca.components_.T
            assert sin2_theta(Q[r], ref)[0] < 1e-12, label
