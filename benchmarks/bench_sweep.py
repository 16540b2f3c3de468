"""Benchmark: a sweep of 8 cells of about 5 s each, serially, on 2 processes and on a 2-worker dask cluster.

Prints, measured in one run, timing what a user runs (``onlinelab.sweep``, start-up of the
pool or cluster included):
  * ``speedup processes: X`` — serial wall time over ``executor="processes", workers=2`` (target ≥ 1.8);
  * ``speedup dask: Y`` — serial wall time over ``executor="dask"`` with a 2-worker LocalCluster (target ≥ 1.6);
  * ``checkpoint overhead: Z %`` — one run of two cells' length through ``run_experiment`` with the
    default checkpoint cadence over the same run with checkpoints off (target ≤ 5).
The three sweeps' tables are checked to agree bit for bit (``runtime_s`` aside).  A 2-worker
speedup needs two idle cores: on a shared machine the numbers say more about the neighbours.  Each
time is the best of ``--repeats`` runs taken in turns (serial, processes, dask, serial, …; checkpoints
off, on, off, …), so that a change of load hits every timing alike.

Usage:  python benchmarks/bench_sweep.py [--cell-seconds 5] [--repeats 2]
"""
from __future__ import annotations

import argparse
import tempfile
import time

import onlinelab as ol
from onlinelab.experiment.default import run_experiment
from onlinelab.experiment.durable import DEFAULT_SECONDS

BASE = {"run": {"name": "bench", "rounds": 200, "replicates": 16, "checkpoints": 20},
        "environments": [{"name": "spiked-covariance", "d": 8}],
        "learners": [{"name": "logdet-omd", "sampler": "dense"}, {"name": "meg"}]}
GRID = {"learners.meg.eta": [0.05, 0.1, 0.2, 0.4], "seed": [0, 1]}


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def calibrate(seconds: float) -> int:
    """Rounds that make one cell take about ``seconds`` (the first probe warms imports and caches up)."""
    ol.sweep(BASE, {"seed": [0]})
    rounds = BASE["run"]["rounds"]
    probe, _ = timed(lambda: ol.sweep({**BASE, "run": {**BASE["run"], "rounds": 4 * rounds}}, {"seed": [0]}))
    return max(50, int(4 * rounds * seconds / probe))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--cell-seconds", type=float, default=5.0)
    p.add_argument("--repeats", type=int, default=2)
    args = p.parse_args()
    BASE["run"]["rounds"] = calibrate(args.cell_seconds)
    runs = {"serial": lambda: ol.sweep(BASE, GRID),
            "processes": lambda: ol.sweep(BASE, GRID, executor="processes", workers=2),
            "dask": lambda: ol.sweep(BASE, GRID, executor="dask", workers=2)}
    times, tables = {name: [] for name in runs}, {}
    for _ in range(args.repeats):
        for name, run in runs.items():
            seconds, res = timed(run)
            times[name].append(seconds)
            tables[name] = res.table
    t_serial, t_procs, t_dask = (min(times[name]) for name in runs)
    keep = lambda t: t[t.metric != "runtime_s"].reset_index(drop=True)  # noqa: E731
    for name in ("processes", "dask"):
        assert keep(tables[name]).equals(keep(tables["serial"])), f"{name} disagrees with serial"
    long = {**BASE, "run": {**BASE["run"], "rounds": 2 * BASE["run"]["rounds"]}}
    offs, ons = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeats):
            off, on = f"{tmp}/off{i}", f"{tmp}/on{i}"
            offs.append(timed(lambda o=off: run_experiment(long, out=o, checkpoint_seconds=None))[0])
            ons.append(timed(lambda o=on: run_experiment(long, out=o, checkpoint_seconds=DEFAULT_SECONDS))[0])
    t_off, t_on = min(offs), min(ons)
    print(f"cells: 8 of {BASE['run']['rounds']} rounds ({t_serial / 8:.1f} s each serially); serial {t_serial:.1f} s, "
          f"processes {t_procs:.1f} s, dask {t_dask:.1f} s")
    print(f"speedup processes: {t_serial / t_procs:.2f}")
    print(f"speedup dask: {t_serial / t_dask:.2f}")
    print(f"checkpoint overhead: {100 * (t_on - t_off) / t_off:.1f} %")


if __name__ == "__main__":
    main()
