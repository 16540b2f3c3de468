"""Every registered learner and environment passes the conformance checks (river-style generic suite).

Each environment is played by its reference learner (class attribute ``reference_learner``, else
one for its domain) and each learner against its reference environment (``reference_environment``,
else ``spiked-covariance``); see :mod:`onlinelab.checks`.
"""
import pytest

import onlinelab as ol
from onlinelab.checks import check_environment, check_learner


DETERMINISTIC = {"ftl-alternating"}  # a fixed sequence by definition: its losses may ignore the seed


@pytest.mark.parametrize("name", ol.environment_names())
def test_every_environment_conforms(name):
    passed = check_environment(name, T=12)
    assert {"parameters", "pickle", "run", "deterministic"} <= set(passed)
    expected = "losses do not depend on the seed" if name in DETERMINISTIC else "seed changes the losses"
    assert expected in passed


@pytest.mark.parametrize("name", ol.learner_names())
def test_every_learner_conforms(name):
    assert "update leaves its input state untouched" in check_learner(name, T=12)
