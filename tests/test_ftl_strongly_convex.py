"""FTL on strongly convex losses: regret ≤ Σ‖g_t‖²/(2λ_{1:t}) (SPEC §3.2 table), as Bound data and against a plain loop."""
import numpy as np
import pytest
from scipy.optimize import minimize

import onlinelab as ol
from onlinelab.rng import BatchRNG

T = 30   # small: the ball solver behind FTL and the comparator is the cost here


def replay(env, seed, R):
    env.reset(BatchRNG.from_seed(seed, "environment", ol.simulator.label_of(env), R), T)
    return [env.emit(t, None) for t in range(1, T + 1)]


def ball_argmin(A, b):
    """argmin_{‖x‖ ≤ 1} ½xᵀAx + bᵀx by SLSQP (independent of the library's trust-region solver)."""
    res = minimize(lambda x: 0.5 * x @ A @ x + b @ x, np.zeros(len(b)), jac=lambda x: A @ x + b, method="SLSQP",
                   constraints=[{"type": "ineq", "fun": lambda x: 1 - x @ x, "jac": lambda x: -2 * x}],
                   options={"ftol": 1e-15, "maxiter": 500})
    return res.x


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
    assert res.final("regret").iloc[0] == pytest.approx(regret, abs=1e-7)
    assert regret <= bound
    curve = res.final("bound:ftl-strongly-convex").iloc[0]
    assert bound <= curve                                   # the declared curve bounds the exact sum (sup over K)


def test_declared_curve_is_exact_with_every_round_a_checkpoint_and_valid_otherwise():
    env = ol.make_environment("quadratic-ball", d=4, mu=0.2)
    every = ol.simulate(env, [ol.make_learner("ftl")], T=T, replicates=2, seed=1, checkpoints=list(range(1, T + 1)))
    sparse = ol.simulate(env, [ol.make_learner("ftl")], T=T, replicates=2, seed=1, checkpoints=[1, 7, 20])
    stats = [q.statistics() for q in replay(env, 1, 2)]
    lam = np.cumsum([s["curvature"] for s in stats], axis=0)
    exact = np.sum([s["fro_sq"] / (2 * lam[t]) for t, s in enumerate(stats)], axis=0)
    assert np.allclose(every.final("bound:ftl-strongly-convex").to_numpy(), exact, rtol=1e-12)
    assert np.all(sparse.final("bound:ftl-strongly-convex").to_numpy() >= exact)
    late = ol.simulate(env, [ol.make_learner("ftl")], T=T, seed=1, checkpoints=[10, T])   # λ_1 unknown: +inf
    assert np.isinf(late.final("bound:ftl-strongly-convex")).all()


@pytest.mark.parametrize("env", [ol.make_environment("quadratic-ball", d=3, mu=0.1),
                                 ol.make_environment("logistic-data", batch=4, lam=0.05)], ids=["quadratic", "logistic"])
def test_ftl_under_its_bound_in_the_simulator(env):
    res = ol.simulate(env, [ol.make_learner("ftl")], T=60, replicates=2, seed=0)
    b = res.bounds()
    assert list(b.bound) == ["ftl-strongly-convex"] and b.holds.all() and not b.violated.any()


def test_linear_losses_give_an_infinite_bound_and_spectral_ones_none():
    lin = ol.simulate("experts-stochastic", [ol.make_learner("ftl")], T=20)
    assert np.isinf(lin.final("bound:ftl-strongly-convex")).all()
    assert ol.simulate("ftl-alternating", [ol.make_learner("ftl")], T=10).bounds().empty


def test_ball_quadratic_solver_matches_slsqp_inside_and_on_the_boundary():
    from onlinelab.domains import make_domain
    from onlinelab.vector_losses import quadratic_argmin
    rng = np.random.default_rng(9)
    R, n = 6, 4
    M = rng.standard_normal((R, n, n))
    A = M @ np.swapaxes(M, 1, 2) + 0.1 * np.eye(n)
    b = rng.standard_normal((R, n)) * np.array([0.01, 0.05, 3.0, 10.0, 0.02, 5.0])[:, None]  # some rows inside
    got = quadratic_argmin(A, b, make_domain("ball:1", n))
    want = np.stack([ball_argmin(A[r], b[r]) for r in range(R)])
    inside = np.linalg.norm(np.linalg.solve(A, -b[..., None])[..., 0], axis=1) < 1
    assert inside.any() and (~inside).any()
    np.testing.assert_allclose(got, want, atol=1e-6)
