"""Wrong guesses about decision sets get errors that name the fix, before any learner updates.

A vector loss needs a domain *object* (the spec string is what an environment declares); an environment whose
round-1 loss lives on another set than the one it declares (none declared: the spectraplex) is refused before
a learner plays an oblivious round or updates on an adaptive one (onlinelab.core.compat.check_declared_domain,
docs/guide/experts.md).
"""
from __future__ import annotations

import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core.blocks import LossBlock, blocks_match_emit
from onlinelab.core.compat import check_declared_domain
from onlinelab.errors import ConfigError, DomainError
from onlinelab.geometry.domains import Ball, Box, CappedSimplex, Simplex
from onlinelab.geometry.specs import make_domain
from onlinelab.losses.vector import LinearLoss, QuadraticLoss


class Counting(ol.Learner):
    """Uniform play on the simplex that counts its calls (to show that nothing was played or updated); it
    declares ``plays = "any"``, as the OCO learners do, so the pairing check lets every declaration through."""

    def __init__(self):
        self.calls = {"act": 0, "update": 0}

    def init(self, ctx, rng):
        return np.full((ctx.replicates, ctx.d), 1.0 / ctx.d)

    def act(self, state, rng):
        self.calls["act"] += 1
        return ol.Play(state)

    def update(self, state, play, feedback, rng):
        self.calls["update"] += 1
        return state


def emitting(make_loss, declared=None, adaptive=False, blocks=False):
    """An environment class whose every round is ``make_loss(env)``, declaring ``declared`` (None: nothing)."""
    body = {"adaptive": adaptive, "emit": lambda self, t, history: make_loss(self)}
    if declared is not None:
        body["domain"] = declared
    if blocks:
        body["emit_block"] = lambda self, t, n: LossBlock.of_rows(
            LinearLoss, np.stack([make_loss(self).G for _ in range(n)]), domain=make_loss(self).domain)
    return type("Emitting", (ol.Environment,), body)


def refused(env_cls, learner=None, **kw):
    learner = learner or Counting()
    with pytest.raises(DomainError) as err:
        ol.simulate(env_cls(d=4), {"counting": learner}, T=5, replicates=2, seed=0, **kw)
    return str(err.value), getattr(learner, "calls", None)


def uniform_on(domain_of):
    """Losses with entries in [0, 0.4): ‖g‖₂ < 0.8 < loss_bound = 1 in d = 4, so only the domain can be wrong."""
    def make(env):
        dom = domain_of(env)
        return LinearLoss(0.4 * env.rng.random(dom.n), dom)
    return make


# --- the loss constructors -----------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [lambda dom: LinearLoss(np.ones((2, 3)), dom),
                                  lambda dom: QuadraticLoss(np.tile(np.eye(3), (2, 1, 1)), np.ones((2, 3)), dom)])
def test_a_string_domain_names_the_object_to_pass(make):
    with pytest.raises(DomainError) as err:
        make("simplex")
    assert isinstance(err.value, ConfigError)
    assert "not the string 'simplex'" in str(err.value) and "make_domain('simplex', 3)" in str(err.value)


def test_a_spectral_or_misfit_domain_is_refused_by_the_loss():
    with pytest.raises(DomainError, match="needs a vector domain object"):
        LinearLoss(np.ones((2, 3)), make_domain("spectraplex", 3))
    with pytest.raises(DomainError, match="has 3 coordinates per replicate but its domain .* has dimension 4"):
        LinearLoss(np.ones((2, 3)), Simplex(4))
    assert LinearLoss(np.ones((2, 3)), make_domain("ball:2", 3)).domain.radius == 2.0


def test_a_string_domain_inside_a_run_is_a_domain_error_not_an_attribute_error():
    message, calls = refused(emitting(lambda env: LinearLoss(env.rng.random(env.d), "simplex"), "simplex"))
    assert "make_domain('simplex', 4)" in message
    assert calls == {"act": 0, "update": 0}


def test_a_domain_object_as_the_declaration_is_refused_when_the_class_is_defined():
    with pytest.raises(DomainError, match="declare its spec string, domain = 'ball:2'"):
        type("Declares", (ol.Environment,), {"domain": Ball(3, radius=2.0)})


def test_a_domain_object_set_on_the_instance_is_refused_before_round_1():
    class SetsItInInit(ol.Environment):
        def __init__(self, d: int = 4):
            super().__init__(d=d)
            self.domain = Simplex(d)

        def emit(self, t, history):
            return LinearLoss(self.rng.random(self.d), self.domain)

    with pytest.raises(DomainError, match="declares domain = Simplex.*declare its spec string, domain = 'simplex'"):
        ol.simulate(SetsItInInit(), [ol.make_learner("ftrl")], T=3)


# --- the round-1 check against the declaration -----------------------------------------------------------------

@pytest.mark.parametrize("adaptive", [False, True], ids=["oblivious", "adaptive"])
def test_an_undeclared_domain_is_refused_before_any_update(adaptive):
    message, calls = refused(emitting(uniform_on(lambda env: Simplex(env.d)), adaptive=adaptive))
    assert "round 1" in message and "declares no domain, so it is taken to be 'spectraplex'" in message
    assert "declare domain = 'simplex' on the class" in message
    # oblivious: the loss is checked before anyone plays; adaptive: it needs the play first, never an update
    assert calls == {"act": int(adaptive), "update": 0}


def test_an_undeclared_domain_is_refused_for_a_spectraplex_learner_too():
    # the pairing check passes (both sides "spectraplex"), so only the round-1 check can tell
    with pytest.raises(DomainError, match="declares no domain"):
        ol.simulate(emitting(uniform_on(lambda env: Simplex(env.d)))(d=4), [ol.make_learner("meg")], T=5)


@pytest.mark.parametrize("declared, domain_of, says", [
    ("simplex", lambda env: Ball(env.d), "emitted a loss on Ball('ball:1', n=4) but declares domain = 'simplex'"),
    ("ball:2", lambda env: Ball(env.d, radius=1.0), "declare domain = 'ball:1'"),
    ("box:-1:1", lambda env: Box(env.d, lo=0.0, hi=1.0), "declares domain = 'box:-1:1'"),
    ("simplex", lambda env: Simplex(env.d + 1), "of dimension 5, but the environment has d = 4"),
])
def test_a_loss_on_another_vector_set_is_refused(declared, domain_of, says):
    message, calls = refused(emitting(uniform_on(domain_of), declared))
    assert says in message and "make_domain(self.domain, self.d)" in message
    assert calls == {"act": 0, "update": 0}


def test_a_matrix_loss_under_a_vector_declaration_is_refused():
    def factored(env):
        x = env.rng.normal(env.d)
        return ol.FactoredLoss(x / np.linalg.norm(x, axis=1, keepdims=True), coef=1.0)
    message, calls = refused(emitting(factored, "simplex"))
    assert "emitted a FactoredLoss (a matrix loss) but declares domain = 'simplex'" in message
    assert calls == {"act": 0, "update": 0}


def test_blocks_of_rounds_are_checked_before_they_are_played():
    env_cls = emitting(uniform_on(lambda env: Ball(env.d)), "simplex", blocks=True)
    assert blocks_match_emit(env_cls)
    message, _ = refused(env_cls, ol.make_learner("ftrl"))   # ftrl plays blocks whole (play_block)
    assert "emitted a loss on Ball('ball:1', n=4)" in message


def test_what_matches_its_declaration_runs():
    env_cls = emitting(uniform_on(lambda env: make_domain(env.domain, env.d)), "ball:1")
    res = ol.simulate(env_cls(d=4), [ol.make_learner("ftrl")], T=5, replicates=2)
    assert np.isfinite(res.final("regret")).all()


def test_the_check_itself_on_each_kind_of_declaration():
    spectraplex, simplex = make_domain("spectraplex", 3), make_domain("simplex", 3)
    dense, linear = ol.DenseLoss(np.eye(3)[None]), LinearLoss(np.ones((1, 3)), Simplex(3))
    check_declared_domain(ol.Environment(d=3), dense, spectraplex, "here")
    check_declared_domain(ol.Environment(d=3), linear, simplex, "here")
    declared = type("Declared", (ol.Environment,), {"domain": "spectraplex"})(d=3)
    with pytest.raises(DomainError, match="^here: emitted a LinearLoss .* declares domain = 'spectraplex'"):
        check_declared_domain(declared, linear, spectraplex, "here")
    untyped = type("Untyped", (), {})()   # a loss of the user's own with no `kind`: nothing to compare
    check_declared_domain(ol.Environment(d=3), untyped, simplex, "here")


# --- Domain.same_set --------------------------------------------------------------------------------------------

def test_same_set_compares_kind_dimension_and_parameters():
    assert make_domain("ball:2", 3).same_set(Ball(3, radius=2))
    assert not Ball(3).same_set(Ball(3, center=[0.0, 0.0, 1.0]))
    assert make_domain("box:-1:2", 3).same_set(Box(3, -1, 2)) and not Box(3).same_set(Box(3, -1, 2))
    assert make_domain("capped-simplex", 3).same_set(CappedSimplex(3))
    assert not CappedSimplex(3, cap=0.5).same_set(CappedSimplex(3))
    assert Simplex(3).same_set(Simplex(3)) and not Simplex(3).same_set(Simplex(4))
    assert not Simplex(3).same_set(CappedSimplex(3)) and not Simplex(3).same_set("simplex")
