"""Memory of an adaptive environment against the horizon: T = 10⁴ against T = 10⁶, through onlinelab.simulate.

An adaptive environment gets a read-only history; with the default ``history_window`` (1000 rounds)
what it keeps stops growing once T passes the window, so peak resident memory should be flat in T.
Each horizon runs in a fresh process (peak RSS is per process); the environment charges Hedge's
heaviest experts (d = 64 experts, R = 4), so an unbounded history would keep R·d·8 bytes = 2 kB of
losses a round (plus the loss objects), over 2 GB at T = 10⁶.  Printed, measured in one run:

  * ``adaptive memory ratio T=1000000 / T=10000: X`` — peak RSS of the long run over the short one's
    (target ≤ 1.2), with both peaks and what each run added above the process's RSS before it.

Usage:  python benchmarks/bench_memory.py [--small 10000] [--large 1000000]
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys

import numpy as np

import onlinelab as ol
from onlinelab.geometry.domains import Simplex
from onlinelab.losses.vector import LinearLoss

D, R = 64, 4


class Chaser(ol.Environment):
    """Adaptive: a linear loss on the simplex charging the experts the learner weights most; default window."""

    adaptive = True
    domain = "simplex"

    def reset(self, rng, T):
        super().reset(rng, T)
        self.simplex = Simplex(self.d)

    def emit(self, t, history):
        return LinearLoss(np.asarray(history.mixed) * self.d / 2 % 1.0, self.simplex)


def child(T: int) -> None:
    from threadpoolctl import threadpool_limits
    learner = ol.make_learner("ftrl", regularizer="entropy")
    with threadpool_limits(1):
        ol.simulate(Chaser(d=D), [learner], T=3, replicates=R)  # imports, caches
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        ol.simulate(Chaser(d=D), [learner], T=T, replicates=R, seed=0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    print(json.dumps({"before_kib": before, "peak_kib": peak}))


def measure(T: int) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", str(T)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--small", type=int, default=10_000)
    p.add_argument("--large", type=int, default=1_000_000)
    p.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child is not None:
        child(args.child)
        return
    small, large = measure(args.small), measure(args.large)
    for T, m in ((args.small, small), (args.large, large)):
        print(f"T={T}: peak RSS {m['peak_kib'] / 1024:.1f} MiB "
              f"(+{(m['peak_kib'] - m['before_kib']) / 1024:.1f} MiB during the run)")
    print(f"adaptive memory ratio T={args.large} / T={args.small}: {large['peak_kib'] / small['peak_kib']:.3f}")


if __name__ == "__main__":
    main()
