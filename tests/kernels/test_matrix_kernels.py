"""The small matrix learners' compiled blocks (onlinelab.kernels.logdet, .meg) against the numpy path, via simulate.

Log-det OMD with the dense and the sparse sampler, and MEG, on every oblivious environment on the spectraplex:
the metrics of ``compiled=True`` and ``compiled=False`` are equal bit for bit.  Why exactly and not to 1e-12:
each kernel repeats the numpy reference operation by operation — numpy's einsum order for the played vector
and the realised loss (`einsum_dot`), its pairwise sums, the same sequential categorical draw — and calls the
same LAPACK eigh and BLAS matmul that numpy calls (numba's np.linalg.eigh and ``@`` go to the LAPACK/BLAS
of scipy's OpenBLAS; on this machine they give numpy's bits for d = 2 … 16, measured max difference 0).  A
machine where they differ fails here and the assertion message says by how much.  The compiled=False path is
the round-by-round one: `play_block` declines and the slot plays `act`/`update`.
"""
import numpy as np
import pandas as pd
import pytest

import onlinelab as ol
from onlinelab.core.base import label_of
from onlinelab.core.registry import environment_class, environment_names
from onlinelab.experiment.checks import check_learner
from onlinelab.kernels import logdet as KL
from onlinelab.kernels import meg as KM
from onlinelab.learners.logdet import LogDetOMD
from onlinelab.learners.meg import MEG
from tests.kernels.kernel_paths import both_paths, without_runtime

#: every learner with a matrix kernel (registered name, parameters) and the kernel that plays its blocks
LEARNERS = [("logdet-omd", {"sampler": "dense"}, KL.logdet_block),
            ("logdet-omd", {"sampler": "dense", "gamma": 0.3, "reorth_every": 5}, KL.logdet_block),
            ("logdet-omd", {"sampler": "sparse"}, KL.logdet_block),
            ("logdet-omd", {"sampler": "sparse", "eta": 0.2, "reorth_every": 7}, KL.logdet_block),
            ("meg", {}, KM.meg_block), ("meg", {"eta": 0.7}, KM.meg_block)]
IDS = [label_of(ol.make_learner(name, **kw)) for name, kw, _ in LEARNERS]
#: every oblivious environment on the spectraplex; those whose blocks are rank-one FactoredLoss reach a kernel
#: (built-in ones only: other test modules register their own environments at import, in the same registry)
OBLIVIOUS = [n for n in environment_names() if environment_class(n).__module__.startswith("onlinelab.")
             and getattr(environment_class(n), "domain", None) == "spectraplex" and not environment_class(n).adaptive]
BLOCKS = {"spiked-covariance"}    # spiked-stream emits blocks of SampleLoss (sample sets), not FactoredLoss


def count_calls(monkeypatch, kern) -> dict:
    """A dict whose "n" counts the calls of ``kern`` that ran compiled (answered, not None) from now on."""
    box, real = {"n": 0}, type(kern).call

    def call(self, *args):
        out = real(self, *args)
        box["n"] += self is kern and out is not None
        return out
    monkeypatch.setattr(type(kern), "call", call)
    return box


def make_env(name, d=5):
    return ol.make_environment(name) if name == "digits-stream" else ol.make_environment(name, d=d)


def assert_same(fast, plain):
    """Bit for bit; on a failure, the largest difference first (see the module docstring)."""
    diff = np.max(np.abs(fast.value.to_numpy(float) - plain.value.to_numpy(float)), initial=0.0)
    assert fast.value.equals(plain.value), f"compiled and numpy paths differ by up to {diff:.3g}"
    pd.testing.assert_frame_equal(fast, plain, check_exact=True)


def test_every_oblivious_spectraplex_environment_is_covered():
    assert {"spiked-covariance", "spiked-stream", "rotating-subspace", "switching", "ftl-alternating",
            "digits-stream"} <= set(OBLIVIOUS)


@pytest.mark.parametrize("env_name", OBLIVIOUS)
@pytest.mark.parametrize("name, kw, kern", LEARNERS, ids=IDS)
def test_kernel_equals_numpy_bit_for_bit(env_name, name, kw, kern, monkeypatch):
    """T = 211, checkpoints 1, 9, 64, 130, 211: blocks start and end at odd places (and, with reorth_every 5
    or 7, re-orthonormalisation falls inside blocks); the kernel runs exactly where blocks of rank-one
    losses at d ≤ 16 reach it."""
    calls = count_calls(monkeypatch, kern)
    fast, plain = both_paths(make_env(env_name), ol.make_learner(name, **kw), T=211, replicates=3, seed=13,
                             checkpoints=[1, 9, 64, 130, 211])
    assert (calls["n"] > 0) == (env_name in BLOCKS)
    assert_same(fast, plain)


@pytest.mark.parametrize("d", [2, 3, 8, 16, 17])
@pytest.mark.parametrize("name, kw, kern", [LEARNERS[0], LEARNERS[2], LEARNERS[4]], ids=[IDS[0], IDS[2], IDS[4]])
def test_every_small_dimension(d, name, kw, kern, monkeypatch):
    """d = 2 … 16 take the kernel (eight running sums from d = 8 on); d = 17 declines and plays numpy."""
    calls = count_calls(monkeypatch, kern)
    fast, plain = both_paths(make_env("spiked-covariance", d), ol.make_learner(name, **kw), T=150, replicates=2,
                             seed=2, checkpoints=[70, 150])
    assert (calls["n"] > 0) == (d <= 16)
    assert_same(fast, plain)


@pytest.mark.parametrize("name, kw, kern", LEARNERS[:4], ids=IDS[:4])
def test_every_reorthonormalisation_round_handed_to_numpy(name, kw, kern, monkeypatch):
    """With the kernel's safe threshold at 0 it stops at every re-orthonormalisation round and numpy's
    `reorthonormalise` decides there: still the numpy path's numbers bit for bit."""
    monkeypatch.setattr(KL, "REORTH_SAFE", 0.0)
    fast, plain = both_paths(make_env("spiked-covariance", 6), ol.make_learner(name, **kw), T=150, replicates=2,
                             seed=8, checkpoints=[20, 150])
    assert_same(fast, plain)


@pytest.mark.parametrize("name, kw, kern", LEARNERS, ids=IDS)
def test_blocks_equal_round_by_round(name, kw, kern):
    """Delay 0 plays every round through act/update and the environment's emit: the compiled blocks give the
    same metrics bit for bit."""
    env, learner = make_env("spiked-covariance", 4), ol.make_learner(name, **kw)
    blocks = without_runtime(ol.simulate(env, [learner], T=150, replicates=2, seed=3, checkpoints=[40, 150]).metrics)
    rounds = without_runtime(ol.simulate(env, [learner], T=150, replicates=2, seed=3, checkpoints=[40, 150],
                                         delay=0).metrics)
    assert_same(blocks, rounds[rounds.metric.isin(blocks.metric.unique())].reset_index(drop=True))


@pytest.mark.parametrize("name, kw, kern", LEARNERS, ids=IDS)
def test_under_delays_the_rounds_are_played_one_by_one(name, kw, kern, monkeypatch):
    """With delayed feedback no block is played whole: the kernel never runs and the switch changes nothing."""
    calls = count_calls(monkeypatch, kern)
    fast, plain = both_paths(make_env("spiked-covariance", 4), ol.make_learner(name, **kw), T=120, replicates=2,
                             seed=5, checkpoints=[60, 120], delay={"kind": "fixed", "d": 3})
    assert calls["n"] == 0
    assert_same(fast, plain)


@pytest.mark.parametrize("name, kw, kern", LEARNERS, ids=IDS)
def test_resumed_compiled_run_equals_the_uninterrupted_and_the_numpy_run(name, kw, kern, tmp_path, monkeypatch):
    """Stopped after the block holding round 70 and resumed (kernels on), the run equals the uninterrupted one,
    which equals the numpy reference's."""
    from tests.resume_check import assert_resume_is_bit_identical
    calls = count_calls(monkeypatch, kern)
    cfg = {"run": {"name": "km", "rounds": 160, "replicates": 2, "checkpoints": [30, 100, 160], "seed": 7},
           "environments": [{"name": "spiked-covariance", "d": 4}], "learners": [{"name": name, **kw}]}
    assert_resume_is_bit_identical(cfg, 70, tmp_path)
    assert calls["n"] >= 3
    fast, plain = both_paths(make_env("spiked-covariance", 4), ol.make_learner(name, **kw), T=160, replicates=2,
                             seed=7, checkpoints=[30, 100, 160])
    assert_same(fast, plain)


def test_subclasses_play_the_numpy_reference(monkeypatch):
    """A user's subclass (even one that changes nothing) never reaches a kernel, and plays as the class does."""
    class MyLogDet(LogDetOMD):
        pass

    class MyMEG(MEG):
        pass
    logdet, meg = count_calls(monkeypatch, KL.logdet_block), count_calls(monkeypatch, KM.meg_block)
    env = make_env("spiked-covariance", 4)
    mine = ol.simulate(env, {"a": MyLogDet(), "b": MyMEG()}, T=150, replicates=2, seed=1, checkpoints=[150]).metrics
    assert logdet["n"] == meg["n"] == 0
    theirs = ol.simulate(env, {"a": LogDetOMD(), "b": MEG()}, T=150, replicates=2, seed=1, checkpoints=[150]).metrics
    assert logdet["n"] >= 1 and meg["n"] >= 1
    np.testing.assert_array_equal(without_runtime(mine).value.to_numpy(), without_runtime(theirs).value.to_numpy())


@pytest.mark.parametrize("name, kw, kern", [LEARNERS[0], LEARNERS[2], LEARNERS[4]], ids=[IDS[0], IDS[2], IDS[4]])
def test_a_kernel_that_cannot_compile_leaves_the_numpy_path_to_play(name, kw, kern, monkeypatch):
    """A kernel answering None (numba cannot compile) is asked before the block's uniforms are drawn, so the
    learner declines and the run equals the numpy run."""
    monkeypatch.setattr(type(kern), "call", lambda self, *args: None)
    fast, plain = both_paths(make_env("spiked-covariance", 4), ol.make_learner(name, **kw), T=150, replicates=2,
                             seed=4, checkpoints=[150])
    assert_same(fast, plain)


@pytest.mark.parametrize("name, kw, kern", [LEARNERS[0], LEARNERS[2], LEARNERS[4]], ids=[IDS[0], IDS[2], IDS[4]])
def test_check_learner_finds_blocks_equal_to_rounds(name, kw, kern):
    """The conformance check runs the learner in blocks (kernels on) and round by round, bit for bit."""
    passed = check_learner(ol.make_learner(name, **kw), env=make_env("spiked-covariance", 4), T=150)
    assert "play_block equals act/update" in passed
