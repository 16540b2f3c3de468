"""`onlinelab run` with no argument: the embedded default experiment, end to end.

Checks the run directory, and that every learner's regret stays below every bound whose assumptions
held, at every checkpoint: per replicate for deterministic learners (MEG), the replicate mean for the
randomised bandit learners, whose bounds are on the expected regret (pytest also turns a
BoundViolationWarning into an error).
"""
import numpy as np

import onlinelab as ol
from onlinelab import cli


def test_default_experiment_end_to_end(tmp_path, capsys):
    out = tmp_path / "default"
    assert cli.main(["run", "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "bandit-dense" in printed and "run directory:" in printed
    for name in ("config.toml", "meta.json", "metrics.parquet", "report.png", "report.md"):
        assert (out / name).is_file()
    res = ol.load_run(out)
    assert set(res.learners) == {"bandit-dense", "bandit-sparse", "meg-full-info"}
    assert len(res.environments) == 2
    bounds = res.bounds()
    applicable = bounds[bounds.holds]
    # each learner has at least one applicable bound on the stochastic environment
    stochastic = [e for e in res.environments if e.startswith("spiked")][0]
    assert set(applicable[applicable.environment == stochastic].learner) == set(res.learners)
    pointwise = {(x["learner"], x["environment"], x["name"]): x["pointwise"] for x in res.meta["bounds"]}
    m = res.metrics
    for _, b in applicable.iterrows():
        sel = (m.learner == b.learner) & (m.environment == b.environment)
        regret = m[sel & (m.metric == "regret")].pivot(index="t", columns="replicate", values="value")
        bound = m[sel & (m.metric == f"bound:{b.bound}")].pivot(index="t", columns="replicate", values="value")
        if pointwise[(b.learner, b.environment, b.bound)]:   # deterministic learner: every replicate, every checkpoint
            assert (regret < bound).to_numpy().all(), (b.learner, b.environment, b.bound)
        else:                                              # bound on the expectation: the replicate mean
            assert (regret.mean(axis=1) < bound.mean(axis=1)).all(), (b.learner, b.environment, b.bound)
    assert not bounds.violated.any()
    # shapes: full-information MEG is sublinear over the last decade of rounds; the bandit learners,
    # tuned for T = 4000 at d = 8, are still pre-asymptotic (near-linear), but every curve is increasing
    for learner in res.learners:
        c = res.curve("regret", learner=learner, environment=stochastic)
        late = c[c.t >= c.t.max() / 10]
        slope = np.polyfit(np.log(late.t), np.log(late["mean"]), 1)[0]
        assert 0.0 < slope <= 1.05, (learner, slope)
        if learner == "meg-full-info":
            assert slope < 0.6
