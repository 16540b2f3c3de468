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
import re

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from onlinelab.experiment.durable import DEFAULT_SECONDS

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
    return tomllib.loads(DEFAULT_TOML)


def safe_name(name) -> str:
    """``name`` as one safe path component: letters, digits, ``.``, ``_`` and ``-`` ("../../x" → "x")."""
    text = re.sub(r"[^A-Za-z0-9._-]+", "-", str(name))
    text = re.sub(r"\.{2,}", ".", text).strip(".-")
    return text or "run"


def run_id(name: str, seed: int) -> str:
    name = safe_name(name)
    return f"{name}-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}-seed{seed}"


def run_experiment(data: dict, *, seed=None, rounds=None, replicates=None, out=None, runs_dir="runs",
                   progress=False, force=False, checkpoint_every=None, checkpoint_seconds=DEFAULT_SECONDS):
    """Validate ``data``, apply overrides, simulate, write the run directory; returns ``(result, path)``.

    The run directory is claimed before the first round (a non-empty one is refused unless
    ``force``), checkpointed every ``checkpoint_every`` rounds or ``checkpoint_seconds`` seconds, and
    replaced by the finished run in one rename (see `onlinelab.experiment.durable`).  A run that fails or
    is interrupted midway keeps what it completed (``meta.json`` status "failed: ...") and its
    checkpoint, so ``onlinelab resume`` can finish it; the error is re-raised.

    Parameters
    ----------
    data : dict
        The experiment config (parsed TOML).  Its ``[run] plugins`` are loaded (relative paths against the
        working directory; `onlinelab.experiment.config.load_toml` makes a file's relative to the file)
        and recorded in the run directory: absolute paths in ``config.toml``, path and sha256 in
        ``meta.json``, a copy under ``plugins/``.
    seed, rounds, replicates : int, optional
        Overrides of the ``[run]`` table.
    out : str or pathlib.Path, optional
        The run directory (default ``runs_dir/<name>-<time>-seed<seed>``).
    runs_dir : str
        Where default run directories go.
    progress : bool
        Show a progress bar.
    force : bool
        Replace a non-empty ``out``.
    checkpoint_every : int, optional
        Checkpoint every this many rounds.
    checkpoint_seconds : float, optional
        Checkpoint when this many seconds have passed since the last checkpoint (None: never by time).
    """
    from onlinelab.experiment.kinds.protocol import Durability
    from onlinelab.experiment.kinds.regret import KIND as REGRET  # the regret run kind: one path with the CLI's
    from onlinelab.experiment.plugins import plugin_records
    run = dict(data.get("run", {}))
    plugins = plugin_records(run.get("plugins"))
    if plugins:
        run["plugins"] = [r["path"] for r in plugins]
    cfg = REGRET.parse({**data, "run": run}, seed=seed, rounds=rounds, replicates=replicates)
    durability = Durability.of(checkpoint_every, checkpoint_seconds)
    path = pathlib.Path(out) if out is not None else pathlib.Path(runs_dir) / run_id(cfg.name, cfg.seed)
    outcome = REGRET.start(cfg, path, force=force, progress=progress, durability=durability, plugins=plugins)
    return outcome.result, path
