"""Iterative solvers as rounds on the simpy event loop,
with their rate curves checked at every checkpoint (theory §6, §9).

An iterative method (robust PCA, matrix completion, ISTA/FISTA, the SVM dual, …) is a *method*
object: ``init()`` gives its state, ``step(state, k, data)`` performs iteration k + 1,
``metrics(state)`` returns the values to log, one per replicate ((R,) arrays), and ``rates()`` the
rate curves as ``(metric, Bound)`` pairs.  `iterate` runs it one simpy event per iteration
for all replicates; an optional *stream* (an online environment) is a second process that posts
round t's data as an event the method waits on, so the batch and online versions share one loop.
The outcome is an `IterationResult`: the tidy table of `onlinelab.Result` with
``bound:<name>`` rows, each curve compared with every replicate's metric (a deterministic
method: the rate holds pointwise), breaches listed and raised as
`onlinelab.errors.BoundViolationWarning`.

>>> import numpy as np
>>> from onlinelab.bounds.base import Bound
>>> class Halve:                      # x_{k+1} = x_k / 2, with the (true) curve 1/k
...     name, replicates, headline = "halve", 1, ("x",)
...     def init(self): return np.ones(1)
...     def step(self, x, k, data=None): return x / 2
...     def metrics(self, x): return {"x": x}
...     def rates(self): return [("x", Bound("1/k", "-", "1/k", {}, lambda s: 1.0 / s.t, pointwise=True))]
...     def describe(self): return {"name": self.name}
>>> res = iterate(Halve(), 8)
>>> float(res.final("x").iloc[0]), res.breaches
(0.00390625, [])
"""
from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
import simpy

from onlinelab.bounds.base import LossStats
from onlinelab.core import validation as v
from onlinelab.core.schedule import _checkpoints
from onlinelab.errors import BoundViolationWarning
from onlinelab.runs.result import Result, _frame
from onlinelab.runs.tables import Column, format_table

BOUND_TOL = 1e-9
NO_RATE = "no rate curve (no reference solve, or its assumptions failed)"


def single_blas(func):
    """Run ``func`` with BLAS limited to one thread (as `onlinelab.simulate` does): parallelism is per process."""
    import functools

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from onlinelab.core.blas import limit_threads
        with limit_threads(1):
            return func(*args, **kwargs)
    return wrapper


def iterate(method, iters: int, *, checkpoints=None, stream=None, label: str | None = None,
            environment: str | None = None) -> IterationResult:
    """Run ``iters`` iterations of ``method`` on the event loop; log at ``checkpoints`` (log-spaced by default).

    Parameters
    ----------
    method : object
        Has ``init()``, ``step(state, k, data)``, ``metrics(state)``, ``rates()``, ``describe()``,
        ``name``, ``replicates`` and ``headline`` (the metrics a summary shows); see the module docstring.
    iters : int
        Number of iterations (rounds).
    checkpoints : int, list of int or None, default None
        Iterations at which metrics are logged: None for about 40 log-spaced ones, an integer for that
        many, or explicit iteration numbers (``range(1, iters + 1)`` logs every one).
    stream : object or None, default None
        An online environment: ``reveal(t)`` gives round t's data, posted as an event before the method's step.
    label : str or None, default None
        The method's name in the table (default ``method.name``).
    environment : str or None, default None
        The problem's name in the table (default ``method.describe()["problem"]`` or ``"problem"``).
    """
    K = v.integer("iters", iters, minimum=1)
    ckpts = [int(c) for c in _checkpoints(K, checkpoints)]
    label = label or method.name
    environment = environment or method.describe().get("problem", "problem")
    rows: dict[str, list] = {}
    box = {"state": method.init(), "runtime": 0.0, "done": 0, "error": None}
    sim = simpy.Environment()
    posted = [sim.event() for _ in range(K)]

    def env_process(sim):
        for k in range(K):
            posted[k].succeed(stream.reveal(k + 1))
            yield sim.timeout(1)

    def solver(sim):
        for k in range(K):
            data = (yield posted[k]) if stream is not None else None
            t0 = time.perf_counter()
            box["state"] = method.step(box["state"], k, data)
            box["runtime"] += time.perf_counter() - t0
            box["done"] = k + 1
            if k + 1 in ckpts:
                for key, val in method.metrics(box["state"]).items():
                    rows.setdefault(key, []).append(np.asarray(val, dtype=float).reshape(-1))
            if stream is None:
                yield sim.timeout(1)

    if stream is not None:
        sim.process(env_process(sim))
    sim.process(solver(sim))
    start = time.perf_counter()
    try:
        sim.run()
    except Exception as exc:      # keep what finished readable, as a simulation does
        box["error"] = exc
    wall = time.perf_counter() - start
    result = IterationResult.build(method, label, environment, ckpts, rows, box, wall, K)
    if box["error"] is not None:
        from onlinelab.errors import SimulationError
        raise SimulationError(f"{label} failed at iteration {box['done'] + 1}: {box['error']}; "
                              "the checkpoints before it are in this error's .partial", partial=result) \
            from box["error"]
    return result


class IterationResult(Result):
    """A `onlinelab.Result` for an iterative method: metrics per iteration t, rate curves, breaches.

    ``final_state`` holds the method's last state; ``breaches`` the (bound, iteration, replicate,
    value, curve) of every point above an applicable curve.

    Parameters
    ----------
    metrics : pandas.DataFrame
        The tidy table (``learner`` = the method, ``environment`` = the problem, ``t`` = iteration).
    meta : dict
        Run metadata; ``meta["bounds"]`` lists each curve with the metric it bounds and its check.
    """

    def __init__(self, metrics, meta):
        super().__init__(metrics, meta)
        self.final_state = None

    @property
    def breaches(self) -> list:
        return self.meta.get("iteration", {}).get("breaches", [])

    @classmethod
    def build(cls, method, label, environment, ckpts, rows, box, wall, K) -> IterationResult:
        arrays = {k: np.stack(val) for k, val in rows.items()}                  # (C, R)
        t = np.asarray(ckpts[: len(next(iter(arrays.values())))] if arrays else [], dtype=int)
        R = method.replicates
        stats = LossStats(t, np.zeros((R, len(t))))
        bounds_meta, breaches = [], []
        for metric, b in method.rates() if len(t) else []:
            curve = np.broadcast_to(np.asarray(b.curve(stats), dtype=float), (R, len(t))).T        # (C, R)
            arrays[f"bound:{b.name}"] = curve
            val = arrays[metric]
            slack = BOUND_TOL * np.maximum(1.0, np.abs(curve))
            over = (val > curve + slack) & b.holds
            for c, r in zip(*np.nonzero(over), strict=True):
                breaches.append({"bound": b.name, "t": int(t[c]), "replicate": int(r), "value": float(val[c, r]),
                                 "curve": float(curve[c, r])})
            pos = curve > 0
            bounds_meta.append({"learner": label, "environment": environment, "name": b.name, "ref": b.ref,
                                "formula": b.formula, "metric": metric, "assumptions": dict(b.assumptions),
                                "holds": b.holds, "pointwise": True, "final_bound": float(curve[-1].mean()),
                                "worst_ratio": float((val[pos] / curve[pos]).max()) if pos.any() else None,
                                "violated": bool(over.any())})
        desc = method.describe()
        meta = {"T": K, "replicates": R, "seed": desc.get("seed"),
                "status": "complete" if box["error"] is None else f"failed: {type(box['error']).__name__}",
                "environments": {environment: {"name": desc.get("problem", environment), "adaptive": False}},
                "learners": {label: {"name": method.name, "params": desc.get("params", {}), "resolved": {}}},
                "bounds": bounds_meta, "timings": {environment: {"wall_s": wall, "learner_s": {label: box["runtime"]}}},
                "iteration": {"method": desc, "headline": list(method.headline), "breaches": breaches,
                              "iterations_done": box["done"]}}
        res = cls(_frame(label, environment, t, arrays), meta)
        res.final_state = box["state"]
        for b in {x["bound"] for x in breaches}:
            worst = max((x for x in breaches if x["bound"] == b), key=lambda x: x["value"] / max(x["curve"], 1e-300))
            warnings.warn(f"RATE BOUND BREACHED: {label} on {environment}: {b} at iteration {worst['t']} "
                          f"(replicate {worst['replicate']}: {worst['value']:.6g} > {worst['curve']:.6g}) although "
                          "its assumptions held; a bug or a wrong constant", BoundViolationWarning, stacklevel=3)
        return res

    def summary(self) -> pd.DataFrame:
        """One row: iterations, the headline metrics' final means, the tightest applicable curve and the ratio."""
        it = self.meta["iteration"]
        row = {"method": self.learners[0], "problem": self.environments[0], "iterations": it["iterations_done"],
               "replicates": self.meta["replicates"]}
        have = set(self.metrics.metric)
        for m in it["headline"]:
            row[m] = float(self.final(m).mean()) if m in have else None
        ok = [b for b in self.meta["bounds"] if b["holds"]]
        best = min(ok, key=lambda b: b["final_bound"]) if ok else None
        final = None if best is None else best["final_bound"]
        ratio = None if best is None or final <= 0 else float(self.final(best["metric"]).mean()) / final
        row.update(bound=final, bound_name=None if best is None else best["name"], ratio=ratio,
                   breaches=len(it["breaches"]), no_rate=None if best is not None else self.why_no_rate())
        return pd.DataFrame([row])

    def why_no_rate(self) -> str:
        """Why no rate curve is checked: no reference solve, one stopped at its iteration cap (with how far from its
        tolerance it got), or the failed assumptions of each curve."""
        ref = (self.meta["iteration"].get("method") or {}).get("reference")
        if not self.meta["bounds"]:
            return "no reference solve (reference=False), so nothing to measure the gap to the optimum against"
        if ref is not None and not ref.get("converged", True):
            resid = np.asarray(ref.get("grad_norm", ref.get("step_norm")), dtype=float)
            target = np.asarray(ref.get("target", np.nan), dtype=float) * np.ones_like(resid)
            r = int(np.argmax(resid / target))
            return (f"the reference solve stopped at its iteration cap ({ref['iterations']} iterations) with a "
                    f"residual {resid[r]:.2g} above its tolerance {target[r]:.2g} (replicate {r}): the optimum is "
                    "not known to that tolerance, so no rate is checked against it")
        failed = sorted({k for b in self.meta["bounds"] for k, ok in b["assumptions"].items() if not ok})
        return "assumptions failed: " + "; ".join(failed)

    def summary_text(self, markdown: bool = False) -> str:
        """The summary as a table (what ``onlinelab run`` / ``report`` print), then one line per breached curve.

        Parameters
        ----------
        markdown : bool, default False
            Write the table in Markdown (report.md).
        """
        cols = [Column("method", fmt="text"), Column("problem", fmt="text"), Column("iterations", fmt="d"),
                Column("replicates", "R", fmt="d")]
        cols += [Column(m, fmt=".4g" if m in ("rank", "nnz", "seen") else "auto", na="not logged (no reference solve)")
                 for m in self.meta["iteration"]["headline"]]
        cols += [Column("bound", "rate bound", na=NO_RATE), Column("bound_name", "rate", fmt="text", na=NO_RATE),
                 Column("ratio", "metric/bound", fmt=".3g", na=NO_RATE), Column("breaches", fmt="d")]
        table = self.summary()
        if table["no_rate"].notna().any():   # say why, not a bare "not applicable"
            cols.append(Column("no_rate", "why no rate", fmt="text", na=""))
        return "\n".join([format_table(table, cols, markdown=markdown)] + self.alarms())

    def plot(self, ax=None, metric=None, environment=None):
        """Log-log curves of the headline metrics (or ``metric``), banded over replicates, with the rate curves in
        distinct styles; returns ``(Figure, ndarray of Axes)`` like every result's plot (`onlinelab.runs.figures`).

        Parameters
        ----------
        ax : matplotlib Axes or None, default None
            Where to draw; a new figure when None.
        metric : str or None, default None
            One metric instead of the headline ones.
        environment : str or None, default None
            Unused (one problem per result).
        """
        from onlinelab.runs.figures import (
            COUNT_METRICS,
            band,
            band_handle,
            bound_styles,
            count_axis,
            finish,
            new_figure,
            run_title,
        )
        fig, axes = new_figure(1, ax)
        axis = axes[0]
        names = [metric] if metric else self.meta["iteration"]["headline"]
        counts = [m for m in names if m in COUNT_METRICS and len(names) > 1]  # their own linear axis (0 is no gap)
        for i, m in enumerate(names):
            if m in counts:
                continue
            c = self.curve(m)
            axis.plot(c["t"], np.maximum(c["mean"], 1e-16), color=f"C{i}", lw=2, label=m)
            band(axis, c["t"], c, f"C{i}", floor=1e-16)
        shown = [b for b in self.meta["bounds"] if b["metric"] in names]
        styles = bound_styles(b["name"] for b in shown)
        for b in shown:
            c = self.curve(f"bound:{b['name']}")
            axis.plot(c["t"], c["mean"], color=f"C{names.index(b['metric'])}", lw=1.2, markersize=4, markevery=0.1,
                      fillstyle="none", label=f"{self.learners[0]}: {b['name']} (bounds {b['metric']})",
                      **styles[b["name"]])
        extra = count_axis(axis, {m: self.curve(m) for m in counts}, {m: f"C{names.index(m)}" for m in counts}) \
            if counts else []
        axis.set_xscale("log")
        axis.set_yscale("linear" if names[0] in COUNT_METRICS and not counts else "log")
        title = f"{self.learners[0]} on " + run_title(self.meta, self.environments[0])
        ylabel = metric if metric else "value (log scale)"
        return finish(fig, axes, "iteration k", ylabel, [title],
                      [*extra, band_handle(int(self.meta.get("replicates", 1)))])

    def save(self, path, config: dict | None = None, force: bool = False):
        """Run directory: metrics.parquet, meta.json, config.toml, report.md (summary, bounds) and report.png.

        Parameters
        ----------
        path : str or path-like
            The run directory.
        config : dict or None, default None
            The resolved configuration to write as config.toml.
        force : bool, default False
            Replace a non-empty ``path``.
        """
        from onlinelab.runs.figures import save_figure
        from onlinelab.runs.storage import save_run
        path = save_run(self, path, config=config, report=False, force=force)
        text = "# Iterative method report\n\n" + self.summary_text(markdown=True) + "\n"
        (path / "report.md").write_text(text)
        fig, _ = self.plot()
        save_figure(fig, path / "report.png")
        return path
