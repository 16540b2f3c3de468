"""The ``[bregman]`` run kind: robust PCA, matrix completion and composite methods from TOML (theory §6, §9).

``onlinelab run rpca.toml`` with::

    [run]
    name = "rpca-alg9"
    seed = 0
    rounds = 500          # iterations
    replicates = 1        # random instances, solved together (synthetic problems)
    [bregman]
    problem = "robust-pca"      # see `onlinelab list`
    accelerated = true
    n = 40
    s = 30
    rank = 3
    outliers = 0.05

Problem keys: ``robust-pca`` (n, s, rank, outliers, size, alpha, gamma, tau, tol), ``completion`` (n, s,
rank, fraction, gamma, tau, tol; ``tol`` is the reference solve's relative gradient tolerance),
``online-completion`` (n, s, rank, batch, holdout, gamma, tau), ``lasso`` / ``huber-lasso`` /
``least-squares`` on the diabetes data (alpha, mu, step), ``svm-dual`` on the breast-cancer data (alpha);
every problem takes ``accelerated`` and ``t_rule`` (not the online one).
Unknown keys are errors with "did you mean".  The resolved config (``config.toml``) writes every default of
the problem out.  A solve is a pure function of its config, so sweeps and compare (the problem's headline
curve overlaid) are supported; it is written only once finished, so there is nothing to resume.

>>> res, cfg = run_bregman_config({"bregman": {"problem": "lasso", "alpha": 300.0}}, rounds=50)
>>> table = cfg["bregman"]
>>> table["problem"], res.breaches
('lasso', [])
"""
from __future__ import annotations

import numpy as np

from onlinelab.bregman.completion import complete_matrix, complete_stream
from onlinelab.bregman.composite import HuberLasso, Lasso, LeastSquares, prox_gradient
from onlinelab.bregman.data import check_instance, low_rank, low_rank_plus_sparse
from onlinelab.bregman.rpca import robust_pca
from onlinelab.bregman.svm import svm_dual
from onlinelab.core import validation as v
from onlinelab.errors import ConfigError, ConfigTypeError, UnknownNameError, did_you_mean
from onlinelab.experiment.config import run_table
from onlinelab.experiment.kinds.protocol import RunKind, RunOutcome
from onlinelab.geometry.momentum import Momentum

COMMON = {"accelerated": True, "t_rule": "recursive"}
PROBLEMS = {
    "robust-pca": ({"n": 40, "s": 30, "rank": 3, "outliers": 0.05, "size": 10.0, "alpha": None, "gamma": None,
                    "tau": 0.5, "tol": 1e-6, **COMMON},
                   "robust PCA of a random low-rank + sparse matrix (Algorithms 7/9)"),
    "completion": ({"n": 40, "s": 40, "rank": 2, "fraction": 0.5, "gamma": None, "tau": 1.0, "tol": 1e-6,
                    **COMMON},
                   "matrix completion of a random low-rank matrix (Algorithms 10/11)"),
    "online-completion": ({"n": 40, "s": 40, "rank": 2, "batch": 20, "holdout": 0.2, "gamma": 50.0, "tau": 1.0,
                           "accelerated": False}, "matrix completion on a recommender stream, one batch per round"),
    "lasso": ({"alpha": 300.0, "step": None, **COMMON}, "LASSO on the diabetes data by ISTA / FISTA"),
    "huber-lasso": ({"alpha": 300.0, "mu": 1.0, "step": None, **COMMON},
                    "Huber-smoothed LASSO on the diabetes data by gradient descent / FISTA"),
    "least-squares": ({"step": None, **COMMON}, "least squares on the diabetes data: gradient descent's last iterate"),
    "svm-dual": ({"alpha": 1.0, **COMMON}, "soft-margin SVM dual on the breast-cancer data, primal-dual gap"),
}


FIXED_DATA = ("lasso", "huber-lasso", "least-squares", "svm-dual")  # one data set: replicates would all agree


def listing() -> list[tuple[str, str]]:
    """(problem, description) for ``onlinelab list``."""
    return [(name, text) for name, (_, text) in PROBLEMS.items()]


def _auto(value):
    return None if value == "auto" else value


def _solve(problem: str, p: dict, T: int, R: int, seed: int, checkpoints):
    acc, rule = bool(p.get("accelerated", False)), p.get("t_rule", "recursive")
    if problem == "robust-pca":
        X = low_rank_plus_sparse(p["n"], p["s"], p["rank"], p["outliers"], p["size"], R, seed)[0]
        return robust_pca(X, p["alpha"], p["gamma"], acc, T, tau=p["tau"], t_rule=rule, checkpoints=checkpoints,
                          tol=p["tol"])[2]
    if problem == "completion":
        X = low_rank(p["n"], p["s"], p["rank"], R, seed)
        mask = np.random.default_rng(seed).random(X.shape) < v.unit_interval("bregman.fraction", p["fraction"])
        return complete_matrix(np.where(mask, X, np.nan), None, p["gamma"], acc, T, tau=p["tau"], t_rule=rule,
                               truth=X, checkpoints=checkpoints, tol=p["tol"])[1]
    if problem == "online-completion":
        X = low_rank(p["n"], p["s"], p["rank"], R, seed)
        return complete_stream(X, p["batch"], p["gamma"], T, holdout=p["holdout"], tau=p["tau"], accelerated=acc,
                               seed=seed, checkpoints=checkpoints)[1]
    if problem == "svm-dual":
        return svm_dual(alpha=p["alpha"], iters=T, accelerated=acc, t_rule=rule, checkpoints=checkpoints)[2]
    prob = {"lasso": lambda: Lasso.diabetes(alpha=p["alpha"]), "least-squares": LeastSquares.diabetes,
            "huber-lasso": lambda: HuberLasso.diabetes(alpha=p["alpha"], mu=p["mu"])}[problem]()
    return prox_gradient(prob, T, accelerated=acc, t_rule=rule, step=p["step"], checkpoints=checkpoints)[1]


def _check_params(problem: str, p: dict, T: int, R: int) -> None:
    """The table's values checked before anything is drawn: booleans, names, fractions, shapes and the rank, the
    instance's memory and time (`onlinelab.bregman.data.check_instance`)."""
    if "accelerated" in p:
        p["accelerated"] = v.boolean("bregman.accelerated", p["accelerated"])
    if "t_rule" in p:
        Momentum(p["t_rule"])                           # an unknown rule is refused with the known ones
    for key in ("outliers", "fraction", "holdout"):
        if key in p:
            v.unit_interval(f"bregman.{key}", p[key])
    if "batch" in p:
        v.integer("bregman.batch", p["batch"], minimum=1)
    if "n" in p:
        check_instance(p["n"], p["s"], p["rank"], R, prefix="bregman.", replicates_field="run.replicates", iters=T)


def parse_bregman(data: dict, *, seed=None, rounds=None, replicates=None) -> dict:
    """Validate ``data`` (parsed TOML with a ``[bregman]`` table); return the resolved config (every default out).

    Parameters
    ----------
    data : dict
        The parsed TOML.
    seed, rounds, replicates : int or None, default None
        Command-line overrides of ``[run]``.
    """
    if not isinstance(data, dict) or not isinstance(data.get("bregman"), dict):
        raise ConfigTypeError("a bregman config needs a [bregman] table with a problem; see "
                              "onlinelab.experiment.kinds.bregman")
    v.known_keys("the config's top level", data, ("run", "bregman"))
    run = run_table(data, defaults={"rounds": 500, "replicates": 1}, seed=seed, rounds=rounds, replicates=replicates)
    T = v.integer("run.rounds", run["rounds"], minimum=1)
    R = v.integer("run.replicates", run["replicates"], minimum=1)
    seed = v.integer("run.seed", run["seed"], minimum=0)
    table = dict(data["bregman"])
    problem = table.pop("problem", None)
    if problem not in PROBLEMS:
        raise UnknownNameError(f"[bregman] problem = {problem!r} is not known{did_you_mean(problem, PROBLEMS)}; "
                               f"choose one of {', '.join(PROBLEMS)}")
    defaults = PROBLEMS[problem][0]
    v.known_keys(f"[bregman] (problem {problem!r})", table, defaults)
    if R > 1 and problem in FIXED_DATA:
        raise ConfigError(f"run.replicates = {R} but problem {problem!r} is one fixed data set (every replicate would "
                          "be the same run); set replicates = 1")
    params = {**defaults, **{k: _auto(val) for k, val in table.items()}}
    _check_params(problem, params, T, R)
    return {"run": {**run, "seed": seed, "rounds": T, "replicates": R},
            "bregman": {"problem": problem, **{k: ("auto" if val is None else val) for k, val in params.items()}}}


def solve_resolved(resolved: dict):
    """Solve the problem of a resolved config (`parse_bregman`'s output, or a run's config.toml)."""
    run, table = resolved["run"], dict(resolved["bregman"])
    problem = table.pop("problem")
    params = {k: _auto(val) for k, val in table.items()}
    return _solve(problem, params, run["rounds"], run["replicates"], run["seed"], run["checkpoints"])


def run_bregman_config(data: dict, *, seed=None, rounds=None, replicates=None):
    """Validate ``data`` (parsed TOML with a ``[bregman]`` table), solve; return ``(result, resolved config)``.

    Parameters
    ----------
    data : dict
        The parsed TOML.
    seed, rounds, replicates : int or None, default None
        Command-line overrides of ``[run]``.
    """
    resolved = parse_bregman(data, seed=seed, rounds=rounds, replicates=replicates)
    return solve_resolved(resolved), resolved


class BregmanKind(RunKind):
    """``[bregman]``: robust PCA, matrix completion and composite methods, each iterate against its rate curves."""

    key = table = "bregman"
    title = "robust PCA, completion and composite methods"
    result = "onlinelab.bregman.loop:IterationResult"
    refusals = {"resume": "a [bregman] run is written only once it has finished, so there is nothing to resume; "
                          "run its config.toml again with `onlinelab run DIR/config.toml`"}

    def parse(self, data, *, seed=None, rounds=None, replicates=None) -> dict:
        return parse_bregman(data, seed=seed, rounds=rounds, replicates=replicates)

    def run(self, spec: dict, *, progress: bool = False) -> RunOutcome:
        result = solve_resolved(spec)
        if result.meta.get("seed") is None:  # the methods record none; the instance was drawn with the run's
            result.meta["seed"] = spec["run"]["seed"]
        return RunOutcome(result, self.resolve(spec), result.summary_text(), result.exit_status())

    def headline(self, result) -> str:
        """The problem's first headline metric (e.g. the objective gap), which compare overlays."""
        return result.meta["iteration"]["headline"][0]

    def listing(self):
        return listing()

    def example(self) -> dict:
        return {"run": {"name": "tiny-bregman", "rounds": 30, "replicates": 2, "checkpoints": 6, "seed": 2},
                "bregman": {"problem": "robust-pca", "n": 10, "s": 8, "rank": 2}}

    def refused_example(self) -> dict:
        return {"run": {"name": "refused-bregman", "rounds": 10, "replicates": 3}, "bregman": {"problem": "lasso"}}


KIND = BregmanKind()


def run_outcome(data: dict, *, seed=None, rounds=None, replicates=None, progress=False) -> RunOutcome:
    """The ``[bregman]`` kind's parse and solve in one call (the form ``register_run_kind(key, target)`` takes).

    Parameters
    ----------
    data : dict
        Parsed TOML with a ``[bregman]`` table.
    seed, rounds, replicates : int or None, default None
        Command-line overrides.
    progress : bool, default False
        Unused.
    """
    return KIND.outcome(data, seed=seed, rounds=rounds, replicates=replicates, progress=progress)
