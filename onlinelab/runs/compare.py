"""Saved runs side by side: one summary table and one overlay plot (``onlinelab compare RUN_A RUN_B ...``).

Runs may differ in horizon and seed, so they are joined as ``Result.concat(align="label")`` joins them:
every learner label gets the suffix ``[<run>: T=…, seed=…]`` and each run keeps its own
rows and curves.  `compare_results` works for every Result class with curves over rounds; which
metric is overlaid, and whether a kind of run can be compared at all, its run kind says
(`onlinelab.experiment.kinds`).

>>> import tempfile, pathlib, onlinelab as ol
>>> from onlinelab.runs.storage import save_run
>>> with tempfile.TemporaryDirectory() as tmp:
...     for seed in (1, 2):
...         res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=20, seed=seed)
...         _ = save_run(res, pathlib.Path(tmp) / f"s{seed}", report=False)
...     table, fig = compare([tmp + "/s1", tmp + "/s2"])
>>> list(table.run)
['s1', 's2']
"""
from __future__ import annotations

import pathlib

import numpy as np
import pandas as pd

from onlinelab.errors import ConfigError
from onlinelab.runs.align import align_results
from onlinelab.runs.result import SUMMARY_COLUMNS
from onlinelab.runs.tables import Column

COLUMNS = ["run", "learner", "environment", "T", "seed", "replicates", "regret", "ci_low", "ci_high", "bound",
           "bound_name", "ratio", "status"]
_SPEC = {c.key: c for c in SUMMARY_COLUMNS}
#: How ``onlinelab compare`` prints the table of regret runs: the summary's formats plus run, seed and status.
TABLE_COLUMNS = [_SPEC.get(key, Column(key, fmt="d" if key == "seed" else "text", na="not recorded in meta.json"))
                 for key in COLUMNS]
RUN, SEED, STATUS = (_SPEC.get(key, Column(key, fmt="d" if key == "seed" else "text", na="not recorded in meta.json"))
                     for key in ("run", "seed", "status"))


def compare(run_dirs, plot=None, metric: str = "regret"):
    """Load the regret run directories and return ``(table, figure)``; write the figure to ``plot`` when given.

    ``onlinelab compare`` goes through the runs' kind instead (`onlinelab.experiment.kinds`), which
    compares every kind that has curves and refuses the others.

    Parameters
    ----------
    run_dirs : list of str or pathlib.Path
        Run directories written by ``onlinelab run`` or `Result.save`.
    plot : str or pathlib.Path, optional
        Where to write the overlay plot (PNG).
    metric : str
        The metric whose curves are overlaid.
    """
    from onlinelab.runs.load import load_run
    paths = [pathlib.Path(p) for p in run_dirs]
    if len(paths) < 2:
        raise ConfigError(f"compare needs at least two run directories, got {len(paths)}")
    results = [load_run(p) for p in paths]
    names = run_names(paths)
    kinds = [str(r.meta.get("kind", "regret")) for r in results]
    if len(set(kinds)) > 1:
        listed = ", ".join(f"{n} ({k})" for n, k in zip(names, kinds, strict=True))
        raise ConfigError(f"compare needs runs of one kind, got {listed}; compare each kind's runs on their own")
    columns = TABLE_COLUMNS if kinds[0] == "regret" else None   # other kinds: their own summary's columns
    table, _, fig = compare_results(results, names, metric=metric, columns=columns, plot=plot)
    return table, fig


def run_names(paths) -> list[str]:
    """The runs' names in a comparison: their folder names, or their whole paths when two folders share a name."""
    names = [pathlib.Path(p).name for p in paths]
    return names if len(set(names)) == len(names) else [str(p) for p in paths]


def compare_results(results: list, names: list[str], *, metric: str = "regret", columns=None, plot=None):
    """Runs side by side: ``(table, columns, figure)``, one summary row per run (and learner, environment), the
    curves of ``metric`` overlaid.

    Works for every Result class whose runs have curves over rounds (regret runs, games, embeddings, iterative
    methods): the table is each run's own `onlinelab.Result.summary` with the run's name, seed and status.

    Parameters
    ----------
    results : list of Result
        The runs (of one kind).
    names : list of str
        Their names (labels in the table and the legend).
    metric : str, default "regret"
        The metric whose curves are overlaid; every run must have it.
    columns : list of Column or None, default None
        The table's columns; None: ``run``, the results' summary columns, ``seed`` and ``status``.
    plot : str or pathlib.Path or None, default None
        Where to write the overlay (PNG).
    """
    from onlinelab.runs.result import Result
    if len(results) < 2:
        raise ConfigError(f"compare needs at least two runs, got {len(results)}")
    for name, res in zip(names, results, strict=True):
        have = set(res.metrics.metric)
        if metric not in have:
            raise ConfigError(f"run {name!r} has no metric {metric!r} to overlay (it has {', '.join(sorted(have))}); "
                              "compare runs of one kind and one problem")
        _refuse_infinite(name, res.metrics, metric)
    rows = []
    for name, res in zip(names, results, strict=True):
        s = res.summary()
        s.insert(0, "run", name)
        s["seed"], s["status"] = res.meta.get("seed"), res.meta.get("status")
        rows.append(s)
    table = pd.concat(rows, ignore_index=True)
    columns = list(columns) if columns is not None else _columns(type(results[0]), table)
    table = table[[c.key for c in columns]]
    parts = align_results(results, "label", names=names)  # each run keeps its own labelled rows
    environments: dict = {}
    for part in parts:
        if isinstance(part.meta.get("environments"), dict):
            environments.update(part.meta["environments"])
    bounds = [b for part in parts for b in part.meta.get("bounds", []) if isinstance(b, dict)]
    joined = Result(pd.concat([r.metrics for r in parts], ignore_index=True),
                    {"environments": environments, "bounds": bounds})
    fig, _ = overlay(joined, names, metric, [r.meta.get("replicates") for r in results])
    if plot is not None:
        fig.savefig(plot, dpi=100, bbox_inches="tight")
    return table, columns, fig


def _refuse_infinite(name: str, metrics, metric: str) -> None:
    """An infinite value of the compared metric (a diverged run) is an error naming the run, learner and round: a
    table and curves that average it would only print inf."""
    rows = metrics[(metrics.metric == metric) & np.isinf(metrics.value.to_numpy(dtype=float))]
    if len(rows):
        row = rows.iloc[0]
        cells = {word: getattr(row[key], "item", lambda v=row[key]: v)() for key, word in
                 (("learner", "learner"), ("environment", "environment"), ("replicate", "replicate"), ("t", "round"))
                 if key in row.index}
        where = ", ".join(f"{word} {val!r}" if isinstance(val, str) else f"{word} {val}" for word, val in cells.items())
        raise ConfigError(f"run {name!r} has {metric} = {row.value} ({where}; {len(rows)} such rows): the run "
                          "diverged, and an infinite value cannot be averaged or drawn; read its report.md (a step "
                          "too large, an unbounded loss), rerun it, or leave it out of the comparison")


def _columns(cls, table) -> list:
    """``run``, the Result class's summary columns (or, when its summary lacks them, one per summary column), seed
    and status."""
    declared = list(cls.SUMMARY_COLUMNS)
    keys = [k for k in table.columns if k not in ("run", "seed", "status")]
    body = declared if all(c.key in keys for c in declared) else [Column(k) for k in keys]
    return [RUN] + body + [SEED, STATUS]


def overlay(joined, names, metric: str = "regret", replicates=None):
    """``(Figure, ndarray of Axes)``: each run's curves of ``metric`` (mean ± 1.96 SE) and, for regret, the bounds
    that hold in that run, one panel per environment, on log-log axes (the y axis linear only where a mean is 0
    or below).

    Parameters
    ----------
    joined : Result
        The runs joined with ``align="label"`` (each learner label names its run); ``meta["bounds"]`` (relabelled)
        gives the bounds.
    names : list of str
        The runs' names: a panel's title lists those that have its environment.
    metric : str, default "regret"
        The metric.
    replicates : list of int or None, default None
        Each run's own replicates, for the band's legend entry (None: not stated).
    """
    from onlinelab.runs import figures as F
    from onlinelab.runs.report import FLOOR, x_axis
    envs = joined.environments
    fig, axes = F.new_figure(len(envs))
    colors = {learner: f"C{i % 10}" for i, learner in enumerate(joined.learners)}
    bounds = [b for b in joined.meta.get("bounds", []) if b.get("holds") and metric == "regret"]
    styles = F.bound_styles(b["name"] for b in bounds)
    xlabels, titles = [], []
    for ax, env in zip(axes, envs, strict=True):
        scale, xlabel = x_axis(joined, env)
        curve = joined.curve(metric, environment=env)
        curve = curve[curve.t > 0]   # round 0 has no place on a log axis
        positive = bool((curve["mean"] > 0).all())
        for learner, df in curve.groupby("learner", sort=False):
            ax.plot(df.t * scale, df["mean"], color=colors[learner], lw=2, label=learner)
            F.band(ax, df.t * scale, df, colors[learner], floor=FLOOR if positive else -np.inf)
            for b in (b for b in bounds if b["learner"] == learner and b.get("environment") == env):
                bc = joined.curve(f"bound:{b['name']}", learner=learner, environment=env)
                bc = bc[bc.t > 0]
                ax.plot(bc.t * scale, bc["mean"], color=colors[learner], lw=1.2, markersize=4, markevery=0.1,
                        fillstyle="none", label=f"{learner}: {b['name']}", **styles[b["name"]])
        ax.set_xscale("log")
        if positive:
            ax.set_yscale("log")
        xlabels.append(xlabel)
        present = [n for n in names if any(f" [{n}: T=" in str(label) for label in curve["learner"].unique())]
        titles.append(f"{env}\nruns: {', '.join(present)}")
    counts = [(n, r) for n, r in zip(names, replicates or [], strict=False) if r]
    handle = None
    if counts and max(r for _, r in counts) > 1:
        from matplotlib.patches import Patch
        each = ", ".join(f"{n}: {r}" for n, r in counts)
        handle = Patch(color="0.5", alpha=0.35, label=f"mean ± 1.96 SE over each run's replicates ({each})")
    return F.finish(fig, axes, xlabels, metric, titles, [handle])
