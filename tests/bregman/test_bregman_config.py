"""The [bregman] run kind: every problem runs from a config, bad tables are clear errors, saved runs load back."""
import pytest

import onlinelab as ol
from onlinelab.bregman.loop import IterationResult
from onlinelab.errors import ConfigError
from onlinelab.experiment.kinds import kind_of
from onlinelab.experiment.kinds.bregman import PROBLEMS, run_bregman_config, run_outcome

SMALL = {"robust-pca": {"n": 12, "s": 9}, "completion": {"n": 10, "s": 8, "gamma": 5.0},
         "online-completion": {"n": 10, "s": 8, "batch": 10}}


@pytest.mark.parametrize("problem", list(PROBLEMS))
def test_every_problem_runs_from_a_config(problem):
    res, cfg = run_bregman_config({"run": {"rounds": 30}, "bregman": {"problem": problem, **SMALL.get(problem, {})}})
    assert isinstance(res, IterationResult) and res.breaches == []
    assert cfg["bregman"]["problem"] == problem and cfg["run"]["rounds"] == 30
    assert res.meta["iteration"]["iterations_done"] == 30


def test_run_kind_is_registered_and_a_saved_run_loads_back(tmp_path):
    data = {"run": {"rounds": 20}, "bregman": {"problem": "lasso", "accelerated": False}}
    assert kind_of(data).key == "bregman"
    out = run_outcome(data)
    assert out.status == 0 and "ista" in out.summary
    out.result.meta["kind"] = "bregman"
    path = out.result.save(tmp_path / "run", config=out.resolved)
    back = ol.load_run(path)
    assert isinstance(back, IterationResult) and "ista" in back.summary_text()
    assert (path / "report.md").read_text().startswith("# Iterative method report")


@pytest.mark.parametrize("table,match", [
    ({"problem": "robust-pcaa"}, "did you mean 'robust-pca'"),
    ({"problem": "lasso", "gama": 1.0}, "gama"),
    ({"problem": "robust-pca", "tau": 0.9}, "tau = 0.9 is above its limit 0.5"),
])
def test_bad_tables(table, match):
    with pytest.raises(ConfigError, match=match):
        run_bregman_config({"run": {"rounds": 3}, "bregman": table})


def test_replicates_of_a_fixed_data_set_are_refused():
    with pytest.raises(ConfigError, match="one fixed data set"):
        run_bregman_config({"run": {"rounds": 3, "replicates": 2}, "bregman": {"problem": "svm-dual"}})


EXAMPLES = sorted((__import__("pathlib").Path(__file__).resolve().parents[2] / "examples" / "bregman").glob("*.toml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_configs_run(path):
    try:
        import tomllib
    except ImportError:          # Python 3.10
        import tomli as tomllib
    res, _ = run_bregman_config(tomllib.loads(path.read_text()), rounds=15)
    assert res.breaches == [] and res.meta["iteration"]["iterations_done"] == 15
