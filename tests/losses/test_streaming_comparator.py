"""The comparator choice (exact in hindsight / population truth / none) against independent references.

References are computed here from the same samples, replayed from the environment's seed: a plain
loop summing x xᵀ and numpy's eigvalsh of the sum (exact), and Σ ‖Uᵀx‖² with the true basis U (truth).
Tolerance 1e-10 relative: the simulator folds the Gram with syrk in buffers of 512 samples (another
summation order, rounding ~1e-16 per term) and stops its iterative solver at an estimated 1e-11 relative
error (an over-estimate: measured errors are ~1e-13).
"""
import json

import numpy as np
import pytest

import onlinelab as ol
from onlinelab.core.base import label_of
from onlinelab.core.rng import BatchRNG
from onlinelab.errors import ConfigError, UnknownNameError
from onlinelab.geometry import topk
from onlinelab.geometry.topk import top_k_sum
from onlinelab.losses.projection import ProjectionLoss
from onlinelab.losses.streaming import TopKComparator
from tests.resume_check import assert_resume_is_bit_identical

D_BIG, K, BLOCK, T, R = 160, 3, 30, 24, 2   # d ≥ 128: the iterative solver is used


def replay(env, T, R, seed):
    """The sample blocks (T, R, d, b) simulate drew, from the environment's own stream."""
    e = env.clone()
    e.reset(BatchRNG.from_seed(seed, "environment", label_of(env), R), T)
    return np.stack([e.emit(t, None).samples for t in range(1, T + 1)])


def run(comparator, env=None, **kw):
    env = env or ol.make_environment("spiked-stream", d=D_BIG, k=K, block=BLOCK)
    res = ol.simulate(env, [ol.make_learner("oja", k=K, qr="block")], T=T, replicates=R, seed=3,
                      checkpoints=[1, 5, 12, T], comparator=comparator, **kw)
    return env, res


def per_checkpoint(res, metric):
    df = res.metrics[res.metrics.metric == metric]
    return df.pivot(index="t", columns="replicate", values="value")


def test_exact_comparator_is_the_bottom_k_of_the_summed_losses():
    env, res = run("exact")
    X = replay(env, T, R, 3)
    want = {}
    S = np.zeros((R, D_BIG, D_BIG))
    for t in range(1, T + 1):
        for r in range(R):
            S[r] -= X[t - 1, r] @ X[t - 1, r].T / BLOCK
        if t in (1, 5, 12, T):
            want[t] = np.linalg.eigvalsh(S)[:, :K].sum(axis=1)
    got = per_checkpoint(res, "comparator_loss")
    for t, w in want.items():
        np.testing.assert_allclose(got.loc[t].to_numpy(), w, rtol=1e-10)
    cum = per_checkpoint(res, "cumulative_loss").loc[T].to_numpy()
    pooled = cum.mean() - np.linalg.eigvalsh(S.mean(axis=0))[:K].sum()
    assert res.meta["pseudo_regret"][res.environments[0]]["oja(k=3, qr='block')"] == pytest.approx(pooled, rel=1e-10)
    assert res.meta["comparator"] == "exact"


def test_truth_comparator_plays_the_true_subspace_every_round():
    env, res = run("truth")
    X = replay(env, T, R, 3)
    gains = -np.einsum("trdb,dk->trkb", X, env.subspace) ** 2
    want = np.cumsum(gains.sum(axis=(2, 3)) / BLOCK, axis=0)
    got = per_checkpoint(res, "comparator_loss")
    for t in (1, 5, 12, T):
        np.testing.assert_allclose(got.loc[t].to_numpy(), want[t - 1], rtol=1e-12)
    regret = per_checkpoint(res, "regret").loc[T].to_numpy()
    np.testing.assert_allclose(regret, per_checkpoint(res, "cumulative_loss").loc[T].to_numpy() - want[-1], rtol=1e-12)
    # the truth is a fixed play, so it cannot beat the best fixed play in hindsight
    assert np.all(want[-1] >= per_checkpoint(run("exact")[1], "comparator_loss").loc[T].to_numpy() - 1e-9)


def test_none_records_losses_only_and_says_so_in_the_run_directory(tmp_path):
    _, res = run("none")
    assert not {"regret", "realized_regret", "comparator_loss"} & set(res.metrics.metric)
    assert {"cumulative_loss", "sin2_theta"} <= set(res.metrics.metric)
    assert res.bounds().final_bound.isna().all() and not res.violations().size
    cfg = {"run": {"rounds": 6, "replicates": 2, "comparator": "none", "checkpoints": 2},
           "environments": [{"name": "spiked-stream", "d": 6, "k": 2}], "learners": [{"name": "oja", "k": 2}]}
    from onlinelab.experiment.default import run_experiment
    _, path = run_experiment(cfg, out=tmp_path / "run")
    assert json.loads((path / "meta.json").read_text())["comparator"] == "none"
    assert 'comparator = "none"' in (path / "config.toml").read_text()


def test_truth_needs_an_environment_that_knows_it():
    with pytest.raises(ConfigError, match=r"comparator='truth' needs the population optimum of environment "
                                          r"'top-direction', which it does not define \(population_play\)"):
        ol.simulate("top-direction", [ol.make_learner("meg")], T=3, comparator="truth")
    with pytest.raises(UnknownNameError, match=r"comparator must be one of 'exact', 'truth', 'none', got 'exakt'"
                                               r".*did you mean 'exact'"):
        ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=3, comparator="exakt")


@pytest.mark.parametrize("k", [1, 4])
def test_warm_started_top_k_matches_eigvalsh(k, monkeypatch):
    rng = np.random.default_rng(k)
    basis = None
    G = np.zeros((2, 200, 200))
    for _ in range(4):  # a growing Gram matrix, as between checkpoints
        X = rng.standard_normal((2, 200, 150)) * np.r_[6.0, 5.0, 4.0, 3.5, np.ones(196)][None, :, None]
        G += X @ np.swapaxes(X, 1, 2)
        value, basis = top_k_sum(G, k, basis)
        np.testing.assert_allclose(value, np.linalg.eigvalsh(G)[:, -k:].sum(axis=1), rtol=1e-12)
        monkeypatch.setattr(topk, "_dense", None)  # warm calls on a spiked spectrum converge without it
    monkeypatch.undo()
    flat = rng.standard_normal((1, 200, 4000))
    flat = flat @ np.swapaxes(flat, 1, 2)  # no gap: falls back to eigvalsh, still exact
    np.testing.assert_allclose(top_k_sum(flat, k, None)[0], np.linalg.eigvalsh(flat)[:, -k:].sum(axis=1), rtol=1e-12)


def test_mixed_sign_losses_use_the_dense_spectrum():
    rng = np.random.default_rng(0)
    cmp, S = TopKComparator(2, 140, 2), np.zeros((2, 140, 140))
    for _ in range(3):
        loss = ProjectionLoss(rng.standard_normal((2, 140, 3)), coef=np.array([1.0, -0.5, 2.0]), rank=2)
        cmp.add(loss)
        S += loss.dense()
    np.testing.assert_allclose(cmp.value(), np.linalg.eigvalsh(S)[:, :2].sum(axis=1), rtol=1e-12)
    assert cmp.pooled_value() == pytest.approx(np.linalg.eigvalsh(S.mean(axis=0))[:2].sum(), rel=1e-12)


def test_resume_is_bit_identical_with_the_warm_started_comparator(tmp_path):
    cfg_dict = {"run": {"name": "s", "rounds": 20, "replicates": 2, "checkpoints": [3, 8, 14, 20], "seed": 1},
                "environments": [{"name": "spiked-stream", "d": 130, "k": 2, "block": 7}],
                "learners": [{"name": "oja", "k": 2, "qr": "block"}]}
    assert_resume_is_bit_identical(cfg_dict, 11, tmp_path)


def test_statistics_are_summed_only_when_a_bound_reads_them(monkeypatch):
    """Oja declares no bound, so a run of Oja alone never asks a loss for its statistics (‖L‖_F² needs a b × b
    Gram per round); beside MEG, which declares bounds, the statistics are summed and MEG's bound curves are
    the same as in a run of MEG alone."""
    from onlinelab.losses.streaming import SampleLoss
    env = ol.make_environment("spiked-stream", d=12, k=2, block=70)
    calls = []
    original = SampleLoss.statistics
    monkeypatch.setattr(SampleLoss, "statistics", lambda self: calls.append(1) or original(self))
    ol.simulate(env, [ol.make_learner("oja", k=2, qr="block")], T=30, replicates=2, seed=3)
    assert calls == []
    both = ol.simulate(env, {"oja": ol.make_learner("oja", k=2, qr="block"), "meg": ol.make_learner("meg")},
                       T=30, replicates=2, seed=3)
    alone = ol.simulate(env, {"meg": ol.make_learner("meg")}, T=30, replicates=2, seed=3)
    assert calls
    pick = lambda r: r.metrics.query("learner == 'meg' and metric.str.startswith('bound:')").value.to_numpy()  # noqa: E731
    assert pick(alone).size
    np.testing.assert_array_equal(pick(both), pick(alone))
