"""UCB1, KL-UCB and Thompson sampling through ``simulate`` on 10 Bernoulli arms: against a compiled floor and a peer.

The problem: 10 Bernoulli arms with reward means 0.1, …, 0.8, 0.85, 0.9; T = 10⁴ rounds; 20 replicates.
For each policy it times ``simulate("bernoulli-arms", [policy], T, R)`` — what a user runs, the replicates
batched, each oblivious block of rounds played whole by the policy's compiled kernel
(onlinelab/kernels/stochastic.py, theory §10) — and prints its final pseudo-regret Σ_t (μ* − μ_{I_t}) with a
95 % Student interval over the replicates, and:

* ``ratio to compiled floor`` (target ≤ 1.5): ``simulate``'s time over a plain numba loop of the same policy
  on the same arms written here (`floor_loop`): per replicate and round, the environment's K Bernoulli
  rewards (one uniform per arm, as ``bernoulli-arms`` draws a full loss vector), the index or draw of every
  arm, the pick, the update and the pseudo-regret; UCB1's index μ̂ + √(2 ln n/N); KL-UCB's by the same
  Newton iteration to 1e-12 entry by entry; Thompson's Beta(1 + S, 1 + F) draws by numba's ``np.random.beta``.
  The floor is compiled and warmed before it is timed.  The line after it says how much of ``simulate``'s
  time the policy's ``play_block`` took (its kernel and its draws), the rest being the simulator, the
  environment's blocks and the recorder.
* ``compile s (first process)`` and ``cache load s (second process)``: two fresh Python processes share one
  new numba cache directory; the first compiles the policy's kernel, the second loads it (the kernel's first
  call, `onlinelab.kernels.compile_report`; the first kernel a process calls also pays numba's start, so the
  line prints the sum over every kernel of the second process too).
* with SMPyBandits installed (``pip install -e ".[bandit-peers]"``): its ``UCB``, ``klUCB`` and ``Thompson`` on
  the same arms, one replicate after the other through ``choice``/``getReward`` (its own loop, no
  Evaluator), ``speedup over SMPyBandits`` (targets: ≥ 50, issue 21; ≥ 300, issue 23): its mean time per
  replicate times R over ``simulate``'s mean time, the two timed in turns (one SMPyBandits replicate, then one
  ``simulate`` run of all R) so that both see the same load; beside it the compiled floor's own speedup; and
  both regrets with their intervals, which should agree.  The pairs are the
  same algorithms: UCB1's index is SMPyBandits' ``UCB``; ``kl-ucb`` with its default exploration ln n is
  ``klUCB`` (c = 1, its bisection to 1e-4 against our 1e-10); ``thompson`` with Beta(1, 1) priors is
  ``Thompson``.  SMPyBandits 0.9.7 imports ``numba.decorators``, which current numba lacks, so it runs its
  pure-Python fallbacks, as its users get it.

Each timed computation first runs once, untimed (50 rounds; the floor on the full size), so one-off costs
(imports, compilation, first calls) are not counted; ``simulate`` and the floor are then timed as the best of
five, taking turns call by call (on a shared machine the minimum is the least disturbed, and load comes in spells
of seconds: see ``benchmarks/timing.py``).

Run: ``python benchmarks/bench_stochastic_bandits.py [--T 10000] [--replicates 20] [--policies ucb1,kl-ucb,thompson]
[--peer-replicates 20] [--no-cache-check]``
"""
from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from scipy import stats
from timing import best_of

import onlinelab as ol
from onlinelab.learners.stochastic_base import StochasticBandit

MEANS = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9])
PEERS = {"ucb1": "UCB", "kl-ucb": "klUCB", "thompson": "Thompson"}
CODES = {"ucb1": 0, "kl-ucb": 1, "thompson": 2}
KERNELS = {"ucb1": "stochastic.index_block", "kl-ucb": "stochastic.klucb_block",
           "thompson": "stochastic_sampling.thompson_bernoulli_block"}


def ci(values) -> tuple[float, float]:
    values = np.asarray(values, dtype=float)
    half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return float(values.mean()), float(half)


def run_simulate(name: str, T: int, R: int, seed: int = 0):
    """(seconds, final pseudo-regret per replicate, seconds inside the policy's play_block)."""
    env = ol.make_environment("bernoulli-arms", means=list(MEANS))
    inside = [0.0]
    real = StochasticBandit.play_block

    def timed(self, state, block, rng):
        t0 = time.perf_counter()
        out = real(self, state, block, rng)
        inside[0] += time.perf_counter() - t0
        return out
    StochasticBandit.play_block = timed
    try:
        t0 = time.perf_counter()
        res = ol.simulate(env, [ol.make_learner(name)], T=T, replicates=R, seed=seed, checkpoints=[T])
        wall = time.perf_counter() - t0
    finally:
        StochasticBandit.play_block = real
    return wall, res.final("pseudo_regret").to_numpy(), inside[0]


def _floor_body(code, means, T, R, seed):
    np.random.seed(seed)
    K = means.shape[0]
    best = means.max()
    regret = np.zeros(R)
    N, S, x, index = np.zeros(K), np.zeros(K), np.zeros(K), np.zeros(K)
    for r in range(R):
        N[:] = 0.0
        S[:] = 0.0
        for t in range(T):
            for k in range(K):                          # the environment: every arm's reward this round
                x[k] = 1.0 if np.random.random() < means[k] else 0.0
            for k in range(K):
                if code == 2:
                    index[k] = np.random.beta(1.0 + S[k], 1.0 + N[k] - S[k])
                elif N[k] == 0:
                    index[k] = np.inf
                elif code == 0:
                    index[k] = S[k] / N[k] + math.sqrt(2.0 * math.log(t) / N[k])
                else:
                    p, level = min(max(S[k] / N[k], 0.0), 1.0), math.log(t) / N[k]
                    if p >= 1.0 or level <= 0.0:
                        index[k] = 1.0 if p >= 1.0 else p
                    elif p <= 0.0:
                        index[k] = -math.expm1(-level)
                    else:
                        neg_c = -(p * math.log(p) + (1 - p) * math.log(1 - p)) + level
                        q = min(p + math.sqrt(level / 2.0), -math.expm1(-neg_c / (1 - p)))
                        q = 0.5 * (1.0 + p) if q >= 1.0 else q
                        for _ in range(60):
                            g = -p * math.log(q) - (1 - p) * math.log1p(-q) - neg_c
                            step = max(g * q * (1.0 - q) / (q - p), 0.0)
                            q -= step
                            if step <= 1e-12:
                                break
                        index[k] = q
            arm = np.argmax(index)
            N[arm] += 1.0
            S[arm] += x[arm]
            regret[r] += best - means[arm]
    return regret


def floor_loop(name: str, T: int, R: int):
    """A call of the compiled floor (returns the final pseudo-regret per replicate), compiled and warmed first."""
    import numba
    fn = numba.njit(cache=False)(_floor_body)
    fn(CODES[name], MEANS, T, R, 1)                      # compile and warm at the full size
    return lambda: fn(CODES[name], MEANS, T, R, 0)


CACHE_PROBE = """
import onlinelab as ol
from onlinelab.kernels import compile_report
ol.simulate("bernoulli-arms", [ol.make_learner({name!r})], T=200, replicates=2, seed=0, checkpoints=[200])
report = compile_report()
print(report["onlinelab.kernels.{kernel}"], sum(report.values()))
"""


def cache_check(name: str) -> tuple[float, float, float]:
    """The policy's kernel's first-call time in a fresh process with an empty numba cache, then in a second process;
    and the second process's first calls of every kernel of the run (the environment's and recorder's too)."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        times = []
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", CACHE_PROBE.format(name=name, kernel=KERNELS[name])], env=env,
                                 check=True,
                                 capture_output=True, text=True).stdout.split()
            times.append((float(out[-2]), float(out[-1])))
    return times[0][0], times[1][0], times[1][1]


def _import_smpybandits():
    import contextlib
    import io

    import scipy.special
    scipy.special.btdtri = scipy.special.betaincinv          # removed from current scipy
    if not hasattr(np, "in1d"):
        np.in1d = np.isin                                      # removed from numpy 2.4
    with contextlib.redirect_stdout(io.StringIO()):           # its import prints warnings about optional parts
        from SMPyBandits import Policies
        from SMPyBandits.Arms import Bernoulli
    return Policies, Bernoulli


def run_smpybandits(name: str, T: int, replicates):
    """(seconds per replicate, final pseudo-regret) of SMPyBandits' policy for each replicate seed given."""
    Policies, Bernoulli = _import_smpybandits()
    policy_class = getattr(Policies, PEERS[name])
    best = MEANS.max()
    seconds, regrets = [], []
    for r in replicates:
        t0 = time.perf_counter()
        np.random.seed(r)                                      # SMPyBandits draws from the global RNG
        arms = [Bernoulli(m) for m in MEANS]
        policy = policy_class(len(MEANS))
        policy.startGame()
        regret = 0.0
        for _ in range(T):
            arm = policy.choice()
            policy.getReward(arm, arms[arm].draw())
            regret += best - MEANS[arm]
        seconds.append(time.perf_counter() - t0)
        regrets.append(regret)
    return np.array(seconds), np.array(regrets)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=int, default=10_000)
    ap.add_argument("--replicates", type=int, default=20)
    ap.add_argument("--peer-replicates", type=int, default=None, help="SMPyBandits' replicates (default: --replicates)")
    ap.add_argument("--policies", default="ucb1,kl-ucb,thompson")
    ap.add_argument("--no-cache-check", action="store_true", help="skip the two fresh processes of the cache check")
    args = ap.parse_args(argv)
    T, R = args.T, args.replicates
    R_peer = args.peer_replicates or R
    try:
        _import_smpybandits()
        peers = True
    except ImportError as exc:
        print(f"SMPyBandits not importable ({exc}); timing onlinelab only")
        peers = False
    for name in args.policies.split(","):
        if not args.no_cache_check:
            first, second, every = cache_check(name)
            print(f"{name}: compile s (first process) {first:.2f}, cache load s (second process) {second:.3f} "
                  f"({KERNELS[name]}; every kernel of the run, numba's start included: {every:.2f} s)")
        run_simulate(name, 50, R)                              # warm-up, not timed
        floor, sims, floor_s = floor_loop(name, T, R), [], float("inf")
        for _ in range(5):             # the best of five, simulate and the floor taking turns (benchmarks/timing.py)
            sims.append(run_simulate(name, T, R))
            seconds, floor_regret = best_of(floor, 1)
            floor_s = min(floor_s, seconds)
        sim_s, sim_regret, inside = min(sims, key=lambda x: x[0])
        m, h = ci(sim_regret)
        print(f"{name}: simulate {sim_s:.3f} s ({1e6 * sim_s / T:.1f} µs a round for {R} replicates), final "
              f"pseudo-regret {m:.1f} ± {h:.1f} (95% CI)")
        fm, fh = ci(floor_regret)
        print(f"{name}: compiled floor {floor_s:.3f} s, final pseudo-regret {fm:.1f} ± {fh:.1f} (95% CI)")
        print(f"{name}: ratio to compiled floor: {sim_s / floor_s:.2f}")
        print(f"{name}: of simulate's time, play_block (kernel and draws) {inside:.3f} s = {inside / floor_s:.2f}× "
              f"the floor; the rest (simulator, environment blocks, recorder) {sim_s - inside:.3f} s")
        if not peers:
            continue
        run_smpybandits(name, 50, [0])                         # warm-up, not timed
        peer_s, peer_regret, sim_again = [], [], []
        for r in range(R_peer):                                # in turns, so both see the same load
            seconds, regret = run_smpybandits(name, T, [r])
            peer_s.append(seconds[0])
            peer_regret.append(regret[0])
            sim_again.append(run_simulate(name, T, R)[0])
        peer_R = float(np.mean(peer_s)) * R                    # per R replicates, as simulate runs them
        sim_turns = float(np.mean(sim_again))
        m2, h2 = ci(peer_regret)
        print(f"{name}: SMPyBandits {PEERS[name]} {peer_R:.3f} s for {R} replicates ({R_peer} run, each followed by "
              f"a simulate run: mean {sim_turns:.3f} s), final pseudo-regret {m2:.1f} ± {h2:.1f} (95% CI)")
        print(f"{name}: speedup over SMPyBandits: {peer_R / sim_turns:.1f}; the compiled floor's (timed apart): "
              f"{peer_R / floor_s:.1f}")
        agree = abs(m - m2) <= h + h2
        print(f"{name}: final regrets agree (|Δ| ≤ h₁ + h₂): {agree}")


if __name__ == "__main__":
    main()
