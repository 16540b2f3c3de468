"""Users never see the project's private notes: nothing they can read points at ``../shared`` or "SPEC".

References to the mathematics point into ``docs/theory/`` instead ("theory §1.5" in short strings,
``docs/theory/01-bandit-pca.md`` where there is room).  Scanned: the installed package (both
``onlinelab`` and ``onlinelab.environments``, wherever they are installed from), the README, the
license, the notebooks, the examples, the benchmarks, ``runs/README.md``, ``mkdocs.yml`` and ``docs/``.
"""
import pathlib
import re

import onlinelab
import onlinelab.environments

ROOT = pathlib.Path(__file__).resolve().parents[2]
# "SPEC" as a word (not SPECTRAL_KINDS), SPEC.md / DESIGN.md, and any path into the shared folder.
FORBIDDEN = re.compile(r"\.\./shared|\bshared/(?:SPEC|DESIGN|seeds)|\bSPEC\b|\bSPEC\.md|\bDESIGN\.md")
TEXT_SUFFIXES = {".py", ".md", ".ipynb", ".toml", ".yml", ".yaml", ".txt", ".typed", ""}


def _files():
    roots = [pathlib.Path(onlinelab.__file__).parent, *map(pathlib.Path, onlinelab.environments.__path__)]
    roots += [ROOT / "docs", ROOT / "notebooks", ROOT / "examples", ROOT / "benchmarks"]
    singles = [ROOT / "README.md", ROOT / "LICENSE", ROOT / "mkdocs.yml", ROOT / "runs" / "README.md"]
    seen = set()
    for root in roots:
        for path in sorted(root.rglob("*")) if root.is_dir() else []:
            if path.is_file() and path.suffix in TEXT_SUFFIXES and "__pycache__" not in path.parts:
                seen.add(path.resolve())
    seen.update(p.resolve() for p in singles if p.is_file())
    return sorted(seen)


def test_the_scan_covers_the_package_and_the_front_door():
    names = {p.name for p in _files()}
    assert {"README.md", "bounds.py", "spiked.py", "01_regret_vs_bounds.ipynb"} <= names


def test_nothing_points_at_the_shared_folder_or_spec():
    hits = []
    for path in _files():
        for lineno, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if FORBIDDEN.search(line):
                shown = path.relative_to(ROOT) if ROOT in path.parents else path
                hits.append(f"{shown}:{lineno}: {line.strip()[:120]}")
    assert not hits, ("user-visible references to the private notes; cite docs/theory instead "
                      "(e.g. 'theory §1.5', docs/theory/01-bandit-pca.md):\n" + "\n".join(hits))


def test_the_pattern_catches_what_it_must_and_spares_what_it_must():
    assert FORBIDDEN.search("see ../shared/SPEC.md") and FORBIDDEN.search("(SPEC §1.5)")
    assert FORBIDDEN.search("SPEC's constant") and FORBIDDEN.search("DESIGN.md")
    assert not FORBIDDEN.search("SPECTRAL_KINDS = ...") and not FORBIDDEN.search("theory §1.5 (spec)")
