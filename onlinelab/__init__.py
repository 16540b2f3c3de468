"""onlinelab: a simulator for online and streaming learning, with regret beside its theoretical bounds.

>>> import onlinelab as ol
>>> res = ol.simulate(ol.make_environment("spiked-covariance", d=4),
...                   [ol.make_learner("logdet-omd", sampler="dense"), ol.make_learner("meg")],
...                   T=100, replicates=2, seed=0)
>>> res.summary()[["learner", "environment"]].shape
(2, 2)
"""
from onlinelab import _builtins, errors
from onlinelab._version import __version__
from onlinelab.core.base import Environment, Learner
from onlinelab.core.protocol import Context, EigenPlay, Feedback, HistoryView, Play
from onlinelab.core.registry import (
    environment_names,
    learner_names,
    make_environment,
    make_learner,
    register_environment,
    register_learner,
    set_builtin_loader,
)
from onlinelab.experiment.sweeps import SweepResult, sweep
from onlinelab.feedback.arrivals import Arrivals
from onlinelab.losses.matrix import DenseLoss, FactoredLoss, MatrixLoss
from onlinelab.runs.load import load_run
from onlinelab.runs.result import Result
from onlinelab.simulation.simulator import simulate

set_builtin_loader(_builtins.load)   # built-ins register on the first lookup, not at import

__all__ = [
    "Arrivals", "Context", "DenseLoss", "EigenPlay", "Environment", "FactoredLoss", "Feedback", "HistoryView",
    "Learner", "MatrixLoss", "Play", "Result", "environment_names", "errors", "learner_names", "load_run",
    "make_environment", "make_learner", "register_environment", "register_learner", "simulate", "sweep", "SweepResult",
    "__version__",
]
