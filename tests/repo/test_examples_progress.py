"""Every example script shows its progress on stderr, and the README lists each one's runtime."""
import importlib.util
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS = sorted(ROOT.glob("examples/**/*.py"))


def test_there_are_example_scripts():
    assert len(SCRIPTS) >= 10


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_script_reports_progress_on_stderr(script):
    text = script.read_text()
    assert "file=sys.stderr" in text, f"{script.name} prints no progress to stderr"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_readme_lists_each_example_runtime(script):
    readme = (ROOT / "README.md").read_text()
    row = [line for line in readme.splitlines() if line.startswith("|") and f"`{script.relative_to(ROOT)}`" in line]
    assert row, f"README's example runtime table has no row for {script.relative_to(ROOT)}"
    assert re.search(r"\d+ ?(s|min|h)\b", row[0]), row[0]


def test_near_isometric_prints_a_line_per_fit(capsys):
    spec = importlib.util.spec_from_file_location("near_isometric", ROOT / "examples/embedding/near_isometric.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.run(digits=(5,), sizes=(8,), ks=(2, 3), subsets=1, T=5, sdp_subsets=0, progress=True)
    err = capsys.readouterr().err
    assert "[1/2] digit 5, r = 8, k = 2" in err and "[2/2] digit 5, r = 8, k = 3" in err
