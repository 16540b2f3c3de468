"""`onlinelab show NAME` works for every registered learner and environment (issue 22)."""
from __future__ import annotations

import warnings

import pytest

from onlinelab.cli.show import show
from onlinelab.core import registry

NAMES = registry.learner_names() + registry.environment_names()


@pytest.mark.parametrize("name", NAMES)
def test_show_describes_every_registered_name(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = show(name)
    assert text.splitlines()[0].startswith(("learner", "environment"))
    assert "object at 0x" not in text and "<property" not in text     # every declaration printed as its value
    assert "no registered environment fits" not in text                # every learner states its bounds somewhere
    assert "parameters (default):" in text and "declares:" in text


def test_a_declaration_that_is_a_property_is_read_from_a_default_instance():
    text = show("logdet-omd")            # feedback depends on the sampler: a property, 'bandit' by default
    assert "feedback         'bandit'" in text
    text = show("delay-copies")          # its reference environment is its inner learner's
    assert "bounds:" in text and "(on '" not in text
