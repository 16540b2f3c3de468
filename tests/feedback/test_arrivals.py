"""Asynchronous arrivals (theory §8): the queue, service and staleness of simulate(arrivals=...) against a plain
hand-written queue simulation on the same arrival times; the unstable regime; bad input."""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core.base import label_of
from onlinelab.core.rng import BatchRNG
from onlinelab.errors import ConfigError
from onlinelab.feedback.arrivals import Arrivals


def _arrival_times(seed, env, rate, T):
    g = BatchRNG.from_seed(seed, "environment", f"arrivals/{label_of(env)}", 1).gens[0]
    out, now = [], 0.0
    while True:
        gap = g.exponential(1.0 / rate)
        if now + gap > T:
            return np.array(out)
        now += gap
        out.append(now)


def _services(arrivals, T, s, s0, whole, b):
    """Single server: start when free and something waits; take all waiting (or one); finish s0 + s·n later.
    Returns the services that end by T, as (end time, indices of the arrivals served), and how many
    arrivals were left waiting (or in a service still running at T)."""
    free, i, waiting, out = 0.0, 0, [], []
    while True:
        while i < len(arrivals) and arrivals[i] <= free:
            waiting.append(i)
            i += 1
        if not waiting:
            if i == len(arrivals):
                break
            free = arrivals[i]
            continue
        batch = waiting if whole else waiting[:1]
        waiting = [] if whole else waiting[1:]
        dur = s0 + s * b * len(batch)
        if free + dur > T:   # in service at T (never finishes): not in the queue any more
            break
        free += dur
        out.append((free, batch))
    return out, len(waiting) + len(arrivals) - i


def _plain_queue(arrivals, T, s, s0, whole, b):
    services, left = _services(arrivals, T, s, s0, whole, b)
    processed = b * sum(len(batch) for _, batch in services)
    busy = sum(s0 + s * b * len(batch) for _, batch in services)
    age = sum((end - arrivals[k]) * b for end, batch in services for k in batch)
    return processed, age / processed, left * b, busy / T


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
    rng = BatchRNG.from_seed(seed, "learner", label_of(lrn), 2, env=label_of(env))
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


def _sgd_by_hand(env, seed, R, T, rate, s, s0, whole, step, t0):
    """SGD from w⁰ = 0 with τ_k = step/√(k + t₀) (k = 1, 2, … counts updates) on the least-squares stream, served by
    the plain queue: arrival t costs e_t(w) = ‖Bw − y_t‖²/(2m) at the w in force when it arrives; a service of the
    arrivals S ends with w ← w − τ_k (1/|S|) Σ_{t∈S} Bᵀ(Bw − y_t)/m.  Returns the cumulative loss, E(w̄) − E* of the
    τ-weighted average w̄ = Σ τ_k w^k / Σ τ_k, and the block sizes served."""
    times = _arrival_times(seed, env, rate, T)
    e = env.clone()
    e.reset(BatchRNG.from_seed(seed, "environment", label_of(env), R), T)
    ys = [e.emit(k, None).y for k in range(1, len(times) + 1)]
    B, m = env.B, env.m
    services, _ = _services(times, T, s, s0, whole, 1)
    w, wsum, tau_sum, cum, k = np.zeros((R, env.d)), np.zeros((R, env.d)), 0.0, np.zeros(R), 0
    for i, arrived in enumerate(list(times) + [np.inf]):
        while k < len(services) and services[k][0] < arrived:    # the updates that ended before this arrival
            grad = sum((w @ B.T - ys[j]) @ B / m for j in services[k][1]) / len(services[k][1])
            k += 1
            tau = step / np.sqrt(k + t0)
            w = w - tau * grad
            wsum, tau_sum = wsum + tau * w, tau_sum + tau
        if i < len(times):
            r = w @ B.T - ys[i]
            cum = cum + np.sum(r * r, axis=1) / (2 * m)
    gap = (wsum / tau_sum - env.w_star) @ B.T
    return cum, np.sum(gap * gap, axis=1) / (2 * m), [len(batch) for _, batch in services]


@pytest.mark.parametrize("take,rate,s,s0", [("queue", 3.0, 0.4, 1.0), ("one", 0.8, 0.9, 0.2)])
def test_sgd_on_least_squares_under_arrivals_equals_a_plain_loop(take, rate, s, s0):
    """Least squares has no factors: the queue joins its losses (LeastSquaresLoss.joined, a mean) and the server
    hands sgd, a first-order learner, the block's gradient at its play."""
    T, R, seed, step, t0 = 150, 3, 4, 0.2, 1.0
    env = ol.make_environment("least-squares-stream", d=4, m=12, noise=0.5)
    res = ol.simulate(env, [ol.make_learner("sgd", step=step, schedule="inverse_sqrt", t0=t0)], T=T, replicates=R,
                      seed=seed, checkpoints=[T], arrivals=Arrivals(rate=rate, service=s, overhead=s0, take=take))
    cum, excess, sizes = _sgd_by_hand(env, seed, R, T, rate, s, s0, take == "queue", step, t0)
    assert max(sizes) >= (3 if take == "queue" else 1) and min(sizes) == 1   # blocks of several arrivals were joined
    assert res.final("samples_processed").iloc[0] == sum(sizes)
    np.testing.assert_allclose(res.final("cumulative_loss").to_numpy(), cum, rtol=1e-12, atol=0)
    np.testing.assert_allclose(res.final("suboptimality").to_numpy(), excess, rtol=1e-12, atol=0)


def _parts():
    """Queued losses of each joinable type, with different sample counts b_i, and a point to evaluate them at."""
    from onlinelab.environments.least_squares import LeastSquaresLoss
    from onlinelab.geometry.domains import Box
    from onlinelab.losses.data import DataLoss
    from onlinelab.losses.datasets import Margin, Risk, load_data
    from onlinelab.losses.projection import ProjectionLoss
    from onlinelab.losses.streaming import SampleLoss
    g = np.random.default_rng(7)
    R, d = 2, 4
    B = g.normal(size=(5, d))
    risk = Risk(Margin("logistic"), *load_data())
    box = Box(risk.n, -2, 2)
    return [
        ([SampleLoss(g.normal(size=(R, d, b)), k=2) for b in (1, 3, 2)], g.normal(size=(R, d, d))),
        ([ol.FactoredLoss(g.normal(size=(R, d, b)), coef=g.normal(size=b)) for b in (2, 1)], g.normal(size=(R, d, d))),
        ([ProjectionLoss(g.normal(size=(R, d, b)), rank=2) for b in (1, 2)], g.normal(size=(R, d, d))),
        ([LeastSquaresLoss(B, g.normal(size=(R, 5))) for _ in range(3)], g.normal(size=(R, d))),
        ([DataLoss(risk, g.integers(0, risk.N, size=(R, b)), 0.1, box) for b in (4, 1, 2)],
         g.uniform(-1, 1, size=(R, risk.n))),
    ]


@pytest.mark.parametrize("case", range(5))
def test_joined_loss_is_the_sample_weighted_mean(case):
    """joined(losses) = Σ_i (b_i/N) L_i in value (and gradient), of the first loss's type; its samples add up."""
    losses, x = _parts()[case]
    joined = type(losses[0]).joined(losses)
    b = np.array([loss.n_samples for loss in losses], dtype=float)
    assert type(joined) is type(losses[0]) and joined.n_samples == b.sum()
    want = sum(bi / b.sum() * loss.mixed_value(x) for bi, loss in zip(b, losses, strict=True))
    np.testing.assert_allclose(joined.mixed_value(x), want, rtol=1e-12, atol=1e-14)
    if hasattr(joined, "gradient"):
        want = sum(bi / b.sum() * loss.gradient(x) for bi, loss in zip(b, losses, strict=True))
        np.testing.assert_allclose(joined.gradient(x), want, rtol=1e-12, atol=1e-14)
    for attr in ("k", "rank"):
        assert getattr(joined, attr, None) == getattr(losses[0], attr, None)


def test_a_loss_that_cannot_be_joined_is_a_clear_error():
    """experts-stochastic emits LinearLoss (no joined): taking whole queues is a ConfigError naming the loss, the
    environment and take = 'one'; served one arrival at a time the same run works."""
    env = ol.make_environment("experts-stochastic", d=3)
    with pytest.raises(ConfigError, match=r"take = 'queue' makes learner 'omd'.*'experts-stochastic\(d=3\)' emits "
                                          r"LinearLoss.*use take = 'one'"):
        ol.simulate(env, [ol.make_learner("omd")], T=30, arrivals=Arrivals(rate=2.0, service=0.3, take="queue"))
    res = ol.simulate(env, [ol.make_learner("omd")], T=30, arrivals=Arrivals(rate=2.0, service=0.3, take="one"))
    assert np.isfinite(res.final("regret")).all() and res.final("samples_processed").iloc[0] > 0
