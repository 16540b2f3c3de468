"""The summary says what each bound bounds, divides that metric by it, and shows an infinite bound as n/a."""
from __future__ import annotations

import warnings

import numpy as np

import onlinelab as ol
import onlinelab.runs.tables


def _run(env, learners, T=300, R=3):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ol.simulate(env, learners, T=T, replicates=R, seed=1)


def test_an_infinite_bound_is_not_applicable():
    res = _run("experts-adversarial", ["ftl", "omd"])
    bounds = res.bounds()
    ftl = bounds[bounds.learner == "ftl"]
    assert np.isinf(ftl.final_bound.astype(float)).all()          # FTL on linear losses: the bound is +inf
    row = res.summary().set_index("learner").loc["ftl"]
    assert all(ol.runs.tables.missing(row[k]) for k in ("bound", "ratio", "bound_on"))
    line = next(ln for ln in res.summary_text().splitlines() if ln.startswith("ftl "))
    assert "inf" not in line and "0.000" not in line and "n/a¹" in line


def test_the_ratio_divides_the_metric_the_bound_bounds():
    res = _run("bernoulli-arms", ["ucb1", "exp3"], T=2000)
    summary = res.summary().set_index("learner")
    bounds = res.bounds().set_index(["learner", "bound"])
    for learner in ("ucb1", "exp3"):
        row = summary.loc[learner]
        metric = bounds.loc[(learner, row.bound_name), "metric"]
        assert row.bound_on == metric
        want = res.final(metric).loc[learner].mean() / row.bound     # recomputed from the metrics table
        assert abs(row.ratio - want) <= 1e-12 * abs(want)
    assert summary.loc["ucb1"].bound_on == "pseudo_regret"         # UCB1's bound is on the pseudo-regret
    assert summary.loc["exp3"].bound_on == "regret"
    header = res.summary_text().splitlines()[0]
    assert "bound on" in header and "value/bound" in header and "regret/bound" not in header


def test_a_game_summary_names_the_suboptimality_it_bounds():
    from onlinelab.games.recoveries import gd_averaging, play_recovery
    res = play_recovery(gd_averaging(n=3, T=60), T=60)
    row = res.summary().iloc[0]
    assert row.bound_on == "suboptimality"
    assert abs(row.ratio - row.suboptimality / row.bound) <= 1e-12 * row.ratio


def test_a_partial_run_says_the_round_it_stopped_at():
    class Breaks(ol.make_environment("experts-adversarial").__class__):
        def emit(self, t, history):
            if t == 70:
                raise ValueError("the data ran out")
            return super().emit(t, history)

    Breaks.name = "breaks"
    env = Breaks()
    try:
        ol.simulate(env, ["omd"], T=100, replicates=2, checkpoints=[10, 50, 60, 100])
    except ol.errors.OnlinelabError as exc:
        partial = exc.partial
    else:
        raise AssertionError("the run should have failed in round 70")
    row = partial.summary().iloc[0]
    assert row["stopped"] == "round 60 of 100"        # its numbers are those of the last checkpoint before round 70
    assert "round 60 of 100" in partial.summary_text()
    complete = _run("experts-adversarial", ["omd"], T=100, R=2)
    assert "stopped" not in complete.summary().columns and "stopped at" not in complete.summary_text()
