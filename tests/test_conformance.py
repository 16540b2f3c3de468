"""Every registered learner and environment passes the conformance checks (river-style generic suite).

Each environment is played by its reference learner (class attribute ``reference_learner``, else
one for its domain) and each learner against its reference environment (``reference_environment``,
else ``spiked-covariance``); see :mod:`onlinelab.checks`.
"""
import pytest

import onlinelab as ol
from onlinelab.checks import check_environment, check_learner


@pytest.mark.parametrize("name", ol.environment_names())
def test_every_environment_conforms(name):
    assert "deterministic" in check_environment(name, T=12)


@pytest.mark.parametrize("name", ol.learner_names())
def test_every_learner_conforms(name):
    assert "update leaves its input state untouched" in check_learner(name, T=12)
