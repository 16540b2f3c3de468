"""The front door's bad inputs: one test each, with the exact message and exit status (issue 7).

Exit statuses as in the README: 2 bad input, 1 a run that failed midway (completed part saved),
0 success.  Most go through ``onlinelab.cli.main``; a few through a real subprocess.
"""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import onlinelab as ol
from onlinelab import cli
from onlinelab.core import sizes
from onlinelab.errors import CheckError, ConfigError, DomainError, LossError
from onlinelab.experiment import preflight
from onlinelab.experiment.checks import check_environment

BASE = """
[run]
rounds = {rounds}
replicates = {replicates}
{extra}
[[environments]]
name = "{env}"
d = {d}

[[learners]]
name = "meg"
{learner}
"""


def _config(tmp_path, rounds=20, replicates=2, d=4, env="spiked-covariance", extra="", learner="", name="cfg.toml"):
    path = tmp_path / name
    path.write_text(BASE.format(rounds=rounds, replicates=replicates, d=d, env=env, extra=extra, learner=learner))
    return path


def _run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def machine_of_64_gb(monkeypatch):
    monkeypatch.setattr(sizes, "available_memory", lambda: 64e9)


def test_non_utf8_config(tmp_path, capsys):
    path = tmp_path / "latin1.toml"
    path.write_bytes('[run]\nname = "café"\n'.encode("latin-1"))
    code, out, err = _run(capsys, "run", str(path))
    assert (code, out) == (2, "")
    assert err == f"error: {str(path)!r} is not UTF-8 text (byte 0xe9 at offset 17); save the file as UTF-8\n"


def test_a_million_dimensions_is_refused_before_anything_is_allocated(tmp_path, capsys, machine_of_64_gb):
    code, out, err = _run(capsys, "run", str(_config(tmp_path, d=10 ** 6, replicates=8)))
    # 8 bytes × R = 8 × d² = 10¹² × (4 + 5 × 1 learner) = 5.76e14 bytes
    assert (code, out) == (2, "")
    assert err == ("error: this run needs about 576 TB of memory (run.replicates = 8, d = 1000000, 1 learner), more "
                   "than this machine's 64 GB; lower run.replicates or d, or split the replicates over runs with "
                   "different seeds\n")


def test_a_billion_replicates_is_refused_not_hung(tmp_path, capsys, machine_of_64_gb):
    code, out, err = _run(capsys, "run", str(_config(tmp_path, replicates=10 ** 9, d=8)))
    # 8 bytes × 10⁹ × 8² × (4 + 5) = 4.608e12 bytes
    assert (code, out) == (2, "")
    assert err.startswith("error: this run needs about 4.61 TB of memory "
                          "(run.replicates = 1000000000, d = 8, 1 learner)")


def test_a_long_run_warns():
    with pytest.warns(preflight.PreflightWarning, match=r"^this run is estimated to take about [0-9.]+ days"):
        preflight.check([("spiked-covariance", {"d": 64})], n_learners=2, T=10 ** 6, R=64)


def test_a_label_of_the_wrong_type(tmp_path, capsys):
    code, out, err = _run(capsys, "run", str(_config(tmp_path, learner="label = 5")))
    assert (code, out) == (2, "")
    assert err == 'error: [[learners]] number 1 (meg): label must be a string, got 5 (int); write label = "5"\n'


def test_run_names_cannot_leave_runs(tmp_path, capsys, monkeypatch):
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    monkeypatch.chdir(work)
    code, out, _ = _run(capsys, "run", str(_config(tmp_path, extra='name = "../../x"')), "--quiet")
    assert code == 0
    made = [p.name for p in (work / "runs").iterdir()]
    assert len(made) == 1 and made[0].startswith("x-") and made[0].endswith("-seed0")
    assert not (tmp_path / "x").exists() and sorted(p.name for p in work.iterdir()) == ["runs"]


PLUGIN = '''
import numpy as np
import onlinelab as ol

@ol.register_environment("explodes-in-round-1")
class Explodes(ol.Environment):
    psd = True

    def emit(self, t, history):
        raise RuntimeError("boom")


@ol.register_environment("forgets-to-return")
class Forgets(ol.Environment):
    psd = True

    def emit(self, t, history):
        np.eye(self.d)
'''


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    """One plugin file for the module (a name registers once per process)."""
    path = tmp_path_factory.mktemp("plugins") / "plug_envs.py"
    path.write_text(PLUGIN)
    return path


def test_round_one_failure_is_reported_as_such(tmp_path, capsys, plugin):
    out_dir = tmp_path / "run1"
    config = _config(tmp_path, env="explodes-in-round-1", d=3)
    code, out, err = _run(capsys, "--plugins", str(plugin), "run", str(config), "--quiet", "--out", str(out_dir))
    assert (code, out) == (1, "")
    assert err == ("error: the run failed in round 1 of 20 (RuntimeError: boom); completed checkpoints are in the "
                   f"exception's .partial result\nthe completed part of the run is in {out_dir}; after fixing the "
                   f"cause, finish it with: onlinelab resume {out_dir}\n")
    assert ol.load_run(out_dir).meta["status"].startswith("failed")


def test_emit_returning_none(tmp_path, capsys, plugin):
    code, out, err = _run(capsys, "--plugins", str(plugin), "run", str(_config(tmp_path, env="forgets-to-return", d=3)),
                          "--quiet", "--out", str(tmp_path / "run2"))
    assert code == 1
    assert err.startswith("error: environment 'forgets-to-return(d=3)', round 1: emit returned None (a missing "
                          "return?); return a loss object such as onlinelab.FactoredLoss(samples) or "
                          "onlinelab.DenseLoss(matrices) (shape (R, d, d))\n")


def test_emit_returning_an_array_instead_of_a_loss():
    class Raw(ol.Environment):
        def emit(self, t, history):
            return np.zeros((self.replicates, self.d, self.d))

    with pytest.raises(LossError) as err:
        ol.simulate(Raw(d=3), [ol.make_learner("meg")], T=5)
    assert str(err.value).startswith("environment 'Raw(d=3)', round 1: emit returned a ndarray; return a loss object")


def test_complex_losses_are_an_error_not_truncated():
    with pytest.raises(LossError) as err:
        ol.DenseLoss(np.eye(2, dtype=complex)[None] * (1 + 1e-3j))
    assert str(err.value) == ("DenseLoss got a complex array (dtype complex128); losses are real: take the real part "
                              "explicitly (np.real) if the imaginary part is zero, else fix the environment")
    with pytest.raises(LossError, match=r"^FactoredLoss got a complex array"):
        ol.FactoredLoss(np.ones((1, 2)) * 1j)


class _Declared(ol.Environment):
    def emit(self, t, history):
        return ol.DenseLoss(np.broadcast_to(np.eye(self.d) / 2, (self.replicates, self.d, self.d)))


@pytest.mark.parametrize("bound, words", [(float("nan"), "nan, which would turn the per-round norm check off"),
                                          (1 + 0j, "(1+0j) (complex)")])
def test_nan_or_complex_loss_bound(bound, words):
    env = type("Odd", (_Declared,), {"loss_bound": bound})(d=3)
    escaped = words.replace("(", r"\(").replace(")", r"\)").replace("+", r"\+")
    with pytest.raises(DomainError, match=r"^environment 'Odd\(d=3\)' declares loss_bound = " + escaped):
        ol.simulate(env, [ol.make_learner("meg")], T=3)
    with pytest.raises(CheckError, match=r"^environment 'Odd' declares loss_bound"):
        check_environment(env, T=3)


class Global(_Declared):
    def emit(self, t, history):
        noise = np.random.standard_normal()  # the global generator: irreproducible
        return ol.DenseLoss(np.broadcast_to(np.eye(self.d) * (0.4 + 0.01 * noise), (self.replicates, self.d, self.d)))


class PyRandom(_Declared):
    def emit(self, t, history):
        import random
        scale = random.uniform(0.1, 0.4)
        return ol.DenseLoss(np.broadcast_to(np.eye(self.d) * scale, (self.replicates, self.d, self.d)))


def test_check_catches_global_rng():
    state = np.random.get_state()
    for cls, used in ((Global, "numpy's global RNG \\(np\\.random\\.\\* functions\\)"),
                      (PyRandom, "the random module")):
        with pytest.raises(CheckError, match=rf"^{cls.__name__}: the run drew from {used}; draw randomness only from "
                                             r"self\.rng \(set by reset\)"):
            check_environment(cls(d=3), T=4)
    assert np.array_equal(np.random.get_state()[1], state[1])  # the caller's global state is restored


def test_plugins_from_the_config_are_relative_to_it(tmp_path, capsys, monkeypatch):
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "mine.py").write_text(textwrap.dedent('''
        import numpy as np
        import onlinelab as ol

        @ol.register_environment("half-identity-from-config")
        class Half(ol.Environment):
            psd = True

            def emit(self, t, history):
                return ol.DenseLoss(np.broadcast_to(np.eye(self.d) / 2, (self.replicates, self.d, self.d)))
    '''))
    path = _config(conf, env="half-identity-from-config", d=3, extra='plugins = ["mine.py"]')
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(capsys, "run", str(path), "--quiet", "--out", str(tmp_path / "r"))
    assert code == 0 and "half-identity-from-config" in out
    (conf / "broken.toml").write_text(path.read_text().replace('"mine.py"', '"missing.py"'))
    code, _, err = _run(capsys, "run", str(conf / "broken.toml"))
    assert (code, err) == (2, f"error: plugin file 'missing.py' does not exist (resolved against {str(conf)!r}); "
                              "check the path\n")


def test_show_a_learner(capsys):
    code, out, _ = _run(capsys, "show", "meg")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "learner 'meg' (onlinelab.learners.meg.MEG)"
    assert "  eta              auto" in lines and "  plays            'spectraplex'" in lines
    assert any(line.startswith("    meg-worst-case  [theory §2") for line in lines)
    code, _, err = _run(capsys, "show", "mgg")
    assert (code, err) == (2, "error: unknown name 'mgg' (did you mean 'meg'?); `onlinelab list` prints the names\n")


def test_debug_shows_the_traceback(tmp_path):
    with pytest.raises(ConfigError, match="label must be a string"):
        cli.main(["--debug", "run", str(_config(tmp_path, learner="label = 5"))])


def _cli(*argv, **kw):
    return subprocess.run([sys.executable, "-m", "onlinelab", *argv], capture_output=True, text=True, **kw)


def test_version_and_python_dash_m():
    done = _cli("--version")
    assert (done.returncode, done.stdout) == (0, f"onlinelab {ol.__version__}\n")


def test_a_closed_pipe_is_a_clean_exit():
    proc = subprocess.Popen([sys.executable, "-m", "onlinelab", "list"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader is gone before the first line is written: every write meets a closed pipe
    err = proc.stderr.read().decode()
    assert (proc.wait(), err) == (0, "")


def test_bad_input_in_a_real_process_has_no_traceback(tmp_path):
    done = _cli("run", str(_config(tmp_path, learner="label = 5")))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == 'error: [[learners]] number 1 (meg): label must be a string, got 5 (int); write label = "5"\n'
