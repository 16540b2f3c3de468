"""Numerical honesty (onlinelab.core.numerics; issue 20 item 6): non-finite plays are an error, unstable updates and
a plan off the spectraplex a warning, each naming the step parameter, checked at checkpoints only.

Independent computations: the round the error names is the first checkpoint at or after the round a learner
starts playing NaN (known by construction); the plan's defect is set by hand; the log-det warning follows
the learner's own count of non-positive-definite updates.
"""
import warnings
from typing import NamedTuple

import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core import numerics
from onlinelab.core.protocol import EigenPlay, Play
from onlinelab.errors import NumericalError, NumericalWarning


class _State(NamedTuple):
    lam: np.ndarray
    t: int


class _Faulty(ol.Learner):
    """Plays I/d, then from round ``nan_from`` a NaN eigenvalue, or from round 1 eigenvalues scaled by ``scale``."""

    feedback = "full"

    def __init__(self, eta: float = 0.1, nan_from: int = 10 ** 9, scale: float = 1.0):
        self.eta, self.nan_from, self.scale = eta, nan_from, scale

    def init(self, ctx, rng):
        return _State(np.full((ctx.replicates, ctx.d), self.scale / ctx.d), 0)

    def act(self, state, rng):
        lam = state.lam.copy()
        if state.t + 1 >= self.nan_from:
            lam[:, 0] = np.nan
        R, d = lam.shape
        return Play(EigenPlay(lam, np.tile(np.eye(d), (R, 1, 1))))

    def update(self, state, play, feedback, rng):
        return _State(state.lam, state.t + 1)


def test_nan_plays_raise_at_the_next_checkpoint_naming_the_step():
    with pytest.raises(NumericalError, match=r"non-finite values \(NaN or inf\) by round 20: .*Lower eta = 0\.3") as e:
        ol.simulate("spiked-covariance", [_Faulty(eta=0.3, nan_from=15)], T=30, checkpoints=[10, 20, 30], seed=0)
    curve = e.value.partial.curve("regret")   # the completed checkpoints (20 is where it was found) are kept
    assert curve["t"].tolist() == [10, 20] and np.isfinite(curve["mean"].iloc[0])


def test_a_plan_off_the_spectraplex_warns_once_and_a_healthy_one_never():
    with pytest.warns(NumericalWarning, match=r"no longer plays a density matrix at round 10: .*off 1 by 0\.5") as rec:
        ol.simulate("spiked-covariance", [_Faulty(scale=1.5)], T=30, checkpoints=[10, 20, 30], seed=0)
    assert sum(r.category is NumericalWarning for r in rec) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", NumericalWarning)
        ol.simulate("spiked-covariance", [_Faulty(), ol.make_learner("logdet-omd"), ol.make_learner("meg")],
                    T=50, seed=0)


def test_logdet_with_a_huge_eta_warns_at_construction_and_in_the_run():
    with pytest.warns(NumericalWarning, match=r"eta = 1000000\.0 is more than 100 times .* Use eta ≤ 0\.5"):
        learner = ol.make_learner("logdet-omd", eta=1e6)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NumericalWarning)
        ol.make_learner("logdet-omd", eta=50.0)    # at the threshold: no warning
    with pytest.warns(NumericalWarning, match=r"logdet-omd.*numerically unstable.*Lower eta = 1000000\.0"):
        res = ol.simulate("spiked-covariance", [learner], T=20, checkpoints=[5, 20], seed=0, compiled=False)
    # the warning follows the learner's own count of rounds where W⁻¹ + ηL̃ was not positive definite
    assert np.all(res.final("unstable_rounds").to_numpy() > 0)


def test_the_check_runs_per_checkpoint_never_per_round(monkeypatch):
    calls = []
    real = numerics.check
    monkeypatch.setattr(numerics, "check", lambda slot, t, extra: (calls.append(t), real(slot, t, extra)))
    ol.simulate("spiked-covariance", [ol.make_learner("meg"), ol.make_learner("logdet-omd")], T=200,
                checkpoints=[50, 120, 200], seed=0)
    assert sorted(calls) == [50, 50, 120, 120, 200, 200]
