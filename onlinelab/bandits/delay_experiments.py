"""The experiments of theory §8 (docs/theory/08-bandits-delays.md), shared by the example script and notebook 08.

* `exp3_beside_bound` — Exp3 and Exp3 of Auer et al. on the 10-armed Bernoulli problem, with bounds;
* `regret_against_delay` — final regret of delayed OGD (against ``sign-chaser``) and of delayed
  Exp3 (against ``split-chaser``), two adaptive adversaries that punish late feedback, for fixed delays
  d, each learner tuned for its total delay D, beside √(T + 2D) and √(KT + 2D): the √(T + D) shape;
* `arrivals_sweep` — Oja one sample per call against block Oja under Poisson arrivals, the load ρ
  swept across 1: accuracy, queue length, staleness, utilisation at the horizon.

Each returns a pandas DataFrame (or a `onlinelab.Result`); ``plot_*`` draw them on given Axes.

>>> df = regret_against_delay(delays=(0, 4), T=100, replicates=2)
>>> sorted(df.learner.unique()), bool((df.D > 0).any())
(['delayed Exp3', 'delayed OGD'], True)
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from onlinelab.core.registry import make_environment, make_learner
from onlinelab.feedback.arrivals import Arrivals
from onlinelab.simulation.simulator import simulate


def exp3_beside_bound(T: int = 10_000, replicates: int = 20, seed: int = 0):
    """Exp3 (tuned η), Exp3-Auer with γ = 0.01 and with its tuned γ on ``bernoulli-arms``; a Result with bounds.

    Parameters
    ----------
    T, replicates, seed : int
        Horizon, replicates and root seed.
    """
    learners = {"exp3": make_learner("exp3"), "exp3-auer γ=0.01": make_learner("exp3-auer", gamma=0.01),
                "exp3-auer (tuned γ)": make_learner("exp3-auer")}
    return simulate("bernoulli-arms", learners, T=T, replicates=replicates, seed=seed)


def _total_delay(d: int, T: int) -> int:
    return int(np.minimum(d, T - np.arange(1, T + 1)).sum())


def regret_against_delay(delays=(0, 2, 8, 32, 128), T: int = 2000, replicates: int = 16, seed: int = 0) -> pd.DataFrame:
    """Final regret against the total delay D for fixed delays, each learner tuned for its D (theory §8.2).

    Both adversaries are adaptive and punish late feedback, so the growth with D comes from the delay
    itself and not only from the smaller step the tuning picks (``regret_undelayed`` shows the latter).

    Delayed OGD: ``omd`` against ``sign-chaser`` (linear losses on the unit ball; R = G = 1) with
    η = R/(G√(T + 2D)); ``bound`` is then RG√(T + 2D), checked.  Delayed Exp3: ``exp3`` on
    ``split-chaser`` (K = 10: the heavier half of the arms under p_t costs 1) with
    η = √(2 ln K/(KT + 2D)); ``bound`` is the rate √((KT + D) ln K), whose constant is unconfirmed (a
    reference, not a check).  Exp3's ``regret`` is the conditional expected regret
    Σ⟨p_t, ℓ_t⟩ − min_i Σ ℓ_t(i); against an adaptive environment its replicate mean is not an unbiased
    estimate of the expected regret (the losses follow the learner's draws), which is enough to show a
    shape but not to check a bound.

    Returns one row per (learner, d): ``learner``, ``d``, ``D``, ``regret`` (replicate mean), ``se`` (its
    standard error), ``sqrt_T_2D`` = √(T + 2D), ``bound``, ``sqrt_shape`` (the learner's own √ term:
    √(T + 2D) for OGD, √(KT + 2D) for Exp3) and ``regret_undelayed`` (the same tuned learner, same
    seed, without delay).

    Parameters
    ----------
    delays : sequence of int
        The fixed delays d (D ≈ d·T).
    T, replicates, seed : int
        Horizon, replicates and root seed.
    """
    rows = []
    K = 10
    for d in delays:
        D = _total_delay(int(d), T)
        runs = (("delayed OGD", "sign-chaser", {}, make_learner("omd", gamma=1.0 / np.sqrt(T + 2 * D)), T + 2 * D),
                ("delayed Exp3", "split-chaser", {"d": K},
                 make_learner("exp3", eta=float(np.sqrt(2 * np.log(K) / (K * T + 2 * D)))), K * T + 2 * D))
        for name, env, params, lrn, shape in runs:
            res = simulate(make_environment(env, **params), [lrn], T=T, replicates=replicates, seed=seed,
                           delay=int(d), checkpoints=[T])
            regret = res.final("regret").to_numpy()
            undelayed = regret if int(d) == 0 else simulate(   # delay 0 is the undelayed run, bit for bit
                make_environment(env, **params), [lrn], T=T, replicates=replicates, seed=seed,
                checkpoints=[T]).final("regret").to_numpy()
            bounds = res.bounds().set_index("bound")
            key = "delayed-ogd" if "delayed-ogd" in bounds.index else "delayed-exp3-rate"
            bound = float(bounds.loc[key, "final_bound"]) if key in bounds.index else np.nan
            rows.append({"learner": name, "d": int(d), "D": D, "regret": float(regret.mean()),
                         "se": float(regret.std(ddof=1) / np.sqrt(len(regret))) if len(regret) > 1 else np.nan,
                         "sqrt_T_2D": float(np.sqrt(T + 2 * D)), "bound": bound,
                         "sqrt_shape": float(np.sqrt(shape)), "regret_undelayed": float(undelayed.mean())})
    return pd.DataFrame(rows)


def plot_regret_against_delay(df: pd.DataFrame, ax=None):
    """Regret / regret at D = 0 against each learner's √ term over its D = 0 value, with the identity line.

    On these axes the √(T + D) shape of theory §8.2 is the dashed diagonal: √(T + 2D)/√T for OGD,
    √(KT + 2D)/√(KT) for Exp3 (column ``sqrt_shape``).  Error bars are ±2 standard errors of the
    delayed regret (the D = 0 regret's own error is not propagated).

    Parameters
    ----------
    df : DataFrame
        The output of `regret_against_delay`.
    ax : matplotlib Axes or None
        Where to draw.
    """
    import matplotlib.pyplot as plt
    ax = ax or plt.subplots(figsize=(5, 4))[1]
    top = 1.0
    for name, g in df.groupby("learner", sort=False):
        g = g.sort_values("D")
        base_r, base_s = g.regret.iloc[0], g.sqrt_shape.iloc[0]
        ax.errorbar(g.sqrt_shape / base_s, g.regret / base_r, yerr=2 * g.se / base_r, marker="o", label=name)
        top = max(top, float((g.sqrt_shape / base_s).max()))
    ax.plot([1, top], [1, top], "k--", lw=1, label="∝ √(n + 2D)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("√(n + 2D) / √n   (n = T for OGD, KT for Exp3)")
    ax.set_ylabel("regret / regret without delay")
    ax.legend()
    return ax


def arrivals_sweep(rhos=(0.5, 0.8, 1.0, 1.25, 2.0), T: int = 400, replicates: int = 4, d: int = 20, k: int = 2,
                   service: float = 0.5, block_service: float = 0.05, block_overhead: float = 2.0,
                   seed: int = 0) -> pd.DataFrame:
    """Per-sample Oja (``qr="step"``, one arrival per call) and block Oja (whole queue) under Poisson arrivals.

    The load ρ = ν·s is measured against the per-sample learner's service time s = ``service``; the
    block learner costs ``block_overhead`` per call plus ``block_service`` per sample.

    Parameters
    ----------
    rhos : sequence of float
        Loads to run (arrival rate ν = ρ/s).
    T, replicates, d, k, seed : int
        Simulated time, replicates, dimension, subspace rank, root seed.
    service, block_service, block_overhead : float
        Modelled times.
    """
    env = make_environment("spiked-stream", d=d, k=k)
    learners = {"oja (per sample)": make_learner("oja", k=k, qr="step"),
                "oja (block)": make_learner("oja", k=k, qr="block")}
    rows = []
    for rho in rhos:
        arr = Arrivals(rate=rho / service, service={"oja (per sample)": service, "oja (block)": block_service},
                       overhead={"oja (per sample)": 0.0, "oja (block)": block_overhead})
        res = simulate(env, learners, T=T, replicates=replicates, seed=seed, arrivals=arr)
        for label in learners:
            row = {"rho": float(rho), "learner": label}
            for m in ("sin2_theta", "queue_length", "staleness", "utilisation", "samples_processed", "regret"):
                row[m] = float(res.final(m, learner=label).mean())
            rows.append(row)
    return pd.DataFrame(rows)


def plot_arrivals_sweep(df: pd.DataFrame, axes=None):
    """Final sin²θ, queue length and staleness against ρ, one line per learner.

    Parameters
    ----------
    df : DataFrame
        The output of `arrivals_sweep`.
    axes : three matplotlib Axes or None
        Where to draw.
    """
    import matplotlib.pyplot as plt
    if axes is None:
        axes = plt.subplots(1, 3, figsize=(12, 3.5))[1]
    for ax, metric in zip(axes, ("sin2_theta", "queue_length", "staleness"), strict=False):
        for name, g in df.groupby("learner", sort=False):
            ax.plot(g.rho, g[metric], marker="o", label=name)
        ax.axvline(1.0, color="k", lw=0.8, ls=":")
        ax.set_xlabel("load ρ = ν·s")
        ax.set_ylabel(metric)
        if metric != "sin2_theta":
            ax.set_yscale("symlog")
    axes[0].legend()
    return axes
