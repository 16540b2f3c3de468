"""The checkpoint allowlist is complete and exact (issue 20): every built-in learner, environment and delay model
checkpoints and decodes through it, every entry is the class or function of exactly its name, and a plugin's
classes join it by registration only.

A durable run checkpoints the whole loop; here every round's loop state of a short run is saved and decoded again,
so a class missing from ``onlinelab/runs/_allowlist.py`` fails with its name.
"""
from __future__ import annotations

import io
import sys
import types
from typing import NamedTuple

import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core import registry
from onlinelab.core.registry import environment_class, learner_class
from onlinelab.errors import ConfigError, StorageError
from onlinelab.experiment.checks import _reference_learner
from onlinelab.runs import _allowlist as A
from onlinelab.runs.checkpoint import load_state, register_checkpoint_class, save_state


class RoundTrip:
    """Durable hooks that save and decode the loop state after every round (never resuming from it)."""

    def __init__(self):
        self.rounds = 0

    def restore(self, env_label):
        return None

    def finished(self, env_label):
        return None

    def env_done(self, env_label, result):
        pass

    def poll(self, t, env_label):
        pass

    def after_round(self, t, env_label, state, rounds=1):
        buf = io.BytesIO()
        save_state(buf, {"env": env_label, "loop": state()})
        back = load_state(io.BytesIO(buf.getvalue()))
        assert back["loop"]["t"] == t
        self.rounds += 1


def _builtin(names, cls_of):
    return [n for n in names if cls_of(n).__module__.startswith("onlinelab.")]


# a scikit-learn IncrementalPCA in the learner's state: no checkpoint without pickle holds it (known, pre-existing)
NOT_CHECKPOINTABLE = {"incremental-pca"}


def _play(env, learner, **kw) -> None:
    hooks = RoundTrip()
    ol.simulate(env, {"probe": learner}, T=8, replicates=2, seed=0, checkpoints=[4, 8], durable=hooks, **kw)
    assert hooks.rounds >= 1


@pytest.mark.parametrize("name", _builtin(ol.learner_names(), learner_class))
def test_every_learner_checkpoints_through_the_allowlist(name):
    learner = ol.make_learner(name)
    env = getattr(type(learner), "reference_environment", None)
    env = env if isinstance(env, str) else getattr(learner, "reference_environment", None) or "spiked-covariance"
    if name in NOT_CHECKPOINTABLE:
        with pytest.raises(StorageError, match="is not on the checkpoint allowlist"):
            _play(ol.make_environment(env), learner)
        return
    _play(ol.make_environment(env), learner)


@pytest.mark.parametrize("name", _builtin(ol.environment_names(), environment_class))
def test_every_environment_checkpoints_through_the_allowlist(name):
    env = ol.make_environment(name)
    _play(env, _reference_learner(env))


@pytest.mark.parametrize("delay", [{"kind": "fixed", "d": 2}, {"kind": "random", "mean": 2},
                                   {"kind": "random", "distribution": "poisson", "mean": 2},
                                   {"kind": "schedule", "delays": [1, 2, 0, 3, 1, 0, 2, 1]},
                                   {"kind": "adaptive", "rule": "confident", "max_delay": 3}])
@pytest.mark.parametrize("learner", ["exp3", "ftrl"])
def test_every_delay_model_checkpoints_through_the_allowlist(delay, learner):
    env = "bernoulli-arms" if learner == "exp3" else "experts-stochastic"
    params = {"regularizer": "entropy"} if learner == "ftrl" else {}
    _play(ol.make_environment(env), ol.make_learner(learner, **params), delay=delay)


@pytest.mark.parametrize("domain", ["simplex", "ball:1", "box:-1:1", "capped-simplex:2:1"])
def test_every_vector_domain_checkpoints_through_the_allowlist(domain):
    _play(ol.make_environment("quadratic-ball"), ol.make_learner("omd", domain=domain))


def test_every_entry_is_exactly_the_class_or_function_it_names():
    table = A.allowed()
    for name in (*A.ONLINELAB, *A.FUNCTIONS):
        obj = table[name]
        assert f"{obj.__module__}:{obj.__qualname__}" == name
        assert isinstance(obj, type) if name in A.ONLINELAB else isinstance(obj, types.FunctionType)
    registered = {A.qualified(c) for c in [learner_class(n) for n in ol.learner_names()]
                  + [environment_class(n) for n in ol.environment_names()]}
    assert not registered & set(A.ONLINELAB), "registered classes are allowed by the registry; do not list them"
    assert len(set(A.ONLINELAB)) == len(A.ONLINELAB)


def test_nothing_outside_the_table_is_reachable_through_a_module():
    table = A.allowed()
    assert all(":" in name and "." not in name.partition(":")[2] for name in table), "no nested attribute paths"
    assert not any(obj in (eval, exec, getattr, __import__) or getattr(obj, "__module__", "") in ("os", "posix",
                   "subprocess", "builtins", "shutil") for obj in table.values())


@pytest.fixture
def own_registry(monkeypatch):
    registry.learner_names()
    monkeypatch.setattr(registry, "_LEARNERS", dict(registry._LEARNERS))
    monkeypatch.setattr(A, "_REGISTERED", dict(A._REGISTERED))


def test_a_plugin_module_vouches_for_what_it_defines_and_only_that(own_registry):
    plugin = types.ModuleType("onlinelab_plugin_probe_0123456789")
    exec("import os\nfrom typing import NamedTuple\nfrom onlinelab.learners.meg import MEG\n"
         "class ProbeState(NamedTuple):\n    w: object\n"
         "def helper(x):\n    return x\n"
         "class Probe(MEG):\n    pass\n", plugin.__dict__)
    sys.modules[plugin.__name__] = plugin
    try:
        name = plugin.__name__
        assert f"{name}:ProbeState" not in A.allowed()
        registry.register_learner("probe-meg")(plugin.Probe)
        table = A.allowed()
        assert table[f"{name}:ProbeState"] is plugin.ProbeState and table[f"{name}:helper"] is plugin.helper
        assert f"{name}:os" not in table and f"{name}:NamedTuple" not in table and f"{name}:MEG" not in table
        state = {"s": plugin.ProbeState(np.arange(3.0)), "f": plugin.helper}
        buf = io.BytesIO()
        save_state(buf, state)
        back = load_state(io.BytesIO(buf.getvalue()))
        assert type(back["s"]) is plugin.ProbeState and back["f"] is plugin.helper
    finally:
        del sys.modules[plugin.__name__]


class Elsewhere(NamedTuple):
    x: float


def test_register_checkpoint_class_admits_a_class_and_refuses_anything_else(own_registry):
    with pytest.raises(StorageError, match=r"its class Elsewhere from module '.*test_checkpoint_allowlist' is not on "
                                           r"the checkpoint allowlist.*register_checkpoint_class\(Elsewhere\)"):
        save_state(io.BytesIO(), Elsewhere(1.0))
    assert register_checkpoint_class(Elsewhere) is Elsewhere
    buf = io.BytesIO()
    save_state(buf, Elsewhere(1.0))
    assert load_state(io.BytesIO(buf.getvalue())) == Elsewhere(1.0)
    for bad in (lambda x: x, "os:system", print, 3):
        with pytest.raises(ConfigError, match="register_checkpoint_class takes a class or a module-level function"):
            register_checkpoint_class(bad)
