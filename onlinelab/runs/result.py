"""The outcome of a run: a tidy metrics table, metadata, bound checks, summary, save and plot.

``Result.metrics`` has one row per (learner, environment, replicate, t, metric); the
bound curves are rows too, named ``bound:<name>``.  ``Result.meta`` records the
resolved hyper-parameters, the seed, timings, and for every bound its assumptions and
whether they held.  A mean regret above an applicable bound is a *violation*: it is
recorded in ``meta["bounds"]``, listed by `Result.violations`, and raised as a
`onlinelab.errors.BoundViolationWarning` when the result is built.

>>> import onlinelab as ol
>>> res = ol.simulate("spiked-covariance", [ol.make_learner("meg")], T=100, replicates=3)
>>> list(res.summary().columns)[:4]
['learner', 'environment', 'replicates', 'T']
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy.special import stdtrit  # Student-t quantiles (scipy.stats costs 0.4 s to import)

from onlinelab.bounds.base import LossStats
from onlinelab.errors import BoundViolationWarning, ConfigError, did_you_mean
from onlinelab.runs.summary import SUMMARY_COLUMNS, regret_summary, table_columns
from onlinelab.runs.tables import format_table

COLUMNS = ["learner", "environment", "replicate", "t", "metric", "value"]
def _frame(learner, env_label, t, arrays: dict) -> pd.DataFrame:
    """The tidy rows of one learner on one environment: metric by metric, checkpoint-major, (C, R) arrays.

    One DataFrame from concatenated columns (building one per metric and concatenating them cost
    ~0.4 ms a metric, a tenth of a small embedding fit, theory §5.6)."""
    if not arrays:
        return pd.DataFrame(columns=COLUMNS)
    t = np.asarray(t)
    shapes = [np.shape(arr) for arr in arrays.values()]      # (C, R) each
    sizes = [C * R for C, R in shapes]
    n = sum(sizes)
    zeros = np.zeros(n, dtype=np.int64)
    return pd.DataFrame({
        "learner": _strings([learner], zeros), "environment": _strings([env_label], zeros),
        "replicate": np.concatenate([np.tile(np.arange(R), C) for C, R in shapes]),
        "t": np.concatenate([np.repeat(t, R) for _, R in shapes]),
        "metric": _strings(list(arrays), np.repeat(np.arange(len(sizes)), sizes)),
        "value": np.concatenate([np.asarray(arr).reshape(-1) for arr in arrays.values()])})


_STR: list = []   # the dtype this pandas gives a column of Python strings (found once)


def _strings(labels: list, codes: np.ndarray):
    """The column ``labels[codes]``, of the dtype pandas gives a column of Python strings, built in one arrow
    ``take`` where that dtype is pyarrow-backed (pandas ≥ 3: seven times faster than converting n objects, most of
    a short run's result table) — the same column either way."""
    if not _STR:
        _STR.append(pd.Series(["x"]).dtype)
    dtype = _STR[0]
    if isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow":
        import pyarrow as pa
        return pd.array(pa.array(labels, type=pa.large_string()).take(pa.array(codes)), dtype=dtype)
    return np.asarray(labels, dtype=object)[codes]


def build_result(env, env_label, ctx, slots, timing, seed, failed=None) -> Result:
    """Assemble metrics, bound curves and bound checks for one environment's slots.

    Parameters
    ----------
    env : Environment
        The environment that was played.
    env_label : str
        Its label in the result.
    ctx : Context
        The run's context.
    slots : list
        The learner slots (state, recorder, label) of the run.
    timing : dict
        Wall-clock split of the run.
    seed : int
        The run's root seed.
    failed : Exception or None, default None
        The error that stopped the run, if any (the result then holds the completed checkpoints).
    """
    frames, bounds_meta, learners_meta, pseudo = [], [], {}, {}
    for slot in slots:
        arrays = slot.recorder.arrays()
        t = np.asarray(slot.recorder.t[: len(next(iter(arrays.values()))) if arrays else 0])
        hist = slot.tracker.history
        scored = len(t) and "regret" in arrays   # comparator="none" measures no regret, so no bound applies
        if scored:
            stats = LossStats(t, np.stack(hist["comparator"][: len(t)], axis=1),
                              **{k: np.stack(val[: len(t)], axis=1) for k, val in hist.items() if k != "comparator"})
        learners_meta[slot.label] = {"name": slot.learner.name, "class": type(slot.learner).__name__,
                                     "feedback": slot.kind, "params": slot.learner.get_params(),
                                     "resolved": {env_label: slot.learner.resolved_params(ctx)}}
        for bound in slot.bounds(ctx):
            metric, checked = bound.metric, bound.checked   # its regret notion; lower/reference curves never violate
            entry = {"learner": slot.label, "environment": env_label, "name": bound.name, "ref": bound.ref,
                     "formula": bound.formula, "assumptions": dict(bound.assumptions), "holds": bound.holds,
                     "pointwise": bound.pointwise, "violated": False, "worst_ratio": None, "final_bound": None,
                     "reference": bool(bound.reference), "lower": bool(getattr(bound, "lower", False)),
                     "metric": metric, "final_value": None}
            if scored:
                R = arrays["regret"].shape[1]
                curve = np.broadcast_to(np.asarray(bound.curve(stats), dtype=float), (R, len(t))).T  # (C, R)
                arrays[f"bound:{bound.name}"] = curve
                entry["final_bound"] = float(curve[-1].mean())
                if metric in arrays:
                    if bound.pointwise:  # every replicate's regret is bounded: one replicate above it is a violation
                        regret, value = arrays[metric], curve
                    else:                # the expected regret is bounded: compare the replicate means
                        regret, value = arrays[metric].mean(axis=1), curve.mean(axis=1)
                    positive = value > 0
                    entry["final_value"] = float(arrays[metric][-1].mean())
                    entry["worst_ratio"] = float(np.max(regret[positive] / value[positive])) if positive.any() else None
                    entry["violated"] = bool(checked and bound.holds and np.any(
                        regret > value + 1e-9 * np.maximum(1.0, np.abs(value))))
            bounds_meta.append(entry)
        frames.append(_frame(slot.label, env_label, t, arrays))
        pseudo[slot.label] = slot.recorder.pseudo_regret[-1] if len(t) else None
    meta = {
        "T": ctx.T, "replicates": ctx.replicates, "seed": seed,
        "status": "complete" if failed is None else f"failed: {type(failed).__name__}: {failed}",
        "environments": {env_label: {"name": env.name, "class": type(env).__name__, "params": env.get_params(),
                                     "d": env.d, "adaptive": env.adaptive, "psd": env.psd,
                                     "loss_bound": env.loss_bound,
                                     "samples_per_round": getattr(env, "samples_per_round", None)}},
        "learners": learners_meta,
        "bounds": bounds_meta,
        "timings": {env_label: timing},
        # theory §1.1: mean cumulative loss minus λ_min of the replicate-averaged cumulative loss
        "pseudo_regret": {env_label: pseudo},
        "comparator": slots[0].tracker.mode if slots else "exact",  # what regret is measured against
    }
    result = Result(pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS), meta)
    for b in bounds_meta:
        if b["violated"]:
            what = "the regret of a replicate" if b.get("pointwise") else "mean regret"
            warnings.warn(f"BOUND VIOLATED: {what} of {b['learner']!r} on {b['environment']!r} exceeds "
                          f"{b['name']} ({b['ref']}) although all its assumptions held (worst ratio "
                          f"{b['worst_ratio']:.3f}); this is a bug or a wrong constant", BoundViolationWarning,
                          stacklevel=2)
    return result


def _merge_meta(metas: list[dict]) -> dict:
    out = dict(metas[0])
    for key in ("environments", "pseudo_regret"):
        out[key] = {k: val for m in metas for k, val in m.get(key, {}).items()}
    out["timings"] = {}
    for m in metas:  # two parts on one environment (aligned runs): their learners' times side by side
        for env, timing in m.get("timings", {}).items():
            have = out["timings"].setdefault(env, {**timing, "learner_s": {}})
            have["learner_s"].update(timing.get("learner_s", {}))
    horizons = {label: m["T"] for m in metas for label in m["learners"]}
    if len(set(horizons.values())) > 1:
        out["T_by_learner"] = horizons
    out["learners"] = {}
    for m in metas:
        for label, info in m["learners"].items():
            entry = out["learners"].setdefault(label, {**info, "resolved": {}})
            entry["resolved"].update(info["resolved"])
    out["bounds"] = [b for m in metas for b in m["bounds"]]
    statuses = [m["status"] for m in metas if m["status"] != "complete"]
    out["status"] = statuses[0] if statuses else "complete"
    return out


class Result:
    """Metrics (tidy DataFrame) and metadata of a run; see the module docstring.

    Parameters
    ----------
    metrics : pandas.DataFrame
        The tidy table: columns ``learner, environment, replicate, t, metric, value``.
    meta : dict
        Run metadata (T, replicates, seed, bounds and their checks, timing, status).
    """

    def __init__(self, metrics: pd.DataFrame, meta: dict):
        self.metrics, self.meta = metrics, meta

    @classmethod
    def concat(cls, results: list[Result], align: str | None = None) -> Result:
        """One Result from several (e.g. one per environment).

        Parameters
        ----------
        results : list of Result
            The parts; by default they must share the horizon T, the seed and R, since replicate r of
            seed 0 and replicate r of seed 1 are different runs that one table would silently conflate.
        align : {None, "replicates", "label"}
            How to join parts that differ: ``"replicates"`` pools them as more replicates (renumbered;
            same T needed), ``"label"`` keeps them apart by suffixing each learner label with
            ``[T=…, seed=…]`` (what ``onlinelab compare`` does).
        """
        from onlinelab.runs.align import align_results
        results = align_results(list(results), align)
        if len(results) == 1:
            return results[0]
        return cls(pd.concat([r.metrics for r in results], ignore_index=True), _merge_meta([r.meta for r in results]))

    @property
    def learners(self) -> list[str]:
        return list(dict.fromkeys(self.metrics["learner"]))

    @property
    def environments(self) -> list[str]:
        return list(dict.fromkeys(self.metrics["environment"]))

    def _select(self, metric, learner=None, environment=None) -> pd.DataFrame:
        names = self.metrics["metric"].unique()
        if metric not in names:
            raise ConfigError(f"no metric {metric!r} in this result{did_you_mean(metric, names)}")
        df = self.metrics[self.metrics["metric"] == metric]
        for col, val in (("learner", learner), ("environment", environment)):
            if val is not None:
                if val not in set(df[col]):
                    raise ConfigError(f"no {col} {val!r} in this result{did_you_mean(val, set(df[col]))}")
                df = df[df[col] == val]
        return df

    def final(self, metric: str = "regret", learner=None, environment=None) -> pd.Series:
        """Values of ``metric`` at each series' last checkpoint, indexed by (learner, environment, replicate).

        Parameters
        ----------
        metric : str, default "regret"
            Metric name, e.g. ``"regret"``, ``"realized_regret"``, ``"sin2_theta"``.
        learner : str or None, default None
            Keep only this learner's label.
        environment : str or None, default None
            Keep only this environment's label.
        """
        df = self._select(metric, learner, environment)
        last = df.groupby(["learner", "environment"])["t"].transform("max")
        return df[df["t"] == last].set_index(["learner", "environment", "replicate"])["value"]

    def curve(self, metric: str = "regret", learner=None, environment=None) -> pd.DataFrame:
        """Mean, standard error and 95% CI of ``metric`` over replicates at each checkpoint.

        Parameters
        ----------
        metric : str, default "regret"
            Metric name.
        learner : str or None, default None
            Keep only this learner's label.
        environment : str or None, default None
            Keep only this environment's label.
        """
        df = self._select(metric, learner, environment)
        g = df.groupby(["learner", "environment", "t"], sort=False)["value"]
        out = g.agg(mean="mean", std="std", n="count").reset_index()
        out["se"] = out["std"].fillna(0.0) / np.sqrt(out["n"])
        q = stdtrit(np.maximum(out["n"] - 1, 1), 0.975)
        out["lo"], out["hi"] = out["mean"] - q * out["se"], out["mean"] + q * out["se"]
        return out

    def bounds(self) -> pd.DataFrame:
        """One row per (learner, environment, bound): applicability, failed assumptions, whether it bounds every
        replicate (``pointwise``) or the expectation, final value, worst ratio regret/bound, violation, and the
        metric it bounds (``metric``: regret, realized_regret, pseudo_regret…) with that metric's final mean."""
        rows = [{"learner": b["learner"], "environment": b["environment"], "bound": b["name"], "ref": b["ref"],
                 "holds": b["holds"],
                 "failed_assumptions": "; ".join(k for k, ok in b["assumptions"].items() if not ok),
                 "pointwise": b.get("pointwise", False), "final_bound": b["final_bound"],
                 "worst_ratio": b["worst_ratio"], "violated": b["violated"],
                 "checked": not (b.get("reference", False) or b.get("lower", False)), "lower": b.get("lower", False),
                 "metric": b.get("metric", "regret"), "final_value": b.get("final_value")}
                for b in self.meta.get("bounds", [])]
        return pd.DataFrame(rows, columns=["learner", "environment", "bound", "ref", "holds", "failed_assumptions",
                                           "pointwise", "final_bound", "worst_ratio", "violated", "checked", "lower",
                                           "metric", "final_value"])

    def tidy(self) -> pd.DataFrame:
        """The metrics table plus a ``holds`` column: on a ``bound:<name>`` row, whether that bound applies.

        ``holds`` is True when all the bound's assumptions held in this run (its curve is a bound
        here), False when one failed (the curve is shown for reference only), and missing (``<NA>``)
        on rows of other metrics.
        """
        flags = pd.DataFrame([(b["learner"], b["environment"], f"bound:{b['name']}", bool(b["holds"]))
                              for b in self.meta.get("bounds", [])],
                             columns=["learner", "environment", "metric", "holds"]).drop_duplicates(
                                 ["learner", "environment", "metric"])
        out = self.metrics.merge(flags, how="left", on=["learner", "environment", "metric"])
        out["holds"] = out["holds"].astype("boolean")
        return out

    def violations(self) -> pd.DataFrame:
        b = self.bounds()
        return b[b["violated"]]

    def summary(self) -> pd.DataFrame:
        """One row per learner × environment: final regret mean and 95% CI, the tightest applicable finite bound,
        the metric it bounds (``bound_on``), that metric's final mean over the bound (``ratio``), µs per round,
        and for a partial run the round it stopped at (`onlinelab.runs.summary`)."""
        return regret_summary(self)

    #: The columns (`onlinelab.runs.tables.Column`) of `summary_text`; a result class of another
    #: experiment kind sets its own.
    SUMMARY_COLUMNS = SUMMARY_COLUMNS

    def summary_text(self, markdown: bool = False) -> str:
        """The summary table as text (what ``onlinelab run`` and ``onlinelab report`` print), then alarms.

        Each column has one number format; a missing value is ``n/a`` with a footnote saying why.  Every
        violated bound follows as a line in capitals.  The columns are ``SUMMARY_COLUMNS``; a subclass whose
        `summary` lacks one of them gets every column of its summary instead (formats chosen per column).

        Parameters
        ----------
        markdown : bool, default False
            Write the table in Markdown (report.md).
        """
        table = self.summary()
        text = format_table(table, table_columns(table, self.SUMMARY_COLUMNS), markdown=markdown)
        return "\n".join([text] + self.alarms())

    def alarms(self) -> list[str]:
        """One line per violated bound (a bound whose assumptions all held, exceeded by the run)."""
        return [f"!!! BOUND VIOLATED: {b.learner} on {b.environment}: {b.bound} ({b.ref}), worst ratio "
                f"{b.worst_ratio:.3f} — all its assumptions held; this is a bug or a wrong constant"
                for _, b in self.violations().iterrows()]

    def exit_status(self) -> int:
        """The command line's exit status for this run: 3 when an applicable bound was violated, else 0."""
        return 3 if self.alarms() else 0

    def save(self, path, config: dict | None = None, force: bool = False) -> pathlib.Path:  # noqa: F821
        """Write the run directory (config.toml, meta.json, metrics.parquet, report.png, report.md).

        It is written to a temporary directory and renamed into place; a non-empty ``path`` is
        refused unless ``force``.

        Parameters
        ----------
        path : str or path-like
            The run directory.
        config : dict or None, default None
            The resolved configuration to write as config.toml.
        force : bool, default False
            Replace a non-empty ``path``.
        """
        from onlinelab.runs.storage import save_run
        return save_run(self, path, config=config, force=force)

    def plot(self, ax=None, metric: str = "regret", environment=None, show_na: bool = False):
        """Log-log curves of ``metric`` (mean ± 1.96 SE band) beside each learner's bound curves.

        Returns ``(Figure, ndarray of Axes)``, one panel per environment; see
        `onlinelab.runs.report.plot_regret` for the look (legend outside, a style per bound, T/R/d/seed titles).

        Parameters
        ----------
        ax : matplotlib Axes, sequence of Axes or None, default None
            Where to draw (one per environment); None makes a new figure.
        metric : str, default "regret"
            The metric; bounds are drawn for ``"regret"``.
        environment : str or None, default None
            Draw only this environment.
        show_na : bool, default False
            Also draw bounds whose assumptions fail.
        """
        from onlinelab.runs.report import plot_regret
        return plot_regret(self, ax=ax, metric=metric, environment=environment, show_na=show_na)

    def __repr__(self) -> str:
        return (f"Result(learners={self.learners}, environments={self.environments}, T={self.meta.get('T')}, "
                f"replicates={self.meta.get('replicates')}, status={self.meta.get('status')!r})")
