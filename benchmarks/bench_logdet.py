"""Benchmark: log-det OMD (dense sampler) against its floor, the stacked eigendecomposition.

Prints, measured in one run on this machine (single BLAS thread):
  * the time of LogDetOMD(sampler="dense") at d = 16, R = 128, T = 2000 run through
    onlinelab.simulate, over the time of T stacked numpy.linalg.eigh calls on (R, d, d)
    arrays — the floor (target: ratio <= 1.5);
  * the share of the simulation's wall time spent in the simpy event loop itself (target <= 5 %).

and, at small d, where Python bookkeeping rather than linear algebra is the cost:
  * ``small-d ratio to hand-written loop: Z`` — simulate at d = 4, R = 4, T = 10⁴ (with its metrics:
    regret, comparator, loss statistics, checks) over a minimal hand-written loop running the same
    dense log-det algorithm (the learner's own act/update on the same losses, bandit feedback
    computed inline, no metrics) — target ≤ 2.

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


def hand_loop(env, learner, d: int, R: int, T: int) -> float:
    """The dense log-det algorithm alone: act, the realised loss of the sampled direction, update."""
    from onlinelab.core.protocol import Context, Feedback
    from onlinelab.core.rng import BatchRNG
    e = env.clone()
    e.reset(BatchRNG.from_seed(0, "environment", "hand", R), T)
    losses = [e.emit(t, None) for t in range(1, T + 1)]  # drawn before the clock starts
    rng = BatchRNG.from_seed(0, "learner", "hand", R)
    state = learner.init(Context(d=d, T=T, replicates=R, psd=env.psd, fro_sq_mean=env.fro_sq_mean), rng)
    start = time.perf_counter()
    for loss in losses:
        play = learner.act(state, rng)
        x = loss.factors[:, :, 0]
        value = -np.einsum("ri,ri->r", play.action, x) ** 2  # ⟨w, L w⟩ for L = −x xᵀ
        state = learner.update(state, play, Feedback("bandit", value=value), rng)
    return time.perf_counter() - start


def small_d(d: int = 4, R: int = 4, T: int = 10_000) -> None:
    env = ol.make_environment("spiked-covariance", d=d)
    learner = ol.make_learner("logdet-omd", sampler="dense")
    with threadpool_limits(1):
        loop = hand_loop(env, learner, d, R, T)
        start = time.perf_counter()
        res = ol.simulate(env, {"dense": learner}, T=T, replicates=R, seed=0)
        total = time.perf_counter() - start
        loop = min(loop, hand_loop(env, learner, d, R, T))  # both sides of the run: a noisy machine
    timing = res.meta["timings"][res.environments[0]]
    print(f"d={d} R={R} T={T}: hand-written loop {loop:.3f} s ({1e6 * loop / T:.0f} µs/round), simulate "
          f"{total:.3f} s ({1e6 * total / T:.0f} µs/round; learner {timing['learner_s']['dense']:.3f} s, "
          f"environment {timing['env_s']:.3f} s, metrics {timing['metrics_s']:.3f} s)")
    print(f"small-d ratio to hand-written loop: {total / loop:.2f}")


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
    small_d()


if __name__ == "__main__":
    main()
