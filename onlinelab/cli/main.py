"""``onlinelab`` on the command line: ``run``, ``list``, ``report``.

    onlinelab run                      # the embedded default experiment
    onlinelab run CONFIG.toml --seed 3 --rounds 500 --replicates 8 --out runs/mine
    onlinelab list                     # registered learners and environments
    onlinelab report runs/<run-id>     # print a saved run's summary again
    onlinelab resume runs/<run-id>     # finish a run that was killed or interrupted (bit-identical)
    onlinelab sweep CONFIG.toml --executor processes --workers 4   # every cell of its [sweep] grid
    onlinelab compare runs/a runs/b    # the runs side by side: a table and an overlay plot
    onlinelab check env NAME           # conformance checks on your environment (or: check learner NAME)
    onlinelab show NAME                # a learner's/environment's parameters, defaults, docstring, bounds
    onlinelab --plugins my_envs.py run my.toml   # your own learners/environments from a Python file
    onlinelab --version; onlinelab --debug ...   # --debug shows the traceback of an error

Exit status: 0 success, 2 bad input, 1 a run that failed midway (its completed part is
saved), 3 a bound whose assumptions held was violated, 130/143 a run stopped by SIGINT/SIGTERM
(checkpointed; ``onlinelab resume`` finishes it).
"""
from __future__ import annotations

import argparse
import sys
import warnings

from onlinelab.errors import BoundViolationWarning, OnlinelabError


def _print_summary(result, stream=None) -> int:
    """Print the result's own summary table (its kind's columns, "n/a" with footnotes) and alarms."""
    print(result.summary_text(), file=stream or sys.stdout)
    return result.exit_status()


def cmd_run(args) -> int:
    """Run a config of any kind (its tables select it, `onlinelab.experiment.kinds`) into a run directory."""
    from onlinelab.experiment import config as C
    from onlinelab.experiment.default import default_config
    from onlinelab.experiment.kinds import Durability
    from onlinelab.experiment.runner import run_config
    data = default_config() if args.config is None else C.load_toml(args.config)
    try:
        with warnings.catch_warnings():  # the summary reports violations itself, in capitals
            warnings.simplefilter("ignore", BoundViolationWarning)
            outcome, path = run_config(data, seed=args.seed, rounds=args.rounds, replicates=args.replicates,
                                       out=args.out, progress=not args.quiet, force=args.force,
                                       durability=Durability.of(args.checkpoint_every, args.checkpoint_seconds),
                                       plugins=args.plugins)  # recorded in the run directory with the config's own
    except OnlinelabError as exc:
        return _stopped(exc)
    print(outcome.summary)
    print(f"run directory: {path}")
    return outcome.status


def _stopped(exc) -> int:
    """Exit status and message of a run that stopped midway (its completed part and checkpoint are saved)."""
    from onlinelab.experiment.durable import RunInterrupted
    if isinstance(exc, RunInterrupted):
        print(f"interrupted: {exc}", file=sys.stderr)
        return 128 + int(exc.signum)
    run_dir = getattr(exc, "run_dir", None)
    if run_dir is not None:
        print(f"error: {exc}\nthe completed part of the run is in {run_dir}; after fixing the cause, "
              f"finish it with: onlinelab resume {run_dir}", file=sys.stderr)
        return 1
    raise exc


def cmd_resume(args) -> int:
    from onlinelab.experiment.runner import resume_dir
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BoundViolationWarning)
            result, path = resume_dir(args.run_dir, progress=not args.quiet,  # its kind resumes it, or refuses
                                      trust=args.trust)
    except OnlinelabError as exc:
        return _stopped(exc)
    status = _print_summary(result)
    print(f"run directory: {path}")
    return status


def cmd_sweep(args) -> int:
    import pathlib

    from onlinelab.experiment import config as C
    from onlinelab.experiment.default import run_id
    from onlinelab.experiment.plugins import with_plugins
    from onlinelab.experiment.sweeps import sweep
    data = with_plugins(C.load_toml(args.config), args.plugins)  # the workers load them too
    if "sweep" not in data:
        from onlinelab.errors import ConfigError
        raise ConfigError(f"{args.config!r} has no [sweep] table; add one, e.g. [sweep] seed = [0, 1, 2] and "
                          "[sweep.learners.meg] eta = [0.05, 0.1, 0.2]")
    out = pathlib.Path(args.out) if args.out else pathlib.Path("runs") / ("sweep-" + run_id(
        data.get("run", {}).get("name", "run"), data.get("run", {}).get("seed", 0)))
    res = sweep(data, executor=args.executor, workers=args.workers, scheduler=args.scheduler, out=out,
                progress=not args.quiet, force=args.force)
    print(res.summary_text())
    print(f"sweep directory: {out} (table: sweep.parquet, plot: sweep.png, one run directory per cell in cells/)")
    return 0


def cmd_compare(args) -> int:
    from onlinelab.experiment.runner import compare_dirs
    from onlinelab.runs.tables import format_table
    table, columns, _ = compare_dirs(args.run_dirs, plot=args.plot)  # the runs' kind compares them, or refuses
    print(format_table(table, columns))
    print(f"overlay plot: {args.plot}")
    return 0


def cmd_list(args) -> int:
    from onlinelab.core.registry import describe, environment_class, environment_names, learner_class, learner_names
    print("learners:")
    for name in learner_names():
        print(f"  {name:24s} {describe(learner_class(name))}")
    print("environments:")
    for name in environment_names():
        print(f"  {name:24s} {describe(environment_class(name))}")
    from onlinelab.experiment.kinds import listings
    for title, rows in listings():
        print(f"{title}:")
        for name, text in rows:
            print(f"  {name:24s} {text}")
    return 0


def cmd_report(args) -> int:
    from onlinelab.experiment.runner import load_report
    result = load_report(args.run_dir)
    print(f"status: {result.meta.get('status')}")
    return _print_summary(result)


def cmd_check(args) -> int:
    from onlinelab.experiment.checks import check_environment, check_learner
    if args.kind == "env":
        passed = check_environment(args.name, learner=args.partner, T=args.rounds)
    else:
        passed = check_learner(args.name, env=args.partner, T=args.rounds)
    for name in passed:
        print(f"  ok  {name}")
    print(f"{args.kind} {args.name!r}: all {len(passed)} checks passed")
    return 0


def cmd_show(args) -> int:
    from onlinelab.cli.show import show
    print(show(args.name))
    return 0


def build_parser() -> argparse.ArgumentParser:
    from onlinelab._version import __version__
    p = argparse.ArgumentParser(prog="onlinelab", description="Simulate online learners against environments "
                                "and compare their regret with theoretical bounds.")
    p.add_argument("--version", action="version", version=f"onlinelab {__version__}")
    p.add_argument("--debug", action="store_true", help="show the full traceback of an error")
    p.add_argument("--plugins", action="append", default=[], metavar="FILE.py",
                   help="load learners/environments registered in this Python file (repeatable)")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run an experiment (the default one without CONFIG)")
    r.add_argument("config", nargs="?", help="experiment TOML file (default: the embedded default experiment)")
    r.add_argument("--seed", type=int, help="root seed (overrides [run] seed)")
    r.add_argument("--rounds", type=int, help="number of rounds T (overrides [run] rounds)")
    r.add_argument("--replicates", type=int, help="number of replicates R (overrides [run] replicates)")
    r.add_argument("--out", help="run directory to write (default: runs/<name>-<time>-seed<seed>)")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    r.add_argument("--force", action="store_true", help="replace a non-empty --out directory")
    r.add_argument("--checkpoint-every", type=int, metavar="N", help="checkpoint every N rounds")
    r.add_argument("--checkpoint-seconds", type=float, default=60.0, metavar="S",
                   help="checkpoint when S seconds passed since the last one (default 60)")
    r.set_defaults(func=cmd_run)
    res = sub.add_parser("resume", help="finish a run that was killed, interrupted or failed midway")
    res.add_argument("run_dir")
    res.add_argument("--quiet", action="store_true", help="no progress bar")
    res.add_argument("--trust", action="store_true", help="execute the plugin files the run recorded (each only if "
                     "its sha256 is unchanged); without it, a run made with plugins is refused")
    res.set_defaults(func=cmd_resume)
    ls = sub.add_parser("list", help="list registered learners and environments")
    ls.set_defaults(func=cmd_list)
    chk = sub.add_parser("check", help="run the conformance checks on a registered environment or learner")
    chk.add_argument("kind", choices=["env", "learner"])
    chk.add_argument("name", help="registered name (see `onlinelab list`)")
    chk.add_argument("--with", dest="partner", help="the learner (for env) or environment (for learner) to play "
                     "(default: one that fits, the learner's reference_environment first)")
    chk.add_argument("--rounds", type=int, default=30)
    chk.set_defaults(func=cmd_check)
    sw = sub.add_parser("sweep", help="run every cell of a config's [sweep] grid (serially, on processes or dask)")
    sw.add_argument("config", help="experiment TOML file with a [sweep] table")
    sw.add_argument("--executor", choices=["serial", "processes", "dask"], default="serial")
    sw.add_argument("--workers", type=int, default=2, help="worker processes (processes, dask LocalCluster)")
    sw.add_argument("--scheduler", help="address of a running dask scheduler, e.g. tcp://host:8786")
    sw.add_argument("--out", help="sweep directory (default runs/sweep-<name>-<time>-seed<seed>); "
                                  "run again on it to skip the finished cells")
    sw.add_argument("--force", action="store_true", help="replace a non-empty --out that holds another sweep")
    sw.add_argument("--quiet", action="store_true", help="no progress")
    sw.set_defaults(func=cmd_sweep)
    cmp = sub.add_parser("compare", help="compare saved runs: a summary table and an overlay plot")
    cmp.add_argument("run_dirs", nargs="+")
    cmp.add_argument("--plot", default="compare.png", help="where to write the overlay plot (default compare.png)")
    cmp.set_defaults(func=cmd_compare)
    rep = sub.add_parser("report", help="print the summary of a saved run")
    rep.add_argument("run_dir")
    rep.set_defaults(func=cmd_report)
    sh = sub.add_parser("show", help="parameters, defaults, docstring and bounds of a registered name")
    sh.add_argument("name", help="a learner, environment or run-kind entry (see `onlinelab list`)")
    sh.set_defaults(func=cmd_show)
    return p


def _dispatch(args) -> int:
    from onlinelab.experiment.plugins import load_plugins
    load_plugins(args.plugins)
    status = args.func(args)
    sys.stdout.flush()  # a closed pipe shows up here, inside the error handling
    return status


def main(argv=None) -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``) and return its exit status."""
    from onlinelab.cli.errors import run_command
    args = build_parser().parse_args(argv)
    return run_command(_dispatch, args, debug=args.debug)


if __name__ == "__main__":
    sys.exit(main())
