"""Run directories written before the re-layout still load, report and resume.

The fixtures in tests/fixtures/legacy_runs/ were written by the code at eabed9a, under the flat layout
(its README says how).  The references here are what that old code wrote: its report.md tables, its sweep table,
and the metrics of the interrupted runs run through uninterrupted (``*.expected.parquet``).  The fixtures are only
read; a run is resumed on a copy, and every test that reads a fixture checks that it left it as it was.
"""
from __future__ import annotations

import hashlib
import importlib
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import onlinelab as ol
from onlinelab.bregman.loop import IterationResult
from onlinelab.cli import main
from onlinelab.embedding.result import EmbeddingResult
from onlinelab.manifold.result import ManifoldResult
from onlinelab.runs import checkpoint, legacy
from onlinelab.runs.game_result import GameResult
from onlinelab.runs.result import Result

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "legacy_runs"
COMPLETE = {"regret": Result, "game": GameResult, "manifold": ManifoldResult, "embedding": EmbeddingResult,
            "bregman": IterationResult}
CELLS = sorted(p.name for p in (FIXTURES / "sweep" / "cells").iterdir())
INTERRUPTED = ["regret_interrupted", "regret_interrupted_bandit"]
TAGS = ("__object__", "__namedtuple__", "__function__", "__generator__")   # how a checkpoint names a class


def _digest(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def untouched():
    """Fail a test that changed any file of the fixtures."""
    before = _digest(FIXTURES)
    yield
    assert _digest(FIXTURES) == before, "a test wrote into tests/fixtures/legacy_runs; copy a fixture before using it"


def _report(capsys, folder: Path) -> str:
    code = main(["report", str(folder)])
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def _markdown_rows(report_md: str) -> list[list[str]]:
    """Header and body rows of the first Markdown table of a report.md (the summary), as lists of cells."""
    rows, seen = [], False
    for line in report_md.splitlines():
        if line.startswith("|"):
            seen = True
            if not re.fullmatch(r"\|(?:-+:?\|)+", line.replace(" ", "")):   # skip the |---|---:| rule
                rows.append([cell.strip() for cell in line.strip("|").split("|")])
        elif seen:
            break
    return rows


# headers renamed since the fixtures were written (the summary now says what a bound bounds, in a "bound on"
# column that the old tables lack: cells of new columns may sit between the old ones)
RENAMED_HEADERS = {"regret/bound": "value/bound", "ratio to bound": "value/bound"}


def _assert_rows_printed(rows: list[list[str]], out: str) -> None:
    """Each row's cells appear, in order, on one line of ``out`` (the text table aligns them with spaces)."""
    lines = out.splitlines()
    for row in rows:
        cells = [RENAMED_HEADERS.get(cell, cell) for cell in row]
        pattern = re.compile(r"\s+(?:.*?\s+)?".join(re.escape(cell) for cell in cells))
        assert any(pattern.search(line) for line in lines), f"row {row} of the old report.md is not in:\n{out}"


@pytest.mark.parametrize("name", sorted(COMPLETE))
def test_a_complete_run_loads_as_its_kind_and_reports_what_the_old_code_reported(name, capsys, untouched):
    folder = FIXTURES / name
    res = ol.load_run(folder)
    assert type(res) is COMPLETE[name]
    assert res.meta["status"] == "complete"
    out = _report(capsys, folder)
    assert out.startswith("status: complete\n")
    rows = _markdown_rows((folder / "report.md").read_text(encoding="utf-8"))
    assert len(rows) >= 2, "the old report.md has a summary table"
    _assert_rows_printed(rows, out)


@pytest.mark.parametrize("cell", CELLS)
def test_a_sweep_cell_loads_with_the_metrics_of_the_old_sweep_table(cell, capsys, untouched):
    res = ol.load_run(FIXTURES / "sweep" / "cells" / cell)
    assert type(res) is Result
    table = pd.read_parquet(FIXTURES / "sweep" / "sweep.parquet")   # written by the old sweep, cell by cell
    want = table[table.run_id == cell][list(res.metrics.columns)].reset_index(drop=True)
    assert len(want)
    pd.testing.assert_frame_equal(res.metrics.reset_index(drop=True), want)
    out = _report(capsys, FIXTURES / "sweep" / "cells" / cell)
    assert out.startswith("status: complete\n")
    assert re.search(r"^meg\s+spiked-covariance\(d=4\)\s+2\s+100\s", out, flags=re.M), out


def test_a_second_sweep_on_a_copy_skips_both_cells(tmp_path, untouched):
    copy = tmp_path / "sweep"
    shutil.copytree(FIXTURES / "sweep", copy)
    cells_before = _digest(copy / "cells")
    res = ol.sweep(FIXTURES / "configs" / "sweep.toml", out=copy)
    assert _digest(copy / "cells") == cells_before, "a finished cell was run again"
    want = pd.read_parquet(FIXTURES / "sweep" / "sweep.parquet")
    pd.testing.assert_frame_equal(res.table.reset_index(drop=True), want)


@pytest.mark.parametrize("name", INTERRUPTED)
def test_an_interrupted_run_loads_and_reports_as_it_is(name, capsys, untouched):
    res = ol.load_run(FIXTURES / name)
    assert type(res) is Result
    assert res.meta["status"].startswith("failed: RunInterrupted")
    out = _report(capsys, FIXTURES / name)
    assert out.startswith("status: failed: RunInterrupted: SIGTERM stopped the run")


def _checkpoint_paths(path: Path) -> set[str]:
    """Every "module:qualname" the checkpoint names, read from its JSON document (the uint8 array __state__)."""
    with np.load(path) as npz:
        document = json.loads(npz["__state__"].tobytes().decode("utf-8"))
    found: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            found.update(node[tag] for tag in TAGS if isinstance(node.get(tag), str))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(document)
    return found


@pytest.mark.parametrize("name", INTERRUPTED)
def test_an_interrupted_run_resumes_on_a_copy_to_the_uninterrupted_metrics(name, tmp_path, capsys, monkeypatch,
                                                                          untouched):
    copy = tmp_path / name
    shutil.copytree(FIXTURES / name, copy)
    seen = []
    monkeypatch.setattr(checkpoint, "renamed", lambda path: seen.append(path) or legacy.renamed(path))
    code = main(["resume", str(copy), "--quiet"])
    out = capsys.readouterr().out
    assert code == 0, out
    # the old checkpoint was decoded (not the environment restarted): every path it names went through the map
    assert _checkpoint_paths(FIXTURES / name / "checkpoint.npz") <= set(seen)
    assert ol.load_run(copy).meta["status"] == "complete"
    got = pd.read_parquet(copy / "metrics.parquet")
    want = pd.read_parquet(FIXTURES / f"{name}.expected.parquet")   # the same config run whole by the old code

    def keep(m):
        return m[m.metric != "runtime_s"].reset_index(drop=True)   # wall-clock, different in any two runs
    pd.testing.assert_frame_equal(keep(got), keep(want))


# the paths the fixtures README lists, so that a change to the fixtures or to the reader shows up here
README_PATHS = {
    "regret_interrupted": {
        "onlinelab.environments.adaptive:TopDirection", "onlinelab.learners.logdet:LogDetOMD",
        "onlinelab.learners.logdet:LogDetState", "onlinelab.learners.meg:MEG", "onlinelab.learners.meg:MEGState",
        "onlinelab.losses:SpectralComparator", "onlinelab.metrics:LossTracker", "onlinelab.metrics:Recorder",
        "onlinelab.rng:BatchRNG", "onlinelab.rng:_Buffer", "onlinelab.slot:Slot", "numpy.random._pcg64:PCG64"},
    "regret_interrupted_bandit": {
        "onlinelab.domains:Simplex", "onlinelab.environments.arms:AdaptiveArms",
        "onlinelab.learners.bandit_simplex:Exp3", "onlinelab.learners.bandit_simplex:LogBarrierBandit",
        "onlinelab.learners.bandit_simplex:BanditState", "onlinelab.learners.mirror_descent:FTRL",
        "onlinelab.learners.mirror_descent:OMD", "onlinelab.learners.oco_base:Alpha",
        "onlinelab.learners.oco_base:OCOState", "onlinelab.metrics:LossTracker", "onlinelab.metrics:Recorder",
        "onlinelab.mirror:EntropyMap", "onlinelab.mirror:LogBarrierMap", "onlinelab.rng:BatchRNG",
        "onlinelab.rng:_Buffer", "onlinelab.slot:Slot", "onlinelab.vector_losses:LeaderComparator",
        "onlinelab.vector_losses:LinearTerms", "onlinelab.vector_losses:_linear_value", "numpy.random._pcg64:PCG64"},
}


@pytest.mark.parametrize("name", INTERRUPTED)
def test_the_fixture_checkpoints_name_the_paths_the_readme_lists(name):
    assert _checkpoint_paths(FIXTURES / name / "checkpoint.npz") == README_PATHS[name]


@pytest.mark.parametrize("old", sorted(set().union(*README_PATHS.values())))
def test_every_old_path_in_the_checkpoints_resolves(old):
    new = legacy.renamed(old)
    module, _, qualname = new.partition(":")
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        assert hasattr(obj, part), f"{old} → {new}: {obj!r} has no attribute {part!r}; fix the map in runs/legacy.py"
        obj = getattr(obj, part)
    assert obj.__qualname__ == qualname, f"{old} → {new} is {obj!r}, not the class or function of that name"
    if old not in legacy.NAMES:   # a module moved: the name inside it stays
        assert qualname == old.partition(":")[2]
