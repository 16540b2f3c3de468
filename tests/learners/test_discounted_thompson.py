"""Discounted Thompson sampling (``d-thompson``, theory §10): on the same draws its pulls equal a plain loop's; γ = 1 is
Thompson sampling; the discount must lie in (0, 1]."""
import itertools

import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core.base import label_of
from onlinelab.core.rng import BatchRNG, seed_sequences
from onlinelab.errors import ConfigError
from onlinelab.learners.stochastic_draws import pool_size
from onlinelab.learners.thompson import DiscountedThompson, ThompsonSampling
from tests.learners.test_stochastic_bandits import env_losses, marsaglia_tsang, run_metrics

T, R, SEED = 300, 3, 6


def test_discounted_thompson_equals_a_plain_loop():
    """Per round: Beta(1 + S, 1 + F) draws from 2K own (normal, uniform) pairs and the pool (as Thompson sampling),
    the arm of the largest, its reward's Bernoulli trial with the next uniform, then S, F ← γ·S, γ·F and the trial
    added to the pulled arm's counts."""
    gamma = 0.9
    env = ol.make_environment("piecewise-arms", means=[[0.8, 0.5, 0.2], [0.2, 0.5, 0.8]], changes=[150])
    learner = DiscountedThompson(discount=gamma)
    losses, K = env_losses(env, T, R, SEED), 3
    plays, width = np.zeros((T, R, K)), 2 * K + pool_size(2 * K)
    for r, seq in enumerate(seed_sequences(SEED, "learner", label_of(learner), R, env=label_of(env))):
        rng = BatchRNG([seq])                          # replicate r's stream alone
        wins, fails = np.zeros(K), np.zeros(K)
        for t in range(T):
            z, u = rng.normal(width)[0], rng.random(width)[0]
            pool = iter(zip(z[2 * K:], u[2 * K:], strict=True))
            shapes = np.r_[1 + wins, 1 + fails]
            g = [marsaglia_tsang(s, itertools.chain([(z[j], u[j])], pool)) for j, s in enumerate(shapes)]
            a = int(np.argmax([g[i] / (g[i] + g[K + i]) for i in range(K)]))
            plays[t, r, a] = 1.0
            success = float(rng.random()[0] < 1.0 - losses[t, r, a])
            wins, fails = gamma * wins, gamma * fails
            wins[a] += success
            fails[a] += 1.0 - success
    pulls, pseudo, _ = run_metrics(env, learner, T, R, SEED)
    np.testing.assert_allclose(pulls, np.cumsum(plays, axis=0), rtol=0, atol=1e-12)
    mu = np.array([[0.8, 0.5, 0.2]] * 149 + [[0.2, 0.5, 0.8]] * (T - 149))
    gaps = mu.max(axis=1, keepdims=True) - mu
    np.testing.assert_allclose(pseudo, np.cumsum(np.einsum("trk,tk->tr", plays, gaps), axis=0), rtol=0, atol=1e-9)


def test_no_discount_is_thompson_sampling():
    """With γ = 1 nothing is forgotten: the plays are Thompson sampling's on the same stream (the stream is keyed by
    the label, so both run under one label)."""
    def metrics(learner):
        res = ol.simulate("bernoulli-arms", {"ts": learner}, T=200, replicates=2,
                          seed=1, checkpoints=[100, 200])
        return res.metrics[res.metrics.metric.str.startswith("pulls_")].value.to_numpy()
    np.testing.assert_array_equal(metrics(DiscountedThompson(discount=1.0)), metrics(ThompsonSampling()))


@pytest.mark.parametrize("bad", [0.0, -0.5, 1.5])
def test_a_discount_outside_the_unit_interval_is_refused(bad):
    with pytest.raises(ConfigError, match=r"discount must lie in \(0, 1\].*e\.g\. discount = 0\.99"):
        DiscountedThompson(discount=bad)
