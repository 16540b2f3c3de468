"""Every ``onlinelab.<module>`` path that the documentation names exists in the package as it is laid out now.

The package was re-laid out into layers (docs/architecture.md; the old paths are in CHANGELOG.md).  A dotted
reference such as ``onlinelab.geometry.domains.Ball`` in the README, the mkdocs pages, the notebooks, the examples
or a docstring is a promise to a reader: it must import.  Each reference resolves by importing its longest
importable module prefix and reading the rest as attributes, so a renamed module and a moved name both fail here,
with the file and line that name them.  The ``:::`` directives of docs/api/ (what mkdocstrings renders) are held
to the same rule, and together they must cover every public module of the package.
"""
from __future__ import annotations

import ast
import importlib
import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# a dotted path starting at the package: onlinelab.x, onlinelab.x.y.Name, onlinelab.x.y.Name.method
REFERENCE = re.compile(r"(?<![\w./-])onlinelab(?:\.[A-Za-z_]\w*)+")
# onlinelab/runs/legacy.py is the table of the paths that no longer exist (checkpoints written before the
# re-layout still name them), so its docstrings name old paths on purpose
OLD_PATHS_ON_PURPOSE = {"onlinelab/runs/legacy.py"}
DIRECTIVE = re.compile(r"^:::\s+(\S+)", flags=re.M)
# a file of the checkout named by its path (runs/ is left out: the pages name run directories a user makes)
FILE_PATH = re.compile(r"(?<![\w./-])(?:onlinelab|environments|tests|docs|examples|notebooks|benchmarks)/[\w./-]*[\w/]")


def resolve(path: str) -> str | None:
    """Why ``path`` does not resolve (None when it does): import the longest importable prefix, getattr the rest."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        name = ".".join(parts[:cut])
        try:
            obj = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not (path + ".").startswith(exc.name + "."):
                return f"importing {name} fails: {exc}"   # a module of the chain imports something missing
            continue                                        # no such module: the rest are attributes
        for i, attr in enumerate(parts[cut:], cut):
            if not hasattr(obj, attr):
                return f"{'.'.join(parts[:i])} has no attribute {attr!r}"
            obj = getattr(obj, attr)
        return None
    return "no prefix of it imports"


def _text_sources() -> list[tuple[str, str]]:
    """(label, text) of every place a reader meets module paths: README, docs, notebooks, examples."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    files += [p for p in sorted((ROOT / "examples").rglob("*")) if p.is_file() and p.suffix in (".py", ".toml", ".md")]
    out = [(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8")) for p in files]
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        for i, cell in enumerate(cells):
            src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            out.append((f"{nb.relative_to(ROOT).as_posix()} cell {i}", src))
    return out


def _docstrings() -> list[tuple[str, str]]:
    """(label, docstring) of every module, class and function of onlinelab/ and environments/."""
    out = []
    for folder in ("onlinelab", "environments"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel in OLD_PATHS_ON_PURPOSE:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                    doc = ast.get_docstring(node, clean=False)
                    if doc:
                        out.append((f"{rel}:{getattr(node, 'lineno', 1)}", doc))
    return out


def _references(sources) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for label, text in sources:
        for lineno, line in enumerate(text.splitlines(), 1):
            for ref in REFERENCE.findall(line):
                found.setdefault(ref, []).append(f"{label} (line {lineno})")
    return found


def _check(found: dict[str, list[str]]) -> list[str]:
    bad = []
    for ref, where in sorted(found.items()):
        why = resolve(ref)
        if why is not None:
            bad.append(f"{ref}: {why}; named in {', '.join(where[:3])}{' …' if len(where) > 3 else ''}")
    return bad


def test_the_resolver_tells_paths_that_exist_from_paths_that_moved():
    assert resolve("onlinelab.geometry.domains.Ball") is None
    assert resolve("onlinelab.Result.summary") is None          # the package face, then a method
    assert resolve("onlinelab.environments.spiked") is None    # installed from the top-level environments/
    assert "no attribute 'domains'" in resolve("onlinelab.domains")   # the flat layout's module
    assert "no attribute 'Nope'" in resolve("onlinelab.geometry.domains.Nope")
    assert REFERENCE.findall("see `onlinelab.core.slot.Slot.step`, then onlinelab.simulate.") == [
        "onlinelab.core.slot.Slot.step", "onlinelab.simulate"]
    assert REFERENCE.findall("onlinelab/core/slot.py and src.onlinelab.x") == []


def test_the_scan_reads_every_kind_of_source():
    labels = {label.split(" ")[0].split(":")[0] for label, _ in _text_sources() + _docstrings()}
    assert {"README.md", "docs/index.md", "onlinelab/core/slot.py", "environments/spiked.py"} <= labels
    assert any(label.startswith("notebooks/") for label in labels)
    assert any(label.startswith("examples/") for label in labels)


def test_module_paths_in_readme_docs_notebooks_and_examples_exist():
    bad = _check(_references(_text_sources()))
    assert not bad, ("module paths that do not exist (the re-layout moved them: CHANGELOG.md has the table, "
                     "onlinelab/runs/legacy.py the mapping); write the current path:\n" + "\n".join(bad))


def test_module_paths_in_docstrings_exist():
    bad = _check(_references(_docstrings()))
    assert not bad, ("docstrings name module paths that do not exist; write the current path "
                     "(CHANGELOG.md lists old → new):\n" + "\n".join(bad))


def test_file_paths_in_readme_changelog_docs_and_docstrings_exist():
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]
    sources = [(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8")) for p in pages if p.is_file()]
    bad = []
    for label, text in sources + _docstrings():
        for lineno, line in enumerate(text.splitlines(), 1):
            bad += [f"{label} (line {lineno}): {path}" for path in FILE_PATH.findall(line)
                    if not (ROOT / path).exists()]
    assert not bad, ("paths of files that do not exist (moved by the re-layout?); write the current path:\n"
                     + "\n".join(bad))


def test_the_legacy_table_points_at_paths_that_exist():
    # onlinelab/runs/legacy.py maps the flat layout's paths for old checkpoints; CHANGELOG.md prints the same table
    from onlinelab.runs.legacy import MODULES, NAMES
    targets = [*MODULES.values(), *(new.replace(":", ".") for new in NAMES.values())]
    bad = [f"{t}: {why}" for t in targets if (why := resolve(t)) is not None]
    assert not bad, "onlinelab/runs/legacy.py maps old paths to paths that do not exist:\n" + "\n".join(bad)


def _directives() -> list[tuple[str, str]]:
    out = []
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        for target in DIRECTIVE.findall(page.read_text(encoding="utf-8")):
            out.append((page.relative_to(ROOT).as_posix(), target))
    return out


def _runtime_name(target: str) -> str:
    # mkdocstrings reads environments/ from the checkout (`::: environments.spiked`): onlinelab.environments
    return "onlinelab." + target if target.split(".")[0] == "environments" else target


# Public modules that no `:::` line renders, each with the reason; a new module must join a page or this list.
_CLI = "the command line: `onlinelab --help`, the README and docs/guide/ describe it"
_MACHINERY = "the machinery behind `onlinelab run / resume / sweep`; docs/guide/sweeps-and-durability.md describes it"
_HELPER = "a numerical helper of the learners and comparators, not called by users"
NOT_IN_THE_API = {
    "onlinelab.cli": _CLI, "onlinelab.cli.errors": _CLI, "onlinelab.cli.main": _CLI, "onlinelab.cli.show": _CLI,
    "onlinelab.experiment.config": _MACHINERY, "onlinelab.experiment.default": _MACHINERY,
    "onlinelab.experiment.durable": _MACHINERY, "onlinelab.experiment.plugins": _MACHINERY,
    "onlinelab.experiment.preflight": _MACHINERY,
    "onlinelab.experiment.kinds.game": "the [game] table's parser; its docstring's TOML example reads as Markdown "
                                       "links under mkdocs (docs/api/game.md and examples/games/ show the table)",
    "onlinelab.core.compat": "the pairing check behind `simulate`'s refusals (Learner/Environment declarations)",
    "onlinelab.core.progress": "the progress bar of `simulate(progress=True)`",
    "onlinelab.core.schedule": "the checkpoint rounds; `simulate`'s `checkpoints` parameter documents them",
    "onlinelab.core.validation": "argument checks shared by the public entry points",
    "onlinelab.geometry.linalg": _HELPER, "onlinelab.geometry.topk": _HELPER, "onlinelab.geometry.subspaces": _HELPER,
    "onlinelab.manifold.checks": "input checks shared by the manifold estimators",
    "onlinelab.runs.align": "how `Result.concat` aligns runs; `Result` documents its `align` parameter",
    "onlinelab.runs.checkpoint": "the checkpoint file format of durable runs (runs/README.md)",
    "onlinelab.runs.compare": "`onlinelab compare`; the command line documents it",
    "onlinelab.runs.kinds": "result classes of saved runs, filled by `onlinelab.experiment.kinds.register_run_kind`",
    "onlinelab.runs.legacy": "module paths of the flat layout, for old checkpoints (CHANGELOG.md lists them)",
    "onlinelab.runs.report": "drawn and written through `Result.plot` and `Result.save`",
    "onlinelab.runs.tomlio": "TOML reading and writing for run directories",
}
# Modules whose public names the page of their package renders (the package re-exports them in __all__).
RE_EXPORTED = {"onlinelab.bounds.base": "onlinelab.bounds", "onlinelab.losses.matrix": "onlinelab.losses",
               "onlinelab.embedding.embed": "onlinelab.embedding"}


def test_the_exceptions_are_real_modules_and_re_exports_hold():
    for name in [*NOT_IN_THE_API, *RE_EXPORTED]:
        assert resolve(name) is None, f"{name} is listed in tests/repo/test_module_paths.py but does not exist"
    for module, package in RE_EXPORTED.items():
        exported = set(importlib.import_module(package).__all__)
        own = {n for n, obj in vars(importlib.import_module(module)).items()
               if not n.startswith("_") and getattr(obj, "__module__", None) == module}
        assert own <= exported, f"{package}.__all__ lacks {sorted(own - exported)} of {module}; its page misses them"


@pytest.mark.parametrize("page, target", _directives(), ids=lambda x: x)
def test_api_directives_resolve(page, target):
    why = resolve(_runtime_name(target))
    assert why is None, f"{page}: `::: {target}` does not resolve ({why}); name the module's current path"


def test_api_pages_cover_every_public_module():
    documented = {_runtime_name(t) for _, t in _directives()}
    modules = []
    for folder, package in (("onlinelab", "onlinelab"), ("environments", "onlinelab.environments")):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            if any(p.startswith("_") for p in parts):
                continue
            modules.append(".".join([package, *parts]))
    missing = [m for m in modules if m not in NOT_IN_THE_API and m not in RE_EXPORTED
               and not any(d == m or d.startswith(m + ".") for d in documented)]
    assert not missing, ("public modules that no page of docs/api/ renders; add a `::: module` line to the page "
                         "of its topic, or list it in NOT_IN_THE_API with the reason:\n" + "\n".join(missing))
