"""Bad input: each case raises an onlinelab.errors exception that names the field
(or environment and round) and the fix."""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core.blocks import LossBlock
from onlinelab.environments.arms import AdversarialArms
from onlinelab.errors import ConfigError, ConfigTypeError, LossError, OnlinelabError, UnknownNameError
from onlinelab.experiment import config as C
from onlinelab.losses.vector import LinearLoss


def _cfg(**run):
    return {"run": {"rounds": 10, **run}, "environments": [{"name": "spiked-covariance", "d": 4}],
            "learners": [{"name": "meg"}]}


def test_unknown_config_key_suggests_the_right_one():
    with pytest.raises(UnknownNameError, match=r"unknown key 'roudns' in \[run\] \(did you mean 'rounds'\?\)"):
        C.parse(_cfg(roudns=5))


def test_unknown_top_level_table():
    data = _cfg()
    data["learner"] = data.pop("learners")
    with pytest.raises(UnknownNameError,
                       match=r"unknown key 'learner' in the config's top level \(did you mean 'learners'\?\)"):
        C.parse(data)


def test_unknown_learner_parameter():
    data = _cfg()
    data["learners"] = [{"name": "logdet-omd", "sampler": "dense", "etta": 0.1}]
    with pytest.raises(UnknownNameError, match=r"unknown key 'etta' .*logdet-omd.* \(did you mean 'eta'\?\)"):
        C.parse(data)


def test_wrong_type_names_field_and_fix():
    with pytest.raises(ConfigTypeError,
                       match=r"run\.rounds must be an integer, got '100' \(str\); write a whole number"):
        C.parse(_cfg(rounds="100"))
    with pytest.raises(ConfigTypeError,
                       match=r"run\.replicates must be an integer, got 2\.0 \(float\); write run\.replicates = 2"):
        C.parse(_cfg(replicates=2.0))


def test_eta_must_be_positive():
    with pytest.raises(ConfigError, match=r"eta must be > 0, got -0\.1"):
        ol.make_learner("logdet-omd", eta=-0.1)
    with pytest.raises(ConfigError, match=r"eta must be > 0, got 0\.0"):
        ol.make_learner("meg", eta=0.0)


def test_gamma_must_lie_in_the_unit_interval():
    with pytest.raises(ConfigError, match=r"gamma must lie in \[0, 1\], got 1\.5"):
        ol.make_learner("logdet-omd", gamma=1.5)


def test_dimension_at_least_two():
    with pytest.raises(ConfigError, match=r"d must be >= 2, got 1"):
        ol.make_environment("spiked-covariance", d=1)


def test_horizon_at_least_one():
    with pytest.raises(ConfigError, match=r"T must be >= 1, got 0"):
        ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=0)
    with pytest.raises(ConfigError, match=r"run\.rounds must be >= 1, got 0"):
        C.parse(_cfg(rounds=0))


def test_unknown_names_suggest_close_ones():
    with pytest.raises(UnknownNameError, match=r"unknown learner 'logdet-omb' \(did you mean 'logdet-omd'\?\)"):
        ol.make_learner("logdet-omb")
    with pytest.raises(UnknownNameError,
                       match=r"unknown environment 'spiked-covariace' \(did you mean 'spiked-covariance'\?\)"):
        ol.make_environment("spiked-covariace")
    with pytest.raises(UnknownNameError, match=r"sampler must be one of 'dense', 'sparse', 'full', got 'sprase' "
                                               r"\(did you mean 'sparse'\?\)"):
        ol.make_learner("logdet-omd", sampler="sprase")


def _emitting(matrix_fn, psd=None, bound=1.0):
    class Env(ol.Environment):
        name = "bad-env"

        def emit(self, t, history):
            return matrix_fn(t, self.replicates, self.d)

    Env.psd, Env.loss_bound = psd, bound
    return Env(d=3)


def _at_round(k, bad, good=lambda R, d: ol.DenseLoss(np.broadcast_to(np.eye(d) / 2, (R, d, d)))):
    return lambda t, R, d: bad(R, d) if t == k else good(R, d)


def test_non_symmetric_loss_names_environment_and_round():
    def bad(R, d):
        m = np.zeros((R, d, d))
        m[:, 0, 1] = 0.5
        return ol.DenseLoss(m)

    with pytest.raises(LossError,
                       match=r"environment 'bad-env\(d=3\)', round 4: loss is not symmetric .*emit \(L \+ Lᵀ\)/2"):
        ol.simulate(_emitting(_at_round(4, bad)), [ol.make_learner("meg")], T=10)


def test_non_finite_loss():
    def bad(R, d):
        m = np.zeros((R, d, d))
        m[:, 1, 1] = np.nan
        return ol.DenseLoss(m)

    with pytest.raises(LossError, match=r"environment 'bad-env\(d=3\)', round 2: loss has non-finite entries"):
        ol.simulate(_emitting(_at_round(2, bad)), [ol.make_learner("meg")], T=10)


def test_loss_of_the_wrong_shape():
    bad = lambda R, d: ol.FactoredLoss(np.ones((R, d + 1)) / 3, coef=1.0)  # noqa: E731
    with pytest.raises(LossError, match=r"round 1: loss has shape \(replicates, d\) = \(2, 4\), expected \(2, 3\)"):
        ol.simulate(_emitting(_at_round(1, bad)), [ol.make_learner("meg")], T=10, replicates=2)


def test_loss_above_the_declared_norm_bound():
    bad = lambda R, d: ol.FactoredLoss(np.full((R, d), 0.8), coef=1.0)  # ‖L‖₂ = 3·0.64 = 1.92  # noqa: E731
    with pytest.raises(LossError, match=r"round 3: ‖L‖₂ = 1\.92 in replicate 0 exceeds the declared bound 1; "
                                        r"scale the loss down or declare loss_bound = 1\.92"):
        ol.simulate(_emitting(_at_round(3, bad)), [ol.make_learner("meg")], T=10)


def test_loss_of_the_wrong_sign():
    bad = lambda R, d: ol.FactoredLoss(np.full((R, d), 0.5), coef=-1.0)  # noqa: E731
    with pytest.raises(LossError, match=r"round 5: the environment declares positive semi-definite losses"):
        ol.simulate(_emitting(_at_round(5, bad), psd=True), [ol.make_learner("meg")], T=10)


class _NegativeArm(AdversarialArms):
    """Arm 2 of replicate 1 costs −0.5 in round ``bad_round`` (psd = True declares every loss ≥ 0)."""

    bad_round = 37

    def _negative(self, G, t):
        if t == self.bad_round:
            G[1, 2] = -0.5
        return G

    def emit(self, t, history):
        loss = super().emit(t, history)
        return LinearLoss(self._negative(loss.G.copy(), t), loss.domain)

    def emit_block(self, t, n):
        rounds = super().emit_block(t, n).rounds
        rows = np.stack([self._negative(loss.G.copy(), t + i) for i, loss in enumerate(rounds)])
        return LossBlock.of_rows(LinearLoss, rows, domain=self._simplex)


@pytest.mark.parametrize("blocks", [True, False])
def test_a_vector_loss_of_the_wrong_sign_names_round_replicate_and_entry(blocks):
    per_round = type("PerRound", (_NegativeArm,), {"emit_block": ol.Environment.emit_block})
    env = _NegativeArm(d=4) if blocks else per_round(d=4)
    with pytest.raises(LossError, match=r"round 37: loss entry ℓ\[2\] = -0\.5 in replicate 1 is negative, but the "
                                        r"environment declares psd = True .* or declare psd = None"):
        ol.simulate(env, [ol.make_learner("exp3")], T=50, replicates=2)
    undeclared = type("Unsigned", (_NegativeArm,), {"psd": None})(d=4)
    ol.simulate(undeclared, [ol.make_learner("ftrl")], T=50, replicates=2)    # no declared sign: accepted


def test_a_non_finite_parameter_suggests_a_finite_one():
    with pytest.raises(ConfigError,
                       match=r"gamma must be finite, got nan; pass an ordinary number, e\.g\. gamma = 0\.1"):
        ol.make_learner("exp3-auer", gamma=float("nan"))


def test_errors_share_one_hierarchy_and_builtin_bases():
    for exc in (ConfigError, ConfigTypeError, UnknownNameError, LossError):
        assert issubclass(exc, OnlinelabError)
    assert issubclass(ConfigError, ValueError) and issubclass(UnknownNameError, KeyError)
    assert str(UnknownNameError("plain message")) == "plain message"


def test_learners_must_be_learners_or_registered_names():
    res = ol.simulate("spiked-covariance", ["meg"], T=5)        # a name is built with its defaults, as documented
    assert list(res.learners) == ["meg"]
    with pytest.raises(ConfigError, match=r"unknown learner 'mge' \(did you mean 'meg'\?\)"):
        ol.simulate("spiked-covariance", ["mge"], T=5)
    with pytest.raises(ConfigError, match=r"learners must be onlinelab\.Learner instances, got 3 \(int\)"):
        ol.simulate("spiked-covariance", [3], T=5)


def test_learner_and_environment_domains_must_match():
    from onlinelab.errors import DomainError
    with pytest.raises(DomainError, match=r"^learner 'sgd' plays unconstrained vectors in ℝⁿ \(vector losses\) but "
                       r"environment 'spiked-covariance' emits matrix losses on the spectraplex; learners that fit: "
                       r"batch-pca, bestresp\+, delay-copies, denoising-ae, ftl, "):
        ol.simulate("spiked-covariance", [ol.make_learner("sgd")], T=5)
