"""Benchmark: log-det OMD (dense sampler) against its floor, the stacked eigendecomposition.

Prints, measured in one run on this machine (single BLAS thread):
  * the time of LogDetOMD(sampler="dense") at d = 16, R = 128, T = 2000 run through
    onlinelab.simulate, over the time of T stacked numpy.linalg.eigh calls on (R, d, d)
    arrays — the floor (target: ratio <= 1.5);
  * the share of the simulation's wall time spent in the simpy event loop itself (target <= 5 %).

and, at small d, where per-call overhead rather than linear algebra is the cost (issue 23), through
``simulate`` (with its metrics: regret, comparator, loss statistics, checks) over a plain numba loop of the
same log-det algorithm and the same environment written here (`_logdet_floor`: x ~ N(0, Σ) normalised,
the sampler, the estimate, the rank-one eigh or Jacobi rotation, the β Newton solve; no metrics):
  * ``small-d ratio to compiled floor`` for the dense and the sparse sampler at d = 4 and 8, R = 4,
    T = 10⁴ (target ≤ 2);
  * ``R=1 ratio to compiled floor`` for the dense sampler at d = 4, T = 10⁵ (target ≤ 3);
  * the first call's compile (or on-disk cache load) time of the kernels (onlinelab.kernels.compile_report).
``simulate`` plays each block of rounds in `onlinelab.kernels.logdet.logdet_block`; both sides are timed
as the best of five calls after a warm-up run, taking turns call by call (``benchmarks/timing.py``).

Usage:  python benchmarks/bench_logdet.py [--d 16] [--replicates 128] [--rounds 2000] [--small-only]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits
from timing import interleaved

import onlinelab as ol


def eigh_floor(d: int, R: int, T: int, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((R, d, d))
    mats = a + np.swapaxes(a, 1, 2)
    start = time.perf_counter()
    for _ in range(T):
        np.linalg.eigh(mats)
    return time.perf_counter() - start


def _logdet_floor(T, R, d, sqrt_cov, eta, gamma, sparse, seed):
    """Cumulative realised loss per replicate of bandit log-det OMD on spiked-covariance losses, in plain numba."""
    np.random.seed(seed)
    lam, U = np.full((R, d), 1.0 / d), np.zeros((R, d, d))
    for r in range(R):
        for j in range(d):
            U[r, j, j] = 1.0
    total, g, x, w, v, a, lh = np.zeros(R), np.empty(d), np.empty(d), np.empty(d), np.empty(d), np.empty(d), np.empty(d)
    M = np.empty((d, d))
    for _ in range(T):
        for r in range(R):
            for j in range(d):                                  # the environment: x = Σ^½ g / ‖Σ^½ g‖
                g[j] = np.random.standard_normal()
            nrm = 0.0
            for j in range(d):
                x[j] = 0.0
                for k in range(d):
                    x[j] += sqrt_cov[j, k] * g[k]
                nrm += x[j] * x[j]
            for j in range(d):
                x[j] /= np.sqrt(nrm)
                lh[j] = (1 - gamma) * lam[r, j] + gamma / d
                a[j] = 1.0 / lam[r, j]
            u0, u1, u2 = np.random.random(), np.random.random(), np.random.random()
            i, jj, run0, run1 = d - 1, d - 1, 0.0, 0.0            # the categorical draws (λ̂ sums to 1)
            for k in range(d):
                run0 += lh[k]
                if run0 > u1 and i == d - 1:
                    i = k
                run1 += lh[k]
                if run1 > u2 and jj == d - 1:
                    jj = k
            for j in range(d):
                if sparse:
                    sig = 1.0 if u0 < 0.5 else -1.0
                    w[j] = U[r, j, i] if i == jj else (U[r, j, i] + sig * U[r, j, jj]) / np.sqrt(2.0)
                else:
                    v[j] = (1.0 if np.random.random() < 0.5 else -1.0) * np.sqrt(lh[j])
            if not sparse:
                for j in range(d):
                    w[j] = U[r, j, i]
                    if u0 >= 0.5:
                        w[j] = 0.0
                        for k in range(d):
                            w[j] += U[r, j, k] * v[k]
            proj = 0.0
            for j in range(d):
                proj += w[j] * x[j]
            ell = -proj * proj
            total[r] += ell
            if not sparse and u0 < 0.5:
                a[i] += eta * 2 * ell / lh[i]
            elif not sparse:
                for j in range(d):
                    a[j] -= eta * ell / lh[j]
                    v[j] = v[j] / lh[j]                          # s_j/√λ̂_j
                for j in range(d):
                    for k in range(d):
                        M[j, k] = (a[j] if j == k else 0.0) + eta * ell * v[j] * v[k]
                evals, V = np.linalg.eigh(M)
                a[:] = evals
                U[r] = U[r] @ V
            elif i == jj:
                a[i] += eta * ell / (lh[i] * lh[i])
            else:
                c = eta * (1.0 if u0 < 0.5 else -1.0) * ell / (2 * lh[i] * lh[jj])
                th = 0.5 * np.arctan2(2 * c, a[i] - a[jj])
                cs, sn = np.cos(th), np.sin(th)
                p, q = a[i], a[jj]
                a[i] = p * cs * cs + 2 * c * sn * cs + q * sn * sn
                a[jj] = p * sn * sn - 2 * c * sn * cs + q * cs * cs
                for j in range(d):
                    uI, uJ = U[r, j, i], U[r, j, jj]
                    U[r, j, i], U[r, j, jj] = cs * uI + sn * uJ, -sn * uI + cs * uJ
            amin = a.min()
            s = 1.0
            for _ in range(100):                                 # Newton on Σ 1/(c_i + s) = 1 from the left
                f, df = -1.0, 0.0
                for j in range(d):
                    z = 1.0 / (a[j] - amin + s)
                    f += z
                    df += z * z
                if abs(f) <= 1e-15:
                    break
                s += f / df
            tot = 0.0
            for j in range(d):
                lam[r, j] = 1.0 / (a[j] - amin + s)
                tot += lam[r, j]
            for j in range(d):
                lam[r, j] /= tot
    return total


def small_d_ratio(sampler: str, d: int, R: int, T: int) -> tuple[float, float]:
    """(simulate's best time, the compiled floor's best time) for log-det OMD with ``sampler`` at (d, R, T)."""
    import numba
    env, learner = ol.make_environment("spiked-covariance", d=d), ol.make_learner("logdet-omd", sampler=sampler)
    p = learner.resolved_params(ol.Context(d=d, T=T, replicates=R, fro_sq_mean=env.fro_sq_mean))
    floor = numba.njit(cache=True)(_logdet_floor)
    args = (T, R, d, env.sqrt_cov, p["eta"], p["gamma"], sampler == "sparse")
    floor(50, R, *args[2:], 0)
    ol.simulate(env, [learner], T=200, replicates=R, seed=0)
    got = interleaved({"floor": lambda: floor(*args, 1),
                       "sim": lambda: ol.simulate(env, [learner], T=T, replicates=R, seed=0)}, 5)
    return got["sim"][0], got["floor"][0]


def small_d(R: int = 4, T: int = 10_000, r1_rounds: int = 100_000) -> None:
    from onlinelab.kernels.jit import compile_report
    with threadpool_limits(1):
        for sampler in ("dense", "sparse"):
            for d in (4, 8):
                sim, floor = small_d_ratio(sampler, d, R, T)
                print(f"{sampler} d={d} R={R} T={T}: simulate {sim:.3f} s ({1e6 * sim / (T * R):.2f} µs per "
                      f"replicate-round), compiled floor {floor:.3f} s ({1e6 * floor / (T * R):.2f} µs)")
                print(f"small-d ratio to compiled floor ({sampler}, d={d}): {sim / floor:.2f}")
        sim, floor = small_d_ratio("dense", 4, 1, r1_rounds)
        print(f"dense d=4 R=1 T={r1_rounds}: simulate {sim:.3f} s, compiled floor {floor:.3f} s")
        print(f"R=1 ratio to compiled floor (dense, d=4): {sim / floor:.2f}")
    for name, secs in compile_report().items():
        if "logdet" in name:
            print(f"compile (or cache load) of {name}: {secs:.2f} s")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--d", type=int, default=16)
    p.add_argument("--replicates", type=int, default=128)
    p.add_argument("--rounds", type=int, default=2000)
    p.add_argument("--small-only", action="store_true", help="only the small-d lines (issue 23)")
    args = p.parse_args(argv)
    if args.small_only:
        small_d()
        return
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
