"""The conformance checkers catch what they promise to catch, and the built-ins pass them."""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab import cli
from onlinelab.core.registry import environment_class
from onlinelab.errors import CheckError
from onlinelab.experiment.checks import check_environment, check_learner
from onlinelab.learners import MEG
from onlinelab.learners.mirror_descent import FTRL


@pytest.mark.parametrize("params", [{"sampler": "dense"}, {"sampler": "sparse"}, {"sampler": None}])
def test_logdet_conforms(params):
    assert "update leaves its input state untouched" in check_learner(ol.make_learner("logdet-omd", **params), T=12)


class Unseeded(ol.Environment):
    def emit(self, t, history):
        x = np.random.default_rng().standard_normal((self.replicates, self.d))
        return ol.FactoredLoss(x / np.linalg.norm(x, axis=1, keepdims=True))


class Scribbler(ol.Environment):
    adaptive = True

    def emit(self, t, history):
        history.mixed.lam[:, 0] += 0.1
        return ol.FactoredLoss(history.mixed.top_vector(), coef=1.0)


class InPlace(MEG):
    def update(self, state, play, feedback, rng):
        state.H[...] -= state.eta * feedback.loss.dense()
        return state


class Skewed(FTRL):
    """FTRL whose blocks record plays 1e-12 off the ones act() makes: a broken play_block."""

    def play_block(self, state, block, rng=None):
        out = super().play_block(state, block, rng)
        return None if out is None else (out[0], out[1] + 1e-12)


@pytest.mark.parametrize("name", ["exp3", "exp3-auer", "logbarrier-bandit", "ftrl"])
def test_block_players_conform(name):
    assert "play_block equals act/update" in check_learner(name, "adversarial-arms", T=40)


class RoundByRound(environment_class("experts-stochastic")):
    """experts-stochastic with its emit overridden: it plays round by round (no emit_block of its own)."""

    def emit(self, t, history):
        return super().emit(t, history)


class Declining(FTRL):
    """FTRL whose play_block declines every block."""

    def play_block(self, state, block, rng=None):
        return None


@pytest.mark.parametrize("learner, env", [(Declining(regularizer="entropy"), "adversarial-arms"),  # declines all
                                          (FTRL(), "spiked-covariance"),        # FTRL declines spectral domains
                                          (FTRL(regularizer="entropy"), RoundByRound()),   # emit overridden
                                          (FTRL(regularizer="entropy"), "adaptive-arms")])        # adaptive
def test_the_play_block_check_is_reported_only_when_a_block_was_played_whole(learner, env):
    passed = check_learner(learner, env, T=40)
    assert "play_block equals act/update" not in passed and "update leaves its input state untouched" in passed


def test_a_play_block_that_differs_from_its_rounds_is_caught():
    with pytest.raises(CheckError,
                       match=r"Skewed.play_block: a run in blocks differs from the same run round by round"):
        check_learner(Skewed(regularizer="entropy"), "adversarial-arms", T=40)


def test_unseeded_randomness_is_caught():
    with pytest.raises(CheckError, match="the same seed gave different metrics; draw randomness only from self.rng"):
        check_environment(Unseeded(d=3), T=5)


def test_parameters_not_stored_are_caught():
    class Forgetful(ol.Environment):
        def __init__(self, d: int = 3, scale: float = 1.0):
            super().__init__(d=d)

        def emit(self, t, history):
            return ol.FactoredLoss(np.ones((self.replicates, self.d)) / np.sqrt(self.d))

    with pytest.raises(CheckError, match="missing: scale"):
        check_environment(Forgetful(), T=3)


def test_writing_into_the_mixed_strategy_is_caught():
    with pytest.raises(CheckError, match="a 5-round run failed: .*wrote into its history in round 1 .*read-only"):
        check_environment(Scribbler(d=3), T=5)


def test_a_learner_that_mutates_its_state_is_caught():
    with pytest.raises(CheckError, match="update modified its input state in round 1"):
        check_learner(InPlace(), T=5)


def test_cli_check(capsys):
    assert cli.main(["check", "env", "switching", "--rounds", "8"]) == 0
    assert "all 7 checks passed" in capsys.readouterr().out
    assert cli.main(["check", "learner", "nope"]) == 2
