"""Theory §6.5: relative error of Algorithm 11 against the fraction of observed entries (40 x 40, rank 2).

    python examples/bregman/completion_fraction.py [--iters 1000] [--seeds 3]
"""
import argparse
import sys
import time

from onlinelab.bregman.experiments import completion_table

if __name__ == "__main__":
    start = time.perf_counter()
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=3)
    a = ap.parse_args()
    print(f"Algorithm 11 at 6 fractions x {a.seeds} seeds, {a.iters} iterations each ...",
          file=sys.stderr, flush=True)
    t = completion_table(iters=a.iters, seeds=range(a.seeds))
    print(t.groupby("fraction")[["rel_error", "rank"]].median().to_string())
    print(f"done in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
