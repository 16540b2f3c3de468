"""Learner/environment pairings are checked from their declarations before round 1 (onlinelab.core.compat)."""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core.compat import learners_that_fit
from onlinelab.core.registry import environment_class
from onlinelab.errors import DomainError


@pytest.fixture(autouse=True)
def builtin_learners_only(monkeypatch):
    """Other tests register learners of their own; the suggestion lists below name the built-in ones."""
    from onlinelab.core import registry
    registry.learner_names()
    builtin = {k: c for k, c in registry._LEARNERS.items() if c.__module__.startswith("onlinelab.")}
    monkeypatch.setattr(registry, "_LEARNERS", builtin)


# on a simplex: the OCO family, the bandit wrappers (exp3, exp3-auer, exp3-ix, logbarrier-bandit) and the stochastic
# bandit policies (theory §10); delay-copies with its default base (omd) fits wherever omd does
OCO_FIT = ("bestresp+, d-thompson, d-ucb, delay-copies, epsilon-greedy, exp3, exp3-auer, exp3-ix, ftl, ftl+, ftrl, "
           "ftrl+, kl-ucb, logbarrier-bandit, moss, omd, omd+, optimistic-ftl, optimistic-ftrl, sw-ucb, thompson, ucb1")


def _never_emitting(name):
    """The registered environment ``name``, whose emit fails the test: a pairing error must come first."""
    class Never(environment_class(name)):
        def emit(self, t, history):
            raise AssertionError(f"emit called in round {t}: the pairing was not checked before round 1")
    Never.name = name
    return Never()


@pytest.mark.parametrize("learner", ["meg", "logdet-omd"])
def test_spectraplex_learners_on_a_vector_environment(learner):
    with pytest.raises(DomainError) as err:
        ol.simulate(_never_emitting("experts-stochastic"), [ol.make_learner(learner)], T=5)
    assert str(err.value) == (f"learner {learner!r} plays the spectraplex (matrix losses) but environment "
                              f"'experts-stochastic' emits vector losses on the simplex; learners that fit: {OCO_FIT}")


def test_oja_on_a_vector_environment():
    with pytest.raises(DomainError) as err:
        ol.simulate(_never_emitting("experts-adversarial"), [ol.make_learner("oja")], T=5)
    assert str(err.value) == ("learner 'oja' plays spectral domains (matrix losses) but environment "
                              f"'experts-adversarial' emits vector losses on the simplex; learners that fit: {OCO_FIT}")


def test_oja_would_climb_positive_losses():
    with pytest.raises(DomainError) as err:
        ol.simulate(_never_emitting("switching"), [ol.make_learner("oja")], T=5)
    assert str(err.value) == (
        "learner 'oja' needs negative semi-definite losses (psd = False) but environment 'switching' declares "
        "positive semi-definite losses (psd = True) (it maximises captured variance, so it would climb these "
        "losses); learners that fit: bestresp+, delay-copies, ftl, ftl+, ftrl, ftrl+, logdet-omd, meg, omd, omd+, "
        "optimistic-ftl, optimistic-ftrl")


def test_meg_on_the_fantope():
    with pytest.raises(DomainError, match=r"^learner 'meg' plays the spectraplex \(matrix losses\) but environment "
                       r"'pca-compression' emits matrix losses on 'fantope:6'; learners that fit: "
                       r"bestresp\+, capped-meg, "):
        ol.simulate(_never_emitting("pca-compression"), [ol.make_learner("meg")], T=5)


def test_prescient_learner_on_an_adaptive_environment():
    with pytest.raises(DomainError, match=r"^learner 'ftl\+' is prescient \(it sees the loss before playing\) but "
                       r"environment 'top-direction' is adaptive; learners that fit: delay-copies, ftl, ftrl, "
                       r"logdet-omd, meg, omd, optimistic-ftl, optimistic-ftrl$"):
        ol.simulate(_never_emitting("top-direction"), [ol.make_learner("ftl+")], T=5)


def test_linear_only_learner_on_non_linear_losses():
    with pytest.raises(DomainError, match=r"^learner 'omd\+' needs the linear oracle of its losses but environment "
                       r"'quadratic-ball' emits losses without it \(loss_offers = \['leader'\]\); learners that fit: "
                       r"bestresp\+, delay-copies, ftl, ftl\+, ftrl, omd, optimistic-ftl, optimistic-ftrl$"):
        ol.simulate(_never_emitting("quadratic-ball"), [ol.make_learner("omd+")], T=5)


def test_step_tuned_from_an_infinite_loss_bound_is_refused():
    with pytest.raises(DomainError, match=r"^ftrl tunes eta from the environment's loss_bound, which is inf \(no bound "
                       r"on the losses\); pass eta=\.\.\. explicitly"):
        ol.simulate(_never_emitting("rotating-subspace"), [ol.make_learner("ftrl")], T=5)


@pytest.mark.parametrize("env", ["experts-stochastic", "spiked-covariance", "quadratic-ball"])
def test_every_learner_said_to_fit_runs(env):
    """The suggestion list is honest: each learner it names plays a few rounds without error."""
    fit = learners_that_fit(ol.make_environment(env))
    assert fit
    res = ol.simulate(env, {n: ol.make_learner(n) for n in fit}, T=3, replicates=1)
    assert set(res.metrics.learner) == set(fit)


def test_undeclared_user_learner_plays_anything():
    class Zero(ol.Learner):
        def init(self, ctx, rng):
            return None

        def act(self, state, rng):
            return ol.Play(np.full((1, 3), 1 / 3))

        def update(self, state, play, feedback, rng):
            return state

    res = ol.simulate(ol.make_environment("experts-stochastic", d=3), {"zero": Zero()}, T=3)
    assert res.final("regret").shape == (1,)
