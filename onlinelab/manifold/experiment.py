"""Grids of spectral embeddings scored by the same metrics, and the ``[manifold]`` run kind (theory §7).

`run_grid` fits every method × k × neighbour count (× R for VRLE) on independent draws of a
data set and returns one tidy table (the run directory's ``metrics.parquet``): the usual columns
``learner`` (a label such as ``"vrle k=2 t=10 R=10"``), ``environment`` (the data set),
``replicate`` (the draw), ``t`` (always 1), ``metric``, ``value``, plus ``method``,
``n_components``, ``n_neighbors`` and ``radius``.  Metrics: ``trustworthiness`` and
``t_similarity`` at ``score_neighbors``, ``unrolling`` (helix only: the latent θ is known),
``seconds`` and ``failed`` (1 when the fit raised, e.g. a disconnected graph; its scores are NaN —
one grid point failing never loses the others).

In TOML (``onlinelab run helix.toml``)::

    [run]
    name = "helix-le"
    seed = 0
    [manifold]
    dataset = "helix"          # helix | digits
    m = 500
    draws = 3
    methods = ["le", "ale", "vrle", "isomap"]
    n_components = [2]
    n_neighbors = [8, 12]
    radius = [10]              # VRLE's R
    score_neighbors = 10
    vrle_n_neighbors = [10]    # <method>_<parameter>: a per-method value or grid
    le_normalization = "symmetric"

>>> df = run_grid("helix", ["le", "pca"], m=120, draws=1, n_neighbors=[8])
>>> sorted(df.learner.unique())
['le k=2 t=8', 'pca k=2']
"""
from __future__ import annotations

import itertools
import time

import numpy as np
import pandas as pd

from onlinelab.core import validation as v
from onlinelab.errors import ConfigError, ConfigTypeError, OnlinelabError, UnknownNameError, did_you_mean
from onlinelab.manifold.data import DATASETS, helix, load_dataset
from onlinelab.manifold.laplacian import LaplacianEigenmaps
from onlinelab.manifold.linear import LPP, ONPP, PCA
from onlinelab.manifold.lle import LocallyLinearEmbedding
from onlinelab.manifold.mds import ClassicalMDS, Isomap
from onlinelab.manifold.quality import t_similarity, trustworthiness, unrolling

METHODS = {
    "le": (lambda **p: LaplacianEigenmaps(**{"weights": "heat", **p}),
           "Laplacian eigenmaps, heat weights on the t-NN graph"),
    "ale": (lambda **p: LaplacianEigenmaps(**{"weights": "ale", **p}),
            "averaged LE: locally rescaled weights, mutual t-NN"),
    "vrle": (lambda **p: LaplacianEigenmaps(**{"weights": "vrle", **p}), "variable-radius LE: R neighbours on average"),
    "isomap": (Isomap, "Isomap: MDS on squared geodesic distances"),
    "lle": (LocallyLinearEmbedding, "locally linear embedding (standard)"),
    "mds": (ClassicalMDS, "classical MDS on Euclidean distances"),
    "pca": (PCA, "principal component analysis (linear)"),
    "lpp": (LPP, "locality preserving projections (linear)"),
    "onpp": (ONPP, "orthogonal neighbourhood preserving projections (linear)"),
}
GRID_KEYS = ("n_components", "n_neighbors", "radius")
MANIFOLD_KEYS = ("dataset", "m", "draws", "methods", "score_neighbors") + GRID_KEYS


def _as_list(key: str, value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _grid(method: str, est, base: dict, overrides: dict) -> list[dict]:
    """The grid points of one method: only the keys its estimator takes, overrides winning."""
    params = est().get_params()
    keys = {**{k: base[k] for k in GRID_KEYS if k in params and (k != "radius" or method == "vrle")}, **overrides}
    bad = [k for k in keys if k not in params]
    if bad:
        raise UnknownNameError(f"{method} has no parameter {bad[0]!r}{did_you_mean(bad[0], params)}")
    names = list(keys)
    for k in names:   # the grid's values label the rows ("le k=2 t=10"): numbers only, checked here
        for val in _as_list(k, keys[k]):
            if not v._is_real(val):
                raise ConfigTypeError(f"manifold.{k} must hold numbers, got {val!r} ({type(val).__name__}) for "
                                      f"{method}; write e.g. {k} = [2, 3] without quotes")
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(_as_list(k, keys[k]) for k in names))]


DIGITS_POINTS = 1797   # scikit-learn's bundled digits
#: Dense m × m arrays a fit keeps at once (distances, weights or kernel, eigenvectors, a copy), for the memory check
DENSE_COPIES = 4


def check_size(dataset: str, m, fits: int, *, field: str = "m", draws_field: str = "draws") -> None:
    """Refuse a grid whose fits cannot fit in memory or time, before any point is drawn (`onlinelab.core.sizes`).

    A spectral fit on m points holds a few dense m × m arrays (`DENSE_COPIES`) and solves an m × m
    eigenproblem, O(m³) (theory §7, docs/theory/07-spectral.md).

    Parameters
    ----------
    dataset : str
        "helix" (m = 2000 by default) or "digits" (all 1797 points by default).
    m : int or None
        Number of points.
    fits : int
        Fits in the grid (methods × grid points × draws).
    field, draws_field : str
        How messages name m and the draws (``"manifold.m"`` in a config).

    >>> check_size("helix", 10 ** 7, 1, field="manifold.m")
    Traceback (most recent call last):
    ...
    onlinelab.errors.ConfigError: manifold.m = 10000000 gives arrays of 10000000 × 10000000 entries, ...
    """
    from onlinelab.core.sizes import FLOPS_PER_S, Estimate, check_array, check_estimate
    points = (2000 if dataset == "helix" else DIGITS_POINTS) if m is None else v.integer(field, m, minimum=2)
    if dataset == "digits" and points > DIGITS_POINTS:
        raise ConfigError(f"digits has {DIGITS_POINTS} points, asked for {field} = {m}; use {field} <= {DIGITS_POINTS}")
    check_array(f"{field} = {points}", (points, points), copies=DENSE_COPIES, fix=f"lower {field}")
    seconds = fits * 15.0 * float(points) ** 3 / FLOPS_PER_S
    check_estimate(Estimate(DENSE_COPIES * 8.0 * points ** 2, seconds),
                   sizes=f"{field} = {points}, {fits} fits", fix=f"lower {field}, or fit fewer methods, grid points "
                                                                f"or {draws_field}")


def label(method: str, p: dict) -> str:
    """``"vrle k=2 t=10 R=10"``: the method and its grid coordinates (other fixed parameters are in the config)."""
    short = {"n_components": "k", "n_neighbors": "t", "radius": "R"}
    parts = [f"{short[k]}={p[k]:g}" for k in GRID_KEYS if k in p]
    return " ".join([method, *parts])


def _draw(dataset: str, m, rng):
    if dataset == "helix":
        return helix(2000 if m is None else m, random_state=rng)
    X, y = load_dataset("digits")
    if m is not None and v.integer("m", m, minimum=2) > X.shape[0]:
        raise ConfigError(f"digits has {X.shape[0]} points, asked for m = {m}; use m <= {X.shape[0]}")
    idx = rng.permutation(X.shape[0])[: (X.shape[0] if m is None else m)]
    return X[idx], y[idx]


def run_grid(dataset: str, methods, *, m: int | None = None, draws: int = 1, n_components=(2,), n_neighbors=(10,),
             radius=(10.0,), score_neighbors: int = 10, overrides: dict | None = None, seed: int = 0) -> pd.DataFrame:
    """Fit and score every method × grid point on ``draws`` independent draws; the tidy table described above.

    Parameters
    ----------
    dataset : {"helix", "digits"}
        The paper's helix (a fresh draw of m points each time) or scikit-learn's digits (a random subset of m).
    methods : list of str
        Names from `listing`.
    m : int, optional
        Number of points (helix default 2000, digits default all 1797).
    draws : int, default 1
        Independent draws of the points.
    n_components, n_neighbors, radius : int or list
        The grid of k, t and VRLE's R (each method uses the keys it has).
    score_neighbors : int, default 10
        t of trustworthiness and t-similarity.
    overrides : dict, optional
        ``{method: {parameter: value or list}}``, e.g. ``{"vrle": {"n_neighbors": 10}}``.
    seed : int, default 0
        Seeds the draws (draw i is the same across methods).
    """
    v.choice("dataset", dataset, DATASETS)
    methods = _as_list("methods", methods)
    for name in methods:
        v.choice("method", name, tuple(METHODS))
    draws = v.integer("draws", draws, minimum=1)
    score_neighbors = v.integer("score_neighbors", score_neighbors, minimum=1)
    overrides = overrides or {}
    base = {"n_components": n_components, "n_neighbors": n_neighbors, "radius": radius}
    plans = [(name, p) for name in methods for p in _grid(name, METHODS[name][0], base, overrides.get(name, {}))]
    check_size(dataset, m, len(plans) * draws)
    rows = []
    for d, child in enumerate(np.random.SeedSequence(seed).spawn(draws)):
        X, latent = _draw(dataset, m, np.random.default_rng(child))
        env = f"{dataset} m={X.shape[0]}"
        for name, p in plans:
            scores = {"trustworthiness": np.nan, "t_similarity": np.nan, "seconds": np.nan, "failed": 1.0}
            if dataset == "helix":
                scores["unrolling"] = np.nan
            try:
                start = time.perf_counter()
                Y = METHODS[name][0](**p).fit_transform(X)
                scores.update(seconds=time.perf_counter() - start, failed=0.0,
                              trustworthiness=trustworthiness(X, Y, score_neighbors),
                              t_similarity=t_similarity(X, Y, score_neighbors))
                if dataset == "helix":
                    scores["unrolling"] = unrolling(Y, latent)
            except OnlinelabError as exc:
                scores["error"] = str(exc)
            for metric, value in scores.items():
                if metric != "error":
                    rows.append({"learner": label(name, p), "environment": env, "replicate": d, "t": 1,
                                 "metric": metric, "value": float(value), "method": name,
                                 **{k: float(p.get(k, np.nan)) for k in GRID_KEYS},
                                 "error": scores.get("error", "")})
    return pd.DataFrame(rows)


def parse_manifold(data: dict, seed=None, replicates=None) -> tuple[dict, dict]:
    """Validate a config with a ``[manifold]`` table; return (run_grid keyword arguments, resolved config).

    Parameters
    ----------
    data : dict
        Parsed TOML.
    seed : int, optional
        Command-line override of ``[run] seed``.
    replicates : int, optional
        Command-line override of ``draws``.
    """
    if not isinstance(data.get("manifold"), dict):
        raise ConfigTypeError("a manifold config needs a [manifold] table; see onlinelab.manifold.experiment")
    v.known_keys("the config's top level", data, ("run", "manifold"))
    run = dict(data.get("run", {}))
    v.known_keys("[run] (a manifold run takes name and seed)", run, ("name", "seed"))
    table = dict(data["manifold"])
    methods = _as_list("manifold.methods", table.get("methods", ["le", "ale", "vrle"]))
    for name in methods:
        v.choice("manifold.methods", name, tuple(METHODS))
    overrides: dict = {}
    for key in [k for k in table if k not in MANIFOLD_KEYS]:
        method, _, param = key.partition("_")
        if method not in methods or not param:
            raise UnknownNameError(f"unknown key {key!r} in [manifold]{did_you_mean(key, MANIFOLD_KEYS)}; a "
                                   f"per-method setting is <method>_<parameter> with <method> one of {methods}")
        overrides.setdefault(method, {})[param] = table[key]
    kwargs = {"dataset": table.get("dataset", "helix"), "methods": methods, "m": table.get("m"),
              "draws": table.get("draws", 1) if replicates is None else replicates,
              "n_components": table.get("n_components", [2]), "n_neighbors": table.get("n_neighbors", [10]),
              "radius": table.get("radius", [10.0]), "score_neighbors": table.get("score_neighbors", 10),
              "overrides": overrides, "seed": v.integer("run.seed", run.get("seed", 0) if seed is None else seed,
                                                        minimum=0)}
    draws = v.integer("manifold.draws", kwargs["draws"], minimum=1)
    base = {k: kwargs[k] for k in GRID_KEYS}
    fits = sum(len(_grid(name, METHODS[name][0], base, overrides.get(name, {}))) for name in methods) * draws
    check_size(v.choice("manifold.dataset", kwargs["dataset"], DATASETS), kwargs["m"], fits, field="manifold.m",
               draws_field="manifold.draws")
    resolved_table = {k: kwargs[k] for k in MANIFOLD_KEYS if kwargs.get(k) is not None}
    resolved_table.update({f"{meth}_{p}": val for meth, ps in overrides.items() for p, val in ps.items()})
    resolved = {"run": {"name": run.get("name", "manifold"), "seed": kwargs["seed"]}, "manifold": resolved_table}
    return kwargs, resolved


