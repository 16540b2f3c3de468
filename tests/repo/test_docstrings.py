"""Every public learner, environment and entry-point function documents its parameters (numpydoc).

The API reference (docs/api/, rendered by mkdocstrings with the numpy style) shows these sections;
a parameter missing from its docstring is a parameter a user cannot look up.
"""
import inspect
import re

import pytest

import onlinelab as ol
from onlinelab import bounds
from onlinelab.core import registry, rng
from onlinelab.core.registry import environment_class, learner_class
from onlinelab.experiment import checks
from onlinelab.games import game, recoveries
from onlinelab.geometry import mirror, specs, subspace_metrics
from onlinelab.learners import streaming_base as streaming
from onlinelab.losses import fenchel
from onlinelab.losses.projection import ProjectionLoss
from onlinelab.losses.streaming import SampleLoss
from onlinelab.losses.vector import LinearLoss, QuadraticLoss, quadratic_argmin
from onlinelab.runs import storage


def documented_parameters(obj) -> set[str]:
    """Names listed in the numpydoc Parameters section of ``obj``'s docstring."""
    doc = inspect.getdoc(obj) or ""
    match = re.search(r"^Parameters\n-{10,}\n(.*?)(?=^\S[^\n]*\n-{3,}\n|\Z)", doc, flags=re.S | re.M)
    if not match:
        return set()
    names = set()
    for line in match.group(1).splitlines():
        head = re.match(r"^(\*{0,2}[A-Za-z_][\w, *]*?)\s*(?::|$)", line)
        if head and not line.startswith(" "):
            names.update(n.strip().lstrip("*") for n in head.group(1).split(","))
    return names


def parameters_of(func) -> set[str]:
    return {p for p in inspect.signature(func).parameters if p not in ("self", "cls")}


CLASSES = [("learner", n) for n in ol.learner_names()] + [("environment", n) for n in ol.environment_names()]


@pytest.mark.parametrize("kind, name", CLASSES, ids=[f"{k}:{n}" for k, n in CLASSES])
def test_registered_classes_document_every_init_parameter(kind, name):
    cls = learner_class(name) if kind == "learner" else environment_class(name)
    if not cls.__module__.startswith("onlinelab"):
        pytest.skip(f"{cls.__module__} is not part of onlinelab")   # a plugin registered by another test
    missing = parameters_of(cls.__init__) - documented_parameters(cls)
    assert not missing, f"{cls.__module__}.{cls.__qualname__}: Parameters section lacks {sorted(missing)}"


FUNCTIONS = [ol.simulate, ol.load_run, storage.save_run, ol.Result, ol.Result.final, ol.Result.curve,
             ol.Result.save, registry.make_learner, registry.make_environment, registry.register_learner,
             registry.register_environment, checks.check_environment, checks.check_learner, game.play_game,
             recoveries.play_recovery, recoveries.make_recovery, *recoveries.RECOVERIES.values(),
             specs.make_domain, ol.DenseLoss, ol.FactoredLoss, ol.Context, ol.EigenPlay, ol.Play, ol.Feedback,
             ol.HistoryView, rng.BatchRNG, rng.BatchRNG.random, rng.BatchRNG.normal, rng.BatchRNG.signs,
             rng.BatchRNG.categorical, ol.Environment, ol.Environment.reset, ol.Environment.emit,
             ol.Environment.checkpoint_metrics, ol.Learner.init, ol.Learner.act, ol.Learner.update,
             ol.Learner.resolved_params, ol.Learner.bounds, ol.Learner.diagnostics, bounds.Bound, bounds.LossStats,
             LinearLoss, QuadraticLoss, SampleLoss, ProjectionLoss, quadratic_argmin, streaming.fit,
             streaming.StepSchedule, fenchel.Quadratic, fenchel.NormDistance, fenchel.SquaredDistance,
             subspace_metrics.sin2_theta, subspace_metrics.t_similarity, subspace_metrics.pca_basis,
             mirror.get_mirror, mirror.mirror_solve]


@pytest.mark.parametrize("func", FUNCTIONS, ids=lambda f: f.__qualname__)
def test_public_functions_document_every_parameter(func):
    target = func.__init__ if inspect.isclass(func) else func
    missing = parameters_of(target) - documented_parameters(func)
    assert not missing, f"{func.__module__}.{func.__qualname__}: Parameters section lacks {sorted(missing)}"


def test_the_parser_reads_numpydoc():
    def f(a, b, *args, c=1, **params):
        """Do it.

        Parameters
        ----------
        a, b : int
            Two.
        *args
            More.
        c : int, default 1
            See ``a``.
        **params
            Rest.

        Returns
        -------
        x : int
        """
    assert documented_parameters(f) == {"a", "b", "args", "c", "params"} == parameters_of(f)
