"""Figures fit for a paper: one look shared by every plot of a run (regret reports, games, streams).

* a figure is ``(Figure, ndarray of Axes)`` from `new_figure`, on matplotlib's constrained
  layout, one panel per environment;
* every curve with replicates carries a band, the mean ± 1.96 standard errors over the
  replicates (`band`; a normal 95% interval of the mean), and says so in the legend;
* a learner has one colour; each of its bounds (or a game's rate curves) a distinct
  line style × marker (`bound_styles`), labelled ``learner: bound``;
* `finish` labels the axes, titles each panel with T, R, d and the seed (`run_title`)
  and places one legend outside the axes (right of them), so it never covers a curve.

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
    """``"<environment>\\nT = …, R = …, d = …, seed = …"`` from a run's metadata.

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
    lo = np.maximum(curve["mean"] - Z95 * curve["se"], floor)
    hi = np.maximum(curve["mean"] + Z95 * curve["se"], floor)
    return ax.fill_between(np.asarray(x), lo, hi, color=color, alpha=0.2, lw=0)


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
    return Patch(color="0.6", alpha=0.4, label=f"mean ± 1.96 SE over {replicates} replicates")


def finish(fig, axes, xlabel: str, ylabel: str, titles, extra_handles=()):
    """Label every panel, title it, and put one de-duplicated legend outside the axes; returns ``(fig, axes)``.

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
    return fig, axes


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
