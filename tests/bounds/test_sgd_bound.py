"""The SGD bound of theory §4 as an ordinary, checked bound (onlinelab.bounds.steps.sgd_average; issue 20 item 6).

Independent computation: the step sums Σ τ_k, Σ τ_k² are summed here by hand from the schedule's closed form
(τ_k = c, c/(k + t₀), c/√(k + t₀)), and the bound ‖w*‖²/(2Σ τ) + σ²Σ τ²/Σ τ is evaluated from the environment's
exact L and σ² (w⁰ = 0).
"""
import warnings

import numpy as np
import pytest

import onlinelab as ol
from onlinelab.bounds.steps import first_step, sgd_average
from onlinelab.errors import NumericalError, NumericalWarning


def _tau(schedule, c, t0, k):
    k = np.arange(1, k + 1, dtype=float)
    return {"constant": np.full_like(k, c), "inverse": c / (k + t0), "inverse_sqrt": c / np.sqrt(k + t0)}[schedule]


@pytest.mark.parametrize("i", range(6))
def test_bound_holds_is_checked_and_matches_a_hand_sum_on_random_instances(i):
    g = np.random.default_rng(100 + i)
    d = int(g.integers(2, 7))
    m, noise = int(g.integers(d, 3 * d + 4)), float(g.uniform(0.2, 2.5))
    env = ol.make_environment("least-squares-stream", d=d, m=m, noise=noise, design_seed=i)
    schedule, t0 = ("constant", "inverse", "inverse_sqrt")[i % 3], float(g.uniform(0, 3))
    c = float(g.uniform(0.05, 1.0)) / env.smoothness / first_step(schedule, 1.0, t0)   # so that τ₁ ≤ 1/L
    T, ckpts = 300, [10, 50, 300]
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # neither a violation (pytest turns those into errors) nor a numerical warning
        res = ol.simulate(env, [ol.make_learner("sgd", step=c, schedule=schedule, t0=t0)], T=T, replicates=8,
                          seed=i, checkpoints=ckpts)
    b = res.bounds().iloc[0]
    assert b["bound"] == "sgd-average" and b["metric"] == "suboptimality" and b["checked"]
    assert b["holds"] and not b["violated"]
    tau = _tau(schedule, c, t0, T)
    s1, s2 = np.cumsum(tau)[np.array(ckpts) - 1], np.cumsum(tau ** 2)[np.array(ckpts) - 1]
    closed = np.sum(env.w_star ** 2) / (2 * s1) + env.grad_variance * s2 / s1
    np.testing.assert_allclose(b["final_bound"], closed[-1], rtol=1e-12)
    curve = res.curve("bound:sgd-average")["mean"].to_numpy()
    np.testing.assert_allclose(curve, closed, rtol=1e-12)
    # the replicate mean of the suboptimality lies under the bound at every checkpoint
    assert np.all(res.curve("suboptimality")["mean"].to_numpy() <= closed)


def test_step_past_one_over_L_makes_the_bound_not_applicable_and_the_divergence_is_flagged():
    env = ol.make_environment("least-squares-stream", d=5)
    step = 1.2
    assert step > 1 / env.smoothness   # 1/L ≈ 0.52 on this design
    with pytest.warns(NumericalWarning, match=r"step = 1\.2 is past 1/L = 0\.5237"):
        res = ol.simulate(env, [ol.make_learner("sgd", step=step)], T=400, seed=0)
    b = res.bounds().iloc[0]
    assert not b["holds"] and not b["violated"]
    assert "every step τ_k ≤ 1/L = 0.5237 (largest τ = 1.2)" in b["failed_assumptions"]
    assert res.final("suboptimality").max() > 1e60      # it did diverge (3e82 at T = 400 before this issue)
    # longer, the iterates overflow: a clear error naming the step, with the completed checkpoints kept
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumericalWarning)
        with pytest.raises(NumericalError, match=r"learner 'sgd\(step=1\.2\)'.*Lower step = 1\.2") as err:
            ol.simulate(env, [ol.make_learner("sgd", step=step)], T=3000, seed=0)
    assert err.value.partial is not None


def test_checkpoints_not_recorded_bound_nothing():
    b = sgd_average(1.0, 1.0, 1.0, 0.5, [(0.5, 0.25)])

    class Stats:
        t = np.array([1, 2, 3])
    assert b.curve(Stats()).tolist() == [np.inf, np.inf, 1.0 / (2 * 0.5) + 0.25 / 0.5]
