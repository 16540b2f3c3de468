"""Adaptive environments keep a bounded history by default (memory flat in T), and say how to keep more."""
import tracemalloc

import numpy as np
import pytest

import onlinelab as ol
from onlinelab.errors import ConfigError, ProtocolError
from tests.resume_check import assert_resume_is_bit_identical


class Chaser(ol.Environment):
    """Adaptive: a dense loss on the learner's top direction (the default history window)."""

    adaptive = True
    psd = True

    def emit(self, t, history):
        x = history.mixed.top_vector()
        return ol.DenseLoss(x[:, :, None] * x[:, None, :])


class Watcher(Chaser):
    """Records how much history it was shown."""

    def reset(self, rng, T):
        super().reset(rng, T)
        self.lengths = []

    def emit(self, t, history):
        self.lengths.append((len(history.actions), len(history.losses)))
        return super().emit(t, history)


def shown(env_cls, T):
    """The history lengths the (one) environment instance saw, round by round."""
    seen = {}
    orig = env_cls.reset

    def spy(self, rng, T_):
        orig(self, rng, T_)
        seen["env"] = self
    env_cls.reset = spy
    try:
        ol.simulate(env_cls(d=3), [ol.make_learner("logdet-omd", sampler="sparse")], T=T, seed=1)
    finally:
        env_cls.reset = orig
    return np.array(seen["env"].lengths)


def test_default_window_keeps_the_last_1000_rounds():
    assert ol.Environment.history_window == 1000
    lengths = shown(Watcher, 1050)
    want = np.minimum(np.arange(1050), 1000)  # round t sees min(t − 1, 1000) past rounds
    np.testing.assert_array_equal(lengths[:, 0], want)
    np.testing.assert_array_equal(lengths[:, 1], want)


def test_none_keeps_every_round():
    class Everything(Watcher):
        history_window = None
    np.testing.assert_array_equal(shown(Everything, 1050)[:, 1], np.arange(1050))


def test_indexing_past_the_window_says_how_to_keep_more():
    class LongMemory(Watcher):
        history_window = 5

        def emit(self, t, history):
            if t > 8:
                history.losses[-7]  # seven rounds back: only five are kept
            return super().emit(t, history)
    with pytest.raises(ProtocolError, match=r"round 9; its history keeps only the last 5 rounds \(history_window = 5\)"
                                            r"; set history_window = None on the class to keep every round"):
        ol.simulate(LongMemory(d=3), [ol.make_learner("meg")], T=20)


@pytest.mark.parametrize("bad", [-1, 2.5, "all", True])
def test_a_bad_window_is_a_config_error(bad):
    Bad = type("Bad", (Watcher,), {"history_window": bad})
    with pytest.raises(ConfigError, match=r"history_window must be a number of rounds >= 0 or None .*got "
                                          + repr(bad).replace(".", r"\.")):
        ol.simulate(Bad(d=3), [ol.make_learner("meg")], T=3)


def peak_bytes(env, T):
    ol.simulate(env, [ol.make_learner("meg")], T=3, replicates=2)  # imports and caches outside the measure
    tracemalloc.start()
    try:
        ol.simulate(env, [ol.make_learner("meg")], T=T, replicates=2, seed=0, checkpoints=[T])
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_is_flat_in_T():
    """Peak traced memory at 3·T is within 1.2× of T's once T exceeds the window.

    The history dominates: a (2, 8, 8) loss is 1 kB a round, so keeping everything would make the
    ratio about 3 (checked below with history_window = None, so this test can fail)."""
    small, big = peak_bytes(Chaser(d=8), 1100), peak_bytes(Chaser(d=8), 3300)
    assert big <= 1.2 * small, (small, big)

    class Unbounded(Chaser):
        history_window = None
    assert peak_bytes(Unbounded(d=8), 3300) > 2 * small


def test_data_losses_checkpoint_and_resume_bit_identically(tmp_path):
    """A data-set environment's comparator (a named function, no lambda) goes into checkpoints."""
    cfg_dict = {"run": {"name": "data", "rounds": 12, "replicates": 2, "checkpoints": 3, "seed": 4},
                "environments": [{"name": "logistic-data", "batch": 4}], "learners": [{"name": "omd"}]}
    assert_resume_is_bit_identical(cfg_dict, 7, tmp_path)
