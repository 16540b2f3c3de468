"""What users rely on survives the re-layout (CHANGELOG.md, docs/architecture.md): every name of
``onlinelab.__all__``, the ``onlinelab.environments`` package, the console commands and their TOML tables."""
import subprocess
import sys

import pytest

import onlinelab as ol

# The public names as the package exported them before the re-layout (0.1.0): none may disappear.
PUBLIC_BEFORE = {
    "Arrivals", "Context", "DenseLoss", "EigenPlay", "Environment", "FactoredLoss", "Feedback", "HistoryView",
    "Learner", "MatrixLoss", "Play", "Result", "environment_names", "errors", "learner_names", "load_run",
    "make_environment", "make_learner", "register_environment", "register_learner", "simulate", "sweep",
    "SweepResult", "__version__",
}
COMMANDS = ["run", "resume", "list", "check", "sweep", "compare", "report", "show"]


def test_every_public_name_still_resolves():
    assert PUBLIC_BEFORE <= set(ol.__all__), f"names dropped from onlinelab.__all__: {PUBLIC_BEFORE - set(ol.__all__)}"
    for name in ol.__all__:
        assert getattr(ol, name) is not None, name


def test_environments_package_registers_its_environments():
    import onlinelab.environments as envs
    assert envs.__name__ == "onlinelab.environments"
    names = ol.environment_names()
    for name in ("spiked-covariance", "bernoulli-arms", "experts-stochastic", "spiked-stream"):
        assert name in names
        assert ol.make_environment(name).name == name


@pytest.mark.parametrize("command", COMMANDS)
def test_every_cli_command_is_still_there(command):
    out = subprocess.run([sys.executable, "-m", "onlinelab", command, "--help"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: onlinelab") or "usage:" in out.stdout


def test_the_package_face_imports_no_family_until_asked():
    """``import onlinelab`` stays light: the families load on the first registry lookup or run of their kind."""
    code = ("import sys, onlinelab; "
            "print(sorted(m for m in sys.modules if m.split('.')[:2] in "
            "[['onlinelab', f] for f in ('games', 'embedding', 'manifold', 'bregman', 'bandits')]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout
