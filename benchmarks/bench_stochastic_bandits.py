"""UCB1, KL-UCB and Thompson sampling through ``simulate`` on the 10-armed Bernoulli problem (and SMPyBandits' own).

The problem: 10 Bernoulli arms with reward means 0.1, …, 0.8, 0.85, 0.9; T = 10⁴ rounds; 20 replicates.
For each policy it times ``simulate("bernoulli-arms", [policy], T, R)`` — what a user runs, the replicates
batched and each oblivious block of rounds played whole — and prints its final pseudo-regret
Σ_t (μ* − μ_{I_t}) (the run's ``pseudo_regret`` metric) with a 95 % Student interval over the replicates.

With SMPyBandits installed (``pip install -e ".[bandit-peers]"``) it also runs SMPyBandits' ``UCB``, ``klUCB``
and ``Thompson`` on the same arms, one replicate after the other through ``choice``/``getReward`` (its
own loop, no Evaluator), and prints per policy ``speedup over SMPyBandits: X`` (target ≥ 50) and both
regrets with their intervals, which should agree.  The pairs are the same algorithms: UCB1's index
μ̂ + √(2 ln n/N) is SMPyBandits' ``UCB``; ``kl-ucb`` with its default exploration ln n is ``klUCB``
(c = 1, its bisection to 1e-4 against our 1e-10); ``thompson`` with Beta(1, 1) priors is ``Thompson``.

Each timed computation first runs once on 50 rounds, untimed, so one-off costs (imports, first calls)
are not counted.

Run: ``python benchmarks/bench_stochastic_bandits.py [--T 10000] [--replicates 20] [--policies ucb1,kl-ucb,thompson]``
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

import onlinelab as ol

MEANS = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9])
PEERS = {"ucb1": "UCB", "kl-ucb": "klUCB", "thompson": "Thompson"}


def ci(values) -> tuple[float, float]:
    values = np.asarray(values, dtype=float)
    half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return float(values.mean()), float(half)


def run_simulate(name: str, T: int, R: int, seed: int = 0):
    env = ol.make_environment("bernoulli-arms", means=list(MEANS))
    t0 = time.perf_counter()
    res = ol.simulate(env, [ol.make_learner(name)], T=T, replicates=R, seed=seed, checkpoints=[T])
    return time.perf_counter() - t0, res.final("pseudo_regret").to_numpy()


def _import_smpybandits():
    import scipy.special
    scipy.special.btdtri = scipy.special.betaincinv          # removed from current scipy
    if not hasattr(np, "in1d"):
        np.in1d = np.isin                                      # removed from numpy 2.4
    from SMPyBandits import Policies
    from SMPyBandits.Arms import Bernoulli
    return Policies, Bernoulli


def run_smpybandits(name: str, T: int, R: int):
    Policies, Bernoulli = _import_smpybandits()
    policy_class = getattr(Policies, PEERS[name])
    best = MEANS.max()
    regrets = np.zeros(R)
    t0 = time.perf_counter()
    for r in range(R):
        np.random.seed(r)                                      # SMPyBandits draws from the global RNG
        arms = [Bernoulli(m) for m in MEANS]
        policy = policy_class(len(MEANS))
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
    ap.add_argument("--policies", default="ucb1,kl-ucb,thompson")
    args = ap.parse_args(argv)
    T, R = args.T, args.replicates
    try:
        _import_smpybandits()
        peers = True
    except ImportError as exc:
        print(f"SMPyBandits not importable ({exc}); timing onlinelab only")
        peers = False
    for name in args.policies.split(","):
        run_simulate(name, 50, R)                              # warm-up, not timed
        sim_s, sim_regret = run_simulate(name, T, R)
        m, h = ci(sim_regret)
        print(f"{name}: simulate {sim_s:.3f} s, final pseudo-regret {m:.1f} ± {h:.1f} (95% CI)")
        if not peers:
            continue
        run_smpybandits(name, 50, R)                           # warm-up, not timed
        peer_s, peer_regret = run_smpybandits(name, T, R)
        m2, h2 = ci(peer_regret)
        print(f"{name}: SMPyBandits {PEERS[name]} {peer_s:.3f} s, final pseudo-regret {m2:.1f} ± {h2:.1f} (95% CI)")
        print(f"{name}: speedup over SMPyBandits: {peer_s / sim_s:.2f}")
        agree = abs(m - m2) <= h + h2
        print(f"{name}: final regrets agree (|Δ| ≤ h₁ + h₂): {agree}")


if __name__ == "__main__":
    main()
