"""Saved runs side by side: one summary table and one overlay plot (``onlinelab compare RUN_A RUN_B ...``).

Runs may differ in horizon and seed, so they are joined with ``Result.concat(align="label")``:
every learner label gets the suffix ``[<run>: T=…, seed=…]`` and each run keeps its own
rows and curves.

>>> import tempfile, pathlib, onlinelab as ol
>>> from onlinelab.storage import save_run
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

from .align import align_results
from .errors import ConfigError

COLUMNS = ["run", "learner", "environment", "T", "seed", "replicates", "regret", "ci_low", "ci_high", "bound",
           "bound_name", "ratio", "status"]


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
    import matplotlib.pyplot as plt

    from .result import Result, _merge_meta
    from .storage import load_run
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
    envs = joined.environments
    fig, axes = plt.subplots(1, len(envs), figsize=(6 * len(envs), 4), squeeze=False)
    for ax, env in zip(axes[0], envs):
        curve = joined.curve(metric, environment=env)
        for learner, df in curve.groupby("learner", sort=False):
            line, = ax.plot(df.t, df["mean"], label=learner)
            ax.fill_between(df.t, df.lo, df.hi, color=line.get_color(), alpha=0.2)
        ax.set_xscale("log")
        ax.set_title(env)
        ax.set_xlabel("round t")
        ax.set_ylabel(f"{metric} (mean, 95% CI)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    if plot is not None:
        fig.savefig(plot, dpi=100)
    return table, fig
