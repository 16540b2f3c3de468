"""Stochastic arms environments (theory §10): Gaussian draws are μ + σz from the environment's own stream,
piecewise arms switch phase exactly at their change points, blocks equal round-by-round emission, named instances."""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core.base import label_of
from onlinelab.core.rng import BatchRNG, seed_sequences
from onlinelab.environments.arms import INSTANCES

R, T, SEED = 3, 50, 7


def reset(env, T=T):
    e = env.clone()
    e.reset(BatchRNG.from_seed(SEED, "environment", label_of(env), R), T)
    return e


def stream(env, kind, n):
    """Replicate r's draws of the environment's stream, (R, n)."""
    return np.stack([getattr(np.random.Generator(np.random.PCG64(s)), kind)(n)
                     for s in seed_sequences(SEED, "environment", label_of(env), R)])


def test_gaussian_losses_are_one_minus_mu_plus_sigma_z():
    env = ol.make_environment("gaussian-arms", means=[0.0, 0.5, -1.0], sigma=0.3)
    e = reset(env)
    losses = np.stack([e.emit(t, None).G for t in range(1, T + 1)])             # (T, R, K)
    z = stream(env, "standard_normal", T * 3).reshape(R, T, 3).swapaxes(0, 1)
    np.testing.assert_allclose(losses, 1.0 - (np.array([0.0, 0.5, -1.0]) + 0.3 * z), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(e.expected_losses(4, 2), [[1.0, 0.5, 2.0]] * 2)


def test_piecewise_phases_switch_at_the_change_points():
    phases = [[0.9, 0.1], [0.2, 0.6], [0.5, 0.4]]
    env = ol.make_environment("piecewise-arms", means=phases, changes=[11, 31])
    e = reset(env)
    mu = np.array([phases[0]] * 10 + [phases[1]] * 20 + [phases[2]] * 20)      # rounds 1–10, 11–30, 31–50
    np.testing.assert_allclose(e.expected_losses(1, T), 1.0 - mu, rtol=0, atol=0)
    losses = np.stack([e.emit(t, None).G for t in range(1, T + 1)])
    u = stream(env, "random", 256 * 2).reshape(R, 256, 2)[:, :T].swapaxes(0, 1)   # one chunk of rounds
    np.testing.assert_array_equal(losses, (u >= mu[:, None, :]).astype(float))
    assert e.instance().changes == (11, 31) and not e.instance().stationary


def test_random_and_evenly_spaced_change_points():
    e = reset(ol.make_environment("piecewise-arms", changes=4, seed=3), T=200)
    cuts = e.instance().changes
    assert len(cuts) == 4 and len(set(cuts)) == 4 and list(cuts) == sorted(cuts) and 2 <= cuts[0] and cuts[-1] <= 200
    assert e._phases.shape == (5, 5) and np.all((e._phases >= 0) & (e._phases <= 1))
    again = reset(ol.make_environment("piecewise-arms", changes=4, seed=3), T=200)
    other = reset(ol.make_environment("piecewise-arms", changes=4, seed=4), T=200)
    assert again.instance().changes == cuts and other.instance().changes != cuts
    assert reset(ol.make_environment("piecewise-arms"), T=300).instance().changes == (101, 201)


@pytest.mark.parametrize("name, params", [("gaussian-arms", {"sigma": 2.0}),
                                          ("piecewise-arms", {"changes": [5, 70]}),
                                          ("bernoulli-arms", {"means": "low-means"})])
def test_blocks_equal_round_by_round_emission(name, params):
    env = ol.make_environment(name, **params)
    a, b = reset(env, 100), reset(env, 100)
    rounds = np.stack([a.emit(t, None).G for t in range(1, 101)])
    blocks = np.concatenate([b.emit_block(t, n).stacked.G.reshape(n, R, -1) for t, n in ((1, 30), (31, 64), (95, 6))])
    np.testing.assert_array_equal(rounds, blocks)


def test_named_instances():
    env = ol.make_environment("bernoulli-arms", means="linear-9")
    assert env.d == 9 and env.get_params() == {"means": "linear-9"}
    np.testing.assert_allclose(env.instance().means, np.arange(1, 10) / 10, rtol=0, atol=1e-15)
    assert set(INSTANCES) >= {"classic", "linear-9", "low-means", "hard-gaps"}
    hard = np.array(INSTANCES["hard-gaps"])
    assert hard.max() - np.sort(hard)[-2] <= 0.01 + 1e-12     # gaps near zero
    assert ol.make_environment("gaussian-arms", means="classic").d == 10
