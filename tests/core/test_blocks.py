"""Oblivious environments emitting blocks of rounds: the same run as round by round.

The reference is the same environment with ``emit_block`` switched off (the base class's, which
declines), so every round is emitted, validated and counted on its own.  Learners see the very
same losses, so their metrics are bit-identical; the comparator and the bound statistics are the
same sums taken block-wise (another summation order), equal to 1e-12 relative — rounding of a sum
of ≤ 300 terms is ~300 · 1.1e-16 ≈ 3e-14 relative, far inside it.
"""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core.blocks import LossBlock
from onlinelab.core.protocol import Feedback
from onlinelab.core.rng import BatchRNG
from onlinelab.environments.arms import AdversarialArms, BernoulliArms
from onlinelab.environments.spiked import SpikedCovariance
from onlinelab.environments.streams import SpikedStream
from onlinelab.errors import LossError, ProtocolError
from onlinelab.learners.mirror_descent import FTRL


class BernoulliPerRound(BernoulliArms):
    emit_block = ol.Environment.emit_block


class AdversarialPerRound(AdversarialArms):
    emit_block = ol.Environment.emit_block


class CovPerRound(SpikedCovariance):
    emit_block = ol.Environment.emit_block


class StreamPerRound(SpikedStream):
    emit_block = ol.Environment.emit_block


SUMS = ("comparator_loss", "regret", "realized_regret")


def timeless(res):
    m = res.metrics
    return m[m.metric != "runtime_s"].reset_index(drop=True)


@pytest.mark.parametrize("comparator", ["exact", "truth", "none"])
@pytest.mark.parametrize("blocked, per_round, learner, params", [
    (SpikedCovariance, CovPerRound, "meg", {"d": 5}),
    (SpikedStream, StreamPerRound, "oja", {"d": 140, "k": 2, "block": 9}),
])
def test_blocked_run_equals_the_round_by_round_run(blocked, per_round, learner, params, comparator):
    _same_runs(blocked, per_round, learner, params, comparator)


@pytest.mark.parametrize("comparator", ["exact", "none"])   # arms know no population play ("truth")
@pytest.mark.parametrize("blocked, per_round, learner, params", [
    (BernoulliArms, BernoulliPerRound, "exp3-auer", {"means": [0.2, 0.5, 0.9]}),
    (AdversarialArms, AdversarialPerRound, "exp3", {"d": 4, "block": 7}),
    (AdversarialArms, AdversarialPerRound, "logbarrier-bandit", {"d": 4, "block": 7}),
    (AdversarialArms, AdversarialPerRound, "ftrl", {"d": 4, "block": 7}),
])
def test_arms_blocks_equal_their_rounds(blocked, per_round, learner, params, comparator):
    _same_runs(blocked, per_round, learner, params, comparator)


def _same_runs(blocked, per_round, learner, params, comparator):
    kw = {"k": 2, "qr": "block"} if learner == "oja" else {}
    runs = [ol.simulate(cls(**params), [ol.make_learner(learner, **kw)], T=150, replicates=3, seed=2,
                        checkpoints=7, comparator=comparator) for cls in (blocked, per_round)]
    a, b = (timeless(r) for r in runs)
    assert a[["learner", "t", "metric", "replicate"]].equals(b[["learner", "t", "metric", "replicate"]])
    summed = a.metric.isin(SUMS) | a.metric.str.startswith("bound:")
    np.testing.assert_array_equal(a.value[~summed], b.value[~summed])             # what the learners did
    np.testing.assert_allclose(a.value[summed], b.value[summed], rtol=1e-12, atol=1e-12)


class Broken(SpikedCovariance):
    """Round 5 of replicate 1 is NaN: the block check must name that round, as round by round would."""

    def emit_block(self, t, n):
        block = super().emit_block(t, n)
        rows = np.stack([loss.factors[:, :, 0] for loss in block.rounds])
        if t <= 5 < t + n:
            rows[5 - t, 1, 0] = np.nan
        return LossBlock.of_rows(ol.FactoredLoss, rows, coef=-1.0)


def test_a_bad_round_inside_a_block_is_reported_as_that_round():
    with pytest.raises(LossError, match=r"environment 'spiked-covariance\(d=3\)', round 5: loss factors have "
                                        r"non-finite entries"):
        ol.simulate(Broken(d=3), [ol.make_learner("meg")], T=20, replicates=2, checkpoints=[20])


def test_a_block_of_the_wrong_length_is_a_protocol_error():
    class Short(SpikedCovariance):
        def emit_block(self, t, n):
            return super().emit_block(t, n - 1)
    with pytest.raises(ProtocolError, match=r"emit_block\(1, 20\) returned 19 rounds; return exactly n = 20"):
        ol.simulate(Short(d=3), [ol.make_learner("meg")], T=20, checkpoints=[20])


def test_a_subclass_overriding_only_emit_plays_round_by_round():
    class Shifted(SpikedCovariance):  # inherits emit_block, which knows nothing of this emit
        def emit(self, t, history):
            return ol.FactoredLoss(np.full((self.replicates, self.d), 1.0 / np.sqrt(self.d)), coef=-1.0)
    res = ol.simulate(Shifted(d=4), [ol.make_learner("meg")], T=70, replicates=2, checkpoints=[70])
    np.testing.assert_allclose(res.final("comparator_loss").to_numpy(), -70.0)   # every loss is −x xᵀ, ‖x‖ = 1


@pytest.mark.parametrize("regularizer, weights", [("entropy", "constant"), ("euclidean", "linear"),
                                                  ("entropy", [0.5, 2.0, 1.0, 3.0] * 20), ("log-barrier", 2.0)])
@pytest.mark.parametrize("played", [0, 3])
def test_ftrl_plays_a_block_as_it_plays_its_rounds(regularizer, weights, played):
    """FTRL.play_block's plays and state are bit-identical to act/update called round by round (the reference)."""
    R, d, n = 3, 5, 9
    env = AdversarialArms(d=d, block=2)
    env.reset(BatchRNG.from_seed(4, "environment", "arms", R), 40)
    ctx = ol.Context(d=d, T=40, replicates=R, domain="simplex")
    learner = ol.make_learner("ftrl", regularizer=regularizer, eta=0.3, weights=weights)
    state = learner.init(ctx, None)
    for t in range(1, played + 1):                             # some rounds first: the running sum is not empty
        state = learner.update(state, learner.act(state, None), Feedback("full", loss=env.emit(t, None)), None)
    block = env.emit_block(played + 1, n)
    ref, plays = state, []
    for loss in block.rounds:
        play = learner.act(ref, None)
        plays.append(play.mixed)
        ref = learner.update(ref, play, Feedback("full", loss=loss), None)
    got, stacked, *rest = learner.play_block(state, block)
    np.testing.assert_array_equal(stacked, np.concatenate(plays))
    if rest and rest[-1] is not None:     # the kernel's expected losses: each round's loss of its play
        want = [loss.mixed_value(p) for loss, p in zip(block.rounds, plays, strict=True)]
        np.testing.assert_array_equal(rest[-1], np.stack(want))
    for name in ("z", "acc", "prev"):
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name))
    assert got.t == ref.t == played + n


@pytest.mark.parametrize("learner, params", [("exp3", {}), ("exp3-auer", {"gamma": 0.3}),
                                             ("logbarrier-bandit", {"eta": 0.2})])
@pytest.mark.parametrize("played", [0, 3])
def test_a_bandit_plays_a_block_as_it_plays_its_rounds(learner, params, played):
    """The bandit wrappers' play_block: plays, realised losses, inner state and the draws left in the stream are
    bit-identical to act/update round by round on a second stream of the same seed (the reference)."""
    R, d, n = 3, 5, 70          # n > 64: the uniforms cross a refill of the stream's buffer (block 64 below)
    env = AdversarialArms(d=d, block=2)
    env.reset(BatchRNG.from_seed(4, "environment", "arms", R), 100)
    ctx = ol.Context(d=d, T=100, replicates=R, domain="simplex")
    wrapper = ol.make_learner(learner, **params)
    rngs = [BatchRNG.from_seed(5, "learner", learner, R, block=64) for _ in range(2)]
    states = [wrapper.init(ctx, rng) for rng in rngs]
    for t in range(1, played + 1):                             # the same earlier rounds on both: a non-empty state
        loss = env.emit(t, None)
        for i, rng in enumerate(rngs):
            play = wrapper.act(states[i], rng)
            states[i] = wrapper.update(states[i], play, Feedback("bandit", value=loss.action_value(play.action)), rng)
    state = states[0]
    np.testing.assert_array_equal(states[0].inner.z, states[1].inner.z)
    block = env.emit_block(played + 1, n)
    ref, plays, paid = states[1], [], []
    for loss in block.rounds:
        play = wrapper.act(ref, rngs[1])
        plays.append(play.mixed)
        value = loss.action_value(play.action)
        paid.append(value)
        ref = wrapper.update(ref, play, Feedback("bandit", value=value), rngs[1])
    got, stacked, realized, *rest = wrapper.play_block(state, block, rngs[0])
    np.testing.assert_array_equal(stacked, np.concatenate(plays))
    np.testing.assert_array_equal(realized, np.stack(paid))
    if rest and rest[0] is not None:      # the kernel's expected losses: each round's loss of its mixed play
        want = [loss.mixed_value(p) for loss, p in zip(block.rounds, plays, strict=True)]
        np.testing.assert_array_equal(rest[0], np.stack(want))
    for name in ("z", "acc", "prev"):
        a, b = getattr(got.inner, name), getattr(ref.inner, name)
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(a, b)
    assert got.inner.t == ref.inner.t == played + n
    np.testing.assert_array_equal(rngs[0].random(3), rngs[1].random(3))


def test_bandits_play_the_blocks_of_a_run_whole_and_a_subclass_that_changes_act_does_not():
    """Inside simulate, exp3's blocks go through play_block (a spy counts the blocks it played whole); a subclass
    that overrides act is served round by round, since the block loop repeats BanditSimplex.act."""
    from onlinelab.learners.bandit_simplex import Exp3

    class Greedy(Exp3):
        def act(self, state, rng):
            return super().act(state, rng)

    for learner, whole in ((Exp3(), True), (Greedy(), False)):
        played, inner = [], learner.play_block
        learner.play_block = lambda *args, inner=inner, played=played: played.append(inner(*args)) or played[-1]
        ol.simulate("bernoulli-arms", [learner], T=300, replicates=2, seed=0, checkpoints=[300])
        assert len(played) >= 1 and all((out is not None) == whole for out in played)


def test_a_block_saved_with_its_rounds_whole_loads_and_a_lazy_one_round_trips(tmp_path):
    """Checkpoints written before the rounds were built lazily store ``rounds`` as an attribute: they load (the
    attribute goes through the property's setter); a lazy block saves and loads with the same rounds."""
    from onlinelab.runs.checkpoint import load_state, save_state
    x = np.arange(12.0).reshape(3, 2, 2) + 1
    lazy = LossBlock.of_rows(ol.FactoredLoss, x, coef=1.0)
    old = LossBlock.__new__(LossBlock)
    old.__dict__.update(stacked=lazy.stacked, rounds=list(lazy.rounds), n=3)   # the attributes of the old layout
    for i, block in enumerate((old, LossBlock.of_rows(ol.FactoredLoss, x, coef=1.0))):
        save_state(tmp_path / f"b{i}.npz", {"block": block})
        back = load_state(tmp_path / f"b{i}.npz")["block"]
        assert back.n == 3
        for a, b in zip(back.rounds, lazy.rounds, strict=True):
            np.testing.assert_array_equal(a.factors, b.factors)


def test_a_recorder_adds_a_block_as_it_adds_its_rounds():
    """Recorder.add_block's sums are bit-identical to add() round by round (full information, bandit, and a
    full-information block after a bandit round)."""
    from onlinelab.core.metrics import Recorder
    rng = np.random.default_rng(0)
    rows = [rng.random((9, 4)) * 10.0 ** rng.integers(-8, 8, size=(9, 4)) for _ in range(3)]
    one, many = Recorder(4), Recorder(4)
    for expected, realized in [(rows[0], None), (rows[1], rows[2]), (rows[2], None)]:
        for i in range(9):
            one.add(expected[i], expected[i] if realized is None else realized[i])
        many.add_block(expected, realized)
        np.testing.assert_array_equal(many.cum_expected, one.cum_expected)
        np.testing.assert_array_equal(many.realized(), one.realized())


def test_a_learner_without_play_block_and_a_delayed_one_play_blocks_round_by_round():
    """Hedge beside OMD (no play_block) and with a delay (feedback must wait): every metric the learners
    produce equals the round-by-round run's."""
    learners = {"hedge": ol.make_learner("ftrl", regularizer="entropy", eta=0.2),
                "omd": ol.make_learner("omd", regularizer="entropy", gamma=0.2)}
    for delay in (None, 2):
        runs = [ol.simulate(cls(d=4, block=5), learners, T=120, replicates=2, seed=1, checkpoints=6, delay=delay)
                for cls in (AdversarialArms, AdversarialPerRound)]
        a, b = (timeless(r) for r in runs)
        plain = ~(a.metric.isin(SUMS) | a.metric.str.startswith("bound:"))
        np.testing.assert_array_equal(a.value[plain], b.value[plain])


@pytest.mark.parametrize("env_name, returned, why", [
    ("adversarial-arms", "plays only", "with no expected losses"),
    ("bernoulli-arms", "expected only", "plays_wanted is True")])
def test_play_block_without_plays_is_refused_where_they_are_needed(env_name, returned, why):
    """None for the plays is allowed only beside the expected losses, and only when the block's plays_wanted is
    False (no per-arm metrics read them): otherwise a ProtocolError names the class and the fix."""
    class NoPlays(FTRL):
        def play_block(self, state, block, rng=None):
            out = super().play_block(state, block, rng)
            if out is None:
                return None
            expected = block.stacked.mixed_value(out[1]).reshape(block.n, -1)
            return (out[0], None) if returned == "plays only" else (out[0], None, None, expected)

    with pytest.raises(ProtocolError, match=f"NoPlays.play_block returned None for the plays .*{why}"):
        ol.simulate(env_name, [NoPlays(regularizer="entropy", eta=0.1)], T=50, replicates=2, seed=0)
