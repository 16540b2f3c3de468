"""The documentation site, built once per test session for every test that reads it.

``mkdocs build --strict`` (warnings are errors) into a temporary folder: tests/repo/test_docs.py checks that it
builds, tests/repo/test_docs_maths.py reads its HTML.  The build needs no network.
"""
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> pathlib.Path:
    pytest.importorskip("mkdocstrings", reason="install the docs extra: pip install -e '.[docs]'")
    pytest.importorskip("pymdownx.arithmatex", reason="install the docs extra: pip install -e '.[docs]'")
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out
