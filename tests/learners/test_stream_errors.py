"""Bad input to the streaming learners and environments: each a clear onlinelab.errors exception."""
import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core.protocol import Context, Feedback
from onlinelab.core.rng import BatchRNG
from onlinelab.errors import ConfigError, LossError
from onlinelab.learners.streaming_gradient_pca import gradient_pca
from onlinelab.losses.streaming import SampleLoss

STREAM_LEARNERS = ["oja", "gradient-pca", "linear-ae", "tanh-ae", "denoising-ae", "batch-pca", "incremental-pca"]


@pytest.mark.parametrize("name", STREAM_LEARNERS)
def test_k_not_below_d_is_rejected(name):
    env = ol.make_environment("spiked-stream", d=5, k=2)
    with pytest.raises(ConfigError, match=r"k must be < d = 5 \(a proper subspace\), got k = 5"):
        ol.simulate(env, [ol.make_learner(name, k=5)], T=2)


def test_environment_k_not_below_d_is_rejected():
    with pytest.raises(ConfigError, match="k must be < d = 4"):
        ol.make_environment("spiked-stream", d=4, k=4)


@pytest.mark.parametrize("name", STREAM_LEARNERS + ["krasulina"])
def test_non_finite_sample_is_rejected(name):
    lrn = ol.make_learner(name) if name == "krasulina" else ol.make_learner(name, k=1)
    rng = BatchRNG.from_seed(0, "learner", "x", 1)
    state = lrn.init(Context(d=4, T=5, replicates=1), rng)
    X = np.ones((1, 4, 2))
    X[0, 2, 1] = np.nan
    with pytest.raises(LossError, match=r"non-finite value nan at index \(0, 2, 1\)"):
        lrn.update(state, lrn.act(state, rng), Feedback("full", loss=SampleLoss(X)), rng)


def test_non_finite_sample_caught_by_the_simulator_with_round_number():
    class Bad(ol.Environment):
        loss_bound = float("inf")

        def emit(self, t, history):
            X = np.ones((self.replicates, self.d))
            if t == 3:
                X[:, 0] = np.inf
            return SampleLoss(X)
    with pytest.raises(LossError, match="round 3"):
        ol.simulate(Bad(d=3), [ol.make_learner("oja")], T=5)


def test_non_finite_data_matrix_is_rejected():
    X = np.ones((4, 10))
    X[1, 1] = np.inf
    with pytest.raises(LossError, match="non-finite"):
        gradient_pca(X, k=2)


def test_data_set_with_fewer_samples_than_k_is_rejected():
    with pytest.raises(ConfigError, match="the data set has 3 samples, fewer than k = 5"):
        gradient_pca(np.ones((10, 3)), k=5)
    with pytest.raises(ConfigError, match="the data set has 4 samples, too few for k = 5 components"):
        ol.make_environment("digits-stream", k=5, n_samples=4)


@pytest.mark.parametrize("params,match", [
    ({"step": 0.0}, "step must be > 0, got 0.0"),
    ({"step": -1.0}, "step must be > 0, got -1.0"),
    ({"t0": -2.0}, "t0 must be > -1"),
    ({"schedule": "inverse_sqrtt"}, "did you mean 'inverse_sqrt'"),
    ({"step": float("nan")}, "step must be finite"),
])
@pytest.mark.parametrize("name", ["oja", "krasulina", "gradient-pca", "linear-ae", "tanh-ae", "denoising-ae", "sgd"])
def test_non_positive_step_schedule_is_rejected(name, params, match):
    with pytest.raises(ConfigError, match=match):
        ol.make_learner(name, **params)


def test_other_bad_hyper_parameters():
    with pytest.raises(ConfigError, match="qr must be one of"):
        ol.make_learner("oja", qr="sometimes")
    with pytest.raises(ConfigError, match="batch_size must be >= k = 5"):
        ol.make_learner("incremental-pca", k=5, batch_size=3)
    with pytest.raises(ConfigError, match="spikes\\[1\\] = 0.5 must exceed noise"):
        ol.make_environment("spiked-stream", d=5, k=2, spikes=[3.0, 0.5])
    with pytest.raises(ConfigError, match="2k <= d"):
        ol.make_environment("rotating-subspace", d=5, k=3)
    with pytest.raises(ConfigError, match="t must be < the number of points"):
        from onlinelab.geometry.subspace_metrics import t_similarity
        t_similarity(np.ones((5, 2)), np.ones((5, 1)), t=5)
