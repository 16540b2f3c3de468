"""Stochastic bandit bounds as data (onlinelab.bounds.bandits, theory §10): constants computed independently here;
UCB1's finite-time bound holds on random instances; lower bounds are drawn but never flagged; an upper bound on the
pseudo-regret is flagged when exceeded; the summary's "regret / Lai–Robbins" column; delays leave lower bounds be."""
import math
import warnings

import numpy as np
import pytest

import onlinelab as ol
from onlinelab.bounds.bandits import ArmInstance, ucb1_bound
from onlinelab.bounds.base import LossStats
from onlinelab.errors import BoundViolationWarning
from onlinelab.learners.index_bandits import KLUCB, MOSS, UCB1


def kl(p, q):
    return p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))


def test_lai_robbins_constant_bernoulli_and_gaussian():
    rng = np.random.default_rng(0)
    for _ in range(20):
        mu = rng.uniform(0.05, 0.95, rng.integers(2, 8))
        best = mu.max()
        want = sum((best - m) / kl(m, best) for m in mu if m < best)
        assert math.isclose(ArmInstance(tuple(mu)).lai_robbins_constant(), want, rel_tol=1e-12)
        sigma = rng.uniform(0.2, 3)
        want = sum(2 * sigma ** 2 / (best - m) for m in mu if m < best)      # Δ/(Δ²/(2σ²))
        assert math.isclose(ArmInstance(tuple(mu), "gaussian", sigma).lai_robbins_constant(), want, rel_tol=1e-12)


def test_ucb1_bound_formula():
    mu = (0.2, 0.5, 0.45)
    b = ucb1_bound(ArmInstance(mu), ol.Context(d=3, T=10, replicates=1, domain="simplex"))
    t = np.array([1.0, 10.0, 1000.0])
    want = 8 * np.log(t) * (1 / 0.3 + 1 / 0.05) + (1 + math.pi ** 2 / 3) * (0.3 + 0.05)
    np.testing.assert_allclose(np.asarray(b.curve(LossStats(t, np.zeros((1, 3))))).ravel(), want, rtol=1e-14)
    assert b.metric == "pseudo_regret" and b.checked and not b.lower


def test_ucb1_bound_holds_on_random_instances():
    rng = np.random.default_rng(11)
    for k in range(5):
        mu = list(np.round(rng.uniform(0.05, 0.95, rng.integers(2, 7)), 3))
        res = ol.simulate(ol.make_environment("bernoulli-arms", means=mu), [UCB1()], T=2000, replicates=16,
                          seed=k)
        pseudo = res.curve("pseudo_regret")["mean"].to_numpy()
        t = res.curve("pseudo_regret")["t"].to_numpy().astype(float)
        best = max(mu)
        gaps = [best - m for m in mu]
        bound = 8 * np.log(t) * sum(1 / g for g in gaps if g > 0) + (1 + math.pi ** 2 / 3) * sum(gaps)
        assert np.all(pseudo <= bound)
        b = res.bounds().set_index("bound").loc["ucb1-regret"]
        assert b.holds and not b.violated


def test_lower_bounds_are_drawn_never_flagged():
    """KL-UCB at T = 3000 sits below the Lai–Robbins curve (allowed at finite T): not a violation."""
    res = ol.simulate("bernoulli-arms", [KLUCB(), UCB1()], T=3000, replicates=8, seed=0)
    b = res.bounds().set_index(["learner", "bound"])
    lr = b.loc[("kl-ucb", "lai-robbins")]
    assert lr.lower and not lr.checked and lr.holds and not lr.violated and lr.worst_ratio < 1
    assert not b.loc[("kl-ucb", "minimax-lower")].violated
    assert "bound:lai-robbins" in set(res.metrics.metric)
    summary = res.summary().set_index("learner")
    final = res.final("pseudo_regret").groupby(level="learner").mean()
    constant = ArmInstance(tuple([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9])).lai_robbins_constant()
    for learner in ("kl-ucb", "ucb1"):
        assert math.isclose(summary.loc[learner, "lai_robbins_ratio"], final[learner] / (constant * math.log(3000)),
                            rel_tol=1e-12)
    assert summary.loc["ucb1", "bound_name"] == "ucb1-regret"          # lower bounds are never "the bound"
    assert "regret / Lai–Robbins" in res.summary_text()
    plain = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=20, replicates=2)
    assert "Lai–Robbins" not in plain.summary_text() and "lai_robbins_ratio" not in plain.summary()


class TooTight(UCB1):
    """UCB1 claiming a hundredth of its bound: the check must catch it (on the pseudo-regret)."""

    def instance_bounds(self, instance, ctx):
        import dataclasses
        b = ucb1_bound(instance, ctx)
        return [dataclasses.replace(b, name="too-tight", curve=lambda s, c=b.curve: c(s) / 100)]


def test_an_upper_bound_on_the_pseudo_regret_is_checked():
    with pytest.warns(BoundViolationWarning, match="too-tight"):
        res = ol.simulate("bernoulli-arms", [TooTight()], T=500, replicates=4, seed=0)
    assert res.bounds().set_index("bound").loc["too-tight"].violated


def test_delays_keep_lower_bounds_and_condition_upper_ones():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BoundViolationWarning)
        res = ol.simulate("bernoulli-arms", [UCB1()], T=300, replicates=2, seed=0, delay={"kind": "fixed", "d": 5})
    b = res.bounds().set_index("bound")
    assert b.loc["lai-robbins"].holds and b.loc["minimax-lower"].holds
    assert not b.loc["ucb1-regret"].holds and "every d_t = 0" in b.loc["ucb1-regret"].failed_assumptions


def test_bounds_follow_the_instance():
    gauss = ol.simulate(ol.make_environment("gaussian-arms", means=[0.0, 0.5], sigma=1.0),
                        [KLUCB(family="gaussian"), KLUCB(), UCB1(), MOSS(horizon=100)], T=200, replicates=2)
    b = gauss.bounds()
    assert "kl-ucb-asymptotic" in set(b[b.learner == "kl-ucb(family='gaussian')"].bound)
    assert "kl-ucb-asymptotic" not in set(b[b.learner == "kl-ucb"].bound)          # the wrong kl: no curve
    assert not b.set_index(["learner", "bound"]).loc[("ucb1", "ucb1-regret")].holds   # rewards not in [0, 1]
    moss = b.set_index(["learner", "bound"]).loc[("moss(horizon=100)", "moss-regret")]
    assert "horizon n = 100" in moss.failed_assumptions
    piece = ol.simulate("piecewise-arms", [ol.make_learner("sw-ucb"), UCB1()], T=300, replicates=2).bounds()
    assert set(piece[piece.learner == "sw-ucb"].bound) == {"sw-ucb-rate"}
    assert not piece[piece.learner == "ucb1"].holds.any()                    # UCB1's bound is for fixed means
