"""Learners and environments follow scikit-learn's parameter protocol: get_params(deep=…), set_params, clone."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.base

from onlinelab.core import registry
from onlinelab.errors import ConfigError

OBJECTS = ([("learner", n) for n in registry.learner_names()]
           + [("environment", n) for n in registry.environment_names()])


def _make(kind, name, **params):
    make = registry.make_learner if kind == "learner" else registry.make_environment
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make(name, **params)


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b))
    return a == b or (a != a and b != b)   # NaN equals NaN here


@pytest.mark.parametrize("kind,name", OBJECTS, ids=[f"{k}:{n}" for k, n in OBJECTS])
def test_sklearn_clone_gives_an_equal_fresh_object(kind, name):
    obj = _make(kind, name)
    twin = sklearn.base.clone(obj)
    assert type(twin) is type(obj) and twin is not obj
    params, cloned = obj.get_params(deep=False), twin.get_params(deep=False)
    assert params.keys() == cloned.keys() == set(type(obj).param_names())
    assert all(_same(params[k], cloned[k]) for k in params), name
    assert obj.get_params(deep=True).keys() >= params.keys()


def test_set_params_rebuilds_through_the_constructor():
    lrn = _make("learner", "meg")
    assert lrn.set_params(eta=0.25) is lrn and lrn.eta == 0.25
    assert sklearn.base.clone(lrn).eta == 0.25
    with pytest.raises(ConfigError, match="eta"):      # the constructor's own check runs
        lrn.set_params(eta=-1.0)
    with pytest.raises(ConfigError, match="no hyper-parameter 'etta'.*did you mean 'eta'"):
        lrn.set_params(etta=0.1)


def test_set_params_on_an_environment_changes_what_it_emits():
    import onlinelab as ol
    env = _make("environment", "bernoulli-arms").set_params(means=[0.0, 1.0, 0.0])
    res = ol.simulate(env, "ucb1", T=30, replicates=2, checkpoints=[30])
    # losses are 1 − reward: arm 1 always pays 1, the others never, so the best arm's cumulative loss is exactly 0
    comp = res.metrics[res.metrics.metric == "comparator_loss"].value.to_numpy()
    np.testing.assert_array_equal(comp, 0.0)
    with pytest.raises(ConfigError, match="means"):
        env.set_params(means=[0.5, 1.5])
