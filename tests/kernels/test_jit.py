"""The compiled-kernel machinery: lazy compile, the switch, the one-warning fallback, nothing at import."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import onlinelab as ol
from onlinelab.errors import CompileWarning, ConfigError, ConfigTypeError
from onlinelab.experiment.config import parse
from onlinelab.kernels import compiled_active, jit, use_compiled


def test_import_compiles_nothing_and_does_not_import_numba():
    code = "import sys, onlinelab; import onlinelab.kernels; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_kernel_compiles_on_first_call_and_records_its_compile_time():
    @jit.kernel
    def axpy(a, x, y):
        out = np.empty_like(x)
        for i in range(x.shape[0]):
            out[i] = a * x[i] + y[i]
        return out

    x, y = np.arange(5.0), np.ones(5)
    got = axpy.call(2.0, x, y)
    np.testing.assert_array_equal(got, 2.0 * x + y)   # a·x + y: one multiply and one add, same order, bit for bit
    assert axpy.compile_s is not None and axpy.compile_s > 0
    assert axpy.name in jit.compile_report()


def test_the_switch_is_scoped_and_simulate_restores_it():
    assert compiled_active()
    with use_compiled(False):
        assert not compiled_active()
        with use_compiled(True):
            assert compiled_active()
        assert not compiled_active()
    assert compiled_active()
    ol.simulate("bernoulli-arms", [ol.make_learner("exp3")], T=20, replicates=2, compiled=False)
    assert compiled_active()


def test_compiled_must_be_a_boolean_in_python_and_in_toml():
    with pytest.raises(ConfigError, match="compiled must be True or False"):
        ol.simulate("bernoulli-arms", [ol.make_learner("exp3")], T=5, compiled="no")
    base = {"environments": [{"name": "bernoulli-arms"}], "learners": [{"name": "exp3"}]}
    with pytest.raises(ConfigTypeError, match="run.compiled must be true or false.*no quotes"):
        parse({**base, "run": {"compiled": "false"}})
    assert parse({**base, "run": {"compiled": False}}).compiled is False


def test_a_machine_without_numba_falls_back_with_one_warning():
    code = """
import warnings, numpy as np
warnings.simplefilter("always")
from onlinelab.kernels import jit
@jit.kernel
def f(x):
    return x + 1.0
@jit.kernel
def g(x):
    return x * 2.0
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    a, b, c = f.call(1.0), g.call(1.0), f.call(2.0)
print(a, b, c, sum(issubclass(w.category, jit.CompileWarning) for w in caught))
"""
    env = {**os.environ, "ONLINELAB_NO_NUMBA": "1"}
    env.pop("ONLINELAB_KERNELS_STRICT", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.split() == ["None", "None", "None", "1"]   # every kernel asks for the numpy path; one warning in all


def test_compile_warning_is_a_user_warning_from_the_error_module():
    assert issubclass(CompileWarning, UserWarning) and jit.CompileWarning is CompileWarning


def test_one_kernel_that_cannot_compile_leaves_the_others_compiled():
    code = """
import warnings
from onlinelab.kernels import jit
@jit.kernel
def bad(x):
    return {"a": object()}[x]          # not in numba's nopython subset: a typing error at the first call
@jit.kernel
def good(x):
    return x * 2.0
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    print(bad.call("a"), good.call(1.5), bad.call("a"), sum(issubclass(w.category, jit.CompileWarning) for w in caught))
"""
    env = {**os.environ}
    env.pop("ONLINELAB_KERNELS_STRICT", None)
    env.pop("ONLINELAB_NO_NUMBA", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.split() == ["None", "3.0", "None", "1"]   # the bad one takes numpy, the good one still compiles


def test_the_cache_is_emptied_when_any_kernel_source_changes(tmp_path, monkeypatch):
    """numba keys a cached kernel on its own file; the stamp covers every kernels/*.py (a helper's edit
    must not leave a caller's stale machine code) and numba's version.  A kernel defined outside the package (a
    test's, a plugin's) may call the row helpers too: its own module's files are stamped and emptied alike, and
    nothing else in its folder is touched."""
    from types import SimpleNamespace

    from onlinelab.kernels import jit, scan
    inside = scan.__file__
    fake = SimpleNamespace(_cache=SimpleNamespace(_cache_path=str(tmp_path)))
    monkeypatch.setattr(jit, "_GUARDED", [])
    for name in ("old.f-1.py311.nbi", "old.f-1.py311.1.nbc", "notes.txt"):
        (tmp_path / name).write_text("x")
    jit._guard_cache(fake, "0.68.1", inside)          # no stamp yet: emptied, stamped
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", jit.STAMP]
    (tmp_path / "new.f-1.py311.nbi").write_text("x")
    monkeypatch.setattr(jit, "_GUARDED", [])
    jit._guard_cache(fake, "0.68.1", inside)          # the same sources: kept
    assert (tmp_path / "new.f-1.py311.nbi").exists()
    monkeypatch.setattr(jit, "_GUARDED", [])
    jit._guard_cache(fake, "0.69.0", inside)          # another numba: emptied again
    assert not (tmp_path / "new.f-1.py311.nbi").exists()

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    folder = SimpleNamespace(_cache=SimpleNamespace(_cache_path=str(outside)))
    for name in ("mine.f-1.py311.nbi", "mine.g-9.py311.1.nbc", "theirs.f-1.py311.nbi"):
        (outside / name).write_text("x")
    monkeypatch.setattr(jit, "_GUARDED", [])
    jit._guard_cache(folder, "0.68.1", "/somewhere/plugins/mine.py")     # no stamp for mine yet: its files go
    assert sorted(p.name for p in outside.iterdir()) == [f"{jit.STAMP}.mine.txt", "theirs.f-1.py311.nbi"]
    (outside / "mine.f-1.py311.nbi").write_text("x")
    monkeypatch.setattr(jit, "_GUARDED", [])
    jit._guard_cache(folder, "0.68.1", "/somewhere/plugins/mine.py")     # stamped and unchanged: kept
    assert (outside / "mine.f-1.py311.nbi").exists()
    monkeypatch.setattr(jit, "_GUARDED", [])
    jit._guard_cache(folder, "0.69.0", "/somewhere/plugins/mine.py")     # another numba: mine's go, theirs stay
    assert sorted(p.name for p in outside.iterdir()) == [f"{jit.STAMP}.mine.txt", "theirs.f-1.py311.nbi"]


def test_without_numba_a_run_takes_the_numpy_path_with_one_warning():
    """numba not importable at all (not merely switched off): the row helpers' binding fails first, with the one
    warning, and the run gives the numpy path's numbers."""
    code = """
import sys, warnings
sys.modules["numba"] = None          # import numba raises ImportError
import onlinelab as ol
from onlinelab.errors import CompileWarning
learner = ol.make_learner("ftrl", regularizer="entropy", eta=0.3)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    fast = ol.simulate("experts-adversarial", [learner], T=60, replicates=2, seed=1).final("cumulative_loss")
plain = ol.simulate("experts-adversarial", [learner], T=60, replicates=2, seed=1, compiled=False)
print(sum(issubclass(w.category, CompileWarning) for w in caught), bool((fast == plain.final("cumulative_loss")).all()))
"""
    env = {k: v for k, v in os.environ.items() if k not in ("ONLINELAB_KERNELS_STRICT", "ONLINELAB_NO_NUMBA")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert out.split() == ["1", "True"]
