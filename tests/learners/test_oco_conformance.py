"""What the generic suite (tests/experiment/test_conformance.py) does not cover for the OCO family: every OCO learner is
checked on the vector domains too (the generic suite plays only its reference environment, spiked-covariance),
the families are registered, and the weights schedule pickles with its values."""
import pickle

import pytest

import onlinelab as ol
from onlinelab.core.registry import environment_class, environment_names, learner_class, learner_names
from onlinelab.experiment.checks import check_learner
from onlinelab.learners.oco_base import OCOLearner, alpha_schedule

OCO_LEARNERS = sorted(n for n in learner_names() if issubclass(learner_class(n), OCOLearner))
# an OCO environment declares the domain its learners play in (streams of samples declare none)
OCO_ENVIRONMENTS = sorted(n for n in environment_names() if getattr(environment_class(n), "domain", None)
                          and not n.endswith("-stream"))
LINEAR_ONLY = {"ftrl+", "omd+"}          # prescient closed forms exist for linear losses only (theory §3.2)


def test_discovery_finds_the_families():
    assert {"ftl", "ftl+", "bestresp+", "optimistic-ftl", "ftrl", "ftrl+", "omd", "omd+",
            "optimistic-ftrl"} <= set(OCO_LEARNERS)
    assert {"experts-stochastic", "experts-adversarial", "quadratic-ball", "logistic-data", "huber-data",
            "pca-compression"} <= set(OCO_ENVIRONMENTS)


@pytest.mark.parametrize("name", OCO_LEARNERS)
def test_oco_learner_conforms_on_vector_domains(name):
    for env in ["experts-stochastic"] + ([] if name in LINEAR_ONLY else ["quadratic-ball"]):
        passed = check_learner(name, env=env, T=8)
        assert {"pickle", "deterministic", "update leaves its input state untouched"} <= set(passed), env


def test_weights_schedule_pickles_and_keeps_its_values():
    for weights, want in (("constant", [1.0, 1.0]), ("linear", [1.0, 2.0]), (0.5, [0.5, 0.5]),
                          ([3.0, 4.0], [3.0, 4.0])):
        alpha = pickle.loads(pickle.dumps(alpha_schedule(weights)))
        assert [alpha(1), alpha(2)] == want
    lrn = pickle.loads(pickle.dumps(ol.make_learner("omd", weights="linear")))
    assert lrn.alpha(7) == 7.0
