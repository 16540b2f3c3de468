"""FTL on strongly convex losses: regret ≤ Σ‖g_t‖²/(2λ_{1:t}) (theory §3.2 table),
as Bound data and against a plain loop."""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core.base import label_of
from onlinelab.core.rng import BatchRNG
from tests.ball_reference import ball_argmin

T = 30   # small: the ball solver behind FTL and the comparator is the cost here


def replay(env, seed, R):
    env.reset(BatchRNG.from_seed(seed, "environment", label_of(env), R), T)
    return [env.emit(t, None) for t in range(1, T + 1)]


def test_ftl_regret_under_the_exact_bound_on_quadratics():
    """Plain FTL loop (centre start) on quadratic-ball: same regret as the simulator, and below Σ‖g_t‖²/(2λ_{1:t})
    computed with the true gradients at the plays and λ_t = λ_min(A_t)."""
    env = ol.make_environment("quadratic-ball", d=3, mu=0.3)
    res = ol.simulate(env, [ol.make_learner("ftl")], T=T, seed=4, checkpoints=list(range(1, T + 1)))
    x, SA, Sb, lam, loss, bound = np.zeros(3), 0, 0, 0.0, 0.0, 0.0
    for q in replay(env, 4, 1):
        A, b = q.A[0], q.b[0]
        loss += 0.5 * x @ A @ x + b @ x
        lam += np.linalg.eigvalsh(A)[0]
        bound += np.sum((A @ x + b) ** 2) / (2 * lam)
        SA, Sb = SA + A, Sb + b
        x = ball_argmin(SA, Sb)
    xs = ball_argmin(SA, Sb)
    regret = loss - (0.5 * xs @ SA @ xs + Sb @ xs)
    assert res.final("regret").iloc[0] == pytest.approx(regret, abs=1e-10)
    assert regret <= bound
    curve = res.final("bound:ftl-strongly-convex").iloc[0]
    assert bound <= curve                                   # the declared curve bounds the exact sum (sup over K)


def test_declared_curve_is_exact_with_every_round_a_checkpoint_and_valid_otherwise():
    """The losses' statistics are what the bound assumes — curvature = λ_min(A_t) (the strong convexity of
    ½xᵀA_tx + b_tᵀx) and fro_sq = (‖A_t‖₂ + ‖b_t‖)² ≥ sup_{‖x‖≤1} ‖A_tx + b_t‖² — checked here against eigvalsh and
    a sample of the sphere; the curve Σ fro_sq/(2λ_{1:t}) is then rebuilt from the test's own values."""
    env = ol.make_environment("quadratic-ball", d=4, mu=0.2)
    every = ol.simulate(env, [ol.make_learner("ftl")], T=T, replicates=2, seed=1, checkpoints=list(range(1, T + 1)))
    sparse = ol.simulate(env, [ol.make_learner("ftl")], T=T, replicates=2, seed=1, checkpoints=[1, 7, 20])
    rng = np.random.default_rng(0)
    sphere = rng.standard_normal((4000, 4))
    sphere /= np.linalg.norm(sphere, axis=1, keepdims=True)       # ‖Ax + b‖² is convex: its sup is on the sphere
    curv, g2 = [], []
    for q in replay(env, 1, 2):
        stats = q.statistics()
        lam_min = np.linalg.eigvalsh(q.A)[:, 0]
        g = np.linalg.norm(q.A, 2, axis=(1, 2)) + np.linalg.norm(q.b, axis=1)
        assert np.array_equal(stats["curvature"], lam_min)
        assert np.allclose(stats["fro_sq"], g ** 2, rtol=1e-14, atol=0)
        pts = np.concatenate([sphere[None].repeat(2, 0), np.swapaxes(np.linalg.eigh(q.A)[1], 1, 2)], axis=1)
        sampled = np.max(np.sum((np.einsum("rij,rpj->rpi", q.A, pts) + q.b[:, None]) ** 2, axis=2), axis=1)
        assert np.all(g ** 2 >= sampled)
        curv.append(lam_min)
        g2.append(g ** 2)
    lam = np.cumsum(curv, axis=0)
    exact = np.sum([g2[t] / (2 * lam[t]) for t in range(T)], axis=0)
    assert np.allclose(every.final("bound:ftl-strongly-convex").to_numpy(), exact, rtol=1e-12)
    assert np.all(sparse.final("bound:ftl-strongly-convex").to_numpy() >= exact)
    late = ol.simulate(env, [ol.make_learner("ftl")], T=T, seed=1, checkpoints=[10, T])   # λ_1 unknown: +inf
    assert np.isinf(late.final("bound:ftl-strongly-convex")).all()


@pytest.mark.parametrize("env", [ol.make_environment("quadratic-ball", d=3, mu=0.1),
                                 ol.make_environment("logistic-data", batch=4, lam=0.05)],
                         ids=["quadratic", "logistic"])
def test_ftl_under_its_bound_in_the_simulator(env):
    res = ol.simulate(env, [ol.make_learner("ftl")], T=60, replicates=2, seed=0)
    b = res.bounds()
    assert list(b.bound) == ["ftl-strongly-convex"] and b.holds.all() and not b.violated.any()


def test_linear_losses_give_an_infinite_bound_and_spectral_ones_none():
    lin = ol.simulate("experts-stochastic", [ol.make_learner("ftl")], T=20)
    assert np.isinf(lin.final("bound:ftl-strongly-convex")).all()
    assert ol.simulate("ftl-alternating", [ol.make_learner("ftl")], T=10).bounds().empty


def test_ball_quadratic_solver_matches_the_secular_equation_inside_and_on_the_boundary():
    from onlinelab.geometry.specs import make_domain
    from onlinelab.losses.vector import quadratic_argmin
    rng = np.random.default_rng(9)
    R, n = 6, 4
    M = rng.standard_normal((R, n, n))
    A = M @ np.swapaxes(M, 1, 2) + 0.1 * np.eye(n)
    b = rng.standard_normal((R, n)) * np.array([0.01, 0.05, 3.0, 10.0, 0.02, 5.0])[:, None]  # some rows inside
    got = quadratic_argmin(A, b, make_domain("ball:1", n))
    want = np.stack([ball_argmin(A[r], b[r]) for r in range(R)])
    inside = np.linalg.norm(np.linalg.solve(A, -b[..., None])[..., 0], axis=1) < 1
    assert inside.any() and (~inside).any()
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-10)
