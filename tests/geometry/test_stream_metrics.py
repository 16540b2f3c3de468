"""Subspace metrics, t-similarity, the rank-k comparator and the SGD bound, against independent computations."""
import numpy as np
import pytest
from scipy.linalg import subspace_angles

import onlinelab as ol
from onlinelab.geometry.subspace_metrics import (
    explained_variance,
    pca_basis,
    reconstruction_error,
    sin2_theta,
    sin_theta_fro,
    t_similarity,
)
from onlinelab.losses.streaming import SampleLoss, TopKComparator


def _bases(rng, d=9, k=3, R=4):
    Q = np.linalg.qr(rng.standard_normal((R, d, k)))[0]
    U = np.linalg.qr(rng.standard_normal((d, k)))[0]
    return Q, U


def test_principal_angle_metrics_match_scipy():
    Q, U = _bases(np.random.default_rng(0))
    for r in range(Q.shape[0]):
        theta = subspace_angles(Q[r], U)
        assert sin2_theta(Q, U)[r] == pytest.approx(np.sin(theta.max()) ** 2, abs=1e-12)
        assert sin_theta_fro(Q, U)[r] == pytest.approx(np.linalg.norm(np.sin(theta)), abs=1e-12)


def test_explained_variance_and_reconstruction_error_match_dense_formulas():
    rng = np.random.default_rng(1)
    Q, _ = _bases(rng)
    A = rng.standard_normal((9, 9))
    cov = A @ A.T
    ev = [np.trace(Q[r].T @ cov @ Q[r]) / np.trace(cov) for r in range(4)]
    np.testing.assert_allclose(explained_variance(Q, cov), ev, rtol=1e-12)
    X = rng.standard_normal((9, 40))
    Xh = Q @ (np.swapaxes(Q, 1, 2) @ X)
    ref = [np.linalg.norm(Xh[r] - X) ** 2 / np.linalg.norm(X) ** 2 for r in range(4)]
    np.testing.assert_allclose(reconstruction_error(Xh, X), ref, rtol=1e-12)


def _brute_t_similarity(X, Y, t):
    n = len(X)
    score = 0
    for i in range(n):
        dx = np.linalg.norm(X - X[i], axis=1)
        dy = np.linalg.norm(Y - Y[i], axis=1)
        dx[i] = dy[i] = np.inf
        score += len(set(np.argsort(dx)[:t]) & set(np.argsort(dy)[:t]))
    return score / (n * t)


@pytest.mark.parametrize("t", [1, 5, 10])
def test_t_similarity_matches_brute_force(t):
    rng = np.random.default_rng(t)
    X = rng.standard_normal((120, 10))
    Y = X @ rng.standard_normal((10, 3))
    assert t_similarity(X, Y, t) == pytest.approx(_brute_t_similarity(X, Y, t), abs=1e-12)
    assert t_similarity(X, X, t) == 1.0


def test_top_k_comparator_is_ky_fan_and_beats_every_subspace():
    rng = np.random.default_rng(3)
    R, d, k = 2, 7, 3
    cmp = TopKComparator(R, d, k)
    cmp.flush_every = 16  # exercise the buffered flush as well
    total = np.zeros((R, d, d))
    for _ in range(40):
        X = rng.standard_normal((R, d, 5))
        loss = SampleLoss(X, k=k)
        cmp.add(loss)
        total += loss.dense()
    np.testing.assert_allclose(cmp.value(), np.linalg.eigvalsh(total)[:, :k].sum(axis=1), rtol=1e-10)
    for _ in range(50):  # no rank-k projector does better than the comparator
        Q = np.linalg.qr(rng.standard_normal((R, d, k)))[0]
        assert np.all(np.einsum("rik,rij,rjk->r", Q, total, Q) >= cmp.value() - 1e-9)
    assert cmp.pooled_value() == pytest.approx(np.linalg.eigvalsh(total.mean(axis=0))[:k].sum())


def test_regret_is_compression_regret():
    # Σ_t [compression loss of Q_t] − min_P Σ_t [compression loss of P]  ==  the simulator's regret
    env = ol.make_environment("spiked-stream", d=6, k=2, block=4)
    res = ol.simulate(env, [ol.make_learner("oja", k=2, qr="block")], T=30, replicates=1, seed=0, checkpoints=[30])
    env2 = env.clone()
    from onlinelab.core.rng import BatchRNG
    env2.reset(BatchRNG.from_seed(0, "environment", res.environments[0], 1), 30)
    lrn = ol.make_learner("oja", k=2, qr="block")
    lrng = BatchRNG.from_seed(0, "learner", res.learners[0], 1, env=res.environments[0])
    state = lrn.init(ol.Context(d=6, T=30, replicates=1), lrng)
    comp, S = 0.0, np.zeros((6, 6))
    for t in range(1, 31):
        X = env2.emit(t, None).samples[0]
        Q = state.Q[0]
        comp += np.sum((X - Q @ (Q.T @ X)) ** 2) / X.shape[1]
        S += X @ X.T / X.shape[1]
        state = lrn.update(state, None, ol.Feedback("full", loss=SampleLoss(X[None], k=2)), lrng)
    best = np.trace(S) - np.linalg.eigvalsh(S)[-2:].sum()
    assert res.final("regret").iloc[0] == pytest.approx(comp - best, rel=1e-9)


def test_pca_basis_matches_sklearn():
    from sklearn.decomposition import PCA
    X = np.random.default_rng(4).standard_normal((50, 6)) @ np.diag([4, 3, 2, 1, 1, 1.0])
    U, var = pca_basis(X, 2)
    ref = PCA(2).fit(X)
    assert sin2_theta(U, ref.components_.T)[0] < 1e-20 + 1e-12
    np.testing.assert_allclose(var[:2], ref.explained_variance_ * 49 / 50, rtol=1e-10)


def test_digits_stream_orders_and_batch_pca_target():
    env = ol.make_environment("digits-stream", k=4, order="sorted", block=599)
    res = ol.simulate(env, [ol.make_learner("batch-pca", k=4)], T=3, replicates=1, seed=0)
    # after exactly the 1797 = 3 × 599 samples, batch PCA on the stream is the target itself
    assert res.final("sin2_theta").iloc[0] < 1e-6
    # sorted order: the first rounds show only zeros (class 0)
    env.reset(ol.core.rng.BatchRNG.from_seed(0, "environment", "x", 2), 10)
    env.block = 20
    X = env.emit(1, None).samples
    labels = {int(env.labels[np.argmin(np.abs(env.data - x).sum(axis=1))]) for x in X[0].T}
    assert labels == {0}


def test_rotating_subspace_tracked_by_constant_step_oja():
    d, k, eta, speed = 10, 2, 0.01, 2e-4
    env = ol.make_environment("rotating-subspace", d=d, k=k, speed=speed, block=10)
    res = ol.simulate(env, {"const": ol.make_learner("oja", k=k, qr="block", schedule="constant", step=eta),
                            "decay": ol.make_learner("oja", k=k, qr="block")}, T=2000, replicates=8, seed=0)
    final = res.final("sin2_theta")
    const, decay = (final.xs(n, level="learner").to_numpy() for n in ("const", "decay"))
    se = lambda a: a.std(ddof=1) / np.sqrt(len(a))  # noqa: E731
    # Threshold from the constant step's stationary error: angle θ_ij (i in the subspace, j outside) follows
    # θ ← (1 − η(λ_i − λ_j)) θ + η·noise with noise variance λ_i λ_j, so E θ_ij² ≈ η λ_i λ_j / (2(λ_i − λ_j)) to first
    # order in η λ (here ηλ₁ = 0.05), and E sin²θ_max ≤ E‖sinΘ‖²_F = Σ_ij E θ_ij²; the lag behind the rotation,
    # speed/(η·gap) = 0.01 rad, adds ~10⁻⁴.  Twice that floor allows for the first-order approximation; a decaying
    # step averages over the whole rotation (4 rad over the run) and cannot follow, and a random subspace has
    # E sin²θ_max ≥ 1 − k/d = 0.8.
    lam = np.linalg.eigvalsh(env.covariance_at(0.0))[::-1]
    floor = sum(eta * lam[i] * lam[j] / (2 * (lam[i] - lam[j])) for i in range(k) for j in range(k, d))
    threshold = 2 * floor + (speed / (eta * env.gap)) ** 2
    assert threshold < 0.5 * (1 - k / d)
    assert const.mean() + 3 * se(const) < threshold < decay.mean() - 3 * se(decay), (const, decay, threshold)


def test_sgd_bound_holds_on_streaming_least_squares():
    env = ol.make_environment("least-squares-stream", d=5, m=20, noise=1.0)
    K = 2000
    tau = min(1 / env.smoothness, 1.0 / (np.sqrt(env.grad_variance) * np.sqrt(K)))  # horizon-tuned, theory §4
    res = ol.simulate(env, [ol.make_learner("sgd", step=tau)], T=K, replicates=40, seed=0)
    sub = res.curve("suboptimality")
    bound = res.curve("sgd_bound")
    # The bound is on the expectation: compare the replicate mean plus 3 standard errors with it.
    assert np.all(sub["mean"].to_numpy() - 3 * sub["se"].to_numpy() <= bound["mean"].to_numpy())
    # and the tuned closed form LR²/(2K) + 3Rσ/(2√K) dominates the final bound value (R = ‖w*‖ = 1)
    closed = env.smoothness / (2 * K) + 1.5 * np.sqrt(env.grad_variance) / np.sqrt(K)
    assert bound["mean"].iloc[-1] <= closed * (1 + 1e-12)


@pytest.mark.parametrize("b", [1, 5, 100])
def test_sample_loss_statistics_match_dense(b):
    X = np.random.default_rng(b).standard_normal((2, 8, b))
    loss = SampleLoss(X, k=2)
    st = loss.statistics()
    dense = loss.dense()
    np.testing.assert_allclose(st["fro_sq"], np.einsum("rij,rij->r", dense, dense), rtol=1e-10)
    spec = np.abs(np.linalg.eigvalsh(dense)).max(axis=1) ** 2
    if b <= 64:
        np.testing.assert_allclose(st["spec_sq"], spec, rtol=1e-10)
    else:  # the Frobenius upper bound
        assert np.all(st["spec_sq"] >= spec)


def test_digits_subsample_is_the_data_set_and_the_run_seed_is_the_order():
    # (The generic conformance suite, tests/experiment/test_conformance.py, checks every registered environment as
    # built by default; this covers the subsampled digits stream.)
    from onlinelab.environments.streams import DigitsStream
    from onlinelab.experiment.checks import check_environment
    env = DigitsStream(k=3, n_samples=200, block=50)
    assert "seed changes the losses" in check_environment(env, T=4)
    # the subsample depends on subset_seed only: same data whatever the run, another subset_seed another data set
    assert np.array_equal(env.data, DigitsStream(k=3, n_samples=200).data)
    assert not np.array_equal(env.data, DigitsStream(k=3, n_samples=200, subset_seed=1).data)

    def first_round(seed):
        e = env.clone()
        e.reset(ol.core.rng.BatchRNG.from_seed(seed, "environment", "x", 2), 4)
        return e.emit(1, None).factors

    a, b = first_round(0), first_round(1)
    assert not np.array_equal(a, b) and not np.array_equal(a[0], a[1])  # the order: per seed and per replicate
    assert set(map(tuple, a[0].T.round(12))) <= set(map(tuple, env.data.round(12)))  # drawn from the subsample
