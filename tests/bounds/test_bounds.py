"""Bounds as data: formulas against hand-computed values, assumptions recorded, violations reported loudly."""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab import bounds as B
from onlinelab.core.protocol import Context, Play
from onlinelab.errors import BoundViolationWarning

STATS = B.LossStats(t=np.array([1, 100]), comparator=np.array([[0.0, 3.0]]),
                    spec_sq=np.array([[1.0, 50.0]]), fro_sq=np.array([[1.0, 60.0]]))


def test_c_d():
    assert B.c_d(2) == 8 and B.c_d(3) == 12 and B.c_d(8) == 112


def test_dense_theorem_3_value_and_assumptions():
    ctx = Context(d=4, T=100, replicates=1)
    b = B.logdet_dense(4, 0.1, 0.0, ctx)
    assert b.curve(STATS)[0, 1] == pytest.approx(4 * np.log(100) / 0.1 + 0.1 * 24 * 50 + 2)
    assert b.curve(STATS)[0, 0] == pytest.approx(0.1 * 24 * 1 + 2)
    assert b.holds
    bad = B.logdet_dense(4, 0.2, 0.0, Context(d=4, T=100, replicates=1, adaptive=True))
    assert bad.failed() == ["η = 0.2 ≤ 1/(2d) = 0.125",
                            "oblivious adversary (per-replicate mean estimates the pseudo-regret)"]


def test_sparse_theorem_6_value_and_gamma_assumption():
    ctx = Context(d=4, T=100, replicates=1)
    b = B.logdet_sparse(4, 0.05, 0.2, ctx)
    assert b.curve(STATS)[0, 1] == pytest.approx(4 * np.log(100) / 0.05 + 2 * 0.2 * 100 + 2 + 8 * 0.05 * 4 * 60)
    assert b.holds
    assert not B.logdet_sparse(4, 0.05, 0.1, ctx).holds


def test_first_order_and_full_information_and_meg_values():
    ctx = Context(d=4, T=100, replicates=1, psd=True)
    fo = B.logdet_first_order(4, 0.01, 0.0, ctx)
    assert fo.curve(STATS)[0, 1] == pytest.approx(2 * 4 * np.log(100) / 0.01 + 4 * 0.01 * 16 * 3 + 4)
    assert fo.holds
    assert not B.logdet_first_order(4, 0.01, 0.0, Context(d=4, T=100, replicates=1, psd=False)).holds
    full = B.logdet_full_information(4, 0.3, 0.0, ctx)
    assert full.curve(STATS)[0, 1] == pytest.approx(3 * np.log(100) / 0.3 + 0.6 * 100 + 2)
    meg = B.meg_first_order(4, 0.5, ctx)
    assert meg.curve(STATS)[0, 1] == pytest.approx((0.5 * 3 + np.log(4)) / (1 - np.exp(-0.5)) - 3)
    assert B.meg_worst_case(4, 0.5).curve(STATS)[0, 1] == pytest.approx(np.log(4) / 0.5 + 0.25 * 50)


def test_meg_tuned_worst_case_is_sqrt_2T_log_d():
    T, d = 400, 6
    eta = np.sqrt(2 * np.log(d) / T)
    stats = B.LossStats(t=np.array([T]), comparator=np.zeros((1, 1)), spec_sq=np.full((1, 1), T * 1.0),
                        fro_sq=np.zeros((1, 1)))
    assert B.meg_worst_case(d, eta).curve(stats)[0, 0] == pytest.approx(np.sqrt(2 * T * np.log(d)))


class _Lazy(ol.Learner):
    """Always plays I/d but claims an impossible bound of 0.5: the run must flag the violation."""

    feedback = "full"

    def __init__(self, claim: float = 0.5):
        self.claim = claim

    def init(self, ctx, rng):
        return ctx.d

    def act(self, state, rng):
        R = rng.replicates
        return Play(ol.EigenPlay(np.full((R, state), 1 / state), np.tile(np.eye(state), (R, 1, 1))))

    def update(self, state, play, feedback, rng):
        return state

    def bounds(self, ctx):
        return [B.Bound("too-good", "none", "0.5", {"always": True}, lambda s: np.full(s.t.shape, self.claim))]


def test_violations_are_flagged_loudly():
    with pytest.warns(BoundViolationWarning, match="BOUND VIOLATED: mean regret of 'lazy' .* too-good"):
        res = ol.simulate("switching", {"lazy": _Lazy()}, T=200)
    assert res.violations().bound.tolist() == ["too-good"]
    assert "**VIOLATED**" in __import__("onlinelab.runs.report", fromlist=["x"]).summary_markdown(res)
    assert res.summary().violated.tolist() == [True]


def test_no_violation_for_a_bound_that_holds():
    res = ol.simulate("switching", {"lazy": _Lazy(claim=1e6)}, T=50)
    assert res.violations().empty and not res.summary().violated.any()
