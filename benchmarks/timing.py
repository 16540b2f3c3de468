"""The one timing rule the benchmarks share: the best of k calls (on a shared machine the minimum is the least
disturbed).  Imported by the ``bench_*.py`` scripts, which run with this folder on ``sys.path``."""
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
