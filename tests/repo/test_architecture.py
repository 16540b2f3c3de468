"""The shape of the repository: layered imports without cycles, small modules, a bare package face, tests that
mirror the package, and clean ``ruff`` / ``lint-imports`` runs.

The layers (docs/architecture.md, the import-linter contracts in pyproject.toml), top to bottom: cli, experiment,
the families (games, embedding, manifold, bregman, bandits), simulation, runs / learners / feedback (and
``onlinelab.environments``), losses / bounds, geometry, core, errors / _version.  import-linter checks the
package folder; it cannot see ``environments/`` (installed as ``onlinelab.environments`` from the top-level
folder), and it only follows imports it can resolve.  So this file also builds its own graph of both folders
with :mod:`ast`, counting every import statement — function-level ones, relative ones and
``importlib.import_module("onlinelab...")`` calls included — and checks it for cycles, for the layer of
``onlinelab.environments`` and for imports of the package face.

A failing check says what to change.  The whole file takes a few seconds (lint-imports and ruff dominate).
"""
from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "onlinelab"
ENVIRONMENTS = ROOT / "environments"          # installed as onlinelab.environments
BIN = pathlib.Path(sys.executable).parent      # the venv running the tests holds ruff and lint-imports
MAX_LINES = 400
# the package face: onlinelab/ holds these files and the subpackage folders, nothing else
FACE_FILES = {"__init__.py", "__main__.py", "errors.py", "_version.py", "_builtins.py", "py.typed"}
# what onlinelab.environments may import besides itself (its layer sits beside learners, but it only needs these)
ENVIRONMENTS_MAY_IMPORT = {"onlinelab.core", "onlinelab.kernels", "onlinelab.geometry", "onlinelab.losses",
                           "onlinelab.bounds", "onlinelab.errors", "onlinelab._version", "onlinelab.environments"}
# folders of tests/ that are not a subpackage's tests
TESTS_NOT_MIRRORING = {"fixtures", "repo", "__pycache__"}


def _run(tool: str, *args: str) -> subprocess.CompletedProcess:
    exe = BIN / tool
    assert exe.exists(), f"{exe} is missing; install the test extra into this venv: pip install -e '.[test]'"
    return subprocess.run([str(exe), *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


# ---------------------------------------------------------------------------------------------- the import graph


def _module_files() -> dict[str, pathlib.Path]:
    """Dotted module name → file, for every module of onlinelab/ and of environments/ (as onlinelab.environments)."""
    out = {}
    for folder, package in ((PACKAGE, "onlinelab"), (ENVIRONMENTS, "onlinelab.environments")):
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([package, *parts])] = path
    return out


MODULES = _module_files()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def _known(name: str) -> str | None:
    """The module that importing ``name`` runs last: ``name`` itself or, for ``pkg.mod.attr``, its longest
    prefix that is a module of ours; None when it is not ours (numpy, …)."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        if prefix in MODULES:
            return prefix
    return None


def _relative_base(module: str, level: int, name: str | None) -> str:
    """The absolute module that ``from <level dots><name> import ...`` names inside ``module``."""
    package = module if _is_package(module) else module.rpartition(".")[0]
    parts = package.split(".")
    base = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join(base + ([name] if name else []))


def _string_target(node: ast.expr, module: str) -> list[str]:
    """Modules named by the first argument of an ``import_module`` call: a literal, or an f-string that starts
    with a literal ``onlinelab...`` prefix or with ``{__name__}`` (then every module under that prefix)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr) and node.values:
        head = node.values[0]
        if isinstance(head, ast.FormattedValue) and isinstance(head.value, ast.Name) and \
                head.value.id in ("__name__", "__package__"):
            prefix = module if head.value.id == "__name__" or _is_package(module) else module.rpartition(".")[0]
            rest = node.values[1] if len(node.values) > 1 else None
            if isinstance(rest, ast.Constant) and isinstance(rest.value, str):
                prefix += rest.value
        elif isinstance(head, ast.Constant) and isinstance(head.value, str):
            prefix = head.value
        else:
            return []
        prefix = prefix.rstrip(".")
        return [m for m in MODULES if m.startswith(prefix + ".")]
    return []


def _imports(module: str, source: str | None = None) -> list[tuple[str, int]]:
    """(imported module of ours, line) for every import in ``module``'s source (or ``source``), wherever it sits."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8") if source is None else source)
    found: list[tuple[str, int]] = []

    def add(name: str, line: int) -> None:
        target = _known(name)
        if target is not None and target != module:
            found.append((target, line))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                # `import onlinelab` runs the face; `import onlinelab.core.rng` runs core.rng (the face is already
                # initialised by then, as the parent of every module here)
                add(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = _relative_base(module, node.level, node.module) if node.level else (node.module or "")
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                # `from pkg import submodule` runs the submodule; `from pkg import name` runs pkg
                add(sub if sub in MODULES else base, node.lineno)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if called == "import_module":
                for name in _string_target(node.args[0], module):
                    add(name, node.lineno)
    return found


def _graph() -> dict[str, dict[str, int]]:
    """module → {imported module: first line that imports it}."""
    graph: dict[str, dict[str, int]] = {}
    for module in MODULES:
        edges: dict[str, int] = {}
        for target, line in _imports(module):
            edges.setdefault(target, line)
        graph[module] = edges
    return graph


GRAPH = _graph()


def _find_cycle(graph: dict[str, dict[str, int]]) -> list[str] | None:
    """One cycle of ``graph`` as a path [a, b, …, a], or None (iterative depth-first search)."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = dict.fromkeys(graph, WHITE)
    for start in sorted(graph):
        if colour[start] != WHITE:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        colour[start] = GREY
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                colour[node] = BLACK
            elif colour.get(child, BLACK) == GREY:
                return path[path.index(child):] + [child]
            elif colour.get(child) == WHITE:
                colour[child] = GREY
                path.append(child)
                stack.append((child, iter(sorted(graph[child]))))
    return None


def _where(a: str, b: str) -> str:
    return f"{MODULES[a].relative_to(ROOT)}:{GRAPH[a][b]}"


def test_the_graph_sees_every_kind_of_import():
    source = """
import numpy as np
import onlinelab.geometry.domains
from onlinelab import errors, simulate
from .rng import BatchRNG

def late():
    from ..runs import result
    import importlib
    return importlib.import_module("onlinelab.losses.matrix")
"""
    assert sorted(_imports("onlinelab.core.base", source)) == [
        ("onlinelab", 4), ("onlinelab.core.rng", 5), ("onlinelab.errors", 4), ("onlinelab.geometry.domains", 3),
        ("onlinelab.losses.matrix", 10), ("onlinelab.runs.result", 8)]
    assert _relative_base("onlinelab.core", 1, "rng") == "onlinelab.core.rng"   # inside a package's __init__
    # environments/__init__.py imports every environment module through import_module(f"{__name__}.{name}")
    assert GRAPH["onlinelab.environments"].keys() >= {m for m in MODULES if m.startswith("onlinelab.environments.")}
    assert _find_cycle({"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}}) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b": 1}, "b": {}}) is None


def test_no_import_cycle():
    cycle = _find_cycle(GRAPH)
    if cycle is not None:
        steps = "\n".join(f"  {a} -> {b}   ({_where(a, b)})" for a, b in zip(cycle, cycle[1:], strict=False))
        raise AssertionError(f"import cycle (function-level imports count):\n{steps}\nbreak it: move the shared code "
                             "into the lower layer, or have the upper layer register itself with the lower one "
                             "(as the registry's set_builtin_loader and runs.kinds do) instead of importing upward")


def test_environments_import_only_the_layers_below_them():
    allowed = ENVIRONMENTS_MAY_IMPORT
    bad = [f"{_where(m, t)}: {m} imports {t}" for m in MODULES if m.startswith("onlinelab.environments")
           for t in GRAPH[m] if not any(t == a or t.startswith(a + ".") for a in allowed)]
    assert not bad, ("onlinelab.environments may import only " + ", ".join(sorted(allowed)) + "; move what it needs "
                     "down to one of those layers, or import the defining module there:\n" + "\n".join(bad))


def test_no_module_imports_the_package_face():
    bad = [f"{_where(m, 'onlinelab')}: {m}" for m in MODULES if "onlinelab" in GRAPH[m]]
    assert not bad, ("these modules import the package face `onlinelab` (`import onlinelab` or `from onlinelab "
                     "import X` with X not a submodule), which imports every layer; import the defining module "
                     "instead, e.g. `from onlinelab.core.registry import make_learner`:\n" + "\n".join(bad))


# --------------------------------------------------------------------------------------- tools and file layout


def test_lint_imports_passes():
    done = _run("lint-imports")
    assert done.returncode == 0, (f"lint-imports failed (exit {done.returncode}); a layer imports one above it or "
                                  "a family imports another — see the contracts in pyproject.toml:\n"
                                  f"{done.stdout}\n{done.stderr}")


def test_ruff_passes():
    done = _run("ruff", "check", ".", "--output-format", "concise")
    assert done.returncode == 0, (f"ruff check . found problems (exit {done.returncode}); fix them by hand "
                                  f"(`ruff check --fix` where the fix is safe):\n{done.stdout}\n{done.stderr}")


def test_modules_are_small():
    long = [f"{path.relative_to(ROOT)}: {n} lines" for path in MODULES.values()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert not long, (f"modules over {MAX_LINES} lines; split each into modules of one idea each:\n"
                      + "\n".join(long))


def _subpackages() -> list[str]:
    return sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists())


def test_the_package_top_level_is_only_the_face():
    stray = sorted(p.name for p in PACKAGE.iterdir() if p.name != "__pycache__" and p.name not in FACE_FILES
                   and not (p.is_dir() and (p / "__init__.py").exists()))
    assert not stray, (f"onlinelab/ holds {stray}; the top level is the package face ({sorted(FACE_FILES)}) and "
                       "subpackage folders: move modules into the layer they belong to (core, geometry, losses, "
                       "…), and give a new folder an __init__.py")


def test_tests_mirror_the_package():
    names = set(_subpackages()) | {"environments"}
    folders = sorted(p.name for p in (ROOT / "tests").iterdir() if p.is_dir() and p.name not in TESTS_NOT_MIRRORING)
    strays = [f for f in folders if f not in names]
    assert not strays, (f"tests/{strays} do not name a subpackage of onlinelab; put tests in tests/<subpackage>/ "
                        "(or tests/environments/), repository-wide checks in tests/repo/")
    loose = sorted(p.name for p in (ROOT / "tests").glob("test_*.py"))
    assert not loose, (f"test files directly in tests/: {loose}; move each to tests/<subpackage>/ for the code it "
                       "tests, or tests/repo/ for checks of the repository")


def test_the_layer_contract_names_every_subpackage():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    named = {part.strip() for c in contracts if c.get("type") == "layers" for layer in c["layers"]
             for part in layer.split("|")}
    missing = [f"onlinelab.{name}" for name in _subpackages() if f"onlinelab.{name}" not in named]
    assert not missing, (f"the layers contract in pyproject.toml does not name {missing}; add each to the layer it "
                         "belongs to, so that import-linter checks its imports")
