"""MEG (theory §2) against independent references: a plain scipy.linalg.expm loop, the worst-case tuning of η, and
exact enumeration of its sampler (E[w wᵀ] = W)."""
import numpy as np
import pytest
from scipy.linalg import expm

import onlinelab as ol
from onlinelab.core.base import label_of
from onlinelab.core.protocol import Context, Feedback
from onlinelab.core.rng import BatchRNG
from onlinelab.learners.meg import MEG


def replay(env, seed, R, T):
    """The environment's losses as simulate draws them (same stream name)."""
    env.reset(BatchRNG.from_seed(seed, "environment", label_of(env), R), T)
    return [env.emit(t, None) for t in range(1, T + 1)]


def expm_play(S, eta):
    W = expm(-eta * S)
    return W / np.trace(W)


def test_meg_matches_a_plain_expm_loop():
    """W_t = expm(−η S_{t−1})/tr, S_{t−1} = Σ_{s<t} L_s, with dense matrices; Σ⟨W_t, L_t⟩ and the regret agree."""
    d, eta, T, R = 5, 0.3, 80, 2
    env = ol.make_environment("spiked-covariance", d=d)
    res = ol.simulate(env, [MEG(eta=eta)], T=T, replicates=R, seed=2, checkpoints=[T])
    S, total = np.zeros((R, d, d)), np.zeros(R)
    for loss in replay(env, 2, R, T):
        L = loss.dense()
        total += [np.sum(expm_play(S[r], eta) * L[r]) for r in range(R)]
        S += L
    np.testing.assert_allclose(res.final("cumulative_loss").to_numpy(), total, rtol=0, atol=1e-9)
    np.testing.assert_allclose(res.final("regret").to_numpy(), total - np.linalg.eigvalsh(S)[:, 0], rtol=0, atol=1e-9)


@pytest.mark.parametrize("d,T", [(2, 1), (4, 100), (9, 2500)])
def test_default_eta_is_the_worst_case_tuning(d, T):
    ctx = Context(d=d, T=T, replicates=1)
    assert MEG().resolved_params(ctx)["eta"] == np.sqrt(2 * np.log(d) / T)
    assert MEG(eta=0.7).resolved_params(ctx)["eta"] == 0.7


class _FixedUniform:
    """A stand-in generator whose uniform draw is fixed, so each outcome of the sampler can be visited in turn;
    ``categorical`` is the library's inverse-CDF draw driven by that uniform."""

    def __init__(self, u):
        self.u = np.asarray(u, dtype=float)

    def random(self):
        return self.u

    def categorical(self, probs):
        return BatchRNG.categorical(self, probs)


def test_sampled_eigenvector_has_expected_outer_product_W_exactly():
    """After a few updates, enumerate the sampler's outcomes: the uniform u ∈ [0, 1) picks eigenvector i on an interval
    of length p_i; Σ_i (length_i) w_i w_iᵀ must equal W = expm(−ηS)/tr computed independently."""
    d, eta, R = 4, 0.8, 2
    env = ol.make_environment("spiked-covariance", d=d)
    losses = replay(env, 5, R, 6)
    meg = MEG(eta=eta)
    state = meg.init(Context(d=d, T=6, replicates=R), None)
    for loss in losses:
        state = meg.update(state, None, Feedback("full", loss=loss), None)
    S = sum(loss.dense() for loss in losses)
    p = np.exp(-eta * np.linalg.eigvalsh(S))          # probabilities, ascending eigenvalues of S → sorted any way
    for r in range(R):
        W = expm_play(S[r], eta)
        probs = meg.act(state, _FixedUniform(np.zeros(R))).mixed.lam[r]
        edges = np.concatenate([[0.0], np.cumsum(probs) / probs.sum()])
        EW = np.zeros((d, d))
        for i in range(d):
            u = np.full(R, 0.5 * (edges[i] + edges[i + 1]))            # an interior point of outcome i's interval
            w = meg.act(state, _FixedUniform(u)).action[r]
            assert abs(np.linalg.norm(w) - 1) < 1e-12
            EW += (edges[i + 1] - edges[i]) * np.outer(w, w)
        np.testing.assert_allclose(EW, W, rtol=0, atol=1e-12)
        assert np.allclose(np.sort(probs), np.sort(p[r] / p[r].sum()), rtol=0, atol=1e-12)
