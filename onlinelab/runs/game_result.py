"""The result of a Fenchel game: the same tidy metrics table as a simulation, with a game summary and figure.

Rows are (learner = "x-player vs y-player", environment = f's description, replicate, t,
metric, value); metrics are ``suboptimality``, ``gap``, ``x_avg_regret``, ``y_avg_regret``,
``regret`` (their sum), ``suboptimality_shifted`` and ``weight_sum``; each rate curve of the
recovery is a ``bound:<name>`` row, compared with every replicate's suboptimality when the bound is
pointwise (deterministic players: the rate holds for each run) and with the mean otherwise (theory §3.4–3.5).
``save`` writes the run directory of `onlinelab.runs.storage` with a game report.

>>> import pandas as pd
>>> game_frame("a vs b", "f", [1], {"gap": [pd.Series([0.5]).to_numpy()]}, []).metric.tolist()
['gap']
"""
from __future__ import annotations

import pathlib

import numpy as np
import pandas as pd

from onlinelab.bounds.base import LossStats
from onlinelab.runs.result import Result, _frame
from onlinelab.runs.tables import Column

GAME_METRICS = ("suboptimality", "gap", "regret")
FLOOR = 1e-16  # log axes: values are clipped here
NO_RATE = "no rate curve with a confirmed constant whose assumptions hold (see GameResult.bounds())"
SUMMARY_COLUMNS = [
    Column("learner", "players", fmt="text"), Column("environment", "f", fmt="text"),
    Column("replicates", "R", fmt="d"), Column("T", fmt="d"),
    Column("suboptimality"), Column("gap", "duality gap"), Column("regret", "avg regret sum"),
    Column("bound_on", "bound on", fmt="text", na=NO_RATE),
    Column("bound", "rate bound", na=NO_RATE), Column("bound_name", "rate", fmt="text", na=NO_RATE),
    Column("ratio", "value/bound", fmt=".3f", na=NO_RATE), Column("breaches", fmt="d")]


def game_arrays(ckpts, rows, bounds) -> tuple[np.ndarray, dict]:
    """The logged checkpoints t and metric → (C, R) array, the rate curves as ``bound:<name>`` arrays."""
    arrays = {k: np.stack(vals) for k, vals in rows.items()}              # (C, R)
    t = np.asarray(ckpts[: len(next(iter(arrays.values())))])
    R = next(iter(arrays.values())).shape[1]
    stats = LossStats(t, np.zeros((R, len(t))))
    for b in bounds:
        arrays[f"bound:{b.name}"] = np.broadcast_to(np.asarray(b.curve(stats), dtype=float), (R, len(t))).T
    return t, arrays


def game_frame(label, env, ckpts, rows, bounds) -> pd.DataFrame:
    """The tidy metrics table of a game (see the module docstring) from its logged rows and rate curves."""
    return _frame(label, env, *game_arrays(ckpts, rows, bounds))


def bound_metric(name: str) -> str:
    """The metric a rate curve bounds: ``shifted-*`` curves bound the shifted average (theory §3.4 smooth case)."""
    return "suboptimality_shifted" if name.startswith("shifted-") else "suboptimality"


class GameResult(Result):
    """A `onlinelab.Result` whose summary and plot speak about suboptimality, gap and regrets.

    Parameters
    ----------
    metrics : pandas.DataFrame
        The tidy table of `game_frame`.
    meta : dict
        Run metadata, with the ``game`` entry written by `onlinelab.games.game.play_game`.
    bounds : sequence of Bound, default ()
        The rate curves to check (a loaded run carries their checks in ``meta["bounds"]`` already).
    """

    SUMMARY_COLUMNS = SUMMARY_COLUMNS

    def __init__(self, metrics, meta, bounds=()):
        super().__init__(metrics, meta)
        self.x_avg: dict = {}      # checkpoint t → x̄_t, (R, n); play_game fills it
        rows = []
        learner, environment = (self.learners[0], self.environments[0]) if bounds else (None, None)
        for b in bounds:
            sub, bc = self._by_replicate(self.bound_metric(b.name)), self._by_replicate(f"bound:{b.name}")  # (C, R)
            curve = bc[-1].mean()                               # the final bound, averaged over replicates
            if not b.pointwise:     # a bound in expectation: compare the replicate means
                sub, bc = sub.mean(axis=1), bc.mean(axis=1)
            ratio = (sub / np.maximum(bc, 1e-300)).max()
            rows.append({"learner": learner, "environment": environment, "name": b.name,
                         "ref": b.ref, "formula": b.formula, "assumptions": dict(b.assumptions), "holds": b.holds,
                         "pointwise": b.pointwise, "reference": b.reference, "final_bound": float(curve),
                         "worst_ratio": float(ratio), "violated": bool(b.holds and not b.reference and ratio > 1)})
        self.meta.setdefault("bounds", rows)

    def bound_metric(self, name: str) -> str:
        """The metric the rate curve ``name`` bounds (games with another payoff override this).

        Parameters
        ----------
        name : str
            The bound's name.
        """
        return bound_metric(name)

    def _by_replicate(self, metric: str) -> np.ndarray:
        """Values of ``metric`` as a (checkpoints, replicates) array."""
        m = self.metrics[self.metrics.metric == metric]
        return m.pivot_table(index="t", columns="replicate", values="value").to_numpy()

    def summary(self) -> pd.DataFrame:
        """One row: final mean suboptimality, gap, regret sum, the tightest applicable finite rate bound, the metric it
        bounds (``bound_on``: the suboptimality of the averaged or of the shifted iterate) and that metric over it."""
        row = {"learner": self.learners[0], "environment": self.environments[0], "T": self.meta["T"],
               "replicates": self.meta["replicates"]}
        for m in GAME_METRICS:
            row[m] = float(self.final(m).mean())
        ok = [b for b in self.meta.get("bounds", []) if b["holds"] and not b.get("reference")
              and b["final_bound"] is not None and np.isfinite(b["final_bound"])]   # an infinite rate says nothing
        best = min(ok, key=lambda b: b["final_bound"]) if ok else None
        row.update(bound_on=None if best is None else self.bound_metric(best["name"]),
                   bound=None if best is None else best["final_bound"],
                   bound_name=None if best is None else best["name"],
                   ratio=None if best is None else float(self.final(self.bound_metric(best["name"])).mean())
                   / best["final_bound"],
                   breaches=len(self.meta["game"]["breaches"]))
        return pd.DataFrame([row])

    def alarms(self) -> list[str]:
        """Violated rate curves, then a line for breaches of the Fenchel chain (theory §3.3)."""
        lines = super().alarms()
        breaches = self.meta.get("game", {}).get("breaches", [])
        if breaches:
            b = breaches[0]
            lines.append(f"!!! FENCHEL CHAIN BREACHED {len(breaches)} time(s), first at t = {b['t']}: {b['which']} "
                         f"(replicate {b['replicate']}, {b['lhs']:.6g} > {b['rhs']:.6g}); theory §3.3 says this "
                         "cannot happen — a bug")
        return lines

    def plot(self, ax=None, metric=None, environment=None, show_na: bool = False):
        """Log-log suboptimality, gap and regret sum (means ± 1.96 SE) with every rate curve of the run.

        Each rate curve is drawn in the colour of the metric it bounds (``shifted-*`` curves: the
        shifted average), in its own line style and marker; reference curves (rates known up to
        their constant) say so in the legend.  Rate
        curves whose assumptions fail are hidden unless ``show_na``.  Returns ``(Figure, ndarray of Axes)``.

        Parameters
        ----------
        ax : matplotlib Axes or None, default None
            Where to draw; None makes a new figure.
        metric : str or None, default None
            Draw only this metric (and the rate curves that bound it); None draws all three.
        environment : None
            Unused (a game has one function); kept for `onlinelab.Result.plot`'s signature.
        show_na : bool, default False
            Also draw rate curves whose assumptions fail (faint, labelled "n/a").
        """
        from onlinelab.runs import figures as F
        fig, axes = F.new_figure(1, ax)
        axis = axes[0]
        rates = [b for b in self.meta.get("bounds", []) if b["holds"] or show_na]
        metrics = [metric] if metric is not None else list(GAME_METRICS)
        if metric is None and any(self.bound_metric(b["name"]) == "suboptimality_shifted" for b in rates):
            metrics.insert(1, "suboptimality_shifted")
        rates = [b for b in rates if self.bound_metric(b["name"]) in metrics]
        colors = {m: f"C{i}" for i, m in enumerate(metrics)}
        for i, m in enumerate(metrics):     # each line thinner than the last, so near-equal curves stay visible
            c = self.curve(m)
            c = c[(c["t"] > 0) & np.isfinite(c["mean"])]
            label = m if len(c) else f"{m} (not finite on this run)"
            axis.plot(c["t"], np.maximum(c["mean"], FLOOR), color=colors[m], lw=2.6 - 0.5 * i, label=label)
            F.band(axis, c["t"], c, colors[m], floor=FLOOR)
        styles = F.bound_styles(b["name"] for b in rates)
        for b in rates:
            c = self.curve(f"bound:{b['name']}")
            what = "reference (constant unconfirmed)" if b.get("reference") else "rate"
            tag = "" if b["holds"] else " (n/a)"
            axis.plot(c["t"], c["mean"], color=colors[self.bound_metric(b["name"])], lw=1.2, markersize=4,
                      markevery=0.1, fillstyle="none", alpha=1.0 if b["holds"] else 0.45,
                      label=f"{what}: {b['name']}{tag}", **styles[b["name"]])
        axis.set_xscale("log")
        axis.set_yscale("log")
        title = f"{self.learners[0]}\n" + F.run_title(self.meta, self.environments[0])
        return F.finish(fig, axes, "round t", "suboptimality, duality gap, average regret", [title],
                        [F.band_handle(int(self.meta.get("replicates", 1)))])

    def save(self, path, config: dict | None = None, force: bool = False) -> pathlib.Path:
        """Run directory: metrics.parquet, meta.json, config.toml, report.md (summary) and report.png."""
        from onlinelab.runs.storage import save_run
        path = save_run(self, path, config=config, report=False, force=force)
        (path / "report.md").write_text("# Fenchel game report\n\n" + self.summary_text(markdown=True) + "\n")
        from onlinelab.runs.figures import save_figure
        fig, _ = self.plot()
        save_figure(fig, path / "report.png")
        return path

