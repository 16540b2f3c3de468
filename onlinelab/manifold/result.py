"""The result of a ``[manifold]`` run: the tidy score table, its summary, report.md and report.png (theory §7).

The summary has one row per data set × method × grid point: the mean and standard deviation over
draws of each score (trustworthiness, t-similarity, unrolling, seconds) and the number of failed
fits.  The figure plots each score against the neighbour count t (VRLE: one line per R), with
±1 standard deviation over the draws as bars.

>>> import pandas as pd
>>> from onlinelab.manifold.experiment import run_grid
>>> res = ManifoldResult.from_frame(run_grid("helix", ["le"], m=100, draws=2, n_neighbors=[8]), seed=0)
>>> res.summary()[["learner", "draws", "failed"]].values.tolist()
[['le k=2 t=8', 2, 0]]
"""
from __future__ import annotations

import pathlib

import numpy as np
import pandas as pd

from onlinelab.runs.result import Result
from onlinelab.runs.tables import Column, format_table

SCORES = ("trustworthiness", "t_similarity", "unrolling", "seconds")
GRID = ["method", "n_components", "n_neighbors", "radius"]
REFUSED = "every fit refused (the reasons are in report.md)"
SUMMARY_COLUMNS = [
    Column("environment", "data", fmt="text"), Column("learner", "method and grid", fmt="text"),
    Column("draws", fmt="d"), Column("failed", "refused", fmt="d"),
    Column("trustworthiness", fmt=".4f", na=REFUSED), Column("trustworthiness_sd", "sd", fmt=".4f",
                                                              na="one draw, or every fit refused"),
    Column("t_similarity", "t-similarity", fmt=".4f", na=REFUSED), Column("t_similarity_sd", "sd", fmt=".4f",
                                                                          na="one draw, or every fit refused"),
    Column("unrolling", fmt=".4f", na=REFUSED), Column("unrolling_sd", "sd", fmt=".4f",
                                                       na="one draw, or every fit refused"),
    Column("seconds", fmt=".3f", na=REFUSED)]


class ManifoldResult(Result):
    """A `onlinelab.Result` holding embedding scores instead of regret curves.

    Parameters
    ----------
    metrics : pandas.DataFrame
        The table of `onlinelab.manifold.experiment.run_grid`.
    meta : dict
        Run metadata (``kind = "manifold"``, draws, seed, failures).
    """

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, seed: int = 0) -> ManifoldResult:
        """Wrap a `run_grid` table with the metadata a run directory needs.

        Parameters
        ----------
        frame : pandas.DataFrame
            The tidy table.
        seed : int, default 0
            The seed of the draws.
        """
        failed = frame[(frame.metric == "failed") & (frame.value > 0)]
        failures = [f"{r.learner} on {r.environment}, draw {r.replicate}: {r.error}" for r in failed.itertuples()]
        meta = {"kind": "manifold", "T": 1, "replicates": int(frame.replicate.max()) + 1 if len(frame) else 0,
                "seed": seed, "status": "complete", "environments": list(dict.fromkeys(frame.environment)),
                "learners": list(dict.fromkeys(frame.learner)), "bounds": [], "timings": {}, "failures": failures}
        return cls(frame, meta)

    def summary(self) -> pd.DataFrame:
        """Mean and standard deviation over draws of each score, per data set × method × grid point."""
        df = self.metrics
        keys = ["environment", "learner"] + GRID
        wide = df.pivot_table(index=keys + ["replicate"], columns="metric", values="value", dropna=False)
        wide = wide.dropna(how="all").reset_index()
        rows = []
        for key, g in wide.groupby(keys, sort=False, dropna=False):
            row = dict(zip(keys, key, strict=True))
            row["draws"] = len(g)
            row["failed"] = int(g["failed"].sum())
            for s in SCORES:
                if s in g:
                    row[s] = float(g[s].mean()) if g[s].notna().any() else np.nan
                    row[f"{s}_sd"] = float(g[s].std(ddof=1)) if g[s].notna().sum() > 1 else np.nan
            rows.append(row)
        out = pd.DataFrame(rows)
        return out.drop(columns=[c for c in GRID[1:] if c in out and out[c].isna().all()])

    SUMMARY_COLUMNS = SUMMARY_COLUMNS

    def summary_text(self, markdown: bool = False) -> str:
        """The summary table as text (``onlinelab run`` / ``onlinelab report``); absent scores are left out.

        Parameters
        ----------
        markdown : bool, default False
            Write the table in Markdown (report.md).
        """
        table = self.summary()
        return format_table(table, [c for c in self.SUMMARY_COLUMNS if c.key in table.columns], markdown=markdown)

    def alarms(self) -> list[str]:
        """Embeddings have no bounds to violate: no alarms."""
        return []

    def plot(self, ax=None, metric: str = "trustworthiness", environment=None):
        """``metric`` (mean ± sd over draws) against the neighbour count t, one line per method (and R); returns
        ``(Figure, ndarray of Axes)`` like every result's plot (`onlinelab.runs.figures`).

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw.
        metric : str, default "trustworthiness"
            A score column of `summary`.
        environment : str, optional
            Keep one data set.
        """
        from onlinelab.runs.figures import finish, new_figure
        fig, axes = new_figure(1, ax)
        self._draw(axes[0], metric, environment)
        return finish(fig, axes, "neighbour count t", metric, [self._title(environment)])

    def _title(self, environment) -> str:
        where = environment if environment is not None else ", ".join(self.environments)
        return f"{where}\n{self.meta.get('replicates')} draw(s), seed = {self.meta.get('seed')}"

    def _draw(self, ax, metric, environment):
        s = self.summary()
        if environment is not None:
            s = s[s.environment == environment]
        s = s.assign(n_neighbors=s.get("n_neighbors", np.nan), radius=s.get("radius", np.nan))
        for i, (key, g) in enumerate(s.groupby(["environment", "method", "radius"], sort=False, dropna=False)):
            env, method, radius = key
            name = method + ("" if pd.isna(radius) else f" R={radius:g}") + ("" if environment else f" ({env})")
            if metric not in g or g[metric].isna().all():
                continue
            if g.n_neighbors.isna().all():   # no neighbour parameter (MDS, PCA): a horizontal reference line
                ax.axhline(g[metric].mean(), ls=":", color=f"C{i % 10}", label=name)
                continue
            g = g.sort_values("n_neighbors")
            ax.errorbar(g.n_neighbors, g[metric], yerr=g.get(f"{metric}_sd"), marker="o", ms=3, capsize=2,
                        color=f"C{i % 10}", label=f"{name} (± sd)")

    def save(self, path, config: dict | None = None, force: bool = False) -> pathlib.Path:
        """Run directory: metrics.parquet (tidy), meta.json, config.toml, report.md and report.png.

        Parameters
        ----------
        path : str or path-like
            The run directory.
        config : dict, optional
            The resolved configuration.
        force : bool, default False
            Replace a non-empty ``path``.
        """
        from onlinelab.runs.figures import finish, new_figure, save_figure
        from onlinelab.runs.storage import save_run
        path = save_run(self, path, config=config, report=False, force=force)
        notes = "".join(f"- {f}\n" for f in self.meta["failures"][:50])
        (path / "report.md").write_text("# Spectral embedding report\n\nMean and standard deviation over "
                                        f"{self.meta['replicates']} draw(s).\n\n{self.summary_text(markdown=True)}\n"
                                        + (f"\n## Refused fits\n\n{notes}" if notes else ""))
        scores = [s for s in SCORES if s in set(self.metrics.metric)]
        fig, axes = new_figure(len(scores))
        for ax, s in zip(axes, scores, strict=True):
            self._draw(ax, s, None)
        finish(fig, axes, "neighbour count t", "score", [f"{s}: {self._title(None)}" for s in scores])
        for ax, s in zip(axes, scores, strict=True):
            ax.set_ylabel(s)
        save_figure(fig, path / "report.png")
        return path
