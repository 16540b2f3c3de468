"""Rank-k capped MEG (theory §2 "Rank k"): capping vs KKT, E[P] = mW by exact enumeration, a plain expm/logm loop,
the comparator vs an eigen computation, regret under the bounds, one code path with entropic OMD, bad input."""
import numpy as np
import pytest
from scipy.linalg import expm, logm

import onlinelab as ol
from onlinelab.core.base import label_of
from onlinelab.core.rng import BatchRNG
from onlinelab.errors import ConfigError, DomainError
from onlinelab.geometry.mirror import capped_log_softmax
from onlinelab.geometry.specs import make_domain
from onlinelab.learners.capped_meg import CappedMEG, sampled_frame


def env_losses(env, seed, R, T):
    """Replay an oblivious environment's losses (same stream name as simulate uses)."""
    env.reset(BatchRNG.from_seed(seed, "environment", label_of(env), R), T)
    return [env.emit(t, None).dense() for t in range(1, T + 1)]


@pytest.mark.parametrize("scale", [1.0, 30.0, 1e5])
def test_capping_satisfies_kkt_even_when_eigenvalues_underflow(scale):
    """p = min(c, τe^h): Σp = 1, 0 < p ≤ c, log p − h constant on the uncapped set, capped entries dominate.
    (Against brute-force enumeration: tests/geometry/test_domains.py, through capped_entropy_projection.)"""
    m, d = 3, 7
    h = np.random.default_rng(5).normal(size=(50, d)) * scale
    lp = capped_log_softmax(h, 1.0 / m)
    p = np.exp(lp)
    assert np.all(np.isfinite(lp)) and np.allclose(p.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(p <= 1.0 / m * (1 + 1e-12))
    capped = lp >= np.log(1.0 / m) - 1e-12
    for r in range(h.shape[0]):
        free = ~capped[r]
        shift = lp[r, free] - h[r, free]
        assert np.ptp(shift) <= 1e-9 * max(1.0, np.abs(shift).max())
        if capped[r].any():
            assert h[r, capped[r]].min() + shift[0] >= np.log(1.0 / m) - 1e-9


def test_systematic_sampling_gives_expected_projector_m_W_exactly():
    """Integrate the piecewise-constant frame over u ∈ [0, 1): E[U Uᵀ] = V diag(mp) Vᵀ = mW, rank m each time."""
    m, d = 3, 6
    rng = np.random.default_rng(6)
    p = np.exp(capped_log_softmax(rng.normal(size=(1, d)) * 2, 1.0 / m))
    V, _ = np.linalg.qr(rng.normal(size=(d, d)))
    mp, V = m * p, V[None]
    breaks = np.unique(np.concatenate([[0.0, 1.0], np.mod(np.cumsum(mp[0]), 1.0)]))
    EP = np.zeros((d, d))
    for lo, hi in zip(breaks[:-1], breaks[1:], strict=True):
        U = sampled_frame(mp, V, np.array([0.5 * (lo + hi)]))[0]
        assert np.allclose(U.T @ U, np.eye(m), atol=1e-12)
        EP += (hi - lo) * U @ U.T
    assert np.abs(EP - (V[0] * mp[0]) @ V[0].T).max() < 1e-12


def cap_bisect(q, c):
    """min(c, τq) with Σ = 1, τ by plain bisection (independent of the library's sort-based rule)."""
    lo, hi = 0.0, 1.0 / q.min()
    for _ in range(200):
        tau = 0.5 * (lo + hi)
        lo, hi = (tau, hi) if np.minimum(c, tau * q).sum() < 1 else (lo, tau)
    return np.minimum(c, 0.5 * (lo + hi) * q)


def test_matches_a_plain_expm_logm_loop():
    """W_{t+1} = cap(expm(logm W_t − ηL_t)) with dense matrices; cumulative Σ⟨mW_t, L_t⟩ agrees."""
    d, k, eta, T = 4, 2, 0.4, 40
    m = d - k
    env = ol.make_environment("pca-compression", d=d, k=k)
    res = ol.simulate(env, [CappedMEG(eta=eta)], T=T, seed=3, checkpoints=[T])
    W, total = np.eye(d) / d, 0.0
    for L in env_losses(env, 3, 1, T):
        total += m * np.sum(W * L[0])
        lam, V = np.linalg.eigh(np.real(expm(logm(W) - eta * L[0])))
        W = (V * cap_bisect(lam / lam.sum(), 1.0 / m)) @ V.T
    assert res.final("cumulative_loss").iloc[0] == pytest.approx(total, abs=1e-9)


def test_comparator_is_the_sum_of_the_m_smallest_eigenvalues():
    d, k, T, R = 5, 2, 60, 2
    env = ol.make_environment("pca-compression", d=d, k=k)
    res = ol.simulate(env, [CappedMEG()], T=T, replicates=R, seed=1, checkpoints=[T])
    S = sum(env_losses(env, 1, R, T))
    want = np.linalg.eigvalsh(S)[:, : d - k].sum(axis=1)
    got = res.final("comparator_loss").to_numpy()
    assert np.allclose(got, want, atol=1e-10)
    frames = np.linalg.qr(np.random.default_rng(7).normal(size=(2000, d, d - k)))[0]   # random rank-m projectors
    tried = np.einsum("pik,rij,pjk->rp", frames, S, frames)
    assert np.all(tried.min(axis=1) >= got - 1e-10)
    lmo = make_domain(f"fantope:{d - k}", d).lmo(S).dense()                     # the Fantope LMO agrees
    assert np.allclose(np.einsum("rij,rij->r", lmo, S), got, atol=1e-10)


def test_regret_under_both_bounds_and_sampling_is_unbiased():
    T, R, d, k = 2000, 8, 8, 2
    env = ol.make_environment("pca-compression", d=d, k=k)
    res = ol.simulate(env, [CappedMEG()], T=T, replicates=R, seed=0)
    b = res.bounds()
    assert set(b.bound) == {"capped-meg-first-order", "capped-meg-tuned"}
    # both bounds are on the mixed strategy's regret, a function of the loss sequence: checked replicate by replicate
    assert all(m["pointwise"] for m in res.meta["bounds"])
    assert b.holds.all() and not b.violated.any()
    # the tuned bound's hard-coded assumption L̂ = m·T·loss_bound ≥ L*, at every checkpoint and replicate
    Lhat = (d - k) * T * env.loss_bound
    assert res.metrics.query("metric == 'comparator_loss'").value.max() <= Lhat
    # realised − expected is a sum of T martingale differences (mean 0): 4 empirical standard errors, R ≥ 8
    gap = (res.final("realized_regret") - res.final("regret")).to_numpy()
    se = np.std(gap, ddof=1) / np.sqrt(R)
    assert abs(gap.mean()) <= 4 * se
    # sanity: each difference lies in [−1, 1] (‖P x‖² ∈ [0, 1]), so the worst-case SE is √(T/(4R))
    assert abs(gap.mean()) <= 4 * np.sqrt(T / (4 * R))


def test_one_code_path_with_entropic_omd_on_the_fantope():
    """Greedy entropic OMD on fantope:m is the same algorithm (mirror.py's capping on eigenvalues)."""
    env = ol.make_environment("pca-compression", d=6, k=3, noise=0.3)
    res = ol.simulate(env, {"capped": CappedMEG(eta=0.7), "omd": ol.make_learner("omd", regularizer="entropy",
                                                                                  gamma=0.7)}, T=300, replicates=2)
    f = res.final("regret")
    assert np.allclose(f["capped"], f["omd"], atol=1e-9)


def test_bad_input():
    with pytest.raises(DomainError, match="k = 3 gives m = d − k = 5, but the environment plays 'fantope:6'"):
        ol.simulate(ol.make_environment("pca-compression", d=8, k=2), [CappedMEG(k=3)], T=2)
    with pytest.raises(DomainError, match=r"^learner 'capped-meg' plays the fantope \(matrix losses\) but environment "
                       r"'spiked-covariance' emits matrix losses on the spectraplex; learners that fit: batch-pca, "):
        ol.simulate("spiked-covariance", [CappedMEG()], T=2)
    with pytest.raises(ConfigError, match="eta must be > 0"):
        CappedMEG(eta=0)
    with pytest.raises(ConfigError, match="k must be < d = 4"):
        ol.make_environment("pca-compression", d=4, k=4)
