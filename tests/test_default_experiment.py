"""`onlinelab run` with no argument: the embedded default experiment, end to end.

Checks the run directory, and that every learner's mean regret stays below every bound whose
assumptions held, at every checkpoint (pytest turns a BoundViolationWarning into an error too).
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
    for _, b in applicable.iterrows():
        regret = res.curve("regret", learner=b.learner, environment=b.environment)["mean"].to_numpy()
        bound = res.curve(f"bound:{b.bound}", learner=b.learner, environment=b.environment)["mean"].to_numpy()
        assert np.all(regret < bound), (b.learner, b.environment, b.bound)
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
