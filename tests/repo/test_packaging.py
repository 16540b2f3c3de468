"""The environment library installs as ``onlinelab.environments`` and cannot be shadowed."""
import doctest
import importlib
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

import onlinelab.environments

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    listed = set(config["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "onlinelab").rglob("__init__.py")}
    assert listed == on_disk | {"onlinelab.environments"}
    assert config["package-dir"] == {"onlinelab.environments": "environments"}
    assert not any(name == "environments" or name.startswith("environments.") for name in listed)


def test_a_stray_environments_folder_in_the_working_directory_changes_nothing(tmp_path):
    stray = tmp_path / "environments"
    stray.mkdir()
    (stray / "__init__.py").write_text("raise ImportError('the stray folder was imported')\n")
    (stray / "spiked.py").write_text("raise ImportError('the stray folder was imported')\n")
    code = textwrap.dedent("""
        import onlinelab as ol
        env = ol.make_environment("spiked-covariance", d=4)
        print(type(env).__module__)
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "onlinelab.environments.spiked"


def _environment_modules():
    return [m.name for m in pkgutil.iter_modules(onlinelab.environments.__path__) if not m.name.startswith("_")]


@pytest.mark.parametrize("name", _environment_modules())
def test_environment_module_doctests(name):
    module = importlib.import_module(f"onlinelab.environments.{name}")
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert failures == 0
