"""The ``[embedding]`` config table: a near-isometric embedding run from TOML (``onlinelab run embedding.toml``).

theory §5 (docs/theory/05-near-isometric.md).  ``[run] rounds`` is T, ``[run] seed`` picks the subset
of points; the table names the data, k, the step and the baselines to compare with::

    [run]
    name = "digits-5"
    rounds = 120
    [embedding]
    data = "digits"          # digits | gaussian | file
    digit = 5                # digits: which digit (scikit-learn's bundled 8×8 digits, d = 64)
    points = 46              # r points, so n = r(r−1)/2 pairs
    n_components = 10
    eta = "auto"             # "auto" (√2/√(nT)), "centred" or a number
    solver = "auto"          # auto | dense | lobpcg
    baselines = ["pca", "random", "jl"]   # and "sdp" (needs cvxpy: pip install 'onlinelab[sdp]')
    sdp_time_limit = 60

``data = "gaussian"`` draws ``points`` standard normal points in dimension ``d``; ``data = "file"``
reads ``file`` (.npy, or .csv with one point per row).  Unknown keys are errors with "did you mean".
The resolved config (``config.toml``) writes every default out.  A fit is a pure function of its config,
so sweeps (``[sweep] seed = [0, 1, 2]`` for other subsets) and compare (the output's maximum distortion
overlaid) are supported; it is written only once finished, so there is nothing to resume.

>>> res, cfg, table = run_embedding_config({"embedding": {"data": "gaussian", "points": 8, "d": 4,
...                                         "n_components": 2}}, rounds=20)
>>> emb = cfg["embedding"]
>>> sorted(table.method), emb["data"]
(['dual', 'jl', 'pca', 'random'], 'gaussian')
"""
from __future__ import annotations

import pathlib

import numpy as np
import pandas as pd

from onlinelab.core import validation as v
from onlinelab.embedding.baselines import fantope_sdp, jl_gaussian, max_distortion_of, pca, random_orthonormal
from onlinelab.embedding.embed import NearIsometricEmbedding
from onlinelab.embedding.pairs import check_pairs, unit_differences
from onlinelab.errors import ConfigError, ConfigTypeError
from onlinelab.experiment.config import run_table
from onlinelab.experiment.kinds.protocol import RunKind, RunOutcome

KEYS = ("data", "digit", "points", "d", "file", "n_components", "eta", "solver", "baselines", "sdp_time_limit")
DATA = ("digits", "gaussian", "file")
BASELINES = ("pca", "random", "jl", "sdp")


def digit_points(digit: int, r: int, seed: int) -> np.ndarray:
    """``r`` images of ``digit`` from scikit-learn's bundled digits (8×8, d = 64), a random subset by ``seed``.

    Distinct images only (a repeated image would give a zero difference).

    Parameters
    ----------
    digit : int
        0–9.
    r : int
        How many points.
    seed : int
        Seed of the subset.
    """
    from sklearn.datasets import load_digits
    digit = v.integer("embedding.digit", digit, minimum=0)
    if digit > 9:
        raise ConfigError(f"embedding.digit must be 0–9, got {digit}")
    data = load_digits()
    imgs = np.unique(data.data[data.target == digit], axis=0)
    r = v.integer("embedding.points", r, minimum=2)
    if r > len(imgs):
        raise ConfigError(f"embedding.points = {r} but digit {digit} has {len(imgs)} distinct images; "
                          f"pick points ≤ {len(imgs)}")
    idx = np.random.default_rng(v.integer("seed", seed, minimum=0)).choice(len(imgs), size=r, replace=False)
    return imgs[np.sort(idx)]


def load_points(table: dict, seed: int) -> np.ndarray:
    """The points an ``[embedding]`` table asks for (see the module docstring).

    Parameters
    ----------
    table : dict
        The ``[embedding]`` table.
    seed : int
        The run's seed (subset of digits, Gaussian draw).
    """
    kind = v.choice("embedding.data", table.get("data", "digits"), DATA)
    if kind == "digits":
        return digit_points(table.get("digit", 5), table.get("points", 46), seed)
    if kind == "gaussian":
        r = v.integer("embedding.points", table.get("points", 46), minimum=2)
        d = v.integer("embedding.d", table.get("d", 20), minimum=2)
        return np.random.default_rng(seed).standard_normal((r, d))
    path = table.get("file")
    if not isinstance(path, str) or not pathlib.Path(path).is_file():
        raise ConfigError(f"embedding.file must name an existing .npy or .csv file, got {path!r}")
    return np.load(path) if path.endswith(".npy") else np.loadtxt(path, delimiter=",", ndmin=2)


DEFAULTS = {"data": "digits", "n_components": 10, "eta": "auto", "solver": "auto",
            "baselines": ["pca", "random", "jl"]}
DATA_DEFAULTS = {"digits": {"digit": 5, "points": 46}, "gaussian": {"points": 46, "d": 20}, "file": {"file": None}}


def parse_embedding(data: dict, *, seed=None, rounds=None, replicates=None) -> dict:
    """Validate ``data`` (a parsed TOML with an ``[embedding]`` table); return the resolved config.

    Every default is written out (the keys of the chosen data source only; a file by its absolute path,
    so the run's ``config.toml`` names the same file from any folder).

    Parameters
    ----------
    data : dict
        The parsed config.
    seed, rounds, replicates : int or None, default None
        Command-line overrides of ``[run]``; replicates must be 1 (the game is deterministic).
    """
    if not isinstance(data, dict) or not isinstance(data.get("embedding"), dict):
        raise ConfigTypeError("an embedding config needs an [embedding] table; see "
                              "onlinelab.experiment.kinds.embedding")
    v.known_keys("the config's top level", data, ("run", "embedding"))
    run = run_table(data, defaults={"rounds": 120, "replicates": 1, "checkpoints": 16}, seed=seed, rounds=rounds,
                    replicates=replicates)
    T = v.integer("run.rounds", run["rounds"], minimum=1)
    seed = v.integer("run.seed", run["seed"], minimum=0)
    if v.integer("run.replicates", run["replicates"], minimum=1) != 1:
        raise ConfigError(f"run.replicates = {run['replicates']}: the embedding game is deterministic; vary the "
                          "subset with [run] seed (or a [sweep] over seed) instead")
    given = dict(data["embedding"])
    v.known_keys("[embedding]", given, KEYS)
    source = v.choice("embedding.data", given.get("data", DEFAULTS["data"]), DATA)
    table = {**DEFAULTS, **DATA_DEFAULTS[source], **given}
    baselines = table["baselines"]
    if not isinstance(baselines, list):
        raise ConfigError(f"embedding.baselines must be a list such as ['pca', 'random'], got {baselines!r}")
    for b in baselines:
        v.choice("embedding.baselines", b, BASELINES)
    if "sdp" in baselines:
        table.setdefault("sdp_time_limit", 60.0)
    if source == "gaussian":   # the pairs' memory and the game's time, before a point is drawn
        check_pairs(v.integer("embedding.points", table["points"], minimum=2),
                    v.integer("embedding.d", table["d"], minimum=2), T, field="embedding.points",
                    rounds_field="run.rounds")
    if source == "file":     # read now: a missing file or too many pairs is refused before a directory is claimed
        points = load_points(table, seed)
        check_pairs(points.shape[0], points.shape[1] if points.ndim == 2 else 1, T,
                    field="the points of embedding.file", rounds_field="run.rounds")
    if source == "file" and isinstance(table["file"], str) and pathlib.Path(table["file"]).is_file():
        table["file"] = str(pathlib.Path(table["file"]).resolve())
    return {"run": {**run, "seed": seed, "rounds": T, "replicates": 1}, "embedding": table}


def fit_resolved(resolved: dict):
    """Fit the embedding of a resolved config and its baselines; return ``(result, table)`` (one row per method)."""
    run, table = resolved["run"], resolved["embedding"]
    seed, T, baselines = run["seed"], run["rounds"], table["baselines"]
    points = load_points(table, seed)
    k = table["n_components"]
    est = NearIsometricEmbedding(k, T=T, eta=table["eta"], solver=table["solver"],
                                 checkpoints=run["checkpoints"]).fit(points)
    X = unit_differences(points)
    rows = [{"method": "dual", "max_distortion": est.max_distortion_, "seconds": est.result_.meta["timings"]}]
    rows[0]["seconds"] = next(iter(rows[0]["seconds"].values()))["wall_s"]
    maps = {"pca": lambda: pca(points, k), "random": lambda: random_orthonormal(X.shape[1], k, seed),
            "jl": lambda: jl_gaussian(X.shape[1], k, seed)}
    for name in baselines:
        if name == "sdp":
            sdp = fantope_sdp(X, k, time_limit=v.positive_float("embedding.sdp_time_limit", table["sdp_time_limit"]))
            rows.append({"method": "sdp", "max_distortion": max_distortion_of(X, sdp.V) if sdp.finished else np.nan,
                         "seconds": sdp.seconds, "sdp_value": sdp.value, "status": sdp.status})
        else:
            rows.append({"method": name, "max_distortion": max_distortion_of(X, maps[name]())})
    out = pd.DataFrame(rows)
    out["improvement_%"] = 100 * (out["max_distortion"] - est.max_distortion_) / out["max_distortion"]
    result = est.result_
    result.meta["baselines"] = out.astype(object).where(out.notna(), None).to_dict("records")
    return result, out


def run_embedding_config(data: dict, *, seed=None, rounds=None, replicates=None):
    """Validate ``data`` (a parsed TOML with an ``[embedding]`` table) and fit; return (result, resolved, table).

    ``table`` has one row per method (``dual`` and each baseline) with its maximum distortion.

    Parameters
    ----------
    data : dict
        The parsed config.
    seed, rounds, replicates : int or None, default None
        Command-line overrides of ``[run]``; replicates must be 1 (the game is deterministic).
    """
    resolved = parse_embedding(data, seed=seed, rounds=rounds, replicates=replicates)
    result, out = fit_resolved(resolved)
    return result, resolved, out


class EmbeddingKind(RunKind):
    """``[embedding]``: the dual near-isometric embedding game on a point set, beside its baselines."""

    key = table = "embedding"
    title = "near-isometric embedding data"
    result = "onlinelab.embedding.result:EmbeddingResult"
    refusals = {"resume": "an [embedding] run is written only once it has finished, so there is nothing to resume; "
                          "run its config.toml again with `onlinelab run DIR/config.toml`"}

    def parse(self, data, *, seed=None, rounds=None, replicates=None) -> dict:
        return parse_embedding(data, seed=seed, rounds=rounds, replicates=replicates)

    def run(self, spec: dict, *, progress: bool = False) -> RunOutcome:
        result, _ = fit_resolved(spec)
        return RunOutcome(result, self.resolve(spec), result.summary_text(), result.exit_status())

    def headline(self, result) -> str:
        """The maximum distortion of the game's output, which compare overlays."""
        return "distortion"

    def listing(self):
        return listing()

    def example(self) -> dict:
        return {"run": {"name": "tiny-embedding", "rounds": 20, "checkpoints": 5, "seed": 4},
                "embedding": {"data": "gaussian", "points": 8, "d": 4, "n_components": 2,
                              "baselines": ["pca", "random"]}}

    def refused_example(self) -> dict:
        return {"run": {"name": "refused-embedding", "rounds": 10},
                "embedding": {"data": "gaussian", "points": 6, "d": 3, "n_components": 5, "baselines": []}}


KIND = EmbeddingKind()


def run_outcome(data: dict, *, seed=None, rounds=None, replicates=None, progress=False) -> RunOutcome:
    """The ``[embedding]`` kind's parse and fit in one call (the form ``register_run_kind(key, target)`` takes).

    Parameters
    ----------
    data : dict
        The parsed config.
    seed, rounds, replicates : int or None, default None
        Command-line overrides.
    progress : bool, default False
        Unused (a fit takes seconds).
    """
    return KIND.outcome(data, seed=seed, rounds=rounds, replicates=replicates, progress=progress)


def listing() -> list[tuple[str, str]]:
    """The data sources an ``[embedding]`` table accepts, for ``onlinelab list``."""
    return [("digits", "scikit-learn's bundled 8×8 digits (d = 64): [embedding] digit, points (a random subset)"),
            ("gaussian", "standard normal points: [embedding] points, d"),
            ("file", "your points: [embedding] file = 'points.npy' or a .csv, one point per row")]
