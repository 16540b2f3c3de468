"""Game configs: every example in examples/games runs through the config layer and the CLI; bad keys are errors."""
import pathlib

import pytest

from onlinelab.cli.main import main
from onlinelab.errors import ConfigError, UnknownNameError
from onlinelab.experiment.config import load_toml
from onlinelab.experiment.kinds.game import run_game_config

EXAMPLES = sorted((pathlib.Path(__file__).resolve().parents[2] / "examples" / "games").glob("*.toml"))


def test_there_is_an_example_per_recovery():
    recoveries = {load_toml(p)["game"].get("recovery") for p in EXAMPLES}
    assert {"gd", "smooth", "frank-wolfe", "nesterov"} <= recoveries


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_config_runs_and_its_resolved_config_reruns(path):
    res, resolved = run_game_config(load_toml(path), seed=1, rounds=120, replicates=2)
    assert res.meta["game"]["breaches"] == [] and res.violations().empty
    again, _ = run_game_config(resolved)
    assert again.metrics.equals(res.metrics)


def test_cli_runs_a_game_config(tmp_path, capsys):
    status = main(["run", str(EXAMPLES[0]), "--rounds", "50", "--replicates", "1", "--out", str(tmp_path / "g")])
    assert status == 0
    assert (tmp_path / "g" / "metrics.parquet").is_file() and (tmp_path / "g" / "config.toml").is_file()
    assert "suboptimality" in capsys.readouterr().out


def test_bad_game_config():
    with pytest.raises(UnknownNameError, match="did you mean 'n'"):
        run_game_config({"game": {"recovery": "gd", "nn": 3}}, rounds=10)
    with pytest.raises(UnknownNameError, match="unknown recovery"):
        run_game_config({"game": {"recovery": "gradient"}}, rounds=10)
    with pytest.raises(ConfigError, match=r"\[game.y_player\] is missing"):
        run_game_config({"game": {"function": "norm-distance", "x_player": {"name": "omd"}}}, rounds=10)
