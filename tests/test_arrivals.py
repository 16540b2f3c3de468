"""Asynchronous arrivals (theory §8): the queue, service and staleness of simulate(arrivals=...) against a plain
hand-written queue simulation on the same arrival times; the unstable regime; bad input."""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab.arrivals import Arrivals
from onlinelab.errors import ConfigError
from onlinelab.rng import BatchRNG
from onlinelab.simulator import label_of


def _arrival_times(seed, env, rate, T):
    g = BatchRNG.from_seed(seed, "environment", f"arrivals/{label_of(env)}", 1).gens[0]
    out, now = [], 0.0
    while True:
        gap = g.exponential(1.0 / rate)
        if now + gap > T:
            return np.array(out)
        now += gap
        out.append(now)


def _plain_queue(arrivals, T, s, s0, whole, b):
    """Single server: start when free and something waits; take all waiting (or one); finish s0 + s·n later."""
    free, i, processed, age, busy = 0.0, 0, 0, 0.0, 0.0
    waiting = []
    events = list(arrivals)
    while True:
        while i < len(events) and events[i] <= free:
            waiting.append(events[i])
            i += 1
        if not waiting:
            if i == len(events):
                break
            free = events[i]
            continue
        batch = waiting if whole else waiting[:1]
        waiting = [] if whole else waiting[1:]
        dur = s0 + s * b * len(batch)
        if free + dur > T:   # in service at T (never finishes): not in the queue any more
            break
        free += dur
        processed += b * len(batch)
        busy += dur
        age += sum(free - a for a in batch) * b
    queued = (len(waiting) + len(events) - i) * b
    return processed, age / processed, queued, busy / T


@pytest.mark.parametrize("take,rate,s,s0", [("queue", 1.5, 0.2, 1.0), ("one", 0.8, 0.9, 0.1), ("one", 2.0, 1.0, 0.0)])
def test_queue_matches_a_plain_queue_simulation(take, rate, s, s0):
    T, seed, b = 300, 3, 2
    env = ol.make_environment("spiked-stream", d=5, k=1, block=b)
    res = ol.simulate(env, [ol.make_learner("oja", qr="block")], T=T, replicates=2, seed=seed,
                      arrivals=Arrivals(rate=rate, service=s, overhead=s0, take=take))
    processed, staleness, queued, util = _plain_queue(_arrival_times(seed, env, rate, T), T, s, s0,
                                                      take == "queue", b)
    assert res.final("samples_processed").iloc[0] == processed
    assert res.final("staleness").iloc[0] == pytest.approx(staleness, rel=1e-12)
    assert res.final("queue_length").iloc[0] == queued
    assert res.final("utilisation").iloc[0] == pytest.approx(util, rel=1e-12)


def test_learner_state_equals_updates_on_the_served_blocks():
    """The learner's final basis is Oja's block update applied to exactly the blocks the server took."""
    T, seed, rate = 60, 1, 3.0
    env = ol.make_environment("spiked-stream", d=4, k=1)
    lrn = ol.make_learner("oja", qr="block")
    res = ol.simulate(env, [lrn], T=T, replicates=2, seed=seed, checkpoints=[T],
                      arrivals=Arrivals(rate=rate, service=0.05, overhead=0.5, take="queue"))
    times = _arrival_times(seed, env, rate, T)
    e = env.clone()
    e.reset(BatchRNG.from_seed(seed, "environment", label_of(env), 2), T)
    X = [e.emit(k, None).factors for k in range(1, len(times) + 1)]
    rng = BatchRNG.from_seed(seed, "learner", label_of(lrn), 2)
    state = lrn.init(ol.Context(d=4, T=T, replicates=2), rng)
    free, i = 0.0, 0
    while True:
        waiting = [k for k in range(len(times)) if times[k] <= free and k >= i]
        if not waiting:
            if i == len(times):
                break
            free = times[i]
            continue
        dur = 0.5 + 0.05 * len(waiting)
        if free + dur > T:
            break
        free += dur
        block = np.concatenate([X[k] for k in waiting], axis=2)
        state = lrn.update(state, None, ol.Feedback("full", loss=ol.FactoredLoss(block, coef=-1.0)), rng)
        i = waiting[-1] + 1
    U, _ = env.truth()
    Q = lrn.subspace(state)
    sin2 = 1 - np.linalg.norm(np.swapaxes(Q, 1, 2) @ U, axis=(1, 2)) ** 2
    np.testing.assert_allclose(np.sort(res.final("sin2_theta").to_numpy()), np.sort(sin2), rtol=0, atol=1e-12)


def test_overloaded_per_sample_learner_queue_grows():
    """ρ = ν·s = 2: the server processes at most T/s samples, so the queue is at least N(T) − T/s − 1."""
    T, rate, s = 200, 2.0, 1.0
    env = ol.make_environment("spiked-stream", d=4, k=1)
    res = ol.simulate(env, [ol.make_learner("oja")], T=T, replicates=1, seed=0,
                      arrivals=Arrivals(rate=rate, service=s))
    n = len(_arrival_times(0, env, rate, T))
    assert res.final("queue_length").iloc[0] >= n - T / s - 1
    capped = ol.simulate(env, [ol.make_learner("oja")], T=T, replicates=1, seed=0,
                         arrivals=Arrivals(rate=rate, service=s, max_queue=5))
    assert capped.final("queue_length").iloc[0] <= 5 and capped.final("dropped").iloc[0] >= n - T / s - 6


@pytest.mark.parametrize("kwargs,message", [
    ({"rate": 0}, "arrivals.rate must be > 0"), ({"service": -1}, "arrivals.service must be ≥ 0"),
    ({"take": "all"}, "arrivals.take must be one of"), ({"max_queue": 0}, "arrivals.max_queue must be >= 1"),
    ({"overhead": {"x": -0.5}}, r"arrivals.overhead\['x'\] must be ≥ 0"),
])
def test_bad_arrivals(kwargs, message):
    with pytest.raises(ConfigError, match=message):
        Arrivals(**kwargs)


def test_arrivals_errors_in_simulate():
    env = ol.make_environment("spiked-stream", d=4, k=1)
    with pytest.raises(ConfigError, match="no value for learner 'oja'"):
        ol.simulate(env, [ol.make_learner("oja")], T=5, arrivals=Arrivals(service={"other": 1.0}))
    with pytest.raises(ConfigError, match="unknown key 'speed'"):
        ol.simulate(env, [ol.make_learner("oja")], T=5, arrivals={"speed": 1.0})
    with pytest.raises(ConfigError, match="cannot be combined"):
        ol.simulate(env, [ol.make_learner("oja")], T=5, arrivals={"rate": 1.0}, delay=1)
    with pytest.raises(ConfigError, match="oblivious"):
        ol.simulate(ol.make_environment("top-direction", d=3), [ol.make_learner("meg")], T=5, arrivals={"rate": 1.0})
