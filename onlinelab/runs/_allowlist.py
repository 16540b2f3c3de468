"""What a checkpoint may name: the explicit allowlist of classes and functions the decoder rebuilds.

A checkpoint (`onlinelab.runs.checkpoint`) names each object's class as ``"module:qualname"``.  Decoding
looks that string up in the table `allowed` returns and nothing else: it never imports a module a file
names, and never follows attributes from one, so a crafted file cannot reach ``os.system`` through a module
that happens to import ``os`` (docs/guide/sweeps-and-durability.md, "What a checkpoint can name").

The table holds

* `ONLINELAB` — the classes of onlinelab's own loop state (slots, recorders, random streams, learner
  states, domains, mirror maps, losses, delay channels) and `FUNCTIONS`, the module-level functions such
  state keeps.  The list is written out here; ``tests/runs/test_checkpoint_allowlist.py`` checkpoints every
  registered learner and environment and fails, naming the class, when one is missing;
* every registered learner and environment class (`onlinelab.core.registry`);
* for a registered class whose module is not onlinelab's own (a plugin file, an entry-point package), the
  classes and functions defined in that module: loading the plugin was the user's decision to trust it;
* whatever `register_checkpoint_class` was given.

>>> from onlinelab.core.rng import BatchRNG
>>> allowed()["onlinelab.core.rng:BatchRNG"] is BatchRNG
True
>>> "onlinelab.runs.checkpoint:os.system" in allowed()
False
"""
from __future__ import annotations

import importlib
import types

import numpy as np

# onlinelab's own classes that a checkpoint of the regret loop holds (registered learners and environments
# are allowed through the registry and are not repeated here)
ONLINELAB = (
    "onlinelab.core.arm_metrics:ArmMetrics", "onlinelab.core.blocks:LossBlock", "onlinelab.core.metrics:LossTracker",
    "onlinelab.core.metrics:Recorder", "onlinelab.core.protocol:EigenPlay", "onlinelab.core.protocol:Feedback",
    "onlinelab.core.protocol:Play", "onlinelab.core.rng:BatchRNG", "onlinelab.core.rng:_Buffer",
    "onlinelab.core.slot:Slot",
    "onlinelab.feedback.delays:AdaptiveDelay", "onlinelab.feedback.delays:FixedDelay",
    "onlinelab.feedback.delays:RandomDelay", "onlinelab.feedback.delays:ScheduleDelay",
    "onlinelab.feedback.delays:_Channel",
    "onlinelab.geometry.domains:Ball", "onlinelab.geometry.domains:Box", "onlinelab.geometry.domains:CappedSimplex",
    "onlinelab.geometry.domains:Euclidean", "onlinelab.geometry.domains:Simplex",
    "onlinelab.geometry.mirror:EntropyMap", "onlinelab.geometry.mirror:EuclideanMap",
    "onlinelab.geometry.mirror:LogBarrierMap", "onlinelab.geometry.spectral:SpectralDomain",
    "onlinelab.learners.bandit_simplex:BanditState", "onlinelab.learners.capped_meg:CappedMEGState",
    "onlinelab.learners.changing_bandits:DiscountState", "onlinelab.learners.changing_bandits:WindowState",
    "onlinelab.learners.delay_copies:CopiesState", "onlinelab.learners.index_bandits:MOSSState",
    "onlinelab.learners.logdet:LogDetState", "onlinelab.learners.meg:MEGState", "onlinelab.learners.oco_base:Alpha",
    "onlinelab.learners.oco_base:OCOState", "onlinelab.learners.stochastic_base:ArmStats",
    "onlinelab.learners.streaming_autoencoder:AEState", "onlinelab.learners.streaming_batch:BatchPCAState",
    "onlinelab.learners.streaming_batch:IPCAState", "onlinelab.learners.streaming_gradient_pca:GradientPCAState",
    "onlinelab.learners.streaming_oja:KrasulinaState", "onlinelab.learners.streaming_oja:OjaState",
    "onlinelab.learners.streaming_sgd:SGDState",
    "onlinelab.environments.least_squares:LeastSquaresComparator",
    "onlinelab.environments.least_squares:LeastSquaresLoss",
    "onlinelab.losses.data:DataTerms", "onlinelab.losses.datasets:Margin", "onlinelab.losses.datasets:Risk",
    "onlinelab.losses.matrix:DenseLoss", "onlinelab.losses.matrix:FactoredLoss",
    "onlinelab.losses.matrix:SpectralComparator", "onlinelab.losses.projection:ProjectionLoss",
    "onlinelab.losses.streaming:SampleLoss", "onlinelab.losses.streaming:TopKComparator",
    "onlinelab.losses.vector:LeaderComparator", "onlinelab.losses.vector:LinearLoss",
    "onlinelab.losses.vector:LinearTerms", "onlinelab.losses.vector:QuadTerms",
    "onlinelab.losses.vector:QuadraticLoss",
)
# module-level functions that onlinelab's loop state keeps (returned by the decoder, never called by it)
FUNCTIONS = ("onlinelab.losses.vector:_linear_value", "onlinelab.losses.vector:_terms_value")
# numpy's bit generators, the only classes a checkpoint may call with no arguments (to restore a Generator)
BIT_GENERATORS = {f"{c.__module__}:{c.__qualname__}": c
                  for c in (np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64, np.random.MT19937)}

_REGISTERED: dict[str, object] = {}
_BUILTIN: dict[str, object] = {}


def qualified(obj) -> str:
    """``"module:qualname"`` of a class or function: how a checkpoint names it."""
    return f"{obj.__module__}:{obj.__qualname__}"


def _checkpointable(obj) -> bool:
    return isinstance(obj, type) or (isinstance(obj, types.FunctionType) and "<" not in obj.__qualname__)


def register_checkpoint_class(obj):
    """Allow checkpoints to hold instances of the class ``obj`` (or the module-level function ``obj``).

    A plugin calls it for a class its state keeps that its own module does not define (the classes and
    functions of a registered learner's or environment's module are allowed already).  Returns ``obj``, so it
    works as a decorator.

    Parameters
    ----------
    obj : type or function
        A class, or a function defined at the top level of its module.

    Examples
    --------
    >>> from typing import NamedTuple
    >>> @register_checkpoint_class
    ... class MyState(NamedTuple):
    ...     x: float
    >>> qualified(MyState) in allowed()
    True
    """
    from onlinelab.errors import ConfigError
    if not _checkpointable(obj):
        raise ConfigError(f"register_checkpoint_class takes a class or a module-level function, got {obj!r} "
                          f"({type(obj).__name__}); pass the class itself, e.g. register_checkpoint_class(MyState)")
    _REGISTERED[qualified(obj)] = obj
    return obj


def _resolve_builtin(name: str):
    """An entry of this module's own lists, imported by its module (a name written here, never one read from a
    file) and checked to be the class or function of exactly that name."""
    module, _, qual = name.partition(":")
    obj = getattr(importlib.import_module(module), qual)
    if not _checkpointable(obj) or qualified(obj) != name:
        raise RuntimeError(f"onlinelab/runs/_allowlist.py lists {name!r}, which is {obj!r}; fix the list")
    return obj


def _builtins() -> dict[str, object]:
    if not _BUILTIN:
        _BUILTIN.update({name: _resolve_builtin(name) for name in (*ONLINELAB, *FUNCTIONS)})
    return _BUILTIN


def _defined_in(module) -> dict[str, object]:
    """The classes and functions defined at the top level of ``module`` (not those it imports)."""
    return {qualified(obj): obj for obj in vars(module).values()
            if _checkpointable(obj) and obj.__module__ == module.__name__}


def allowed() -> dict[str, object]:
    """Every class and function a checkpoint may name now, ``{"module:qualname": object}``.

    Computed afresh on each call, since registering a learner or loading a plugin extends it.
    """
    import sys

    from onlinelab.core.registry import environment_class, environment_names, learner_class, learner_names
    table = dict(_builtins())
    registered = [learner_class(n) for n in learner_names()] + [environment_class(n) for n in environment_names()]
    for cls in registered:
        module = sys.modules.get(cls.__module__)
        if module is not None and not cls.__module__.startswith("onlinelab."):
            table.update(_defined_in(module))
        table[qualified(cls)] = cls
    table.update(_REGISTERED)
    return table
