"""`check_learner` without a partner picks an environment the learner can play, and a misfit names ``--with``."""
import pytest

import onlinelab as ol
from onlinelab import cli
from onlinelab.core.compat import mismatch
from onlinelab.core.registry import learner_names
from onlinelab.errors import CheckError
from onlinelab.experiment.checks import check_learner, partner_environment
from onlinelab.learners.bandit_simplex import Exp3

PAIRING_WORDS = ("--with", "learners that fit", "no registered environment")


class PlainExp3(Exp3):
    """A simplex learner that names no reference environment (the old default partner was spectral)."""

    reference_environment = None


@pytest.mark.parametrize("name", learner_names())
def test_every_learner_gets_a_partner_that_fits(name):
    learner = ol.make_learner(name)
    env = partner_environment(learner)
    assert mismatch(learner, env) is None
    try:
        check_learner(learner, T=3, replicates=1)   # tiny T: the pairing, not the learner's statistics, is tested
    except CheckError as exc:                        # a learner-specific failure may remain, never a pairing one
        assert not any(w in str(exc) for w in PAIRING_WORDS), str(exc)


def test_a_simplex_learner_without_reference_gets_a_simplex_partner():
    env = partner_environment(PlainExp3())
    assert env.domain.split(":")[0] == "simplex"
    assert "run" in check_learner(PlainExp3(), T=3, replicates=1)


def test_a_partner_that_does_not_fit_names_with_and_candidates(capsys):
    with pytest.raises(CheckError, match=r"'spiked-covariance'.*--with ENV, e\.g\. .*arms"):
        check_learner("exp3", "spiked-covariance", T=3)
    assert cli.main(["check", "learner", "exp3", "--with", "spiked-covariance", "--rounds", "3"]) == 2
    assert "--with ENV" in capsys.readouterr().err


def test_cli_check_learner_picks_its_partner(capsys):
    assert cli.main(["check", "learner", "ftrl", "--rounds", "3"]) == 0
    assert "checks passed" in capsys.readouterr().out
