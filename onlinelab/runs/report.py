"""Figures and tables from a `onlinelab.Result`: regret curves beside their bounds, and report.md.

Regret is drawn as the replicate mean with a band of ± 1.96 standard errors; a learner keeps
one colour and marker (coinciding curves are also named below the figure) and each of its bounds
its own line style and marker, labelled ``learner: bound``.  Bounds whose assumptions fail are left
out unless ``show_na=True`` (then faint, marked "n/a" in the legend, the failed assumptions written
below the figure).  Bands have a visible fill and edge.  Panels are titled with T, R, d and the
seed; the legend sits outside the axes; streams are drawn against samples (rounds × block).
Axes are log-log so √T shapes read as slope ½.  The look is shared with the game figures (`onlinelab.runs.figures`).

>>> import onlinelab as ol, matplotlib
>>> matplotlib.use("Agg")
>>> res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=50, replicates=2)
>>> fig, axes = res.plot()
>>> type(fig).__name__, axes.shape, axes[0].get_xlabel()
('Figure', (1,), 'round t')
"""
from __future__ import annotations

import pathlib

import numpy as np

from onlinelab.runs import figures as F

FLOOR = 1e-12  # log axes: values are clipped here


def x_axis(result, environment) -> tuple[float, str]:
    """(factor from rounds to the x axis, its label): samples for streams (a round carries a block), rounds otherwise.

    Parameters
    ----------
    result : Result
        The run.
    environment : str
        An environment label of the run.
    """
    b = result.meta.get("environments", {}).get(environment, {}).get("samples_per_round")
    if not b:
        return 1.0, "round t"
    b = int(b)
    return float(b), "samples n = t" if b == 1 else f"samples n = {b}·t (block of {b} per round)"


def plot_regret(result, ax=None, metric: str = "regret", environment=None, show_na: bool = False):
    """Draw ``metric`` (mean and band) with each learner's bounds; returns ``(Figure, ndarray of Axes)``.

    Parameters
    ----------
    result : Result
        The run.
    ax : matplotlib Axes, sequence of Axes or None, default None
        Where to draw (one per environment); None makes a new figure with one panel per environment.
    metric : str, default "regret"
        The metric; bounds are drawn for ``"regret"``.
    environment : str or None, default None
        Draw only this environment.
    show_na : bool, default False
        Also draw bounds whose assumptions fail (faint, labelled "n/a").
    """
    from onlinelab.errors import ConfigError
    envs = [environment] if environment is not None else result.environments
    fig, axes = F.new_figure(len(envs), ax)
    if len(axes) < len(envs):
        raise ConfigError(f"ax holds {len(axes)} Axes but the run has {len(envs)} environments; pass one Axes per "
                          "environment, or environment= to draw one")
    bounds = result.bounds()
    colors = {learner: f"C{i % 10}" for i, learner in enumerate(result.learners)}
    styles = F.bound_styles(bounds.bound)
    xlabels, titles, notes = [], [], []
    for axis, env in zip(axes, envs, strict=False):  # a given ax may hold more Axes than environments
        scale, xlabel = x_axis(result, env)
        curves = result.curve(metric, environment=env)
        drawn_lower = set()   # lower bounds (theory §10) belong to the instance: drawn once a panel
        mains = {}
        for learner in dict.fromkeys(curves["learner"]):
            color = colors[learner]
            c = curves[(curves["learner"] == learner) & (curves["t"] > 0)]
            mains[learner] = (c["t"].to_numpy(), c["mean"].to_numpy())
            axis.plot(c["t"] * scale, np.maximum(c["mean"], FLOOR), color=color, label=learner,
                      **F.learner_style(list(colors).index(learner)))
            F.band(axis, c["t"] * scale, c, color, floor=FLOOR)
            if metric != "regret":
                continue
            for _, b in bounds[(bounds.learner == learner) & (bounds.environment == env)].iterrows():
                if not (b.holds or show_na) or (b.get("lower", False) and b.bound in drawn_lower):
                    continue
                bc = result.curve(f"bound:{b.bound}", learner=learner, environment=env)
                tag = "" if b.holds else " (n/a)"   # the reason goes below the figure, not into the legend
                who = learner
                if b.get("lower", False):   # an instance's lower bound: drawn once, in black
                    who, color_b = "lower bound", "k"
                    drawn_lower.add(b.bound)
                else:
                    color_b = color
                if not b.holds:
                    notes.append(f"n/a: {who}: {b.bound} on {env} (failed: {b.failed_assumptions})")
                axis.plot(bc["t"] * scale, bc["mean"], color=color_b, lw=1.2,
                          alpha=1.0 if b.holds else 0.45, markersize=4, markevery=0.1, fillstyle="none",
                          label=f"{who}: {b.bound}{tag}", **styles[b.bound])
        axis.set_xscale("log")
        axis.set_yscale("log")
        xlabels.append(xlabel)
        titles.append(F.run_title(result.meta, env))
        notes += [f"{env}: {n}" for n in F.coinciding(mains)]
    return F.finish(fig, axes, xlabels, metric, titles, [F.band_handle(int(result.meta.get("replicates", 1)))],
                    notes)


def summary_markdown(result) -> str:
    """report.md: the summary table, each bound's applicability, and violations in capitals."""
    from onlinelab.runs.summary import table_columns
    from onlinelab.runs.tables import format_table
    table = result.summary()
    lines = ["# Run report\n", f"T = {result.meta['T']}, replicates = {result.meta['replicates']}, "
             f"seed = {result.meta['seed']}, status: {result.meta['status']}\n",
             format_table(table, table_columns(table, result.SUMMARY_COLUMNS), markdown=True)]
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
    """Write report.md (`summary_markdown`) and report.png (`plot_regret`) into ``path``.

    Parameters
    ----------
    result : Result
        The run.
    path : str or path-like
        The run directory.
    """
    import matplotlib
    if matplotlib.get_backend().lower() not in ("agg", "module://matplotlib_inline.backend_inline"):
        matplotlib.use("Agg")
    path = pathlib.Path(path)
    (path / "report.md").write_text(summary_markdown(result))
    fig, _ = plot_regret(result, metric="regret" if "regret" in set(result.metrics.metric) else "cumulative_loss")
    F.save_figure(fig, path / "report.png")
