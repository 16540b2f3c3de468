"""Bad input to delays and arrivals through ``simulate`` (issue 20, item 5): each row raises an onlinelab.errors
exception naming the field, the value and the fix — a Poisson mean numpy cannot draw, an arrival rate × T that
would never finish, an adaptive delay rule that returns garbage — never a numpy error or a hang."""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core import sizes
from onlinelab.errors import ConfigError, ConfigTypeError, UnknownNameError
from onlinelab.feedback.delays import AdaptiveDelay


@pytest.fixture(autouse=True)
def machine_of_64_gb(monkeypatch):
    monkeypatch.setattr(sizes, "available_memory", lambda: 64e9)


def _delayed(delay, T=5):
    return lambda: ol.simulate("experts-stochastic", [ol.make_learner("omd")], T=T, delay=delay)


def _arriving(arrivals, T=20, **kw):
    env = ol.make_environment("spiked-stream", d=6, k=1)
    return lambda: ol.simulate(env, [ol.make_learner("oja")], T=T, arrivals=arrivals, **kw)


DELAYS = [
    ("a Poisson mean too large for numpy", _delayed({"kind": "random", "distribution": "poisson", "mean": 1e300}),
     ConfigError, r"delay\.mean must be ≤ 1e\+15 rounds, got 1e\+300; .*numpy cannot draw such Poisson"),
    ("a uniform mean too large for numpy", _delayed({"kind": "random", "distribution": "uniform", "mean": 1e19}),
     ConfigError, r"delay\.mean must be ≤ 1e\+15 rounds, got 1e\+19"),
    ("a negative mean", _delayed({"kind": "random", "mean": -1}), ConfigError, r"delay\.mean must be ≥ 0"),
    ("a NaN mean", _delayed({"kind": "random", "mean": float("nan")}), ConfigError, r"delay\.mean must be finite"),
    ("an unknown distribution", _delayed({"kind": "random", "distribution": "pareto"}), UnknownNameError,
     r"delay\.distribution must be one of 'geometric', 'poisson', 'uniform', got 'pareto'"),
    ("an unknown rule", _delayed({"kind": "adaptive", "rule": "spiteful"}), UnknownNameError,
     r"delay\.rule must be one of 'confident'"),
    ("a negative cap", _delayed({"kind": "adaptive", "max_delay": -1}), ConfigError,
     r"delay\.max_delay must be ≥ 0 \(feedback cannot arrive before its round\), got -1"),
    ("a schedule of letters", _delayed({"kind": "schedule", "delays": "abc"}), ConfigTypeError,
     r"delay\.delays\[0\] must be a whole number of rounds ≥ 0, got 'a' \(str\)"),
    ("a schedule too short", _delayed({"kind": "schedule", "delays": [1, 2]}), ConfigError,
     r"delay\.delays lists 2 delays for T = 5 rounds; give one per round"),
    ("a rule returning a float", _delayed(AdaptiveDelay(rule=lambda t, view, m: 0.5)), ConfigError,
     r"the delay the adversary chose for round 1 must be a whole number of rounds"),
    ("a rule returning a negative delay", _delayed(AdaptiveDelay(rule=lambda t, view, m: -3)), ConfigError,
     r"the delay the adversary chose for round 1 must be ≥ 0"),
    ("a delay of the wrong type", _delayed("soon"), ConfigTypeError,
     r"delay must be a whole number of rounds, a dict such as .* got 'soon' \(str\)"),
    ("delay and arrivals", _arriving({"rate": 1.0}, delay=1), ConfigError,
     r"delay and arrivals cannot be combined; pass one of them"),
]

ARRIVALS = [
    ("rate × T would take years", _arriving({"rate": 1e9}, T=10 ** 6), ConfigError,
     r"^this run would take about .* years \(arrivals\.rate × T = 1e\+09 × 1e\+06 = 1e\+15 arrivals, replicates = 1, "
     r"d = 6, 1 learner\); lower arrivals\.rate or T \(simulated time\), or replicates or d$"),
    ("rate 0", _arriving({"rate": 0}), ConfigError, r"arrivals\.rate must be > 0, got 0\.0"),
    ("rate infinite", _arriving({"rate": float("inf")}), ConfigError, r"arrivals\.rate must be finite, got inf"),
    ("rate as a string", _arriving({"rate": "2"}), ConfigTypeError, r"arrivals\.rate must be a number, got '2'"),
    ("a negative service time", _arriving({"rate": 1.0, "service": -1}), ConfigError,
     r"arrivals\.service must be ≥ 0 \(a modelled time\), got -1\.0"),
    ("a service time for another learner", _arriving({"rate": 1.0, "service": {"pca": 1.0}}), ConfigError,
     r"arrivals\.service gives no value for learner 'oja'; add 'oja' to it"),
    ("an unknown take", _arriving({"rate": 1.0, "take": "all"}), UnknownNameError,
     r"arrivals\.take must be one of 'auto', 'queue', 'one', got 'all'"),
    ("a queue of 0", _arriving({"rate": 1.0, "max_queue": 0}), ConfigError, r"arrivals\.max_queue must be >= 1"),
    ("an unknown key", _arriving({"rat": 1.0}), UnknownNameError,
     r"unknown key 'rat' in the arrivals table \(did you mean 'rate'\?\)"),
    ("arrivals of the wrong type", _arriving("fast"), ConfigTypeError,
     r"arrivals must be an onlinelab\.feedback\.arrivals\.Arrivals or a dict"),
]

ROWS = [("delay", *r) for r in DELAYS] + [("arrivals", *r) for r in ARRIVALS]


@pytest.mark.parametrize("call,exc,message", [r[2:] for r in ROWS], ids=[f"{r[0]}: {r[1]}" for r in ROWS])
def test_bad_delays_and_arrivals(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_a_large_but_drawable_mean_withholds_the_feedback_without_error():
    """mean = 1e15 is accepted: every delay is far past T, so no feedback arrives (outstanding = T at the end)."""
    res = ol.simulate("experts-stochastic", [ol.make_learner("omd")], T=6, checkpoints=[6],
                      delay={"kind": "random", "distribution": "poisson", "mean": 1e15})
    assert np.all(np.asarray(res.final("outstanding_feedback"), dtype=float) == 6)
