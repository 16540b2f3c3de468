"""Log-det OMD (theory §1) against plain reference computations with explicit matrices, and its invariants."""
import numpy as np
import pytest
from scipy.optimize import brentq

import onlinelab as ol
from onlinelab.core.protocol import Context, Feedback
from onlinelab.core.rng import BatchRNG
from onlinelab.geometry.linalg import orthonormality_error
from onlinelab.learners.logdet import LogDetOMD
from tests.conftest import random_symmetric


def reference_step(W, Ltilde, eta):
    """W⁺ = (W⁻¹ + η L̃ + β I)⁻¹ with tr W⁺ = 1, β found by Brent's method on explicit inverses."""
    A = np.linalg.inv(W) + eta * Ltilde
    A = (A + A.T) / 2
    amin = np.linalg.eigvalsh(A)[0]
    d = len(W)
    beta = brentq(lambda b: np.trace(np.linalg.inv(A + b * np.eye(d))) - 1.0, 1.0 - amin, d - amin,
                  xtol=1e-15, rtol=1e-15)
    return np.linalg.inv(A + beta * np.eye(d))


def dense_W(state):
    return np.einsum("rik,rk,rjk->rij", state.U, state.lam, state.U)


def _drive(learner, env, T, R, seed=0, each=None):
    ctx = Context(d=env.d, T=T, replicates=R, loss_bound=1.0, psd=env.psd)
    rng = BatchRNG.from_seed(seed, "learner", "test", R)
    env.reset(BatchRNG.from_seed(seed, "environment", "test", R), T)
    state = learner.init(ctx, rng)
    for t in range(1, T + 1):
        play = learner.act(state, rng)
        loss = env.emit(t, None)
        if learner.feedback == "bandit":
            fb = Feedback("bandit", value=loss.quad(play.action))
        else:
            fb = Feedback("full", loss=loss)
        new = learner.update(state, play, fb, rng)
        if each is not None:
            each(t, state, play, loss, fb, new)
        state = new
    return state


def test_full_information_trajectory_matches_reference():
    d, T, R, eta = 5, 150, 2, 0.2
    env = ol.make_environment("switching", d=d, block=7)
    learner = LogDetOMD(eta=eta, sampler=None)
    W_ref = np.tile(np.eye(d) / d, (R, 1, 1))
    worst = [0.0]

    def each(t, state, play, loss, fb, new):
        L = loss.dense()
        for r in range(R):
            W_ref[r] = reference_step(W_ref[r], L[r], eta)
        worst[0] = max(worst[0], np.abs(dense_W(new) - W_ref).max())

    _drive(learner, env, T, R, each=each)
    assert worst[0] < 1e-10


@pytest.mark.parametrize("sampler", ["dense", "sparse"])
def test_bandit_step_matches_reference(sampler):
    """Each structured update (diagonal, rank one, Jacobi rotation) equals the explicit formula with L̃."""
    d, T, R = 4, 300, 3
    learner = LogDetOMD(sampler=sampler, gamma=0.05 if sampler == "dense" else None)
    env = ol.make_environment("spiked-covariance", d=d)
    worst = [0.0]

    def each(t, state, play, loss, fb, new):
        Lt = state.U @ learner.estimate(play, fb).dense() @ np.swapaxes(state.U, 1, 2)
        W = dense_W(state)
        for r in range(R):
            ref = reference_step(W[r], Lt[r], state.eta)
            worst[0] = max(worst[0], np.abs(dense_W(new)[r] - ref).max())

    _drive(learner, env, T, R, each=each)
    assert worst[0] < 1e-9


@pytest.mark.parametrize("sampler", ["dense", "sparse", None])
def test_invariants_over_ten_thousand_rounds(sampler):
    d, T, R = 6, 10_000, 4
    learner = LogDetOMD(sampler=sampler)
    env = ol.make_environment("spiked-covariance", d=d)
    seen = {"trace": 0.0, "orth": 0.0, "lam_min": 1.0}

    def each(t, state, play, loss, fb, new):
        seen["trace"] = max(seen["trace"], np.abs(new.lam.sum(axis=1) - 1).max(),
                            np.abs(np.trace(dense_W(new), axis1=1, axis2=2) - 1).max())
        seen["orth"] = max(seen["orth"], orthonormality_error(new.U).max())
        seen["lam_min"] = min(seen["lam_min"], new.lam.min())
        mixed = play.mixed.lam
        assert np.all(mixed > 0)

    final = _drive(learner, env, T, R, each=each)
    assert seen["trace"] < 1e-12
    assert seen["lam_min"] > 0
    assert seen["orth"] < 1e-10
    assert final.newton_max <= 9  # theory appendix A2


def test_exploration_mixing_and_tuned_defaults():
    ctx = Context(d=8, T=4000, replicates=1)
    dense = LogDetOMD(sampler="dense").resolved_params(ctx)
    assert dense["eta"] == pytest.approx(min(np.sqrt(np.log(4000) / (8 * 4000)), 1 / 16))
    assert dense["gamma"] == 0.0
    sparse = LogDetOMD(sampler="sparse").resolved_params(ctx)
    assert sparse["eta"] == pytest.approx(min(np.sqrt(np.log(4000) / 4000), 1 / 16))
    assert sparse["gamma"] == pytest.approx(8 * sparse["eta"])
    full = LogDetOMD(sampler=None).resolved_params(ctx)
    assert full["eta"] == pytest.approx(np.sqrt(8 * np.log(4000) / 8000))
    learner = LogDetOMD(eta=0.01, gamma=0.25)
    state = learner.init(ctx, BatchRNG.from_seed(0, "learner", "x", 1))
    state = state._replace(lam=np.array([[0.5, 0.5] + [0.0] * 6]))
    play = learner.act(state, BatchRNG.from_seed(0, "learner", "x", 1))
    np.testing.assert_allclose(play.mixed.lam, 0.75 * state.lam + 0.25 / 8)


def test_full_information_regret_within_bound_on_random_losses():
    rng = np.random.default_rng(0)
    d, T = 4, 400
    Ls = np.stack([random_symmetric(rng, d) for _ in range(T)])

    class Fixed(ol.Environment):
        def emit(self, t, history):
            return ol.DenseLoss(Ls[t - 1][None])

    res = ol.simulate(Fixed(d=d), [LogDetOMD(sampler=None)], T=T, seed=0)
    # independent regret: Σ⟨W_t, L_t⟩ from a reference trajectory, minus λ_min(Σ L_t)
    eta = LogDetOMD(sampler=None).resolved_params(Context(d=d, T=T, replicates=1))["eta"]
    W, total = np.eye(d) / d, 0.0
    for L in Ls:
        total += np.sum(W * L)
        W = reference_step(W, L, eta)
    regret = total - np.linalg.eigvalsh(Ls.sum(axis=0))[0]
    assert res.final("regret").iloc[0] == pytest.approx(regret, abs=1e-8)
    assert regret <= (d - 1) * np.log(T) / eta + 2 * eta * T + 2
