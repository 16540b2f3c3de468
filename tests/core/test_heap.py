"""onlinelab.core.heap: on glibc, freed block-sized arrays stay in the heap, so allocating them again faults no pages.

Each case runs in a fresh process (the settings are per process and cannot be undone).  The reference is the
operating system's own count of minor page faults (``getrusage``) over the same allocation pattern with the
C library's defaults (``ONLINELAB_KEEP_HEAP=0``): three arrays of 2 MB allocated, written and freed 30 times,
as a run's blocks do.  With the defaults every round faults about two of the three arrays' 512 pages in again
(measured: 30 800 in all); kept, only the first round does (measured: 1 500), so a factor of 10 leaves a wide
margin either way.
"""
import os
import subprocess
import sys

import pytest

PATTERN = """
import resource, numpy as np
from onlinelab.core.heap import keep_freed_memory
kept = keep_freed_memory()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(30):
    blocks = [np.ones(2 ** 18) for _ in range(3)]      # 2 MB each, every page written
    del blocks
print(kept, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def run(code: str, **env) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, **env), capture_output=True, text=True,
                         check=True)
    return out.stdout.split()


glibc = pytest.mark.skipif(not sys.platform.startswith("linux") or not os.confstr("CS_GNU_LIBC_VERSION"),
                           reason="the settings are glibc's; elsewhere keep_freed_memory does nothing (tested below)")


@glibc
def test_kept_heap_faults_block_sized_arrays_in_once_not_every_time():
    kept, faults = run(PATTERN, ONLINELAB_KEEP_HEAP="1")
    off, faults_off = run(PATTERN, ONLINELAB_KEEP_HEAP="0")
    assert (kept, off) == ("True", "False")
    assert int(faults) * 10 < int(faults_off), (faults, faults_off)


@glibc
def test_simulate_applies_it_once_per_process():
    """Two simulate calls: the settings are applied by the first, and mallopt is not called again."""
    code = ("import onlinelab as ol\nfrom onlinelab.core import heap\ncalls = []\nreal = heap._apply\n"
            "heap._apply = lambda: calls.append(1) or real()\nprint(heap._DONE)\n"
            "for _ in range(2):\n    ol.simulate('bernoulli-arms', ['exp3'], T=20, replicates=2)\n"
            "print(heap._DONE, len(calls))")
    assert run(code, ONLINELAB_KEEP_HEAP="1") == ["[]", "[True]", "1"]


@pytest.mark.parametrize("value", ["0", "off", "False", " no "])
def test_the_environment_variable_turns_it_off(value):
    assert run("from onlinelab.core.heap import keep_freed_memory\nprint(keep_freed_memory())",
               ONLINELAB_KEEP_HEAP=value) == ["False"]


def test_elsewhere_it_does_nothing(monkeypatch):
    from onlinelab.core import heap
    monkeypatch.setattr(heap, "_DONE", [])
    monkeypatch.setattr(heap.sys, "platform", "darwin")
    assert heap.keep_freed_memory() is False
