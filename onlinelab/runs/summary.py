"""The summary table of a regret run: one row per learner × environment, and the columns that print it.

What each row says (docs/guide/writing-learners.md, "Reading the summary"): the final regret's mean and
95 % Student-t interval over the replicates; the tightest bound whose assumptions held and that is
finite (an infinite bound, like FTL's on linear losses, says nothing and shows as n/a); the metric that
bound bounds (``bound_on``: regret, realized regret or pseudo-regret) and that metric's final mean over
it (``ratio``); for a run that stopped early, the round its numbers are at (``stopped``: "round k of T").

>>> import onlinelab as ol
>>> res = ol.simulate("experts-adversarial", ["ftl", "omd"], T=50, replicates=2)
>>> bool(res.summary().set_index("learner").bound.isna()["ftl"])
True
"""
from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import stdtrit  # Student-t quantiles (scipy.stats costs 0.4 s to import)

from onlinelab.runs.tables import Column, missing

NO_BOUND = "no finite bound whose assumptions hold (see Result.bounds())"
SUMMARY_COLUMNS = [
    Column("learner", fmt="text"), Column("environment", fmt="text"), Column("replicates", "R", fmt="d"),
    Column("T", fmt="d"), Column("stopped", "stopped at", fmt="text"),
    Column("regret"),
    Column("ci_low", "95% CI low", na="one replicate: no confidence interval"),
    Column("ci_high", "95% CI high", na="one replicate: no confidence interval"),
    Column("bound_on", "bound on", fmt="text", na=NO_BOUND), Column("bound", na=NO_BOUND),
    Column("bound_name", "bound name", fmt="text", na=NO_BOUND),
    Column("ratio", "value/bound", fmt=".3f", na=NO_BOUND),
    Column("us_per_replicate_round", "µs/(replicate·round)", fmt=".2f"),
    Column("lai_robbins_ratio", "regret / Lai–Robbins", fmt=".3f",
           na="no Lai–Robbins curve for this learner (stationary stochastic arms only)")]
# shown only when the summary has them (a run on stochastic arms), so other runs' tables keep their columns
OPTIONAL_COLUMNS = {"lai_robbins_ratio", "stopped"}   # "stopped": only a partial run's table has it


def regret_summary(result) -> pd.DataFrame:
    """One row per learner × environment: final regret mean and 95% CI, the tightest applicable finite bound,
    the metric it bounds (``bound_on``), that metric's final mean over the bound (``ratio``), µs per round, and
    when a row stopped before T, ``stopped`` ("round k of T": its numbers are at round k; the others "finished").

    Parameters
    ----------
    result : onlinelab.Result
        A regret run's result (complete or partial).
    """
    rows = []
    bounds = result.bounds()
    scored = "regret" in set(result.metrics.metric)  # not with comparator="none": regret is n/a there
    for (learner, env), df in result.final("regret" if scored else "cumulative_loss").groupby(
            level=["learner", "environment"], sort=False):
        vals = df.to_numpy() if scored else np.full(len(df), np.nan)
        n = len(vals)
        mean = float(vals.mean())
        half = float(stdtrit(n - 1, 0.975) * vals.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
        mine = bounds[(bounds.learner == learner) & (bounds.environment == env) & bounds.holds & bounds.checked]
        mine = mine.dropna(subset=["final_bound"])
        mine = mine[np.isfinite(mine.final_bound.astype(float))]   # an infinite bound says nothing: n/a
        best = mine.loc[mine.final_bound.idxmin()] if len(mine) else None
        value = None if best is None or missing(best.final_value) else float(best.final_value)
        if best is not None and value is None and best.metric == "regret":   # runs saved before final_value
            value = mean
        timing = result.meta["timings"][env]
        T = result.meta.get("T_by_learner", {}).get(learner, result.meta["T"])
        mine_t = result.metrics.t[(result.metrics.learner == learner) & (result.metrics.environment == env)]
        reached = min(int(mine_t.max()), T)
        partial = {"stopped": f"round {reached} of {T}"} if reached < T else {}   # the values are at round k
        rows.append({
            "learner": learner, "environment": env, "replicates": n, "T": T,
            "regret": mean, "ci_low": mean - half, "ci_high": mean + half,
            "bound_on": None if best is None else best.metric,
            "bound": None if best is None else float(best.final_bound),
            "bound_name": None if best is None else best.bound,
            # the bounded metric over its bound: pseudo-regret for a pseudo-regret bound, not the regret
            "ratio": None if value is None else value / float(best.final_bound),
            "violated": bool(bounds[(bounds.learner == learner) & (bounds.environment == env)].violated.any()),
            "us_per_replicate_round": 1e6 * timing["learner_s"][learner] / (n * reached),
            **_lai_robbins_ratio(result, learner, env), **partial,
        })
    if any("stopped" in row for row in rows):
        for row in rows:
            row.setdefault("stopped", "finished")
    return pd.DataFrame(rows)


def _lai_robbins_ratio(result, learner, env) -> dict:
    """``{"lai_robbins_ratio": mean pseudo-regret / the Lai–Robbins curve, at T}`` if the run has that curve."""
    for b in result.meta.get("bounds", []):
        if (b["learner"], b["environment"], b["name"]) == (learner, env, "lai-robbins") and b.get("lower"):
            ok = b.get("final_value") is not None and b.get("final_bound")
            return {"lai_robbins_ratio": b["final_value"] / b["final_bound"] if ok else None}
    return {}


def table_columns(table: pd.DataFrame, declared: list) -> list:
    """The columns to print ``table`` with: ``declared`` less the optional ones it lacks; a summary that lacks
    a declared column (a subclass's own ``summary``) gets all of its own columns, one format each.

    Parameters
    ----------
    table : pandas.DataFrame
        A ``summary()``.
    declared : list of onlinelab.runs.tables.Column
        The result class's ``SUMMARY_COLUMNS``.
    """
    columns = [c for c in declared if c.key in table.columns or c.key not in OPTIONAL_COLUMNS]
    if any(c.key not in table.columns for c in columns):
        spec = {c.key: c for c in columns}
        columns = [spec.get(key, Column(key)) for key in table.columns]
    return columns
