"""The stochastic policies' compiled block kernels (onlinelab.kernels.stochastic, stochastic_sampling) against the numpy
reference: the same metrics bit for bit (the arithmetic is written in the same order and draws the same numbers) on
every arms environment, across block boundaries, under delays, across checkpoint and resume; `take_rounds` leaves
the streams as the rounds would; a user's subclass, and a kernel that cannot compile, take the numpy path."""
import copy

import numpy as np
import pandas as pd
import pytest

import onlinelab as ol
from onlinelab.core.base import label_of
from onlinelab.core.rng import BatchRNG
from onlinelab.kernels import stochastic as KS
from onlinelab.kernels import stochastic_sampling as KT
from onlinelab.learners.index_bandits import UCB1
from onlinelab.learners.stochastic_draws import take_rounds
from tests.kernels.kernel_paths import both_paths, count_calls, without_runtime

#: every compiled policy (registered name, parameters), with the kernel that plays it
POLICIES = [("ucb1", {}, KS.index_block), ("moss", {}, KS.index_block), ("kl-ucb", {}, KS.klucb_block),
            ("kl-ucb", {"c": 3.0}, KS.klucb_block), ("kl-ucb", {"exploration": lambda t: np.log(t) ** 1.5},
                                                     KS.klucb_block),
            ("kl-ucb", {"family": "gaussian", "sigma": 0.5}, KS.index_block),
            ("thompson", {}, KT.thompson_bernoulli_block),
            ("d-thompson", {"discount": 0.95}, KT.thompson_bernoulli_block),
            ("thompson", {"family": "gaussian", "sigma": 0.5}, KS.index_block),
            ("epsilon-greedy", {"c": 0.05}, KT.epsilon_greedy_block), ("sw-ucb", {"window": 37}, KS.index_block),
            ("d-ucb", {"discount": 0.97}, KS.index_block)]
ENVIRONMENTS = [("bernoulli-arms", {}), ("bernoulli-arms", {"means": "linear-9"}),
                ("bernoulli-arms", {"means": "low-means"}), ("bernoulli-arms", {"means": "hard-gaps"}),
                ("gaussian-arms", {"means": [0.0, 0.3, 0.5], "sigma": 0.5}),
                ("piecewise-arms", {"changes": [90, 160]})]
IDS = [label_of(ol.make_learner(name, **params)) for name, params, _ in POLICIES]
SERIALISABLE = [(name, params, kern) for name, params, kern in POLICIES if not any(map(callable, params.values()))]


@pytest.mark.parametrize("env_name, params", ENVIRONMENTS, ids=[f"{n}-{p.get('means', '')}" for n, p in ENVIRONMENTS])
@pytest.mark.parametrize("name, kw, kern", POLICIES, ids=IDS)
def test_kernel_equals_numpy_bit_for_bit(env_name, params, name, kw, kern, monkeypatch):
    """T = 203 with checkpoints at 1, 50, 64, 129 and 203: blocks of 1 (played round by round), 49, 14, 64, 1 and
    74 → 64 + 10 rounds, so blocks start and end at odd places and round 1 is not in a block."""
    env, learner = ol.make_environment(env_name, **params), ol.make_learner(name, **kw)
    calls = count_calls(monkeypatch, kern)
    fast, plain = both_paths(env, learner, T=203, replicates=3, seed=11, checkpoints=[1, 50, 64, 129, 203])
    assert calls["n"] >= 4
    pd.testing.assert_frame_equal(fast, plain, check_exact=True)


@pytest.mark.parametrize("name, kw, kern", POLICIES, ids=IDS)
def test_under_delays_the_rounds_are_played_one_by_one(name, kw, kern, monkeypatch):
    """With delayed feedback no block is played (the round-by-round path runs): the switch changes nothing."""
    calls = count_calls(monkeypatch, kern)
    fast, plain = both_paths("bernoulli-arms", ol.make_learner(name, **kw), T=150, replicates=2, seed=5,
                             checkpoints=[75, 150], delay={"kind": "fixed", "d": 4})
    assert calls["n"] == 0
    pd.testing.assert_frame_equal(fast, plain, check_exact=True)


@pytest.mark.parametrize("name, kw, kern", SERIALISABLE, ids=[label_of(ol.make_learner(n, **k))
                                                                for n, k, _ in SERIALISABLE])
def test_resumed_compiled_run_equals_the_numpy_run(name, kw, kern, tmp_path, monkeypatch):
    """A run with the kernels, stopped after round 70 (mid-block) and resumed, equals the uninterrupted run; that run
    equals the numpy reference's (checked here too, on the same piecewise arms)."""
    from tests.resume_check import assert_resume_is_bit_identical
    calls = count_calls(monkeypatch, kern)
    cfg = {"run": {"name": "kr", "rounds": 160, "replicates": 2, "checkpoints": [30, 100, 160], "seed": 7},
           "environments": [{"name": "piecewise-arms", "changes": [60, 120]}], "learners": [{"name": name, **kw}]}
    assert_resume_is_bit_identical(cfg, 70, tmp_path)
    assert calls["n"] >= 3
    env = ol.make_environment("piecewise-arms", changes=[60, 120])
    fast, plain = both_paths(env, ol.make_learner(name, **kw), T=160, replicates=2, seed=7, checkpoints=[30, 100, 160])
    pd.testing.assert_frame_equal(fast, plain, check_exact=True)


def test_a_subclass_plays_the_numpy_reference(monkeypatch):
    """A user's subclass (even one that changes nothing) never reaches the kernel, and plays as the class does."""
    class MyUCB(UCB1):
        pass
    calls = count_calls(monkeypatch, KS.index_block)
    mine = ol.simulate("bernoulli-arms", [MyUCB()], T=200, replicates=2, seed=1, checkpoints=[200]).metrics
    assert calls["n"] == 0
    theirs = ol.simulate("bernoulli-arms", [UCB1()], T=200, replicates=2, seed=1, checkpoints=[200]).metrics
    np.testing.assert_array_equal(without_runtime(mine).value.to_numpy(), without_runtime(theirs).value.to_numpy())


@pytest.mark.parametrize("name, kw, kern", POLICIES[6:10], ids=IDS[6:10])
def test_a_kernel_that_fails_to_compile_leaves_the_streams_untouched(name, kw, kern, monkeypatch):
    """A first call that cannot compile returns None after the block's numbers were taken: they are put back,
    so the numpy path that then runs draws them again and the run equals the numpy run."""
    monkeypatch.setattr(kern, "_first_call_ready", False)
    monkeypatch.setattr(type(kern), "call", lambda self, *args: None)
    failed, plain = both_paths("bernoulli-arms", ol.make_learner(name, **kw), T=150, replicates=2, seed=4,
                               checkpoints=[150])
    pd.testing.assert_frame_equal(failed, plain, check_exact=True)


@pytest.mark.parametrize("seed", range(40))
def test_take_rounds_leaves_the_streams_as_the_rounds_do(seed):
    """Random take patterns, block lengths and buffer sizes: the numbers equal those of the rounds' own calls, and
    the buffers and generators end in the same state (so every later draw is the same)."""
    rs = np.random.default_rng(seed)
    R, block = int(rs.integers(1, 4)), int(rs.choice([4, 16, 512]))
    rng = BatchRNG.from_seed(seed, "learner", "take-rounds", R, block=block)
    for _ in range(int(rs.integers(0, 5))):                       # some numbers already taken
        (rng.random if rs.random() < 0.5 else rng.normal)(int(rs.integers(1, 40)))
    takes = [(str(rs.choice(["random", "normal"])), int(rs.integers(1, 30))) for _ in range(int(rs.integers(1, 4)))]
    n = int(rs.integers(1, 70))
    rounds = copy.deepcopy(rng)
    got = take_rounds(rng, takes, n)
    for j, (_, k) in enumerate(takes):
        assert got[j].shape == (R, n, k)
    want = [[] for _ in takes]
    for _ in range(n):
        for j, (kind, k) in enumerate(takes):
            want[j].append(np.array((rounds.random if kind == "random" else rounds.normal)(k)))
    for j in range(len(takes)):
        np.testing.assert_array_equal(got[j], np.stack(want[j], axis=1))
    for buf in ("_uniform", "_normal"):
        assert getattr(rng, buf).pos == getattr(rounds, buf).pos
        np.testing.assert_array_equal(getattr(rng, buf).data, getattr(rounds, buf).data)
    assert [g.bit_generator.state for g in rng.gens] == [g.bit_generator.state for g in rounds.gens]


def test_kl_ucb_with_a_level_below_rounding_plays_the_same_on_both_paths():
    """f(n)/N so small that p + √(level/2) rounds to p: the index is p itself (kl(p, p) = 0).  The kernel raised
    ZeroDivisionError there and the numpy path played the first NaN index (found by review)."""
    env = ol.make_environment("bernoulli-arms", means=[0.5, 0.3, 0.7])
    fast, plain = both_paths(env, ol.make_learner("kl-ucb", exploration=lambda t: 1e-40 * t), T=50, replicates=2,
                             seed=3, checkpoints=[10, 50])
    pd.testing.assert_frame_equal(fast, plain, check_exact=True)
    assert np.isfinite(fast.value).all()
