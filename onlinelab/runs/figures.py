"""Figures fit for a paper: one look shared by every plot of a run (regret reports, games, streams).

* a figure is ``(Figure, ndarray of Axes)`` from `new_figure`, on matplotlib's constrained
  layout, one panel per environment;
* every curve with replicates carries a band, the mean ± 1.96 standard errors over the
  replicates (`band`; a normal 95% interval of the mean), and says so in the legend;
* a learner has one colour; each of its bounds (or a game's rate curves) a distinct
  line style × marker (`bound_styles`), labelled ``learner: bound``;
* `finish` labels the axes, titles each panel with T, R, d and the seed (`run_title`)
  and places one legend outside the axes (right of them), so it never covers a curve; long
  notes (why a bound is n/a, which curves coincide: `coinciding`) go below the figure;
* learners get distinct markers (`learner_style`); counts such as a rank get their own linear
  axis (`count_axis`); sweeps get a panel per configuration and log axes for log-spaced grids
  (`sweep_figure`, `log_spaced`).

>>> import matplotlib; matplotlib.use("Agg")
>>> fig, axes = new_figure(2)
>>> axes.shape, fig.get_layout_engine().__class__.__name__
((2,), 'ConstrainedLayoutEngine')
>>> sorted(bound_styles(["b", "a"])["a"])
['linestyle', 'marker']
"""
from __future__ import annotations

import itertools

import numpy as np

#: Normal quantile of a two-sided 95% interval: bands are mean ± Z95 · standard error.
Z95 = 1.959963984540054
LINESTYLES = ("--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2)))
MARKERS = ("o", "s", "^", "v", "D", "x", "P", "*")
PANEL_SIZE = (5.2, 3.9)
BAND_ALPHA = 0.3


def bound_styles(names) -> dict:
    """A distinct ``{"linestyle": …, "marker": …}`` for every name, in sorted order (stable across panels).

    Line styles and markers advance together, so two of the first six names share neither, and
    no two of the first 48 share both.

    Parameters
    ----------
    names : iterable of str
        The bound (or rate-curve) names to style.
    """
    names = sorted(dict.fromkeys(names))
    diagonal = list(dict.fromkeys((LINESTYLES[k % len(LINESTYLES)], MARKERS[k % len(MARKERS)])
                                  for k in range(len(LINESTYLES) * len(MARKERS))))
    combos = diagonal + [c for c in itertools.product(LINESTYLES, MARKERS) if c not in diagonal]
    return {name: {"linestyle": combos[i % len(combos)][0], "marker": combos[i % len(combos)][1]}
            for i, name in enumerate(names)}


def new_figure(panels: int = 1, ax=None):
    """``(Figure, ndarray of Axes)``: ``panels`` side by side on a constrained layout, or the given ``ax``.

    Parameters
    ----------
    panels : int, default 1
        Number of panels.
    ax : matplotlib Axes, sequence of Axes or None, default None
        Draw there instead (a legend then goes beside the last of them, still outside).
    """
    import matplotlib.pyplot as plt
    if ax is not None:
        axes = np.atleast_1d(np.asarray(ax, dtype=object)).ravel()
        return axes[0].figure, axes
    fig, axes = plt.subplots(1, panels, figsize=(PANEL_SIZE[0] * panels + 2.4, PANEL_SIZE[1]), squeeze=False,
                             layout="constrained")
    return fig, axes[0]


def run_title(meta: dict, environment: str) -> str:
    """``"<environment>\\nT = …, R = …, d = …, seed = …"`` from a run's metadata (no seed part when it is None).

    Parameters
    ----------
    meta : dict
        The run's metadata (``Result.meta``).
    environment : str
        The panel's environment label.
    """
    d = meta.get("environments", {}).get(environment, {}).get("d")
    parts = [f"T = {meta.get('T')}", f"R = {meta.get('replicates')}"]
    if d is not None:
        parts.append(f"d = {d}")
    if meta.get("seed") is not None:   # a run without randomness (given data) has no seed to state
        parts.append(f"seed = {meta.get('seed')}")
    return f"{environment}\n" + ", ".join(parts)


def band(ax, x, curve, color, floor: float = 0.0):
    """Shade mean ± 1.96 SE of a `onlinelab.Result.curve` frame (nothing with one replicate).

    Parameters
    ----------
    ax : matplotlib Axes
        Where to draw.
    x : array-like
        The abscissae (rounds or samples).
    curve : pandas.DataFrame
        Columns ``mean``, ``se`` and ``n`` (replicates per point).
    color : str
        The curve's colour.
    floor : float, default 0.0
        Lower clip (a positive floor keeps a log axis finite).
    """
    if curve["n"].max() < 2:
        return None
    from matplotlib.colors import to_rgba
    lo = np.maximum(curve["mean"] - Z95 * curve["se"], floor)
    hi = np.maximum(curve["mean"] + Z95 * curve["se"], floor)
    # a visible fill with a thin darker edge: a narrow band still reads as a band (issue 22)
    return ax.fill_between(np.asarray(x), lo, hi, facecolor=to_rgba(color, BAND_ALPHA),
                           edgecolor=to_rgba(color, 0.75), lw=0.6)


def band_handle(replicates: int):
    """A legend entry explaining the shading (None with one replicate).

    Parameters
    ----------
    replicates : int
        Replicates behind each mean.
    """
    if replicates < 2:
        return None
    from matplotlib.patches import Patch
    return Patch(facecolor=(0.4, 0.4, 0.4, BAND_ALPHA), edgecolor=(0.4, 0.4, 0.4, 0.75), lw=0.6,
                 label=f"mean ± 1.96 SE over {replicates} replicates")


def finish(fig, axes, xlabel: str, ylabel: str, titles, extra_handles=(), notes=()):
    """Label every panel, title it, and put one de-duplicated legend outside the axes; returns ``(fig, axes)``.

    ``notes`` (why a bound is n/a, which curves coincide) go in small type below the figure, never into
    the legend, whose entries stay short.

    On a constrained layout (figures from `new_figure`) the legend is a figure legend in the
    layout's outside right margin; on another figure it is anchored right of the last panel.

    Parameters
    ----------
    fig : matplotlib Figure
        The figure.
    axes : ndarray of Axes
        Its panels.
    xlabel : str or sequence of str
        The x label of every panel, or one per panel.
    ylabel : str
        The y label (every panel).
    titles : sequence of str
        One title per panel.
    extra_handles : sequence of artists, default ()
        Legend entries not drawn on the axes (e.g. `band_handle`); None entries are skipped.
    notes : sequence of str, default ()
        Lines written below the figure (duplicates once).
    """
    handles: dict = {}
    xlabels = [xlabel] * len(axes) if isinstance(xlabel, str) else list(xlabel)
    for ax, title, xl in zip(axes, titles, xlabels, strict=False):  # a caller's ax may hold spare panels
        ax.set_xlabel(xl)
        ax.set_ylabel(ylabel)
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="both", alpha=0.2)
        for h, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, h)
    for h in extra_handles:
        if h is not None:
            handles.setdefault(h.get_label(), h)
    from matplotlib.layout_engine import ConstrainedLayoutEngine
    if isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine):
        fig.legend(list(handles.values()), list(handles), loc="outside right upper", fontsize=8)
    else:
        axes[-1].legend(list(handles.values()), list(handles), loc="upper left", bbox_to_anchor=(1.02, 1.0),
                        borderaxespad=0.0, fontsize=8)
    notes = list(dict.fromkeys(notes))
    if notes:
        import textwrap
        text = "\n".join(textwrap.fill(n, 150, subsequent_indent="    ") for n in notes)
        if isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine):
            fig.supxlabel(text, fontsize=7, ha="left", x=0.0, multialignment="left")  # laid out below the axes
        else:
            fig.text(0.0, -0.02, text, fontsize=7, ha="left", va="top", transform=fig.transFigure)
    return fig, axes


def coinciding(curves: dict, rtol: float = 1e-9) -> list[str]:
    """Notes naming curves drawn on top of one another: same abscissae, ordinates equal to ``rtol`` of their scale.

    Parameters
    ----------
    curves : dict
        Label → ``(x, y)`` arrays.
    rtol : float, default 1e-9
        Relative tolerance (to the largest absolute ordinate of the pair).

    >>> coinciding({"a": ([1, 2], [1.0, 2.0]), "b": ([1, 2], [1.0, 2.0]), "c": ([1, 2], [1.0, 3.0])})
    ['a and b coincide (drawn on top of one another; told apart by their markers)']
    """
    labels, out, seen = list(curves), [], set()
    for i, a in enumerate(labels):
        if a in seen:
            continue
        xa, ya = (np.asarray(v, dtype=float) for v in curves[a])
        same = [b for b in labels[i + 1:] if b not in seen and np.shape(curves[b][0]) == xa.shape
                and np.array_equal(np.asarray(curves[b][0], dtype=float), xa)
                and np.allclose(np.asarray(curves[b][1], dtype=float), ya, rtol=0.0,
                                atol=rtol * max(float(np.nanmax(np.abs(ya), initial=0.0)), 1e-300), equal_nan=True)]
        seen.update(same)
        if same:
            out.append(f"{' and '.join([a, *same])} coincide (drawn on top of one another; told apart by their "
                       "markers)")
    return out


def learner_style(i: int) -> dict:
    """The ``i``-th learner's main curve: solid, its own marker, markers staggered so coinciding curves show both.

    Parameters
    ----------
    i : int
        The learner's position.
    """
    return {"linestyle": "-", "marker": MARKERS[i % len(MARKERS)], "markersize": 5, "fillstyle": "none",
            "markevery": (0.013 * (i % 7), 0.1), "lw": 2.2 - 0.4 * (i % 3)}


def save_figure(fig, path, dpi: int = 110) -> None:
    """Write ``fig`` to ``path`` with room for the outside legend, then close it.

    Parameters
    ----------
    fig : matplotlib Figure
        The figure.
    path : str or path-like
        The file (its suffix picks the format).
    dpi : int, default 110
        Resolution.
    """
    import matplotlib.pyplot as plt
    fig.savefig(path, dpi=dpi, bbox_inches="tight")
    plt.close(fig)


def log_spaced(values) -> bool:
    """Whether a grid reads better on a log axis: positive numbers spaced more evenly in log than linearly.

    Three or more values: the coefficient of variation of their log steps is below that of their
    linear steps (``0.01, 0.03, 0.1, 0.3, 1`` yes; ``1, 2, 3, 4`` no); two values: a ratio of 10 or more.

    Parameters
    ----------
    values : array-like
        The grid (repeats and order do not matter; strings and non-positive values give False).

    >>> log_spaced([0.01, 0.03, 0.1, 0.3, 1.0]), log_spaced([1, 2, 3, 4]), log_spaced(["a", "b"])
    (True, False, False)
    """
    try:
        v = np.unique(np.asarray(values, dtype=float))
    except (TypeError, ValueError):
        return False
    if v.size < 2 or not np.all(np.isfinite(v)) or v[0] <= 0:
        return False
    if v.size == 2:
        return bool(v[1] / v[0] >= 10)
    lin, geo = np.diff(v), np.diff(np.log(v))
    return bool(np.std(geo) / np.mean(geo) < np.std(lin) / np.mean(lin))


def _cell(keys, values) -> str:
    return ", ".join(f"{k} = {v}" for k, v in zip(keys, values, strict=True))


def sweep_bounds(frames, holds: dict, keys):
    """The mean final value of each learner's bounds per sweep configuration, and whether it holds in all its runs.

    Parameters
    ----------
    frames : list of pandas.DataFrame
        Final ``bound:<name>`` rows (columns ``run_id``, ``learner``, ``environment``, ``metric``, ``value`` and
        ``keys``).
    holds : dict
        ``(run_id, learner, environment, metric)`` → whether the bound applies there; a missing key counts as True
        (a sweep rebuilt without its runs' metadata draws every bound).
    keys : list of str
        The swept keys that make a configuration.
    """
    import pandas as pd
    cols = ["learner", "bound", *keys, "value", "holds"]
    if not frames:
        return pd.DataFrame(columns=cols)
    b = pd.concat(frames, ignore_index=True)
    b["bound"] = b["metric"].str.removeprefix("bound:")
    b["holds"] = [holds.get(tuple(k), True) for k in b[["run_id", "learner", "environment", "metric"]].itertuples(
        index=False)]
    return b.groupby(["learner", "bound", *keys], sort=False).agg(value=("value", "mean"), holds=("holds", "all")) \
        .reset_index()[cols]


def sweep_figure(summary, bounds, param: str, facets, metric: str, note: str, ax=None):
    """The final ``metric`` of a sweep against ``param``: one panel per value of the other swept keys, so
    distinct configurations are never pooled; one colour per learner; each learner's bounds beside it.

    The x axis is logarithmic for a log-spaced grid (`log_spaced`), the y axis when every drawn value
    is positive and they span more than a factor 20.  Returns ``(Figure, ndarray of Axes)``.

    Parameters
    ----------
    summary : pandas.DataFrame
        Columns ``learner``, ``param``, ``facets``, ``mean``, ``ci_low``, ``ci_high`` (95% t-intervals).
    bounds : pandas.DataFrame
        Columns ``learner``, ``bound``, ``param``, ``facets``, ``value`` (mean final bound) and
        ``holds``; only rows whose bound holds are drawn.
    param : str
        The swept key on the x axis.
    facets : list of str
        The other swept keys that change the configuration (one panel per combination).
    metric : str
        The metric's name (y label).
    note : str
        A line under each title (runs, and what is pooled: seeds and replicates only).
    ax : matplotlib Axes or sequence of Axes, optional
        Where to draw (one per facet).
    """
    from onlinelab.errors import ConfigError
    groups = [((), summary)] if not facets else list(summary.groupby(facets, sort=True))
    fig, axes = new_figure(len(groups), ax)
    if len(axes) < len(groups):
        raise ConfigError(f"ax holds {len(axes)} Axes but the sweep has {len(groups)} configurations of "
                          f"{', '.join(facets)}; pass one Axes per configuration")
    colors = {learner: f"C{i % 10}" for i, learner in enumerate(dict.fromkeys(summary["learner"]))}
    styles = bound_styles(bounds["bound"]) if len(bounds) else {}
    titles, drawn = [], []
    for axis, (key, df) in zip(axes, groups, strict=False):
        key = key if isinstance(key, tuple) else (key,)
        for learner, d in df.groupby("learner", sort=False):
            d = d.sort_values(param)
            axis.errorbar(d[param], d["mean"], yerr=[d["mean"] - d.ci_low, d.ci_high - d["mean"]], marker="o",
                          capsize=3, color=colors[learner], label=learner)
            drawn += list(d["mean"])
        mine = bounds
        for k, val in zip(facets, key, strict=True):
            mine = mine[mine[k] == val]
        for (learner, name), b in mine[mine["holds"].astype(bool)].groupby(["learner", "bound"], sort=True):
            b = b.sort_values(param)
            axis.plot(b[param], b["value"], color=colors.get(learner, "k"), lw=1.2, markersize=5, fillstyle="none",
                      label=f"{learner}: {name} (bound)", **styles[name])
            drawn += list(b["value"])
        if log_spaced(summary[param]):
            axis.set_xscale("log")
        titles.append((_cell(facets, key) + "\n" if facets else "") + note)
    drawn = np.asarray(drawn, dtype=float)
    if drawn.size and np.all(drawn > 0) and drawn.max() / drawn.min() > 20:
        for axis in axes[:len(groups)]:
            axis.set_yscale("log")
    return finish(fig, axes[:len(groups)], param, f"final {metric} (mean, 95% t-interval)", titles)


#: Metrics that count things (a rank, non-zeros, samples seen): drawn on their own linear axis, never on a log one.
COUNT_METRICS = ("rank", "nnz", "seen")


def count_axis(axis, curves: dict, colors: dict):
    """Draw count curves on a linear twin axis right of ``axis``, from 0 with integer ticks; returns their handles.

    A count is 0 before anything is found; on the log axis of gaps and residuals that 0 would be
    clipped to a floor decades below the curves that matter, so counts get their own scale.

    Parameters
    ----------
    axis : matplotlib Axes
        The panel (its log y axis keeps the other metrics).
    curves : dict
        Metric name → `onlinelab.Result.curve` frame (columns ``t`` and ``mean``).
    colors : dict
        Metric name → colour.
    """
    from matplotlib.ticker import MaxNLocator
    twin = axis.twinx()
    handles = [twin.plot(c["t"], c["mean"], color=colors[name], lw=1.4, marker=".", markersize=4,
                         drawstyle="steps-post", label=f"{name} (right axis)")[0] for name, c in curves.items()]
    twin.set_ylim(bottom=0, top=max(1.0, 1.1 * max(float(np.nanmax(c["mean"], initial=0.0)) for c in curves.values())))
    twin.yaxis.set_major_locator(MaxNLocator(integer=True))
    twin.set_ylabel(f"count ({', '.join(curves)}; linear)")
    return handles
