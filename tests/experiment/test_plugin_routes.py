"""User environments reach the registry by each documented route (docs/guide/writing-environments.md):
an entry point of an installed distribution, a module in the environment package's folder (the
checkout's ``environments/`` in an editable install), and ``--plugins FILE.py`` (tests/cli/test_cli_errors.py).

Each route runs in a fresh interpreter, so the registry starts empty and nothing leaks between tests.
"""
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PLUGIN = textwrap.dedent('''
    import numpy as np
    import onlinelab as ol


    @ol.register_environment("{name}")
    class HalfIdentity(ol.Environment):
        """The loss I/(2d) every round and replicate."""

        psd = True

        def emit(self, t, history):
            return ol.DenseLoss(np.broadcast_to(np.eye(self.d) / (2 * self.d), (self.replicates, self.d, self.d)))
''')


def _python(code: str, cwd, extra_path=None) -> subprocess.CompletedProcess:
    env = None
    if extra_path is not None:
        import os
        env = {**os.environ, "PYTHONPATH": str(extra_path)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_an_entry_point_of_an_installed_distribution_registers_its_environment(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "my_envs.py").write_text(PLUGIN.format(name="from-entry-point"))
    dist = site / "my_envs-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-envs\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[onlinelab.environments]\nmy_envs = my_envs\n")
    out = _python("""
        import onlinelab as ol
        res = ol.simulate(ol.make_environment("from-entry-point", d=3), [ol.make_learner("meg")], T=5, replicates=2)
        print("from-entry-point" in ol.environment_names(), float(res.final("cumulative_loss").iloc[0]))
    """, cwd=tmp_path, extra_path=site)
    assert out.returncode == 0, out.stderr
    flag, loss = out.stdout.split()
    assert flag == "True" and abs(float(loss) - 5 / 6) < 1e-12  # ⟨W, I/(2d)⟩ = 1/(2d) per round, d = 3


def test_every_module_in_the_environment_package_folder_is_imported(tmp_path):
    """The package imports each module of its folder(s); a second folder stands in for a file dropped
    into the checkout's ``environments/`` (which an editable install maps to ``onlinelab.environments``)."""
    extra = tmp_path / "dropped"
    extra.mkdir()
    (extra / "my_dropped_env.py").write_text(PLUGIN.format(name="dropped-in"))
    (extra / "_private_helper.py").write_text("raise ImportError('modules starting with _ are not imported')\n")
    out = _python(f"""
        import importlib.util, sys
        import onlinelab as ol
        spec = importlib.util.find_spec("onlinelab.environments")
        spec.submodule_search_locations.append({str(extra)!r})
        module = importlib.util.module_from_spec(spec)
        sys.modules["onlinelab.environments"] = module
        spec.loader.exec_module(module)
        print(type(ol.make_environment("dropped-in", d=4)).__module__)
    """, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "onlinelab.environments.my_dropped_env"


def test_an_editable_install_maps_the_package_to_the_checkout_folder(tmp_path):
    """What makes a file dropped into ``environments/`` visible: the installed package *is* that folder
    (CI installs with ``pip install -e``; a regular install copies the folder's files instead)."""
    out = _python("""
        import onlinelab.environments as E
        print(list(E.__path__)[0])
    """, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    installed = Path(out.stdout.strip()).resolve()
    editable = installed == (ROOT / "environments").resolve()
    assert editable or (installed / "__init__.py").read_text() == (ROOT / "environments" / "__init__.py").read_text()
