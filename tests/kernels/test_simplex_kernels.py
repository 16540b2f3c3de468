"""The simplex learners' compiled block kernels (onlinelab.kernels.simplex) against the numpy path, through simulate.

Hedge (ftrl, entropy), OMD (entropy, log-barrier), exp3, exp3-auer and logbarrier-bandit, on every registered
environment on the simplex: the metrics of ``compiled=True`` and ``compiled=False`` are equal bit for bit.  Why
exactly and not to 1e-12: every kernel repeats its numpy reference operation by operation — the same sequential
running sums, numpy's pairwise summation for each softmax normaliser (`rowops.pairwise_sum`), einsum's two-lane
order for the log-barrier's Newton denominator (`rowops.einsum_square_sum`) and numpy's own exp and log loops,
whichever numpy chose for this CPU (`onlinelab.kernels.ufuncs`; `test_rowops.py` and `test_ufuncs.py` check these
building blocks one by one, so a machine where they differ fails there first).  The
bandits amplify a last-bit difference through 1/p, so agreement to 1e-12 is only reachable bit for bit.
"""
import numpy as np
import pandas as pd
import pytest

import onlinelab as ol
from onlinelab.core.base import label_of
from onlinelab.core.registry import environment_class, environment_names
from onlinelab.kernels import simplex as KS
from onlinelab.learners.bandit_simplex import Exp3
from onlinelab.learners.mirror_descent import FTRL
from tests.kernels.kernel_paths import both_paths, without_runtime

#: every learner with a simplex kernel (registered name, parameters), and the kernel that plays its blocks; the
#: full-information steps are explicit, since gaussian-arms declares no loss bound to tune them from
LEARNERS = [("ftrl", {"regularizer": "entropy", "eta": 0.3}, KS.ftrl_entropy_block),
            ("ftrl", {"regularizer": "entropy", "eta": 0.01, "weights": "linear"}, KS.ftrl_entropy_block),
            ("omd", {"regularizer": "entropy", "gamma": 0.2}, KS.omd_block),
            ("omd", {"regularizer": "log-barrier", "gamma": 0.05}, KS.omd_block),
            ("exp3", {}, KS.exp3_block), ("exp3-auer", {}, KS.exp3_block),
            ("exp3-auer", {"gamma": 0.2}, KS.exp3_block), ("exp3-ix", {}, KS.exp3_block),
            ("exp3-ix", {"eta": 0.05, "gamma": 0.3}, KS.exp3_block),
            ("logbarrier-bandit", {}, KS.logbarrier_bandit_block)]
IDS = [label_of(ol.make_learner(name, **kw)) for name, kw, _ in LEARNERS]
#: every registered environment on the simplex (the adaptive ones emit no blocks: the switch must change nothing)
# built-in ones only: other test modules register their own environments at import, in the same registry
SIMPLEX = [name for name in environment_names() if environment_class(name).__module__.startswith("onlinelab.")
           and getattr(environment_class(name), "domain", None) == "simplex"]


@pytest.fixture
def calls_of(monkeypatch):
    """Counts the calls of one Kernel, so a test sees whether the compiled path ran."""
    def counting(kern):
        box, real = {"n": 0}, type(kern).call

        def call(self, *args):
            box["n"] += self is kern
            return real(self, *args)
        monkeypatch.setattr(type(kern), "call", call)
        return box
    return counting


def test_every_simplex_environment_is_covered():
    assert {"bernoulli-arms", "adversarial-arms", "gaussian-arms", "piecewise-arms", "experts-stochastic",
            "experts-adversarial", "adaptive-arms", "split-chaser"} <= set(SIMPLEX)


@pytest.mark.parametrize("env_name", SIMPLEX)
@pytest.mark.parametrize("name, kw, kern", LEARNERS, ids=IDS)
def test_kernel_equals_numpy_bit_for_bit(env_name, name, kw, kern, calls_of):
    """T = 211, checkpoints 1, 9, 64, 130, 211: blocks of 8, 55, 66 and 81 rounds start and end at odd places
    (round 1 alone is played round by round); an oblivious environment's blocks reach the kernel."""
    env, learner = ol.make_environment(env_name), ol.make_learner(name, **kw)
    calls = calls_of(kern)
    fast, plain = both_paths(env, learner, T=211, replicates=3, seed=13, checkpoints=[1, 9, 64, 130, 211])
    assert calls["n"] == (0 if env.adaptive else 4)
    pd.testing.assert_frame_equal(fast, plain, check_exact=True)


@pytest.mark.parametrize("name, kw, kern", LEARNERS, ids=IDS)
@pytest.mark.parametrize("env_name", ["bernoulli-arms", "experts-adversarial"])
def test_blocks_equal_round_by_round(env_name, name, kw, kern):
    """Delay 0 runs the round-by-round path (each round's act and update, the environment's emit): the compiled
    blocks give the same metrics bit for bit, so the kernels equal the rounds, not only numpy's block loop."""
    env, learner = ol.make_environment(env_name), ol.make_learner(name, **kw)
    blocks = without_runtime(ol.simulate(env, [learner], T=150, replicates=2, seed=3, checkpoints=[40, 150]).metrics)
    rounds = without_runtime(ol.simulate(env, [learner], T=150, replicates=2, seed=3, checkpoints=[40, 150],
                                         delay=0).metrics)
    shared = rounds[rounds.metric.isin(blocks.metric.unique())].reset_index(drop=True)   # delay 0 adds metrics
    pd.testing.assert_frame_equal(blocks, shared, check_exact=True)


@pytest.mark.parametrize("name, kw, kern", LEARNERS, ids=IDS)
def test_under_delays_the_rounds_are_played_one_by_one(name, kw, kern, calls_of):
    """With delayed feedback no block is played whole: the kernel never runs and the switch changes nothing."""
    calls = calls_of(kern)
    fast, plain = both_paths("bernoulli-arms", ol.make_learner(name, **kw), T=120, replicates=2, seed=5,
                             checkpoints=[60, 120], delay={"kind": "fixed", "d": 3})
    assert calls["n"] == 0
    pd.testing.assert_frame_equal(fast, plain, check_exact=True)


@pytest.mark.parametrize("name, kw, kern", LEARNERS, ids=IDS)
def test_resumed_compiled_run_equals_the_uninterrupted_and_the_numpy_run(name, kw, kern, tmp_path, calls_of):
    """Stopped after the block holding round 70 and resumed (kernels on), the run equals the uninterrupted one,
    which equals the numpy reference's."""
    from tests.resume_check import assert_resume_is_bit_identical
    calls = calls_of(kern)
    cfg = {"run": {"name": "ks", "rounds": 160, "replicates": 2, "checkpoints": [30, 100, 160], "seed": 7},
           "environments": [{"name": "adversarial-arms", "block": 40}], "learners": [{"name": name, **kw}]}
    assert_resume_is_bit_identical(cfg, 70, tmp_path)
    assert calls["n"] >= 3
    env = ol.make_environment("adversarial-arms", block=40)
    fast, plain = both_paths(env, ol.make_learner(name, **kw), T=160, replicates=2, seed=7, checkpoints=[30, 100, 160])
    pd.testing.assert_frame_equal(fast, plain, check_exact=True)


def test_subclasses_play_the_numpy_reference(calls_of):
    """A user's subclass (even one that changes nothing) never reaches a kernel, and plays as the class does."""
    class MyExp3(Exp3):
        pass

    class MyHedge(FTRL):
        pass
    bandit, hedge = calls_of(KS.exp3_block), calls_of(KS.ftrl_entropy_block)
    mine = ol.simulate("bernoulli-arms", {"a": MyExp3(), "b": MyHedge(regularizer="entropy")}, T=200, replicates=2,
                       seed=1, checkpoints=[200]).metrics
    assert bandit["n"] == hedge["n"] == 0
    theirs = ol.simulate("bernoulli-arms", {"a": Exp3(), "b": FTRL(regularizer="entropy")}, T=200, replicates=2,
                         seed=1, checkpoints=[200]).metrics
    assert bandit["n"] >= 1 and hedge["n"] >= 1
    np.testing.assert_array_equal(without_runtime(mine).value.to_numpy(), without_runtime(theirs).value.to_numpy())


@pytest.mark.parametrize("name, kw, kern", [LEARNERS[0], LEARNERS[2], LEARNERS[4]], ids=[IDS[0], IDS[2], IDS[4]])
def test_a_kernel_that_cannot_compile_leaves_the_numpy_path_to_play(name, kw, kern, monkeypatch):
    """A kernel answering None (numba cannot compile) hands the block to the numpy path after the block's uniforms
    were drawn: the run equals the numpy run."""
    monkeypatch.setattr(type(kern), "call", lambda self, *args: None)
    failed, plain = both_paths("bernoulli-arms", ol.make_learner(name, **kw), T=150, replicates=2, seed=4,
                               checkpoints=[150])
    pd.testing.assert_frame_equal(failed, plain, check_exact=True)


@pytest.mark.parametrize("started", [False, True])
@pytest.mark.parametrize("name, kw, kern", LEARNERS, ids=IDS)
def test_a_block_whose_plays_nobody_reads_returns_none_and_the_same_state(name, kw, kern, started):
    """With ``block.plays_wanted`` False (no per-arm metrics) a kernel writes one round of plays, not n: play_block
    returns None for the plays, and the state, the realised and the expected losses of the full call, bit for bit;
    the expected losses equal each round's loss of the full call's plays (the reference: the loss's own sum).
    ``started``: the block follows an earlier one (a non-empty running sum, a moved iterate)."""
    from onlinelab.core.rng import BatchRNG
    env = ol.make_environment("adversarial-arms", d=5, block=2)
    env.reset(BatchRNG.from_seed(4, "environment", "arms", 3), 100)
    ctx = ol.Context(d=5, T=100, replicates=3, domain="simplex", loss_bound=1.0, psd=True)
    learner = ol.make_learner(name, **kw)
    first, block, outs = env.emit_block(1, 20), env.emit_block(21, 70), []
    for wanted in (True, False):
        rng = BatchRNG.from_seed(5, "learner", name, 3)
        state = learner.init(ctx, rng)
        if started:
            state = learner.play_block(state, first, rng)[0]
        block.plays_wanted = wanted
        outs.append(learner.play_block(state, block, rng))
    (full_state, plays, *full), (state, none, *rest) = outs
    assert plays.shape == (70 * 3, 5) and none is None
    for a, b in zip(full, rest, strict=True):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(full[-1], block.stacked.mixed_value(plays).reshape(70, 3))
    np.testing.assert_array_equal(_leaves(full_state), _leaves(state))


@pytest.mark.parametrize("name, kw, kern", LEARNERS, ids=IDS)
def test_a_strided_block_gets_the_expected_losses_of_its_rows(name, kw, kern):
    """A block whose stacked losses are not C-contiguous (an environment's own LossBlock of a Fortran-ordered
    array): the kernel's expected losses still equal the loss's mixed_value of the plays and each round's own
    (np.einsum sums strided rows in another order, so mixed_value sums contiguous copies)."""
    from onlinelab.core.blocks import LossBlock
    from onlinelab.core.rng import BatchRNG
    from onlinelab.geometry.domains import Simplex
    from onlinelab.losses.vector import LinearLoss
    n, R, d = 40, 3, 5
    G = np.asfortranarray(np.random.default_rng(8).random((n * R, d)))
    dom = Simplex(d)
    block = LossBlock(LinearLoss(G, dom), [LinearLoss(G[i * R:(i + 1) * R], dom) for i in range(n)])
    assert not block.stacked.G.flags.c_contiguous
    ctx = ol.Context(d=d, T=100, replicates=R, domain="simplex", loss_bound=1.0, psd=True)
    learner = ol.make_learner(name, **kw)
    rng = BatchRNG.from_seed(5, "learner", name, R)
    _, plays, *rest = learner.play_block(learner.init(ctx, rng), block, rng)
    want = block.stacked.mixed_value(plays).reshape(n, R)
    np.testing.assert_array_equal(rest[-1], want)
    np.testing.assert_array_equal(want, np.stack([loss.mixed_value(plays[i * R:(i + 1) * R])
                                                  for i, loss in enumerate(block.rounds)]))


def _leaves(state):
    """Every array of a (nested) learner state, flattened into one vector (None and scalars skipped)."""
    out = []
    for value in state:
        if isinstance(value, tuple):
            out.append(_leaves(value))
        elif isinstance(value, np.ndarray):
            out.append(value.ravel().astype(float))
    return np.concatenate(out) if out else np.empty(0)
