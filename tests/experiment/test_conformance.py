"""Every registered learner and environment passes the conformance checks (river-style generic suite).

Each environment is played by its reference learner (class attribute ``reference_learner``, else
one for its domain) and each learner against the partner `partner_environment` picks
(``reference_environment`` if it fits, else ``spiked-covariance``, else the first registered environment
that fits); see `onlinelab.experiment.checks`.
"""
import pytest

import onlinelab as ol
from onlinelab.core.registry import environment_class, learner_class
from onlinelab.experiment.checks import check_environment, check_learner


def _builtin(names, cls_of):
    """Names registered by the library itself (tests register deliberately broken learners of their own)."""
    return [n for n in names if cls_of(n).__module__.split(".")[0] in ("onlinelab",)]


DETERMINISTIC = {"ftl-alternating",   # a fixed sequence by definition: its losses may ignore the seed
                 "sign-chaser",       # a deterministic function of the learner's play
                 "split-chaser"}      # likewise (its reference learner, Hedge, draws nothing)
# Bernoulli arms' best cumulative loss is a small integer that two seeds often share for a dozen rounds
ROUNDS = {"bernoulli-arms": 30}


@pytest.mark.parametrize("name", _builtin(ol.environment_names(), environment_class))
def test_every_environment_conforms(name):
    passed = check_environment(name, T=ROUNDS.get(name, 12))
    assert {"parameters", "pickle", "run", "deterministic"} <= set(passed)
    expected = "losses do not depend on the seed" if name in DETERMINISTIC else "seed changes the losses"
    assert expected in passed


@pytest.mark.parametrize("name", _builtin(ol.learner_names(), learner_class))
def test_every_learner_conforms(name):
    assert "update leaves its input state untouched" in check_learner(name, T=12)
