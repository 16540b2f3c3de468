"""Exp3 (Auer et al., γ = 0.01) on 10 Bernoulli arms through ``simulate``: against a compiled floor, the numpy
path and SMPyBandits, at T = 10⁴ and at T = 10⁷.

The problem: 10 Bernoulli arms with reward means 0.1, …, 0.8, 0.85, 0.9; ``exp3-auer`` with γ = 0.01
(SMPyBandits' ``Exp3``); T = 10⁴ rounds; R = 20 replicates; one checkpoint at T.  Timed in one run:

* ``simulate`` — what a user runs, ``simulate("bernoulli-arms", [exp3-auer(gamma=0.01)], T, R)``: the environment
  emits blocks of rounds and the learner plays each block whole in its compiled kernel
  (onlinelab/kernels/simplex.py, theory §8), with every metric recorded (regret, comparator, the per-arm
  metrics of theory §10, the bound);
* the compiled floor (`floor_loop`) — a plain numba loop of the same algorithm on the same arms, written here:
  per replicate and round, the environment's K Bernoulli losses (one uniform per arm, as ``bernoulli-arms``
  draws a full loss vector), p = (1 − γ) softmax(−(γ/K) Σ ℓ̂) + γ/K, the arm, the estimate, and the two sums
  ``simulate`` reports (Σ⟨p_t, ℓ_t⟩ and the pseudo-regret Σ⟨p_t, 1 − μ⟩ − (1 − μ*)).  Compiled and warmed first;
* the numpy path — the same ``simulate`` with ``compiled=False`` (the reference the kernels repeat, bit for bit);
* SMPyBandits' ``Exp3`` (when importable) on the same arms through its own ``choice``/``getReward`` loop, one
  replicate after the other.

Prints ``ratio to compiled floor`` (target ≤ 1.5), ``R=1 ratio to compiled floor`` (one replicate at T = 10⁶, as a
``simulate`` call's fixed cost of some tens of milliseconds needs a long run to amortise; target ≤ 3),
``speedup over numpy path`` (≥ 8), ``speedup over SMPyBandits`` (≥ 300; skipped with a note when it does not
import), the wall time of one T = 10⁷, R = 20 run (target under 60 s; ``--long-T`` changes T, 0 skips it) and of
the compiled floor at that T right after it (what this machine allows at that moment), the first process's
compile time and a second process's cache-load time (two fresh processes sharing a new numba cache directory).
Each timed computation first runs once, untimed (50 rounds; the floor at up to 10⁴ rounds), so one-off costs
(imports, compilation, first calls) are not counted; ``simulate``, the floor and the numpy path are then timed as
the best of k = 5 calls (``--k``), taking turns call by call (on a shared machine the minimum is the least
disturbed, and load comes in spells of seconds: ``benchmarks/timing.py``); SMPyBandits runs once
(``--peer-replicates`` runs fewer SMPyBandits replicates and scales its time to R: they run one after another).
Regrets are compared as the mean final pseudo-regret with a 95 % Student interval.

Run: ``python benchmarks/bench_bandits.py [--T 10000] [--replicates 20] [--long-T 10000000] [--r1-T 1000000]
[--peer-replicates 20] [--no-cache-check] [--k 5]``
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy import stats
from timing import best_of, interleaved

import onlinelab as ol

MEANS = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9])
GAMMA = 0.01


def ci(values) -> tuple[float, float]:
    values = np.asarray(values, dtype=float)
    half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else 0
    return float(values.mean()), float(half)


def simulate(T: int, R: int, compiled: bool = True, seed: int = 0):
    """A call of ``simulate`` (returns the final pseudo-regret per replicate)."""
    env = ol.make_environment("bernoulli-arms", means=list(MEANS))
    return lambda: ol.simulate(env, [ol.make_learner("exp3-auer", gamma=GAMMA)], T=T, replicates=R, seed=seed,
                               checkpoints=[T], compiled=compiled).final("pseudo_regret").to_numpy()


def run_simulate(T: int, R: int, compiled: bool = True, seed: int = 0, k: int = 1):
    """(seconds, final pseudo-regret per replicate) of a ``simulate`` call (the best of k)."""
    return best_of(simulate(T, R, compiled, seed), k)


def _floor_body(T, R, means, gamma, seed):
    np.random.seed(seed)
    K = means.shape[0]
    eta = gamma / K
    best = 1.0 - means.max()
    cum, regret = np.zeros(R), np.zeros(R)
    S, loss, p = np.zeros((R, K)), np.empty(K), np.empty(K)
    for _ in range(T):                                          # rounds outer, replicates inner
        for r in range(R):
            for j in range(K):                                  # the environment: one uniform per arm
                loss[j] = 1.0 if np.random.random() >= means[j] else 0.0
            top = -eta * S[r, 0]
            for j in range(1, K):
                top = max(top, -eta * S[r, j])
            total = 0.0
            for j in range(K):
                p[j] = np.exp(-eta * S[r, j] - top)
                total += p[j]
            u, run, arm = np.random.random(), 0.0, K - 1
            for j in range(K):
                p[j] = (1.0 - gamma) * (p[j] / total) + gamma / K
            for j in range(K):
                run += p[j]
                if run > u:
                    arm = j
                    break
            for j in range(K):
                cum[r] += p[j] * loss[j]
                regret[r] += p[j] * (1.0 - means[j])
            regret[r] -= best
            S[r, arm] += (loss[arm] - 1.0) / p[arm]
    return cum, regret


def floor_loop(T: int, R: int):
    """A call of the compiled floor (returns the final pseudo-regret per replicate), compiled and warmed first."""
    import numba
    fn = numba.njit(_floor_body)
    fn(min(T, 10_000), R, MEANS, GAMMA, 1)
    return lambda: fn(T, R, MEANS, GAMMA, 1)[1]


CACHE_PROBE = """
import time
t0 = time.perf_counter()
import onlinelab as ol
from onlinelab.kernels import compile_report
ol.simulate("bernoulli-arms", [ol.make_learner("exp3-auer", gamma=0.01)], T=200, replicates=2, checkpoints=[200])
print(sum(compile_report().values()), time.perf_counter() - t0)
"""


def cache_check() -> tuple[float, float]:
    """Kernel compile (or load) seconds in a first and a second fresh process sharing a new numba cache."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        times = []
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", CACHE_PROBE], env=env, check=True, capture_output=True,
                                 text=True).stdout.split()
            times.append(float(out[0]))
        return times[0], times[1]


def run_smpybandits(T: int, R: int):
    import scipy.special
    scipy.special.btdtri = scipy.special.betaincinv          # removed from current scipy
    if not hasattr(np, "in1d"):
        np.in1d = np.isin                                      # removed from numpy 2.4
    from SMPyBandits.Arms import Bernoulli
    from SMPyBandits.Policies import Exp3
    best = MEANS.max()
    regrets = np.zeros(R)
    t0 = time.perf_counter()
    for r in range(R):
        np.random.seed(r)                                      # SMPyBandits draws from the global RNG
        arms = [Bernoulli(m) for m in MEANS]
        policy = Exp3(len(MEANS), gamma=GAMMA)
        policy.startGame()
        regret = 0.0
        for _ in range(T):
            arm = policy.choice()
            policy.getReward(arm, arms[arm].draw())
            regret += best - MEANS[arm]
        regrets[r] = regret
    return time.perf_counter() - t0, regrets


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=int, default=10_000)
    ap.add_argument("--replicates", type=int, default=20)
    ap.add_argument("--long-T", type=int, default=10_000_000, help="horizon of the long run (0 skips it)")
    ap.add_argument("--r1-T", type=int, default=1_000_000, help="horizon of the one-replicate comparison")
    ap.add_argument("--peer-replicates", type=int, default=20, help="SMPyBandits' replicates (its time is scaled to R)")
    ap.add_argument("--no-cache-check", action="store_true")
    ap.add_argument("--k", type=int, default=5, help="timed calls of each side, taking turns (the best counts)")
    args = ap.parse_args(argv)
    T, R = args.T, args.replicates
    if not args.no_cache_check:
        first, second = cache_check()
        print(f"compile s (first process) {first:.2f}, cache load s (second process) {second:.3f}")
    run_simulate(50, R), run_simulate(50, R, compiled=False), run_simulate(50, 1)   # warm-up, not timed
    got = interleaved({"sim": simulate(T, R), "floor": floor_loop(T, R), "numpy": simulate(T, R, compiled=False)},
                      args.k)
    (sim_s, sim_regret), (floor_s, floor_regret), (numpy_s, numpy_regret) = got.values()
    got = interleaved({"sim": simulate(args.r1_T, 1), "floor": floor_loop(args.r1_T, 1)}, args.k)
    (one_s, _), (one_floor_s, _) = got.values()
    m, h = ci(sim_regret)
    print(f"simulate: {sim_s:.3f} s, pseudo-regret {m:.1f} ± {h:.1f} (95% CI)")
    fm, fh = ci(floor_regret)
    print(f"compiled floor: {floor_s:.3f} s, pseudo-regret {fm:.1f} ± {fh:.1f} (95% CI)")
    print(f"numpy path (compiled=False): {numpy_s:.3f} s, the same regrets: {np.array_equal(sim_regret, numpy_regret)}")
    print(f"ratio to compiled floor: {sim_s / floor_s:.2f}")
    print(f"R=1 ratio to compiled floor: {one_s / one_floor_s:.2f} (T = {args.r1_T}: simulate {one_s:.3f} s, floor "
          f"{one_floor_s:.4f} s)")
    print(f"speedup over numpy path: {numpy_s / sim_s:.2f}")
    try:
        run_smpybandits(50, 1)                                 # warm-up, not timed
        smpy_s, smpy_regret = run_smpybandits(T, args.peer_replicates)
        smpy_s *= R / args.peer_replicates                     # its replicates run one after the other
    except ImportError as exc:
        print(f"SMPyBandits not importable ({exc}); speedup over SMPyBandits skipped "
              "(pip install -e '.[bandit-peers]' to measure it)")
    else:
        m3, h3 = ci(smpy_regret)
        print(f"SMPyBandits: {smpy_s:.3f} s, pseudo-regret {m3:.1f} ± {h3:.1f} (95% CI)")
        print(f"speedup over SMPyBandits: {smpy_s / sim_s:.2f}")
    if args.long_T:     # once each, the compiled floor right after: it says what this machine allows at that T now
        long_s, long_regret = run_simulate(args.long_T, R)
        lm, lh = ci(long_regret)
        print(f"T = {args.long_T:.0e}, R = {R}: wall time {long_s:.1f} s, pseudo-regret {lm:.0f} ± {lh:.0f} (95% CI)")
        long_floor = best_of(floor_loop(args.long_T, R), 1)[0]
        print(f"T = {args.long_T:.0e}, R = {R}: the compiled floor {long_floor:.1f} s (simulate's ratio to it "
              f"{long_s / long_floor:.2f})")


if __name__ == "__main__":
    main()
