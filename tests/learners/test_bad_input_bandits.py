"""Bad input to the stochastic bandits (issue 20, item 5): policies and arm environments refuse each row with an
onlinelab.errors exception naming the parameter, the value and the fix; arm counts are sized like any d."""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core import sizes
from onlinelab.errors import ConfigError, DomainError, UnknownNameError
from onlinelab.learners.bandit_simplex import EYE_MAX, one_hot


@pytest.fixture(autouse=True)
def machine_of_64_gb(monkeypatch):
    monkeypatch.setattr(sizes, "available_memory", lambda: 64e9)


TABLE = [
    ("kl-ucb c < 0", lambda: ol.make_learner("kl-ucb", c=-1), ConfigError,
     r"c must be >= 0 \(the weight of ln ln t in kl-ucb's exploration ln t \+ c ln ln t\), got -1\.0"),
    ("thompson family", lambda: ol.make_learner("thompson", family="poisson"), UnknownNameError,
     r"family must be one of 'bernoulli', 'gaussian', got 'poisson'"),
    ("thompson sigma 0", lambda: ol.make_learner("thompson", family="gaussian", sigma=0), ConfigError,
     r"sigma must be > 0 \(the standard deviation of thompson's Gaussian rewards\), got 0\.0"),
    ("epsilon-greedy c < 0", lambda: ol.make_learner("epsilon-greedy", c=-1), ConfigError,
     r"c must be > 0 \(epsilon-greedy explores with probability min\(1, cK/\(d²t\)\)\), got -1\.0"),
    ("d-ucb discount > 1", lambda: ol.make_learner("d-ucb", discount=1.5), ConfigError,
     r"discount must lie in \(0, 1\] .* got 1\.5"),
    ("sw-ucb window 0", lambda: ol.make_learner("sw-ucb", window=0), ConfigError, r"window must be >= 1 .* got 0"),
    ("exp3-ix gamma < 0", lambda: ol.make_learner("exp3-ix", gamma=-1), ConfigError, r"gamma must be > 0, got -1\.0"),
    ("an unknown parameter", lambda: ol.make_learner("thompson", prior="beta"), UnknownNameError,
     r"learner 'thompson' has no parameter 'prior' \(choose one of: family, sigma\)"),
    ("a Bernoulli mean above 1", lambda: ol.make_environment("bernoulli-arms", means=[1.5, 0.2]), ConfigError,
     r"means\[0\] = 1\.5 is outside \[0, 1\]: a Bernoulli arm's mean is a probability"),
    ("one arm", lambda: ol.make_environment("bernoulli-arms", means=[0.5]), ConfigError,
     r"means must list at least 2 arms, got \[0\.5\]"),
    ("a NaN mean", lambda: ol.make_environment("bernoulli-arms", means=[0.1, float("nan")]), ConfigError,
     r"means\[1\] must be finite, got nan"),
    ("an unknown instance", lambda: ol.make_environment("bernoulli-arms", means="abc"), UnknownNameError,
     r"means must be a list of arm means in \[0, 1\] or the name of an instance \(classic, "),
    ("a negative sigma", lambda: ol.make_environment("gaussian-arms", sigma=-1), ConfigError,
     r"sigma must be > 0 \(the standard deviation of every arm's Gaussian rewards\), got -1\.0"),
    ("change points out of order", lambda: ol.simulate(ol.make_environment("piecewise-arms", changes=[3, 2]),
                                                       [ol.make_learner("ucb1")], T=5),
     ConfigError, r"changes = \[3, 2\] must be strictly increasing"),
    ("10¹⁰ adversarial arms", lambda: ol.make_environment("adversarial-arms", d=10 ** 10), ConfigError,
     r"d = 10000000000 is too large: one replicate of one learner already needs about 720 GB \(vectors of length "
     r"10000000000\), more than this machine's 64 GB; lower d"),
    ("a bandit policy on matrix losses", lambda: ol.simulate("spiked-covariance", [ol.make_learner("ucb1")], T=5),
     DomainError, r"learner 'ucb1' plays the simplex \(vector losses\) but environment 'spiked-covariance' emits "
                  r"matrix losses"),
]


@pytest.mark.parametrize("call,exc,message", [row[1:] for row in TABLE], ids=[row[0] for row in TABLE])
def test_bad_input_to_the_bandits(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def test_one_hot_beyond_the_cached_identity_gives_the_same_rows():
    """More than EYE_MAX arms: the rows are written directly (a K × K identity of 10⁶ arms is 8 TB)."""
    arm = np.array([0, 7, EYE_MAX, EYE_MAX + 4])
    K = EYE_MAX + 5
    expected = np.zeros((4, K))
    expected[np.arange(4), arm] = 1.0
    assert np.array_equal(one_hot(arm, K), expected)
    assert np.array_equal(one_hot(arm[:2], 8), np.eye(8)[arm[:2]])
