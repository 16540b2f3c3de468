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
from onlinelab.blocks import LossBlock
from onlinelab.environments.arms import AdversarialArms, BernoulliArms
from onlinelab.environments.spiked import SpikedCovariance
from onlinelab.environments.streams import SpikedStream
from onlinelab.errors import LossError, ProtocolError


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
