"""Theory §6: when does Algorithm 9 reach Algorithm 7's residual after 1500 iterations? (120 x 60, rank 3, 5 % outliers)

    python examples/bregman/acceleration.py [--seeds 5] [--iters 1500]
"""
import argparse
import sys
import time

from onlinelab.bregman.experiments import acceleration_table

if __name__ == "__main__":
    start = time.perf_counter()
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--iters", type=int, default=1500)
    ap.add_argument("--n", type=int, default=120)
    ap.add_argument("--s", type=int, default=60)
    a = ap.parse_args()
    print(f"Algorithms 7 and 9 on {a.seeds} instances, {a.iters} iterations each ...",
          file=sys.stderr, flush=True)
    table = acceleration_table(n=a.n, s=a.s, iters=a.iters, seeds=range(a.seeds))
    print(table.to_string(index=False))
    print(f"median iteration at which Algorithm 9 first reaches it: {table.alg9_first.median():g}")
    print(f"done in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
