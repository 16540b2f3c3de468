"""simulate runs BLAS on blas_threads threads and restores the pools after; the controller is rescanned after
new imports and reused otherwise."""
import sys

from threadpoolctl import threadpool_info, threadpool_limits

import onlinelab as ol
from onlinelab.core import blas


def _blas_threads():
    return {lib["filepath"]: lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


def test_simulate_runs_on_the_asked_blas_threads_and_restores_them(monkeypatch):
    BernoulliArms = type(ol.make_environment("bernoulli-arms"))
    seen, real = [], BernoulliArms.emit_block

    def emit_block(self, t, n):
        seen.append(_blas_threads())
        return real(self, t, n)
    monkeypatch.setattr(BernoulliArms, "emit_block", emit_block)
    before = _blas_threads()
    assert before, "no BLAS library is loaded: the test would check nothing"
    for threads in (1, 2):
        with threadpool_limits(limits=threads):   # the reference: threadpoolctl's own limits (a library built
            want = _blas_threads()                 # single-threaded, such as scs's OpenBLAS, stays at 1)
        seen.clear()
        ol.simulate("bernoulli-arms", [ol.make_learner("exp3-auer", gamma=0.1)], T=20, replicates=2,
                    blas_threads=threads)
        assert seen and all(s == want for s in seen)
        assert _blas_threads() == before


def test_the_controller_is_reused_until_the_modules_change(monkeypatch):
    first = blas.controller()
    assert blas.controller() is first
    monkeypatch.setitem(sys.modules, "onlinelab_test_fake_module", object())
    second = blas.controller()
    assert second is not first and blas.controller() is second
    name = next(iter(sys.modules))                 # the same count, another set: rescanned too
    monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "onlinelab_test_other_module", object())
    assert blas.controller() is not second
