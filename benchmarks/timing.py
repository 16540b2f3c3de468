"""The timing rules the benchmarks share.  Imported by the ``bench_*.py`` scripts, which run with this folder on
``sys.path``.

On a shared machine the minimum of several calls is the least disturbed time, and the disturbance comes in spells
of seconds: timing one side's k calls and then the other's can put the two sides in different spells (the same
compiled floor measured 0.144 s and 0.252 s a minute apart here).  A ratio is therefore measured with
`interleaved`: the sides take turns, call by call, and each keeps its best.
"""
from __future__ import annotations

import time


def best_of(run, k: int = 3):
    """(the fastest of k timed calls of ``run()``, the last call's result); k = 0 gives (inf, None): a skipped line."""
    best, out = float("inf"), None
    for _ in range(k):
        t0 = time.perf_counter()
        out = run()
        best = min(best, time.perf_counter() - t0)
    return best, out


def interleaved(runs: dict, k: int = 5) -> dict:
    """{name: (the fastest of k timed calls, the last call's result)} for each callable in ``runs``, the callables
    taking turns (one call of each per pass, k passes), so that every side of a ratio meets the same spells of load.
    """
    best = {name: (float("inf"), None) for name in runs}
    for _ in range(k):
        for name, run in runs.items():
            t0 = time.perf_counter()
            out = run()
            best[name] = (min(best[name][0], time.perf_counter() - t0), out)
    return best
