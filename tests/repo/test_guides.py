"""A guide for every decision set, each linked from the home page and executed end to end.

tests/repo/test_docs.py runs the ```python blocks of every page in docs/guide/ (one namespace per page, in
order); this file checks that the pages the issue asked for are among them, that they carry real examples,
and that they state in so many words what a new user had to guess: the attribute naming a learner's
decision set, the environment's ``domain``, the shape of ``history.mixed``, that a vector loss takes a
domain object, and how to reach its gradient.
"""
import pathlib
import re

import pytest

from tests.repo.test_docs import EXAMPLE_PAGES, python_blocks

ROOT = pathlib.Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide"
# page -> (fewest executed blocks, phrases it must contain)
GUIDES = {
    "experts.md": (6, ["`plays`", "`domain`", "`history.mixed`, a read-only\narray of shape `(R, d)`",
                       "a **domain\nobject**", "feedback.loss.gradient(play.mixed)", "LinearLoss(G, self.simplex)",
                       "make_domain(self.domain, self.d)"]),
    "vector-losses.md": (5, ['"ball:1"', '"box:-1:1"', "QuadraticLoss", "LinearLoss", "feedback.gradient",
                             "comparator_loss"]),
    "streaming-samples.md": (3, ["SampleLoss", "psd = False", "population_play", "checkpoint_metrics"]),
    "plugins.md": (5, ["## A package of your own: entry points", "## What travels where", "into the run directory",
                       "to sweep workers", "--plugins FILE.py", "[project.entry-points."]),
}


@pytest.mark.parametrize("name", sorted(GUIDES))
def test_the_guide_exists_runs_and_says_what_users_had_to_guess(name):
    page = GUIDE / name
    assert page in EXAMPLE_PAGES, f"{name} is not executed by tests/repo/test_docs.py"
    fewest, phrases = GUIDES[name]
    assert len(python_blocks(page)) >= fewest, name
    text = page.read_text(encoding="utf-8")
    missing = [p for p in phrases if p not in text]
    assert not missing, f"{name} no longer says: {missing}"


def test_the_home_page_links_every_guide():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(guide/([\w-]+\.md)\)", index))
    on_disk = {p.name for p in GUIDE.glob("*.md")}
    assert on_disk <= linked, f"docs/index.md does not link {sorted(on_disk - linked)}"


def test_the_experts_guide_shows_each_wrong_path_and_its_fix():
    text = (GUIDE / "experts.md").read_text(encoding="utf-8")
    for fix in ("make_domain('simplex', 4)", "declare domain = 'simplex' on the class", "declares domain = 'simplex'",
                "learners that fit"):
        assert f'assert "{fix}" in str(err)' in text, fix
