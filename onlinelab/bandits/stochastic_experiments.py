"""The experiments of theory §10 (docs/theory/10-stochastic-bandits.md), shared by the example script and notebook 09.

* `classic_comparison` — UCB1, MOSS, KL-UCB, Thompson sampling and Exp3 on the 10-armed Bernoulli
  problem (means 0.1, …, 0.8, 0.85, 0.9), beside the Lai–Robbins curve; `final_table` gives the
  final pseudo-regret with its 95 % interval and the ratio to Lai–Robbins;
* `piecewise_comparison` — the same index policies, Thompson sampling, sliding-window UCB and
  discounted UCB on piecewise-stationary arms: dynamic regret, against the best arm of each phase;
* `regret_against_total_delay` — the stochastic policies under a fixed delay d: final
  pseudo-regret against the total delay D = Σ_t min(d, T − t).

Each returns a `onlinelab.Result` or a pandas DataFrame; ``plot_*`` draw them on given Axes.
The regret is the pseudo-regret of `onlinelab.core.arm_metrics` (Σ_t Σ_i p_t(i)·Δ_i(t)).

>>> res = classic_comparison(T=300, replicates=2)
>>> list(final_table(res).learner)
['UCB1', 'MOSS', 'KL-UCB', 'Thompson', 'Exp3']
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import stdtrit

from onlinelab.core.registry import make_environment, make_learner
from onlinelab.simulation.simulator import simulate

CLASSIC_POLICIES = {"UCB1": ("ucb1", {}), "MOSS": ("moss", {}), "KL-UCB": ("kl-ucb", {}),
                    "Thompson": ("thompson", {}), "Exp3": ("exp3", {})}
CHANGING_POLICIES = {"UCB1": ("ucb1", {}), "KL-UCB": ("kl-ucb", {}), "Thompson": ("thompson", {}),
                     "SW-UCB": ("sw-ucb", {}), "D-UCB": ("d-ucb", {})}
DELAYED_POLICIES = {"UCB1": ("ucb1", {}), "KL-UCB": ("kl-ucb", {}), "Thompson": ("thompson", {})}
# three arms, three phases: the best arm falls from 0.9 to 0.4 (its long record then misleads a policy that never
# forgets), then a poor arm rises to the top
PIECEWISE_MEANS = [[0.9, 0.5, 0.3], [0.4, 0.6, 0.3], [0.4, 0.5, 0.8]]


def _learners(policies) -> dict:
    return {label: make_learner(name, **params) for label, (name, params) in policies.items()}


def _checkpoints(T: int, n: int = 40) -> list[int]:
    return sorted({int(c) for c in np.geomspace(1, T, n).round()} | {T})


def classic_comparison(T: int = 100_000, replicates: int = 100, seed: int = 0, policies=None):
    """The classic figure's run: each policy on ``bernoulli-arms`` (the 10 classic arms); a Result.

    Parameters
    ----------
    T, replicates, seed : int
        Horizon, replicates and root seed.
    policies : dict or None
        label → (learner name, parameters); None is UCB1, MOSS, KL-UCB, Thompson sampling and Exp3.
    """
    return simulate("bernoulli-arms", _learners(policies or CLASSIC_POLICIES), T=T, replicates=replicates,
                    seed=seed, checkpoints=_checkpoints(T))


def final_table(result, metric: str = "pseudo_regret") -> pd.DataFrame:
    """Per learner: the final mean of ``metric`` with its 95 % Student interval, and the ratio to Lai–Robbins at T.

    Columns ``learner``, ``T``, ``regret``, ``ci_low``, ``ci_high``, ``lai_robbins`` (the curve at T, NaN if
    the run has none) and ``ratio`` (regret/lai_robbins).

    Parameters
    ----------
    result : Result
        A run on stochastic arms.
    metric : str, default "pseudo_regret"
        The regret to tabulate.
    """
    rows = []
    for learner, values in result.final(metric).groupby(level="learner", sort=False):
        v = values.to_numpy()
        half = float(stdtrit(len(v) - 1, 0.975) * v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else np.nan
        lr = next((b["final_bound"] for b in result.meta["bounds"]
                   if b["learner"] == learner and b["name"] == "lai-robbins"), np.nan)
        mean = float(v.mean())
        rows.append({"learner": learner, "T": result.meta["T"], "regret": mean, "ci_low": mean - half,
                     "ci_high": mean + half, "lai_robbins": lr, "ratio": mean / lr if lr == lr else np.nan})
    return pd.DataFrame(rows)


def plot_regret_curves(result, ax=None, metric: str = "pseudo_regret", logx: bool = True):
    """Mean ``metric`` ± its 95 % band against t for each learner, and the Lai–Robbins curve (black) if any.

    Parameters
    ----------
    result : Result
        The run.
    ax : matplotlib Axes or None
        Where to draw; None makes a new figure.
    metric : str, default "pseudo_regret"
        The metric to draw.
    logx : bool, default True
        A logarithmic t axis (the ln t of the lower bound is then a straight line).
    """
    import matplotlib.pyplot as plt
    if ax is None:
        ax = plt.subplots(figsize=(7, 4.5))[1]
    curves = result.curve(metric)
    for learner, c in curves.groupby("learner", sort=False):
        line, = ax.plot(c.t, c["mean"], lw=2, label=learner)
        ax.fill_between(c.t, c.lo, c.hi, color=line.get_color(), alpha=0.2, lw=0)
    if "bound:lai-robbins" in set(result.metrics.metric):
        lr = result.curve("bound:lai-robbins")
        lr = lr[lr.learner == lr.learner.iloc[0]]
        ax.plot(lr.t, lr["mean"], "k--", lw=1.5, label="Lai–Robbins Σ Δ_i/kl(μ_i, μ*)·ln t")
    if logx:
        ax.set_xscale("log")
    ax.set_xlabel("round t")
    ax.set_ylabel("pseudo-regret" if metric == "pseudo_regret" else metric)
    ax.set_title(f"T = {result.meta['T']}, {result.meta['replicates']} replicates, seed {result.meta['seed']} "
                 "(bands: 95 % CI)")
    ax.legend(fontsize=8)
    return ax


def piecewise_comparison(T: int = 20_000, replicates: int = 20, seed: int = 0, means=None, changes=None,
                         policies=None):
    """The index policies, Thompson sampling, SW-UCB and D-UCB (tuned for T) on ``piecewise-arms``; a Result.

    The default arms (`PIECEWISE_MEANS`) have three phases of three arms: 0.9, 0.5, 0.3 → 0.4, 0.6, 0.3 →
    0.4, 0.5, 0.8, the changes evenly spaced; ``pseudo_regret`` is then the dynamic regret.

    Parameters
    ----------
    T, replicates, seed : int
        Horizon, replicates and root seed.
    means : list of list of float or None
        The phases' means; None is `PIECEWISE_MEANS`.
    changes : list of int, int or None
        The environment's change points (see ``piecewise-arms``); None spaces them evenly.
    policies : dict or None
        label → (learner name, parameters); None is UCB1, KL-UCB, Thompson, SW-UCB and D-UCB.
    """
    env = make_environment("piecewise-arms", means=means or PIECEWISE_MEANS, changes=changes)
    ckpts = sorted({int(c) for c in np.linspace(1, T, 60).round()})
    return simulate(env, _learners(policies or CHANGING_POLICIES), T=T, replicates=replicates, seed=seed,
                    checkpoints=ckpts)


def total_delay(d: int, T: int) -> int:
    """D = Σ_{t ≤ T} min(d, T − t): the total delay of the feedback that arrives by T (later feedback never does).

    Parameters
    ----------
    d : int
        The fixed delay.
    T : int
        The horizon.
    """
    return int(np.minimum(d, T - np.arange(1, T + 1)).sum())


def regret_against_total_delay(delays=(0, 10, 50, 200, 1000), T: int = 10_000, replicates: int = 20, seed: int = 0,
                               policies=None) -> pd.DataFrame:
    """Final pseudo-regret of the stochastic policies under a fixed delay d, against the total delay D.

    Returns one row per (learner, d): ``learner``, ``d``, ``D``, ``regret`` (replicate mean), ``se`` and
    ``extra`` (regret minus the same policy's regret at d = 0, same seed).

    Parameters
    ----------
    delays : sequence of int
        The fixed delays d; 0 runs the delay machinery without delay (bit for bit the undelayed run).
    T, replicates, seed : int
        Horizon, replicates and root seed.
    policies : dict or None
        label → (learner name, parameters); None is UCB1, KL-UCB and Thompson sampling.
    """
    rows = []
    for d in delays:
        res = simulate("bernoulli-arms", _learners(policies or DELAYED_POLICIES), T=T, replicates=replicates,
                       seed=seed, delay=int(d), checkpoints=[T])
        for learner, values in res.final("pseudo_regret").groupby(level="learner", sort=False):
            v = values.to_numpy()
            rows.append({"learner": learner, "d": int(d), "D": total_delay(int(d), T), "regret": float(v.mean()),
                         "se": float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else np.nan})
    df = pd.DataFrame(rows)
    base = df[df.d == df.d.min()].set_index("learner").regret
    df["extra"] = df.regret - df.learner.map(base)
    return df


def plot_regret_against_delay(df: pd.DataFrame, ax=None):
    """Final pseudo-regret (± 1.96 SE) against the total delay D, one line per learner (log–log).

    Parameters
    ----------
    df : pandas.DataFrame
        The output of `regret_against_total_delay`.
    ax : matplotlib Axes or None
        Where to draw; None makes a new figure.
    """
    import matplotlib.pyplot as plt
    if ax is None:
        ax = plt.subplots(figsize=(6, 4))[1]
    for learner, g in df[df.D > 0].groupby("learner", sort=False):
        ax.errorbar(g.D, g.regret, yerr=1.96 * g.se, marker="o", capsize=3, label=learner)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("total delay D = Σ_t min(d, T − t)")
    ax.set_ylabel("final pseudo-regret")
    ax.legend(fontsize=8)
    return ax
