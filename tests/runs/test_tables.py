"""Summary tables: one format per column, "n/a" with a footnote; `onlinelab report` prints each kind's own table."""
import math

import numpy as np
import pandas as pd
import pytest

import onlinelab as ol
from onlinelab import cli
from onlinelab.errors import ConfigError, StorageError
from onlinelab.experiment import kinds as run_kinds
from onlinelab.runs.game_result import GameResult
from onlinelab.runs.tables import Column, format_table, missing


def test_missing_values_print_na_with_one_footnote_per_meaning():
    rows = pd.DataFrame({"name": ["a", "b", "c"], "x": [1.5, np.nan, 2.0], "y": [None, 0.25, pd.NA]})
    cols = [Column("name", fmt="text"), Column("x", fmt=".2f", na="x unknown"), Column("y", fmt=".3f", na="no y")]
    text = format_table(rows, cols)
    lines = text.splitlines()
    assert lines[0].split() == ["name", "x", "y"]
    assert lines[1].split() == ["a", "1.50", "n/a²"] and lines[2].split() == ["b", "n/a¹", "0.250"]
    assert lines[3].split() == ["c", "2.00", "n/a²"]
    assert lines[-2:] == ["¹ n/a: x unknown", "² n/a: no y"]
    assert "nan" not in text.lower() and "None" not in text and "<NA>" not in text


def test_auto_format_is_one_notation_per_column():
    rows = [{"v": 1234.5}, {"v": 0.5}, {"v": 12.0}]
    cells = format_table(rows, [Column("v")]).splitlines()[1:]
    assert [c.strip() for c in cells] == ["1234", "0", "12"]          # 4 significant digits on the largest value
    wide = format_table([{"v": 1e-6}, {"v": 3e4}], [Column("v")]).splitlines()[1:]
    assert [c.strip() for c in wide] == ["1.000e-06", "3.000e+04"]    # a span beyond [1e-3, 1e5): all scientific
    ints = format_table([{"n": 3}, {"n": 12}], [Column("n")]).splitlines()[1:]
    assert [c.strip() for c in ints] == ["3", "12"]
    assert all(missing(x) for x in (None, float("nan"), pd.NA, pd.NaT)) and not missing(0.0)


def test_markdown_table_aligns_numbers_right():
    md = format_table([{"a": "x", "b": 1.0}], [Column("a"), Column("b", fmt=".1f")], markdown=True).splitlines()
    assert md == ["| a | b |", "|---|---:|", "| x | 1.0 |"]


def test_regret_summary_text_has_na_footnotes_not_nan():
    res = ol.simulate("spiked-covariance", [ol.make_learner("meg"), ol.make_learner("ftl")], T=20, replicates=1)
    text = res.summary_text()
    assert "nan" not in text.lower() and "None" not in text
    # one replicate: no CI (footnote ¹); ftl has no applicable bound on this environment (footnote ²)
    assert "¹ n/a: one replicate: no confidence interval" in text
    assert "² n/a: no finite bound whose assumptions hold" in text
    assert res.exit_status() == 0


def _game_run(tmp_path):
    cfg = tmp_path / "g.toml"
    cfg.write_text('[run]\nname = "g"\nrounds = 32\nreplicates = 2\n[game]\nrecovery = "gd"\nn = 3\n')
    assert cli.main(["run", str(cfg), "--out", str(tmp_path / "g"), "--quiet"]) == 0
    return tmp_path / "g"


def test_report_on_a_game_run_prints_the_game_table(tmp_path, capsys):
    path = _game_run(tmp_path)
    printed_by_run = capsys.readouterr().out
    back = ol.load_run(path)
    assert isinstance(back, GameResult) and back.meta["kind"] == "game"
    assert cli.main(["report", str(path)]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[1]
    for col in ("players", "suboptimality", "duality gap", "avg regret sum", "rate bound", "breaches"):
        assert col in header
    assert "95% CI" not in out and "µs" not in out
    assert out.splitlines()[1:3] == printed_by_run.splitlines()[:2]    # the same table as the run printed
    assert "| suboptimality | duality gap |" in (path / "report.md").read_text()


def test_a_game_saved_without_kind_is_recognised_by_its_config(tmp_path):
    path = _game_run(tmp_path)
    meta = ol.load_run(path).meta
    del meta["kind"]
    assert run_kinds.result_class(meta) is GameResult       # meta["config"] holds the [game] table


class _CountResult(ol.Result):
    """A result class of a test experiment kind: its own one-column summary."""

    SUMMARY_COLUMNS = [Column("learner", fmt="text"), Column("count", fmt="d")]

    def summary(self):
        return pd.DataFrame([{"learner": lr, "count": int((self.metrics.learner == lr).sum())} for lr in self.learners])


def test_a_registered_kind_reloads_as_its_result_class(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(run_kinds, "_KINDS", dict(run_kinds._KINDS))
    run_kinds.register_run_kind("counting", "onlinelab.experiment.kinds.game:run_outcome",
                                result=f"{__name__}:_CountResult")
    res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=10)
    res.meta["kind"] = "counting"
    res.save(tmp_path / "c")
    back = ol.load_run(tmp_path / "c")
    assert type(back) is _CountResult
    assert cli.main(["report", str(tmp_path / "c")]) == 0
    n = int((res.metrics.learner == "meg").sum())
    assert capsys.readouterr().out.splitlines()[1:] == ["learner  count", f"meg      {n:5d}"]


def test_an_unregistered_kind_and_a_bad_result_target_are_clear_errors(tmp_path):
    res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=10)
    res.meta["kind"] = "no-such-kind"
    res.save(tmp_path / "u")
    with pytest.raises(StorageError, match=r"kind 'no-such-kind', which no loaded code registers .*--plugins"):
        ol.load_run(tmp_path / "u")
    with pytest.raises(ConfigError, match=r'result must be "module:attribute", got \'GameResult\''):
        run_kinds.register_run_kind("other", "m:f", result="GameResult")
    assert math.isfinite(ol.load_run(_game_run(tmp_path)).summary().ratio[0])


def test_a_summary_without_the_declared_columns_prints_all_of_its_own():
    class Other(ol.Result):
        def summary(self):
            return pd.DataFrame([{"pairs": 3, "distortion": 0.25, "bound": None}])
    text = Other(pd.DataFrame(), {}).summary_text().splitlines()
    assert text[0].split() == ["pairs", "distortion", "bound"] and text[1].split() == ["3", "0.2500", "n/a¹"]
    assert text[-1] == "¹ n/a: no finite bound whose assumptions hold (see Result.bounds())"
