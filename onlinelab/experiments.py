"""The embedded default experiment and the function that runs any experiment config to a run directory.

The default (``onlinelab run`` with no argument) plays bandit PCA with both samplers and
full-information MEG against a stochastic and an adaptive environment at d = 8.

>>> cfg = default_config()
>>> [l["name"] for l in cfg["learners"]]
['logdet-omd', 'logdet-omd', 'meg']
"""
from __future__ import annotations

import datetime as _dt
import pathlib
import time
import warnings

from . import config as C
from .errors import OnlinelabError
from .simulator import simulate

DEFAULT_TOML = """
[run]
name = "default"
seed = 0
rounds = 4000
replicates = 24
checkpoints = 40

[[environments]]
name = "spiked-covariance"
d = 8

[[environments]]
name = "top-direction"
d = 8

[[learners]]
name = "logdet-omd"
label = "bandit-dense"
sampler = "dense"

[[learners]]
name = "logdet-omd"
label = "bandit-sparse"
sampler = "sparse"

[[learners]]
name = "meg"
label = "meg-full-info"
"""


def default_config() -> dict:
    return C.tomllib.loads(DEFAULT_TOML)


def run_id(name: str, seed: int) -> str:
    return f"{name}-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}-seed{seed}"


def run_experiment(data: dict, *, seed=None, rounds=None, replicates=None, out=None, runs_dir="runs",
                   progress=False):
    """Validate ``data``, apply overrides, simulate, write the run directory; returns ``(result, path)``.

    A run that fails midway still writes what it completed (``meta.json`` status "failed: ...")
    and re-raises the error.
    """
    run = dict(data.get("run", {}))
    for key, val in (("seed", seed), ("rounds", rounds), ("replicates", replicates)):
        if val is not None:
            run[key] = val
    cfg = C.parse({**data, "run": run})
    envs, learners = cfg.build()
    path = pathlib.Path(out) if out is not None else pathlib.Path(runs_dir) / run_id(cfg.name, cfg.seed)
    resolved = C.resolved(cfg)
    start = time.time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = simulate(envs, learners, T=cfg.rounds, replicates=cfg.replicates, seed=cfg.seed,
                              checkpoints=cfg.checkpoints, progress=progress)
        except OnlinelabError as exc:
            if getattr(exc, "partial", None) is not None:
                exc.partial.save(path, config=resolved)
                exc.run_dir = path
            raise
    result.meta["wall_s"] = time.time() - start
    result.save(path, config=resolved)
    for w in caught:  # re-raised only now, so that a violation never stops the run directory being written
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return result, path
