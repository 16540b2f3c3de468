"""The queueing claims of theory §8.3, checked on a plain single-server queue before they were written.

`simulate(arrivals=...)` serves exactly this queue (tests/feedback/test_arrivals.py compares its queue, staleness
and utilisation with a hand-written server on the same arrival times), so its rules can be measured here on long
horizons at numpy speed: rounds of b samples arrive as a Poisson process of rate ν; a call costs s₀ + s·n for n
samples; a per-sample server takes one arrival per call, a block server the whole queue.
"""
import numpy as np


def poisson_arrivals(rate: float, T: float, seed: int) -> np.ndarray:
    gaps = np.random.default_rng(seed).exponential(1.0 / rate, int(rate * T * 1.1) + 100)
    times = np.cumsum(gaps)
    return times[times <= T]


def per_sample_waits(arrivals: np.ndarray, service: float) -> np.ndarray:
    """Time each arrival waits before its call starts (FIFO, one arrival per call of length ``service``)."""
    waits, free = np.empty(len(arrivals)), 0.0
    for k, t in enumerate(arrivals):
        start = max(free, t)
        waits[k] = start - t
        free = start + service
    return waits


def block_server(arrivals: np.ndarray, s0: float, bs: float, T: float):
    """A server taking the whole queue: the rounds of each block, the time-averaged rounds waiting, and the
    rounds still waiting at the end."""
    free, i, blocks, area = 0.0, 0, [], 0.0
    while i < len(arrivals):
        free = max(free, arrivals[i])
        j = int(np.searchsorted(arrivals, free, side="right"))
        duration = s0 + bs * (j - i)
        if free + duration > T:
            break
        blocks.append(j - i)
        k = int(np.searchsorted(arrivals, free + duration, side="right"))
        area += float(np.sum(free + duration - arrivals[j:k]))   # rounds arriving during the service wait
        i, free = j, free + duration
    return np.array(blocks), area / free, len(arrivals) - i


def test_per_sample_server_keeps_up_iff_nu_times_s0_plus_bs_below_one():
    # ν b s = 0.5 < 1 in both cases: the load ρ alone would call both stable; the per-call overhead s₀ decides
    nu, b, s, T = 1.0, 2, 0.25, 20_000.0
    arrivals = poisson_arrivals(nu, T, seed=1)
    for s0, stable in ((0.4, True), (1.0, False)):     # ν(s₀ + b s) = 0.9, then 1.5
        waits = per_sample_waits(arrivals, s0 + b * s)
        if stable:
            assert waits[-2000:].mean() < 50 * (s0 + b * s)   # stationary: M/D/1 mean wait 4.5 calls
        else:
            # waits grow like (ν(s₀ + bs) − 1)·t/ν: about 10 000 at the end; well past any stationary level
            growth = (nu * (s0 + b * s) - 1) * T / nu
            assert 0.8 * growth < waits[-1] < 1.2 * growth


def test_block_server_keeps_up_iff_nu_b_s_below_one_whatever_s0():
    nu, T = 1.0, 20_000.0
    arrivals = poisson_arrivals(nu, T, seed=2)
    blocks, _, left = block_server(arrivals, s0=20.0, bs=0.9, T=T)   # ν s₀ = 20 rounds of overhead per call
    assert left < 5 * 20.0 / (1 - 0.9)                    # a few stationary blocks' worth, not growing with T
    blocks, _, left = block_server(arrivals, s0=0.0, bs=1.1, T=T)
    assert left > 0.05 * T                                # the queue grows like (ν b s − 1)/(b s)·t ≈ 0.09 t


def test_per_sample_wait_at_rho_0_9_is_about_four_and_a_half_service_times():
    # M/D/1 (Pollaczek-Khinchine): mean wait ρ S/(2(1 − ρ)) = 4.5 S at ρ = 0.9, not "about a service time"
    S, nu = 0.9, 1.0
    waits = per_sample_waits(poisson_arrivals(nu, 400_000.0, seed=3), S) / S
    # tolerance: 4 standard errors of the mean over 40 batch means (batches of 10⁴ arrivals, far longer than
    # the queue's correlation time of a few hundred arrivals at ρ = 0.9)
    batches = waits[: 40 * (len(waits) // 40)].reshape(40, -1).mean(axis=1)
    se = batches.std(ddof=1) / np.sqrt(40)
    assert abs(waits.mean() - 4.5) < 4 * se, (waits.mean(), se)
    assert waits.mean() > 3.5


def test_block_server_blocks_settle_near_nu_s0_over_1_minus_rho_and_its_queue_at_about_half_that():
    nu, T = 1.0, 200_000.0
    arrivals = poisson_arrivals(nu, T, seed=4)
    for s0, rho in ((5.0, 0.9), (2.0, 0.8), (1.0, 0.5)):
        blocks, queue, _ = block_server(arrivals, s0=s0, bs=rho, T=T)
        level = nu * s0 / (1 - rho)                       # the fixed point n = ν(s₀ + b s n), in rounds
        # measured (seed 4): the blocks' mean is 1.00, 1.00 and 1.14 times the level (at ν s₀ = 1 a block has
        # at least one round), the time-averaged queue 0.54, 0.58 and 0.56 times it: it refills from 0 each service
        assert 0.95 < blocks.mean() / level < 1.2, (s0, rho, blocks.mean(), level)
        assert 0.5 < queue / level < 0.65, (s0, rho, queue, level)
