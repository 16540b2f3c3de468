"""The result of the dual embedding game: the game's tidy table, an embedding summary and figure (theory §5).

Metrics per checkpoint (one replicate): ``dual``, ``dual_best``, ``distortion_best``,
``distortion_average``, ``distortion_projector``, ``distortion``, ``gap``, ``regret`` and the rate
curves ``bound:LD/sqrt(T)`` and ``bound:centred``, which bound ``regret`` pointwise (the game is
deterministic).  ``history()`` pivots them to one row per checkpoint.

>>> import numpy as np
>>> from onlinelab.embedding.pairs import unit_differences
>>> from onlinelab.embedding.game import play_embedding_game
>>> res = play_embedding_game(unit_differences(np.eye(4)[:3] + 0.1), 1, T=8, eta=0.1, checkpoints=[4])
>>> list(res.history().t)
[4, 8]
"""
from __future__ import annotations

import pathlib

import numpy as np
import pandas as pd

from onlinelab.runs.game_result import NO_RATE, GameResult
from onlinelab.runs.result import _frame
from onlinelab.runs.tables import Column, format_table

SHOWN = ("dual", "distortion_best", "distortion_average", "distortion_projector")
SUMMARY_COLUMNS = [
    Column("pairs", "n pairs", fmt="d"), Column("d", fmt="d"), Column("k", fmt="d"), Column("T", fmt="d"),
    Column("eta", "η", fmt=".4g"), Column("dual_bound", "dual bound ≤ p⋆", fmt=".4f"),
    Column("max_distortion", "max distortion", fmt=".4f"), Column("output", fmt="text"),
    Column("projector", "ε(P̄)", fmt=".4f"), Column("gap", fmt=".4f"), Column("regret", fmt=".4f"),
    Column("bound", "rate bound", fmt=".4f", na=NO_RATE), Column("bound_name", "rate", fmt="text", na=NO_RATE),
    Column("breaches", fmt="d")]
BASELINE_COLUMNS = [
    Column("method", fmt="text"), Column("max_distortion", "max distortion", fmt=".4f",
                                         na="the SDP did not finish within its time limit"),
    Column("improvement_%", "% improvement", fmt=".1f", na="the SDP did not finish within its time limit"),
    Column("seconds", fmt=".2f", na="not timed (a closed-form baseline)")]


class EmbeddingResult(GameResult):
    """A `onlinelab.runs.game_result.GameResult` whose rate curves bound the λ-player's ``regret``.

    ``solution`` (filled by `onlinelab.embedding.game.play_embedding_game`) holds the output
    V, its λ, both candidates (best iterate, average) and the averaged projector P̄.

    Parameters
    ----------
    metrics : pandas.DataFrame or None
        The tidy metrics table; None (with ``arrays`` and ``labels``) builds it from the arrays when first
        read — a fit reads only the history (0.7 ms of a 0.13 s fit, theory §5.6).
    meta : dict
        Run metadata (``meta["game"]`` describes the embedding game).
    bounds : sequence of Bound, default ()
        The rate curves drawn and checked against ``regret``.
    arrays : tuple or None, default None
        ``(t, metric → (C, 1) array)`` the metrics were built from (`onlinelab.runs.game_result.game_arrays`):
        the history is then read from them instead of pivoting the table.
    labels : tuple or None, default None
        ``(learner, environment)`` labels of the table's rows, when ``metrics`` is None.
    """

    SUMMARY_COLUMNS = SUMMARY_COLUMNS

    def __init__(self, metrics, meta, bounds=(), arrays=None, labels=None):
        self.solution: dict = {}
        self._lazy = None
        if arrays is not None:                  # the pivot of the table, without pivoting: columns sorted by name
            t, cols = arrays
            self._history = pd.DataFrame({"t": t, **{m: cols[m][:, 0] for m in sorted(cols)}})
            if metrics is None:
                self._lazy = (*labels, t, cols)
        super().__init__(metrics, meta, bounds)

    @property
    def metrics(self) -> pd.DataFrame:
        """The tidy metrics table (one row per checkpoint and metric), built on first use after a game."""
        if self._metrics is None:
            self._metrics = _frame(*self._lazy)
        return self._metrics

    @metrics.setter
    def metrics(self, value):
        self._metrics = value

    @property
    def learners(self) -> list[str]:
        return [self._lazy[0]] if self._metrics is None else super().learners

    @property
    def environments(self) -> list[str]:
        return [self._lazy[1]] if self._metrics is None else super().environments

    def summary_text(self, markdown: bool = False) -> str:
        """The summary table, the baselines table when the run compared any, then alarms.

        Parameters
        ----------
        markdown : bool, default False
            Write the tables in Markdown (report.md).
        """
        parts = [format_table(self.summary(), self.SUMMARY_COLUMNS, markdown=markdown)]
        if self.meta.get("baselines"):
            parts.append(format_table(self.meta["baselines"], BASELINE_COLUMNS, markdown=markdown))
        lines = self.alarms() + self.notes()
        return "\n\n".join(parts + (["\n".join(lines)] if lines else []))

    def alarms(self) -> list[str]:
        """Violated rate curves, then a line for breaches of the bracket (theory §5.3)."""
        lines = super(GameResult, self).alarms()
        breaches = self.meta.get("game", {}).get("breaches", [])
        if breaches:
            b = breaches[0]
            lines.append(f"!!! EMBEDDING BRACKET BREACHED {len(breaches)} time(s), first at t = {b['t']}: "
                         f"{b['which']} ({b['lhs']:.6g} > {b['rhs']:.6g}); theory §5 says this cannot happen — a bug")
        return lines

    def notes(self) -> list[str]:
        """A line when the bracket held only to rounding, with the tolerance it was compared with (not an alarm)."""
        cert = self.meta.get("game", {}).get("certificate")
        if self.meta.get("game", {}).get("breaches") or not cert or cert["closest_excess"] <= 0:
            return []
        return [f"note: the bracket holds only to rounding (a side exceeds the other by {cert['closest_excess']:.2g}, "
                f"within the tolerance {cert['tol_there']:.2g}: {cert['relative_tol']:g}·(1 + |sides|) + 2 × rounding "
                f"{cert['rounding']:.2g} of this data)"]

    def bound_metric(self, name: str) -> str:
        """Every curve of theory §5 bounds the λ-player's average regret.

        Parameters
        ----------
        name : str
            The bound's name.
        """
        return "regret"

    def _by_replicate(self, metric: str) -> np.ndarray:
        """Values of ``metric`` as a (checkpoints, 1) array (one replicate: a column of the cached history)."""
        return self._wide()[metric].to_numpy()[:, None]

    def _wide(self) -> pd.DataFrame:
        if getattr(self, "_history", None) is None:           # one pivot serves the bound checks and history()
            wide = self.metrics.pivot(index="t", columns="metric", values="value")
            wide.columns.name = None
            self._history = wide.reset_index()
        return self._history

    def history(self) -> pd.DataFrame:
        """One row per checkpoint t, one column per metric (bound curves included)."""
        return self._wide().copy()

    def summary(self) -> pd.DataFrame:
        """One row: n, d, k, T, η, the bracket (dual_best, distortion), gap, regret and the tightest rate bound."""
        g = self.meta["game"]
        last = self.history().iloc[-1]
        ok = [b for b in self.meta.get("bounds", []) if b["holds"]]
        best = min(ok, key=lambda b: b["final_bound"]) if ok else None
        row = {"pairs": g["n_pairs"], "d": g["d"], "k": g["k"], "T": self.meta["T"], "eta": g["eta"],
               "dual_bound": float(last["dual_best"]), "max_distortion": float(last["distortion"]),
               "output": g["output"], "projector": float(last["distortion_projector"]), "gap": float(last["gap"]),
               "regret": float(last["regret"]), "bound": None if best is None else best["final_bound"],
               "bound_name": None if best is None else best["name"], "breaches": len(g["breaches"])}
        return pd.DataFrame([row])

    def plot(self, ax=None, metric=None, environment=None):
        """Dual value and the three distortions against t, with the bracket shaded; returns ``(Figure, ndarray of
        Axes)`` like every result's plot (`onlinelab.runs.figures`).

        Parameters
        ----------
        ax : matplotlib.axes.Axes or None, default None
            Where to draw; a new figure when None.
        metric : str or None, default None
            Unused (the figure always shows the bracket).
        environment : str or None, default None
            Unused (one instance per result).
        """
        from onlinelab.runs.figures import finish, new_figure
        fig, axes = new_figure(1, ax)
        axis = axes[0]
        h = self.history()
        for i, m in enumerate(SHOWN):
            axis.plot(h["t"], h[m], color=f"C{i}", lw=2 if m == "dual" else 1.5, label=m)
        axis.fill_between(h["t"], h["dual_best"], h["distortion"], color="0.85", label="bracket of p⋆")
        axis.set_xscale("log")
        g = self.meta["game"]
        title = (f"dual embedding game\nn = {g['n_pairs']} pairs, d = {g['d']}, k = {g['k']}, "
                 f"T = {self.meta.get('T')}, seed = {self.meta.get('seed')}")
        return finish(fig, axes, "round t", "maximum distortion", [title])

    def save(self, path, config: dict | None = None, force: bool = False) -> pathlib.Path:
        """Run directory: metrics.parquet, meta.json, config.toml, report.md, report.png and solution.npz.

        Parameters
        ----------
        path : str or pathlib.Path
            The run directory to create.
        config : dict or None, default None
            The resolved config, written as config.toml.
        force : bool, default False
            Overwrite a non-empty directory.
        """
        from onlinelab.runs.storage import save_run
        path = save_run(self, path, config=config, report=False, force=force)
        parts = ["# Near-isometric embedding report", self.summary_text(markdown=True),
                 "## History\n\n" + self.history().to_string(index=False)]
        (path / "report.md").write_text("\n\n".join(parts) + "\n")
        arrays = {k: np.asarray(val) for k, val in self.solution.items() if val is not None}
        np.savez(path / "solution.npz", **arrays)
        from onlinelab.runs.figures import save_figure
        fig, _ = self.plot()
        save_figure(fig, path / "report.png")
        return path
