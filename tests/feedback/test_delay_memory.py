"""A delayed run's memory and checkpoint do not grow with T (issue 20, "durable to the edges").

The delayed-feedback channel used to keep one record per round (the delays drawn, D_t of every round) and
random delays were drawn for all T rounds up front, so a delayed bandit run grew by about 110 MB per 10⁶
rounds and its checkpoint with T.  Here the checkpoint written one round before the end and the tracemalloc
peak of a run are compared at T = 2000 and T = 20000, for every delay kind that is not a user's list and for
the undelayed run.  What may differ is bounded in advance, not measured: the random-delay chunk in flight
(at most ``CHUNK`` int64 values, 8 bytes each) and the digits of larger round numbers and sums.  An oblivious
environment draws its losses in blocks whose size is capped, not by T (onlinelab.core.blocks: at most 8192
rounds); here blocks of 64 rounds, so that both horizons reach the cap and the test sees T alone.
"""
from __future__ import annotations

import gc
import os
import tracemalloc

import numpy as np
import pytest

import onlinelab as ol
from onlinelab.environments.experts import ExpertsStochastic
from onlinelab.experiment import config as C
from onlinelab.experiment.durable import Durable
from onlinelab.feedback.delays import CHUNK, PAST, RandomDelay, make_delay
from onlinelab.runs.checkpoint import save_state

DELAYS = {
    "none": None,
    "fixed": {"kind": "fixed", "d": 3},
    "random": {"kind": "random", "distribution": "geometric", "mean": 3},
    "adaptive": {"kind": "adaptive", "rule": "confident", "max_delay": 5},
}
DIGITS = 2048   # bytes: larger round numbers, sums and timings written as text in the checkpoint's JSON document
R, K = 2, 3
BLOCK = 2 * 8 * R * K * 64   # bytes: a block of losses and the random draws buffered for it (64 rounds of R × K)


@ol.register_environment("test-experts-short-blocks")
class _ShortBlocks(ExpertsStochastic):
    """experts-stochastic drawn 64 rounds at a time (its own rule is a 2 MiB budget, up to 8192 rounds)."""

    block_rounds = 64


class _LastRound(Durable):
    """Checkpoint once, after round T − 1 (or the block of rounds that holds it), and keep the file's size."""

    def __init__(self, path, T):
        super().__init__(path, None, None)
        self.T, self.size = T, None

    def after_round(self, t, env_label, state, rounds=1):
        if t >= self.T - 1 and self.size is None:
            save_state(self.path / "checkpoint.npz", {"env": env_label, "loop": state()})
            self.size = os.path.getsize(self.path / "checkpoint.npz")


def _measure(tmp_path, delay, T):
    """(checkpoint bytes at round T − 1, tracemalloc peak bytes) of an ftrl run of T rounds with ``delay``."""
    data = {"run": {"rounds": T, "replicates": R, "checkpoints": 4},
            "environments": [{"name": "test-experts-short-blocks", "d": K}],
            "learners": [{"name": "ftrl", "regularizer": "entropy"}]}
    if delay is not None:
        data["delay"] = delay
    cfg = C.parse(data)
    probe = _LastRound(tmp_path, T)
    gc.collect()
    tracemalloc.start()
    try:
        cfg.simulate(durable=probe)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return probe.size, peak


@pytest.mark.parametrize("kind", list(DELAYS))
def test_checkpoint_and_memory_are_flat_in_T(tmp_path, kind):
    _measure(tmp_path, DELAYS[kind], 200)   # warm-up: imports and caches are not the run's memory
    small_ck, small_peak = _measure(tmp_path, DELAYS[kind], 2000)
    large_ck, large_peak = _measure(tmp_path, DELAYS[kind], 20000)
    chunk = 8 * CHUNK if kind == "random" else 0
    assert abs(large_ck - small_ck) <= chunk + BLOCK + DIGITS, (small_ck, large_ck)
    # before the fix: 89 kB → 570 kB (checkpoint) and 1.5 MB → 6.9 MB (peak) for the random delays
    assert large_peak - small_peak <= chunk + BLOCK + 64 * 1024, (small_peak, large_peak)


WHOLE = {  # all T delays in one draw, as the model drew them before (mean 4: geometric p = 1/5, uniform on 0…8)
    "geometric": lambda rng, T: rng.geometric(1 / 5, size=T) - 1,
    "poisson": lambda rng, T: rng.poisson(4, size=T),
    "uniform": lambda rng, T: rng.integers(0, 9, size=T),
}


@pytest.mark.parametrize("distribution", RandomDelay.DISTRIBUTIONS)
def test_random_delays_do_not_depend_on_the_chunking(distribution):
    """Delays drawn chunk by chunk are the draws of all T at once (numpy consumes the stream value by value)."""
    T = 3 * CHUNK + 17
    model = make_delay({"kind": "random", "distribution": distribution, "mean": 4})
    model.reset(np.random.default_rng(5), T)
    drawn = [model.draw(t, None) for t in range(1, T + 1)]
    assert drawn == WHOLE[distribution](np.random.default_rng(5), T).tolist()


def test_an_adaptive_rule_sees_a_bounded_window_of_its_delays():
    seen = []

    def rule(t, view, max_delay):
        seen.append(view.past)
        return t % 3

    import onlinelab as ol
    from onlinelab.feedback.delays import AdaptiveDelay
    ol.simulate("experts-stochastic", [ol.make_learner("ftrl", regularizer="entropy")], T=PAST + 40,
                delay=AdaptiveDelay(rule=rule, max_delay=5))
    assert max(len(p) for p in seen) == PAST
    t = PAST + 40
    assert seen[-1] == tuple(s % 3 for s in range(t - PAST, t))   # the latest PAST delays, oldest first


@pytest.mark.parametrize("mean", [1e16, 1e30])
def test_a_mean_delay_beyond_any_horizon_is_a_clear_error(mean):
    from onlinelab.errors import ConfigError
    for distribution in RandomDelay.DISTRIBUTIONS:
        with pytest.raises(ConfigError, match=r"delay\.mean must be ≤ 1e\+15 rounds"):
            make_delay({"kind": "random", "distribution": distribution, "mean": mean})
