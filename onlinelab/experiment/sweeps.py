"""Parameter sweeps: a grid over any key of an experiment's config, run anywhere.

A grid maps dotted keys to lists: ``seed``, ``rounds`` and ``replicates`` (the ``[run]`` table),
``learners.<label or name>.<param>`` and ``environments.<name>.<param>``, and ``<table>.<param>`` for any
other table of the config (``run.comparator``, ``delay.d``, ``game.n``); in TOML it is a ``[sweep]`` table
whose sub-tables give the same keys (``[sweep.learners.meg] eta = [...]``, ``[sweep.delay] d = [...]``).
Every combination is a *cell*: the base config with those values, run on its own by its run kind
(`onlinelab.experiment.kinds`) exactly as ``onlinelab run`` runs a config, so a cell equals the plain
run of its ``config.toml``; a kind that cannot be swept is refused before any cell runs.  A cell's
numbers depend only on its config (seeds are keyed by name, never by position or process), so the table
is identical, bit for bit, whether the cells run one after the other (``serial``), on worker
processes (``processes``, `concurrent.futures` with spawn/forkserver and one BLAS thread each) or on
a ``dask.distributed`` cluster (``dask``: a ``LocalCluster`` of ``workers`` processes, or the
scheduler at ``scheduler``) — ``runtime_s``, a wall-clock time, aside.

With ``out``, each finished cell is written at once as its own run directory
``out/cells/<run_id>/``, and a sweep started again on the same ``out`` skips them; the tidy
table (one column per swept key, plus ``run_id``) is ``out/sweep.parquet`` and the plot of the kind's
headline metric (regret for regret runs) against the first swept key ``out/sweep.png``.

>>> base = {"run": {"rounds": 20, "replicates": 2}, "environments": [{"name": "spiked-covariance", "d": 3}],
...         "learners": [{"name": "meg"}]}
>>> res = sweep(base, {"learners.meg.eta": [0.1, 0.5], "seed": [0, 1]})
>>> res.summary("learners.meg.eta")[["learners.meg.eta", "n"]].to_dict("list")
{'learners.meg.eta': [0.1, 0.5], 'n': [4, 4]}
"""
from __future__ import annotations

import copy
import hashlib
import itertools
import json
import pathlib

import numpy as np
import pandas as pd
from scipy.special import stdtrit  # Student-t quantiles (scipy.stats costs 0.4 s to import)

from onlinelab.core.progress import Progress
from onlinelab.errors import ConfigError, ConfigTypeError, StorageError, did_you_mean
from onlinelab.experiment.preflight import check_grid
from onlinelab.runs import storage
from onlinelab.runs.load import load_run

EXECUTORS = ("serial", "processes", "dask")
RUN_KEYS = ("seed", "rounds", "replicates")


def flatten(table: dict, prefix: str = "") -> dict:
    """``{"learners": {"meg": {"eta": [..]}}}`` → ``{"learners.meg.eta": [..]}``."""
    out = {}
    for key, val in table.items():
        if isinstance(val, dict):
            out.update(flatten(val, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = val
    return out


def _targets(base: dict, key: str) -> list[tuple[dict, str]]:
    """The tables of ``base`` and the parameter name that the grid key ``key`` sets.

    ``seed``, ``rounds`` and ``replicates`` set the ``[run]`` table; ``learners.<label or name>.<param>`` and
    ``environments.<name>.<param>`` a table of an array of tables; any other ``<table>.<param>`` (or
    ``<table>.<sub-table>.<param>``) sets the parameter in that table of the config: ``run.comparator``,
    ``delay.d``, ``arrivals.rate``, ``game.n``, ``game.x_player.eta``.  Whatever the key sets, the cell's config
    is parsed by its kind, so a parameter the kind does not know is an error naming it.
    """
    parts = key.split(".")
    if len(parts) == 1 and parts[0] in RUN_KEYS:
        return [(base.setdefault("run", {}), parts[0])]
    top = parts[0]
    if len(parts) == 3 and isinstance(base.get(top), list):
        kind, who, param = parts
        tables = [t for t in base[top] if isinstance(t, dict)]
        found = [t for t in tables if t.get("label") == who] or [t for t in tables if t.get("name") == who]
        if not found:
            names = [t.get("label") or t.get("name") for t in tables]
            raise ConfigError(f"sweep key {key!r}: no [[{kind}]] labelled or named {who!r}{did_you_mean(who, names)}")
        return [(t, param) for t in found]
    if len(parts) >= 2 and top != "sweep" and (top == "run" or isinstance(base.get(top), dict)):
        table = base.setdefault("run", {}) if top == "run" else base[top]
        for depth, sub in enumerate(parts[1:-1], start=2):
            if not isinstance(table.get(sub), dict):
                raise ConfigError(f"sweep key {key!r}: the config has no table [{'.'.join(parts[:depth])}] to set "
                                  f"{parts[-1]!r} in; add the table to the base config, or sweep one of its keys")
            table = table[sub]
        return [(table, parts[-1])]
    tables = [k for k, val in base.items() if isinstance(val, dict) and k != "sweep"]
    raise ConfigError(f"sweep key {key!r} is not one of {', '.join(RUN_KEYS)}, learners.<label>.<param>, "
                      f"environments.<name>.<param> or <table>.<param> of a table the config has "
                      f"({', '.join(f'[{t}]' for t in tables) or 'none'})"
                      f"{did_you_mean(top, RUN_KEYS + ('learners', 'environments', *tables))}")


def cells(base: dict, grid: dict) -> list[tuple[str, dict, dict]]:
    """``(run_id, params, config)`` for every combination of the grid, in a fixed order."""
    if not isinstance(grid, dict) or not grid:
        raise ConfigError("a sweep needs a non-empty grid, e.g. {'learners.meg.eta': [0.1, 0.2], 'seed': [0, 1]} "
                          "(in TOML: a [sweep] table)")
    grid = flatten(grid)
    for key, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ConfigTypeError(f"sweep key {key!r} must be a non-empty list of values, got {values!r}")
        _targets(copy.deepcopy(base), key)
    check_grid(grid)   # before a single cell is built: 10 keys of 10 values would never finish listing
    base = {k: val for k, val in base.items() if k != "sweep"}
    for table in base.get("learners", []):  # a learner keeps one label in every cell, whatever its parameters
        table.setdefault("label", table.get("name"))
    out = []
    for i, combo in enumerate(itertools.product(*grid.values())):
        params = dict(zip(grid, combo, strict=True))
        cfg = copy.deepcopy(base)
        for key, val in params.items():
            for table, name in _targets(cfg, key):
                table[name] = val
        digest = hashlib.sha1(json.dumps([params, base], sort_keys=True, default=str).encode()).hexdigest()[:8]
        out.append((f"{i:04d}-{digest}", params, cfg))
    return out


def run_cell(cfg: dict):
    """Run one cell's config exactly as ``onlinelab run`` runs it (in a worker process or a dask worker).

    The cell goes through its kind's parse and run (`onlinelab.experiment.kinds`), the build path of a
    plain run, so every key of the config takes effect (a ``[delay]``, ``[arrivals]``, ``[run] comparator``…);
    returns the `onlinelab.experiment.kinds.RunOutcome`, whose ``resolved`` config is the cell's
    ``config.toml``.
    """
    from onlinelab.experiment.kinds import kind_of
    kind = kind_of(cfg)
    return kind.outcome_of(kind.parse(cfg))


def _finished(path: pathlib.Path, params: dict):
    """A cell's shard when it is complete and was written for the same parameters, else None."""
    if not (path / "meta.json").is_file():
        return None
    try:
        res = load_run(path)
    except StorageError:
        return None
    ok = res.meta.get("status") == "complete" and res.meta.get("sweep_params") == storage._jsonable(params)
    return res if ok else None


def _cell_in_worker(plugins: list, cfg: dict):
    """A cell on a worker process or dask worker: load the sweep's plugin sources first (each once per
    worker, checked against its sha256), so that the names they register parse; then `run_cell`."""
    if plugins:
        from onlinelab.experiment.plugins import load_shipped
        load_shipped(plugins)
    return run_cell(cfg)


def _one_blas_thread() -> None:
    from threadpoolctl import threadpool_limits
    threadpool_limits(1)


def _execute(todo, executor: str, workers: int, scheduler, plugins: list | None = None):
    """Yield ``(index, Result)`` for the cells in ``todo`` as they finish; workers first load ``plugins``
    (`onlinelab.experiment.plugins.shipped`: records with the sources this process loaded)."""
    if executor == "serial":
        for i, cfg in todo:
            yield i, run_cell(cfg)
    elif executor == "processes":
        import concurrent.futures as cf
        import multiprocessing as mp
        ctx = mp.get_context("forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn")
        with cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_one_blas_thread) as pool:
            futures = {pool.submit(_cell_in_worker, plugins, cfg): i for i, cfg in todo}
            for fut in cf.as_completed(futures):
                yield futures[fut], fut.result()
    else:
        try:
            from dask.distributed import Client, LocalCluster, as_completed
        except ImportError as exc:
            raise ConfigError("executor 'dask' needs dask.distributed; install it with "
                              "pip install 'onlinelab[dask]'") from exc
        cluster = None
        if not scheduler:  # no dashboard, and no sampling profiler: every 10 ms it takes the GIL from the cells
            import dask
            with dask.config.set({"distributed.worker.profile.enabled": False}):
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
        try:
            with Client(scheduler or cluster) as client:
                futures = {client.submit(_cell_in_worker, plugins, cfg, pure=False): i for i, cfg in todo}
                for fut in as_completed(list(futures)):
                    yield futures[fut], fut.result()
        finally:
            if cluster is not None:
                cluster.close()


def sweep(config, grid: dict | None = None, *, executor: str = "serial", workers: int = 1, scheduler=None,
          out=None, progress: bool = False, force: bool = False) -> SweepResult:
    """Run every cell of ``grid`` over the experiment ``config``; returns a `SweepResult`.

    Parameters
    ----------
    config : dict, str or pathlib.Path
        The base experiment (a parsed TOML dict or a TOML file); its ``[sweep]`` table is the grid
        when ``grid`` is None.
    grid : dict, optional
        Dotted key → list of values (see the module docstring).
    executor : {"serial", "processes", "dask"}
        Where the cells run.
    workers : int
        Worker processes (processes, or the dask LocalCluster).
    scheduler : str, optional
        Address of a running dask scheduler (``tcp://host:8786``); implies executor "dask".
    out : str or pathlib.Path, optional
        The sweep directory: one run directory per cell, the table and the plot; reused cells are skipped.
    progress : bool
        Show the cells' progress on stderr.
    force : bool
        Replace a non-empty ``out`` that holds something other than this sweep.
    """
    from onlinelab.core import validation as v
    from onlinelab.experiment import config as C
    from onlinelab.experiment.kinds import kind_of
    from onlinelab.experiment.plugins import plugin_records, record_in, shipped
    base = C.load_toml(config) if isinstance(config, (str, pathlib.Path)) else copy.deepcopy(config)
    run = base.get("run")
    plugins = plugin_records(run.get("plugins")) if isinstance(run, dict) else []  # relative: to the cwd
    if plugins:
        run["plugins"] = [r["path"] for r in plugins]  # every cell's config.toml names them absolutely
    grid = base.get("sweep") if grid is None else grid
    if scheduler is not None:
        executor = "dask"
    v.choice("executor", executor, EXECUTORS)
    workers = v.integer("workers", workers, minimum=1)
    kind = kind_of({k: val for k, val in base.items() if k != "sweep"})
    kind.refuse("sweep")
    todo_cells = cells(base, grid)
    for _, _, cfg in todo_cells:
        kind.parse(cfg)  # every cell's names and values are checked before the first runs
    results: dict[int, object] = {}
    root = None if out is None else pathlib.Path(out)
    if root is not None:
        marker = {"grid": storage._jsonable(flatten(grid))}
        if (root / "sweep.json").is_file() and storage.read_json(root / "sweep.json") == marker:
            for i, (rid, params, _) in enumerate(todo_cells):
                done = _finished(root / "cells" / rid, params)
                if done is not None:
                    results[i] = done
        else:
            storage.save_dir_files(root, {"sweep.json": json.dumps(marker, indent=2)}, force=force)
    bar = Progress(total=len(todo_cells), label="cells") if progress else None
    if bar is not None and results:
        bar.advance(len(results))
    todo = [(i, cfg) for i, (_, _, cfg) in enumerate(todo_cells) if i not in results]
    for i, outcome in _execute(todo, executor, workers, scheduler, shipped(plugins)):
        rid, params, _ = todo_cells[i]
        res = outcome.result
        res.meta["sweep_params"] = params
        files = record_in(res.meta, None, plugins)
        if root is not None:  # config.toml: the cell's resolved config, which `onlinelab run` reproduces
            storage.save_run(res, root / "cells" / rid, config=outcome.resolved, report=False, force=True,
                             files=files)
        results[i] = res
        if bar is not None:
            bar.advance()
    if bar is not None:
        bar.close()
    table = SweepResult.tidy([(rid, params, results[i]) for i, (rid, params, _) in enumerate(todo_cells)])
    holds = {(rid, b["learner"], b["environment"], f"bound:{b['name']}"): bool(b["holds"])  # `plot` draws these
             for i, (rid, _, _) in enumerate(todo_cells) for b in results[i].meta.get("bounds", [])
             if isinstance(b, dict) and {"learner", "environment", "name", "holds"} <= set(b)}
    result = SweepResult(table, list(flatten(grid)), metric=kind.headline(results[0]), holds=holds)
    if root is not None:
        result.save(root)
    return result


class SweepResult:
    """The tidy table of a sweep (metrics rows plus one column per swept key and ``run_id``).

    Parameters
    ----------
    table : pandas.DataFrame
        The rows.
    params : list of str
        The swept keys (columns of ``table``).
    metric : str, default "regret"
        The metric the summary and plot show unless told another: the run kind's headline (a game's
        suboptimality, a manifold grid's trustworthiness).
    holds : dict, optional
        ``(run_id, learner, environment, "bound:<name>")`` → whether that bound applies (`plot` draws those).
    """

    def __init__(self, table: pd.DataFrame, params: list[str], metric: str = "regret", holds: dict | None = None):
        self.table, self.params, self.metric, self.holds = table, params, metric, dict(holds or {})

    @staticmethod
    def tidy(parts) -> pd.DataFrame:
        frames = []
        for rid, params, res in parts:
            df = res.metrics.copy()
            for key, val in params.items():
                df[key] = val
            df["run_id"] = rid
            frames.append(df)
        return pd.concat(frames, ignore_index=True)

    def final(self, metric: str | None = None) -> pd.DataFrame:
        """Rows of ``metric`` (default: the sweep's) at each series' last checkpoint (one per run, learner,
        environment, replicate)."""
        metric = metric or self.metric
        df = self.table[self.table.metric == metric]
        if df.empty:
            raise ConfigError(f"no metric {metric!r} in this sweep{did_you_mean(metric, self.table.metric.unique())}")
        last = df.groupby(["run_id", "learner", "environment"])["t"].transform("max")
        return df[df.t == last]

    def summary(self, param: str | None = None, metric: str | None = None) -> pd.DataFrame:
        """Mean final ``metric`` with a 95% t-interval over replicates and seeds, per learner and swept values.

        Parameters
        ----------
        param : str, optional
            Show only this swept key (others, seeds included, are pooled); default: every key but ``seed``.
        metric : str
            The metric (default: the sweep's, see `SweepResult`).
        """
        keys = [param] if param is not None else [k for k in self.params if k != "seed"]
        unknown = [k for k in keys if k not in self.params]
        if unknown:
            raise ConfigError(f"{unknown[0]!r} was not swept{did_you_mean(unknown[0], self.params)}")
        return self._summary(keys, metric)

    def _summary(self, keys: list, metric: str | None) -> pd.DataFrame:
        g = self.final(metric).groupby(["learner"] + keys, sort=False)["value"]
        out = g.agg(mean="mean", std="std", n="count").reset_index()
        half = stdtrit(np.maximum(out["n"] - 1, 1), 0.975) * out["std"].fillna(0.0) / np.sqrt(out["n"])
        out["ci_low"], out["ci_high"] = out["mean"] - half, out["mean"] + half
        return out

    def summary_text(self, param: str | None = None, metric: str | None = None) -> str:
        """`summary` as a table with one format per column (what ``onlinelab sweep`` prints).

        Parameters
        ----------
        param : str, optional
            Show only this swept key; default: every key but ``seed``.
        metric : str
            The metric (default: the sweep's, see `SweepResult`).
        """
        from onlinelab.runs.tables import Column, format_table
        metric = metric or self.metric
        s = self.summary(param, metric)
        keys = [c for c in s.columns if c not in ("learner", "mean", "std", "n", "ci_low", "ci_high")]
        columns = ([Column("learner", fmt="text")] + [Column(k) for k in keys]
                   + [Column("mean", f"final {metric}"), Column("ci_low", "95% CI low"),
                      Column("ci_high", "95% CI high"), Column("n", "values", fmt="d")])
        return format_table(s, columns)

    def plot(self, param: str, ax=None, metric: str | None = None):
        """Final ``metric`` against ``param``, one line per learner with 95% confidence bars and the bounds that hold,
        one panel per value of the other swept keys (only seeds and replicates are pooled); `onlinelab.runs.figures`.

        Parameters
        ----------
        param : str
            The swept key on the x axis.
        ax : matplotlib Axes, optional
            Where to draw.
        metric : str
            The metric (default: the sweep's, see `SweepResult`).
        """
        from onlinelab.runs import figures as F
        metric = metric or self.metric
        if param not in self.params:
            raise ConfigError(f"{param!r} was not swept{did_you_mean(param, self.params)}")
        facets = [k for k in self.params if k not in ("seed", param)]  # configurations: a panel each, never pooled
        names = [m for m in self.table.metric.unique() if metric == self.metric and str(m).startswith("bound:")]
        b = F.sweep_bounds([self.final(m) for m in names], self.holds, [param, *facets])
        pooled = "seed" if "seed" in self.params and param != "seed" else ""
        note = f"{self.table.run_id.nunique()} runs in all" + (f"; {pooled}s and replicates pooled" if pooled else "")
        return F.sweep_figure(self._summary([param, *facets], metric), b, param, facets, metric, note, ax)

    def save(self, path) -> pathlib.Path:
        """Write ``sweep.parquet`` (the table) and ``sweep.png`` (the plot against the first swept key)."""
        import matplotlib.pyplot as plt
        path = pathlib.Path(path)
        path.mkdir(parents=True, exist_ok=True)
        storage._write_atomic(path / "sweep.parquet", lambda p: self.table.to_parquet(p, index=False))
        x = next((k for k in self.params if k != "seed"), self.params[0])
        fig, _ = self.plot(x)
        storage._write_atomic(path / "sweep.png", lambda p: fig.savefig(p, dpi=100, format="png", bbox_inches="tight"))
        plt.close(fig)
        return path
