"""The documentation builds with warnings as errors, and every Python example in it runs.

``mkdocs build --strict`` renders docs/ (theory, guides, and the API reference that mkdocstrings
generates from the docstrings): a broken link, a missing page, an unresolvable ``:::`` target or a
docstring mkdocstrings cannot parse fails the build.  The ```python blocks of docs/index.md and of
the guides are executed in order, one namespace per page, so an example that stops working fails here.
"""
import pathlib
import re
import sys
import types

import pytest

from onlinelab.core import registry

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
EXAMPLE_PAGES = [DOCS / "index.md", *sorted((DOCS / "guide").glob("*.md"))]


def python_blocks(path: pathlib.Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(encoding="utf-8"), flags=re.S | re.M)


def test_mkdocs_build_strict(built_site):
    # built_site (tests/repo/conftest.py) is `mkdocs build --strict`, run once for the session
    for page in ("index.html", "theory/01-bandit-pca/index.html", "api/learners/index.html"):
        assert (built_site / page).is_file(), page


def test_every_theory_page_is_reachable_without_a_nav():
    # mkdocs.yml has no `nav`, so every page on disk is listed; a `nav` would silently hide new pages
    assert not re.search(r"^nav\s*:", (ROOT / "mkdocs.yml").read_text(encoding="utf-8"), flags=re.M)
    names = {p.name for p in (DOCS / "theory").glob("*.md")}
    assert {"index.md", "01-bandit-pca.md", "02-online-pca.md", "03-oco-fenchel.md", "04-streaming.md",
            "appendix-checks.md"} <= names


def test_the_guides_carry_examples():
    for name in ("writing-environments.md", "writing-learners.md"):
        assert len(python_blocks(DOCS / "guide" / name)) >= 3, name


@pytest.mark.parametrize("page", EXAMPLE_PAGES, ids=[p.relative_to(DOCS).as_posix() for p in EXAMPLE_PAGES])
def test_python_examples_run(page, monkeypatch, capsys):
    # the page runs as a real module, as a user's file would, so its classes pickle (onlinelab check does that)
    module = types.ModuleType(f"docs_{page.stem.replace('-', '_')}")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    # names the page registers (the guide's demo learner) are gone afterwards: other tests' "did you mean" and
    # "learners that fit" messages must not depend on whether this test ran first
    registry.learner_names()
    monkeypatch.setattr(registry, "_LEARNERS", dict(registry._LEARNERS))
    monkeypatch.setattr(registry, "_ENVIRONMENTS", dict(registry._ENVIRONMENTS))
    for i, block in enumerate(python_blocks(page)):
        exec(compile(block, f"{page.relative_to(ROOT)} example {i + 1}", "exec"), module.__dict__)
    capsys.readouterr()
