"""Benchmark: log-det OMD (dense sampler) against its floor, the stacked eigendecomposition.

Prints, measured in one run on this machine (single BLAS thread):
  * the time of LogDetOMD(sampler="dense") at d = 16, R = 128, T = 2000 run through
    onlinelab.simulate, over the time of T stacked numpy.linalg.eigh calls on (R, d, d)
    arrays — the floor (target: ratio <= 1.5);
  * the share of the simulation's wall time spent in the simpy event loop itself (target <= 5 %).

Usage:  python benchmarks/bench_logdet.py [--d 16] [--replicates 128] [--rounds 2000]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

import onlinelab as ol


def eigh_floor(d: int, R: int, T: int, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((R, d, d))
    mats = a + np.swapaxes(a, 1, 2)
    start = time.perf_counter()
    for _ in range(T):
        np.linalg.eigh(mats)
    return time.perf_counter() - start


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--d", type=int, default=16)
    p.add_argument("--replicates", type=int, default=128)
    p.add_argument("--rounds", type=int, default=2000)
    args = p.parse_args(argv)
    d, R, T = args.d, args.replicates, args.rounds
    env = ol.make_environment("spiked-covariance", d=d)
    learner = ol.make_learner("logdet-omd", sampler="dense")
    with threadpool_limits(1):
        floor = eigh_floor(d, R, T)
        start = time.perf_counter()
        res = ol.simulate(env, {"dense": learner}, T=T, replicates=R, seed=0)
        total = time.perf_counter() - start
        floor2 = eigh_floor(d, R, T, seed=1)  # measure the floor on both sides of the run: noisy machine
    floor = min(floor, floor2)
    timing = res.meta["timings"][res.environments[0]]
    learner_s = timing["learner_s"]["dense"]
    print(f"d={d} R={R} T={T}")
    print(f"floor: {T} stacked eigh calls on ({R}, {d}, {d}): {floor:.3f} s")
    print(f"logdet-omd dense learner time (act+update): {learner_s:.3f} s")
    print(f"simulate() wall time (with environment and metrics): {total:.3f} s")
    print(f"ratio learner/floor: {learner_s / floor:.2f}  (target <= 1.5)")
    print(f"ratio simulate/floor: {total / floor:.2f}")
    print(f"event-loop share of wall time: {100 * timing['loop_s'] / timing['wall_s']:.2f} %  (target <= 5 %)")
    print(f"environment share: {100 * timing['env_s'] / timing['wall_s']:.1f} %, "
          f"metrics share: {100 * timing['metrics_s'] / timing['wall_s']:.1f} %")


if __name__ == "__main__":
    main()
