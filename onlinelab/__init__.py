"""onlinelab: a simulator for online and streaming learning, with regret beside its theoretical bounds.

>>> import onlinelab as ol
>>> res = ol.simulate(ol.make_environment("spiked-covariance", d=4),
...                   [ol.make_learner("logdet-omd", sampler="dense"), ol.make_learner("meg")],
...                   T=100, replicates=2, seed=0)
>>> res.summary()[["learner", "environment"]].shape
(2, 2)
"""
from . import errors
from .arrivals import Arrivals
from .base import Environment, Learner
from .losses import DenseLoss, FactoredLoss, MatrixLoss
from .protocol import Context, EigenPlay, Feedback, HistoryView, Play
from .registry import (environment_names, learner_names, make_environment, make_learner, register_environment,
                       register_learner)
from .result import Result
from .simulator import simulate
from .storage import load_run
from .sweeps import SweepResult, sweep

__version__ = "0.1.0"

__all__ = [
    "Arrivals", "Context", "DenseLoss", "EigenPlay", "Environment", "FactoredLoss", "Feedback", "HistoryView", "Learner",
    "MatrixLoss", "Play", "Result", "environment_names", "errors", "learner_names", "load_run", "make_environment",
    "make_learner", "register_environment", "register_learner", "simulate", "sweep", "SweepResult", "__version__",
]
