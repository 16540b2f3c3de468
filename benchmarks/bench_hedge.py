"""Benchmark: Hedge (negative-entropy FTRL/OMD) on 10 experts, R = 20, T = 10⁴, through onlinelab.simulate.

Prints, measured in one run (single BLAS thread), on the same pre-drawn loss sequence:
  * ``ratio to floor: X`` — simulate (with its metrics: regret, comparator, loss statistics,
    checks) over the floor, a minimal numpy loop doing the same Hedge updates for all 20
    replicates at once (target ≤ 1.5);
  * ``speedup over per-replicate loop: Y`` — a straightforward one-replicate-at-a-time numpy
    loop over the simulator's time (target ≥ 8).
The three computations are checked to produce the same cumulative losses.  Each runs once on 50 rounds
before it is timed, so one-off costs (importing the registered learners, numpy's first calls) are not
counted as per-run cost.  Through ``simulate`` the Replay environment emits blocks of rounds and Hedge
(FTRL) plays each block in one call (onlinelab.core.slot, FTRL.play_block): the same plays as round by round.

Usage:  python benchmarks/bench_hedge.py [--experts 10] [--replicates 20] [--rounds 10000]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

import onlinelab as ol
from onlinelab.core.blocks import LossBlock
from onlinelab.geometry.domains import Simplex
from onlinelab.losses.vector import LinearLoss


class Replay(ol.Environment):
    """An oblivious environment that replays a fixed (T, R, n) loss array."""

    domain = "simplex"

    def __init__(self, d: int = 10):
        super().__init__(d=d)

    def reset(self, rng, T):
        super().reset(rng, T)
        self.simplex = Simplex(self.d)

    def emit(self, t, history):
        return LinearLoss(LOSSES[t - 1], self.simplex)

    def emit_block(self, t, n):  # oblivious: n rounds at once, checked and counted once (onlinelab.core.blocks)
        return LossBlock.of_rows(LinearLoss, LOSSES[t - 1:t - 1 + n], domain=self.simplex)


LOSSES = None


def floor(losses, eta):
    T, R, n = losses.shape
    S = np.zeros((R, n))
    total = np.zeros(R)
    for t in range(T):
        h = -eta * S
        p = np.exp(h - h.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        total += np.einsum("ri,ri->r", p, losses[t])
        S += losses[t]
    return total


def per_replicate(losses, eta):
    T, R, n = losses.shape
    out = np.zeros(R)
    for r in range(R):
        S = np.zeros(n)
        for t in range(T):
            h = -eta * S
            p = np.exp(h - h.max())
            p /= p.sum()
            out[r] += p @ losses[t, r]
            S += losses[t, r]
    return out


def main(argv=None):
    global LOSSES
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--experts", type=int, default=10)
    ap.add_argument("--replicates", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=10_000)
    args = ap.parse_args(argv)
    n, R, T = args.experts, args.replicates, args.rounds
    eta = float(np.sqrt(8 * np.log(n) / T))
    LOSSES = np.random.default_rng(0).random((T, R, n))
    hedge = lambda: {"hedge": ol.make_learner("ftrl", regularizer="entropy", eta=eta)}  # noqa: E731
    with threadpool_limits(1):
        floor(LOSSES[:50], eta), per_replicate(LOSSES[:50], eta)        # warm-up (not timed)
        ol.simulate(Replay(d=n), hedge(), T=50, replicates=R, seed=0)
        t0 = time.perf_counter()
        want = floor(LOSSES, eta)
        t_floor = time.perf_counter() - t0
        t0 = time.perf_counter()
        res = ol.simulate(Replay(d=n), hedge(), T=T, replicates=R, seed=0)
        t_sim = time.perf_counter() - t0
        t0 = time.perf_counter()
        loop = per_replicate(LOSSES, eta)
        t_loop = time.perf_counter() - t0
    got = res.final("cumulative_loss").to_numpy()
    assert np.allclose(got, want, atol=1e-8) and np.allclose(loop, want, atol=1e-8), "implementations disagree"
    timing = res.meta["timings"][res.environments[0]]
    print(f"Hedge, {n} experts, R = {R}, T = {T}: floor {t_floor:.3f} s, simulate {t_sim:.3f} s, "
          f"per-replicate loop {t_loop:.3f} s")
    print(f"  simulate breakdown: learner {timing['learner_s']['hedge']:.3f} s, environment {timing['env_s']:.3f} s, "
          f"metrics {timing['metrics_s']:.3f} s, event loop {timing['loop_s']:.3f} s")
    print(f"ratio to floor: {t_sim / t_floor:.2f}")
    print(f"speedup over per-replicate loop: {t_loop / t_sim:.2f}")


if __name__ == "__main__":
    main()
