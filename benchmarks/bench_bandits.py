"""SMPyBandits-style Exp3 through ``simulate`` against a one-replicate-at-a-time numpy loop (and SMPyBandits).

The problem: 10 Bernoulli arms with reward means 0.1, …, 0.8, 0.85, 0.9; Exp3 of Auer et al. with
γ = 0.01; T = 10⁴ rounds; 20 replicates.  Timed in one run, on this machine:

* ``simulate`` — what a user runs: ``simulate("bernoulli-arms", [exp3-auer(gamma=0.01)], T, R)``;
* the per-replicate loop — the same algorithm written plainly in numpy, one replicate after the other
  (draw the arm from p = (1 − γ)w + γ/K, observe its reward, w_I ← w_I exp(γ x/(K p_I)), normalise);
* for context, the same loop hand-vectorised over the replicates, with no simulator (a floor at this
  size: ``simulate`` runs the wrapper of theory §8 — FTRL with the entropy fed importance-weighted
  estimates — plus the feedback, recording and the event loop);
* SMPyBandits' ``Exp3`` (if importable) on the same arms, through its own ``Evaluator``-free loop
  (choice / getReward per round), one replicate after the other.

Regret compared: the pseudo-regret against the means, Σ_t (μ* − μ_{I_t}) per replicate
(``simulate`` records Σ_t ⟨p_t, ℓ_t⟩, whose expectation is the same; SMPyBandits and the loop record
the chosen arms), mean and 95% confidence interval over the replicates.

Each of the timed computations first runs once on 50 rounds, untimed, so one-off costs (imports, numpy's
first calls) are not counted as per-run cost.

Prints ``speedup over per-replicate loop: X`` (target ≥ 8) and, when SMPyBandits imports,
``speedup over SMPyBandits: Y`` (target ≥ 50) with both final regrets and their intervals.

Run: ``python benchmarks/bench_bandits.py [--T 10000] [--replicates 20]``
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats

import onlinelab as ol

MEANS = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9])
GAMMA = 0.01


def ci(values) -> tuple[float, float]:
    values = np.asarray(values, dtype=float)
    half = stats.t.ppf(0.975, len(values) - 1) * values.std(ddof=1) / np.sqrt(len(values))
    return float(values.mean()), float(half)


def run_simulate(T: int, R: int, seed: int = 0):
    env = ol.make_environment("bernoulli-arms", means=list(MEANS))
    t0 = time.perf_counter()
    res = ol.simulate(env, [ol.make_learner("exp3-auer", gamma=GAMMA)], T=T, replicates=R, seed=seed,
                      checkpoints=[T])
    wall = time.perf_counter() - t0
    cum = res.final("cumulative_loss").to_numpy()          # Σ⟨p_t, ℓ_t⟩, E = Σ⟨p_t, 1 − μ⟩
    return wall, cum - T * (1.0 - MEANS.max())


def run_loop(T: int, R: int, seed: int = 1):
    K = len(MEANS)
    best = MEANS.max()
    regrets = np.zeros(R)
    t0 = time.perf_counter()
    for r in range(R):
        rng = np.random.default_rng([seed, r])
        w = np.full(K, 1.0 / K)
        regret = 0.0
        for _ in range(T):
            p = (1 - GAMMA) * w + GAMMA / K
            p /= p.sum()
            arm = rng.choice(K, p=p)
            reward = float(rng.random() < MEANS[arm])
            regret += best - MEANS[arm]
            w[arm] *= np.exp(GAMMA * reward / (K * p[arm]))
            w /= w.sum()
        regrets[r] = regret
    return time.perf_counter() - t0, regrets


def run_vectorised(T: int, R: int, seed: int = 2):
    """The same algorithm hand-vectorised over the replicates (no simulator): the floor of this size."""
    K, rows = len(MEANS), np.arange(R)
    rng = np.random.default_rng(seed)
    w = np.full((R, K), 1.0 / K)
    regret = np.zeros(R)
    t0 = time.perf_counter()
    for _ in range(T):
        p = (1 - GAMMA) * w + GAMMA / K
        cum = np.add.accumulate(p, axis=1)
        cum[:, -1] = np.inf
        arm = (cum > rng.random((R, 1)) * p.sum(axis=1, keepdims=True)).argmax(axis=1)
        reward = rng.random(R) < MEANS[arm]
        regret += MEANS.max() - MEANS[arm]
        w[rows, arm] *= np.exp(GAMMA * reward / (K * p[rows, arm]))
        w /= w.sum(axis=1, keepdims=True)
    return time.perf_counter() - t0, regret


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
    args = ap.parse_args(argv)
    T, R = args.T, args.replicates
    run_simulate(50, R), run_loop(50, R), run_vectorised(50, R)  # warm-up, not timed
    sim_s, sim_regret = run_simulate(T, R)
    loop_s, loop_regret = run_loop(T, R)
    vec_s, vec_regret = run_vectorised(T, R)
    m, h = ci(sim_regret)
    print(f"simulate: {sim_s:.3f} s, pseudo-regret {m:.1f} ± {h:.1f} (95% CI)")
    m2, h2 = ci(loop_regret)
    print(f"per-replicate loop: {loop_s:.3f} s, pseudo-regret {m2:.1f} ± {h2:.1f} (95% CI)")
    m4, h4 = ci(vec_regret)
    print(f"hand-vectorised loop (all replicates at once, no simulator): {vec_s:.3f} s, pseudo-regret {m4:.1f} ± "
          f"{h4:.1f} (95% CI); simulate over it: {sim_s / vec_s:.2f}")
    print(f"speedup over per-replicate loop: {loop_s / sim_s:.2f}")
    try:
        run_smpybandits(50, R)                                 # warm-up, not timed
        smpy_s, smpy_regret = run_smpybandits(T, R)
    except ImportError as exc:
        print(f"SMPyBandits not importable ({exc}); skipping that comparison")
        return
    m3, h3 = ci(smpy_regret)
    print(f"SMPyBandits: {smpy_s:.3f} s, pseudo-regret {m3:.1f} ± {h3:.1f} (95% CI)")
    print(f"speedup over SMPyBandits: {smpy_s / sim_s:.2f}")
    agree = abs(m - m3) <= 1.5 * np.hypot(h, h3)
    print(f"final regrets agree (|Δ| ≤ 1.5·√(h₁² + h₂²)): {agree}")


if __name__ == "__main__":
    main()
