"""Saved runs side by side: one summary table and one overlay plot (``onlinelab compare RUN_A RUN_B ...``).

Runs may differ in horizon and seed, so they are joined with ``Result.concat(align="label")``:
every learner label gets the suffix ``[<run>: T=…, seed=…]`` and each run keeps its own
rows and curves.

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

import pandas as pd

from onlinelab.errors import ConfigError
from onlinelab.runs.align import align_results
from onlinelab.runs.result import SUMMARY_COLUMNS
from onlinelab.runs.tables import Column

COLUMNS = ["run", "learner", "environment", "T", "seed", "replicates", "regret", "ci_low", "ci_high", "bound",
           "bound_name", "ratio", "status"]
_SPEC = {c.key: c for c in SUMMARY_COLUMNS}
#: How ``onlinelab compare`` prints the table: the summary's formats plus run, seed and status.
TABLE_COLUMNS = [_SPEC.get(key, Column(key, fmt="d" if key == "seed" else "text", na="not recorded in meta.json"))
                 for key in COLUMNS]


def compare(run_dirs, plot=None, metric: str = "regret"):
    """Load the run directories and return ``(table, figure)``; write the figure to ``plot`` when given.

    Parameters
    ----------
    run_dirs : list of str or pathlib.Path
        Run directories written by ``onlinelab run`` or :meth:`Result.save`.
    plot : str or pathlib.Path, optional
        Where to write the overlay plot (PNG).
    metric : str
        The metric whose curves are overlaid.
    """
    from onlinelab.runs.load import load_run
    from onlinelab.runs.result import Result, _merge_meta
    paths = [pathlib.Path(p) for p in run_dirs]
    if len(paths) < 2:
        raise ConfigError(f"compare needs at least two run directories, got {len(paths)}")
    names = [p.name for p in paths]
    if len(set(names)) != len(names):
        names = [str(p) for p in paths]
    results = [load_run(p) for p in paths]
    rows = []
    for name, res in zip(names, results):
        s = res.summary()
        s.insert(0, "run", name)
        s["seed"], s["status"] = res.meta.get("seed"), res.meta.get("status")
        rows.append(s)
    table = pd.concat(rows, ignore_index=True)[COLUMNS]
    parts = align_results(results, "label", names=names)  # each run keeps its own labelled rows
    joined = Result(pd.concat([r.metrics for r in parts], ignore_index=True), _merge_meta([r.meta for r in parts]))
    fig, axes = overlay(joined, names, metric)
    if plot is not None:
        fig.savefig(plot, dpi=100, bbox_inches="tight")
    return table, fig


def overlay(joined, names, metric: str = "regret"):
    """``(Figure, ndarray of Axes)``: each run's curves of ``metric`` (mean ± 1.96 SE), one panel per environment.

    Parameters
    ----------
    joined : Result
        The runs joined with ``align="label"`` (each learner label names its run).
    names : list of str
        The runs' names, for the titles.
    metric : str, default "regret"
        The metric.
    """
    from onlinelab.runs import figures as F
    from onlinelab.runs.report import x_axis
    envs = joined.environments
    fig, axes = F.new_figure(len(envs))
    colors = {learner: f"C{i % 10}" for i, learner in enumerate(joined.learners)}
    xlabels, titles = [], []
    for ax, env in zip(axes, envs):
        scale, xlabel = x_axis(joined, env)
        curve = joined.curve(metric, environment=env)
        for learner, df in curve.groupby("learner", sort=False):
            ax.plot(df.t * scale, df["mean"], color=colors[learner], lw=2, label=learner)
            F.band(ax, df.t * scale, df, colors[learner])
        ax.set_xscale("log")
        xlabels.append(xlabel)
        titles.append(f"{env}\nruns: {', '.join(names)}")
    replicates = joined.metrics.groupby(["learner"])["replicate"].nunique()
    handle = F.band_handle(int(replicates.max())) if len(replicates) else None
    return F.finish(fig, axes, xlabels, metric, titles, [handle])
