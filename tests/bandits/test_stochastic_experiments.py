"""The experiments of theory §10 (onlinelab.bandits.stochastic_experiments): the final table is the replicate mean
with its Student interval and the ratio to Σ Δ/kl·ln T computed here; D counts only the feedback that arrives; the
d = 0 row is the undelayed run."""
import math

import numpy as np
from scipy import stats

import onlinelab as ol
from onlinelab.bandits import stochastic_experiments as X

CLASSIC = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9]


def kl(p, q):
    return p * math.log(p / q) + (1 - p) * math.log((1 - p) / (1 - q))


def test_final_table():
    res = X.classic_comparison(T=400, replicates=5, policies={"UCB1": ("ucb1", {}), "KL-UCB": ("kl-ucb", {})})
    table = X.final_table(res).set_index("learner")
    constant = sum((0.9 - m) / kl(m, 0.9) for m in CLASSIC if m < 0.9)
    for label in ("UCB1", "KL-UCB"):
        v = res.final("pseudo_regret", learner=label).to_numpy()
        half = stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))
        row = table.loc[label]
        assert math.isclose(row.regret, v.mean(), rel_tol=1e-12)
        assert math.isclose(row.ci_high - row.regret, half, rel_tol=1e-9)
        assert math.isclose(row.lai_robbins, constant * math.log(400), rel_tol=1e-12)
        assert math.isclose(row.ratio, v.mean() / (constant * math.log(400)), rel_tol=1e-12)


def test_total_delay_counts_feedback_that_arrives():
    assert X.total_delay(0, 100) == 0
    assert X.total_delay(3, 10) == sum(min(3, 10 - t) for t in range(1, 11)) == 24


def test_delay_zero_row_is_the_undelayed_run():
    df = X.regret_against_total_delay(delays=(0, 7), T=300, replicates=3, policies={"UCB1": ("ucb1", {})})
    plain = ol.simulate("bernoulli-arms", {"UCB1": ol.make_learner("ucb1")}, T=300, replicates=3, checkpoints=[300])
    assert df.regret.iloc[0] == plain.final("pseudo_regret").mean()
    assert df.D.tolist() == [0, X.total_delay(7, 300)] and df.extra.iloc[0] == 0
    assert np.isfinite(df.regret).all()


def test_stochastic_policies_resume_bit_for_bit(tmp_path):
    """A run of the stochastic policies on stochastic arms, stopped mid-run and resumed, equals the run unstopped
    (their states, the per-arm metrics and the piecewise environment all survive the checkpoint)."""
    from tests.resume_check import assert_resume_is_bit_identical
    cfg_dict = {"run": {"name": "sb", "rounds": 120, "replicates": 2, "checkpoints": [10, 40, 90, 120], "seed": 3},
                "environments": [{"name": "piecewise-arms", "changes": [50, 100]},
                                 {"name": "bernoulli-arms", "means": "linear-9"}],
                "learners": [{"name": "ucb1"}, {"name": "thompson"}, {"name": "sw-ucb", "window": 30},
                             {"name": "kl-ucb", "c": 3.0}, {"name": "epsilon-greedy"}]}
    assert_resume_is_bit_identical(cfg_dict, 60, tmp_path)
