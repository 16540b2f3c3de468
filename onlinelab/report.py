"""Figures and tables from a :class:`~onlinelab.Result`: regret curves beside their bounds, and report.md.

Regret is drawn as the replicate mean with its 95% band; each bound of the same learner
in the same colour, dashed where all its assumptions held and dotted (marked "n/a")
where one failed.  Axes are log-log so √T shapes read as slope ½.

>>> import onlinelab as ol, matplotlib
>>> matplotlib.use("Agg")
>>> res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=50, replicates=2)
>>> type(res.plot()).__name__
'Axes'
"""
from __future__ import annotations

import pathlib

import numpy as np


def _axes(ax, n):
    import matplotlib.pyplot as plt
    if ax is not None:
        return [ax] if n == 1 else list(np.ravel(ax))
    fig, axes = plt.subplots(1, n, figsize=(6.4 * n, 4.8), squeeze=False)
    return list(axes[0])


def plot_regret(result, ax=None, metric: str = "regret", environment=None):
    """Draw ``metric`` with bounds; returns one Axes (one environment) or a list (several)."""
    envs = [environment] if environment is not None else result.environments
    axes = _axes(ax, len(envs))
    bounds = result.bounds()
    for axis, env in zip(axes, envs):
        curves = result.curve(metric, environment=env)
        for i, learner in enumerate(dict.fromkeys(curves["learner"])):
            color = f"C{i % 10}"
            c = curves[curves["learner"] == learner]
            pos = c["t"] > 0
            axis.plot(c["t"][pos], np.maximum(c["mean"][pos], 1e-12), color=color, lw=2, label=learner)
            axis.fill_between(c["t"][pos], np.maximum(c["lo"][pos], 1e-12), np.maximum(c["hi"][pos], 1e-12),
                              color=color, alpha=0.2, lw=0)
            if metric != "regret":
                continue
            mine = bounds[(bounds.learner == learner) & (bounds.environment == env)]
            for _, b in mine.iterrows():
                bc = result.curve(f"bound:{b.bound}", learner=learner, environment=env)
                style = "--" if b.holds else ":"
                tag = "" if b.holds else " (n/a)"
                axis.plot(bc["t"], bc["mean"], style, color=color, lw=1, alpha=0.9 if b.holds else 0.5,
                          label=f"{b.bound}{tag}")
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("round t")
        axis.set_ylabel(metric)
        axis.set_title(env, fontsize=9)
        axis.legend(fontsize=6, loc="upper left")
        axis.grid(True, which="both", alpha=0.2)
    return axes[0] if len(axes) == 1 else axes


def summary_markdown(result) -> str:
    """report.md: the summary table, each bound's applicability, and violations in capitals."""
    from .tables import format_table
    lines = ["# Run report\n", f"T = {result.meta['T']}, replicates = {result.meta['replicates']}, "
             f"seed = {result.meta['seed']}, status: {result.meta['status']}\n",
             format_table(result.summary(), result.SUMMARY_COLUMNS, markdown=True)]
    lines += ["", "## Bounds and their assumptions", ""]
    for _, b in result.bounds().iterrows():
        state = "applies" if b.holds else f"not applicable — failed: {b.failed_assumptions}"
        flag = " **VIOLATED**" if b.violated else ""
        fb = "" if b.final_bound is None or b.final_bound != b.final_bound else f", final {b.final_bound:.4g}"
        lines.append(f"- {b.learner} on {b.environment}: `{b.bound}` ({b.ref}){fb}: {state}{flag}")
    if any(m.get("adaptive") for m in result.meta["environments"].values()):
        lines += ["", "Against an adaptive environment the per-replicate mean regret over-estimates the "
                  "pseudo-regret (theory §1.1); bounds of randomised learners are not tested there."]
    return "\n".join(lines) + "\n"


def write_report(result, path) -> None:
    import matplotlib
    if matplotlib.get_backend().lower() not in ("agg", "module://matplotlib_inline.backend_inline"):
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    path = pathlib.Path(path)
    (path / "report.md").write_text(summary_markdown(result))
    axes = plot_regret(result)
    fig = (axes[0] if isinstance(axes, list) else axes).figure
    fig.tight_layout()
    fig.savefig(path / "report.png", dpi=110)
    plt.close(fig)
