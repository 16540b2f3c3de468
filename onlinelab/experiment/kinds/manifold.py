"""The ``[manifold]`` run kind: a grid of spectral embeddings from TOML (theory §7, :mod:`onlinelab.manifold.experiment`).
"""
from __future__ import annotations

from onlinelab.errors import ConfigError
from onlinelab.manifold.experiment import METHODS, parse_manifold, run_grid


def listing() -> list[tuple[str, str]]:
    """(name, description) of every method a ``[manifold]`` table can name, for ``onlinelab list``."""
    return [(name, text) for name, (_, text) in METHODS.items()]


def run_outcome(data: dict, *, seed=None, rounds=None, replicates=None, progress=False):
    """The ``[manifold]`` run kind (:mod:`onlinelab.experiment.kinds`): fit the grid, say what to print.

    Parameters
    ----------
    data : dict
        Parsed TOML with a ``[manifold]`` table.
    seed : int, optional
        Overrides ``[run] seed``.
    rounds : None
        Not meaningful here; giving it is an error.
    replicates : int, optional
        Overrides ``draws``.
    progress : bool, default False
        Unused (fits are short).
    """
    from onlinelab.experiment.kinds import RunOutcome
    from onlinelab.manifold.result import ManifoldResult
    if rounds is not None:
        raise ConfigError(f"--rounds does not apply to a [manifold] run (got {rounds}); use --replicates for the "
                          "number of draws")
    kwargs, resolved = parse_manifold(data, seed=seed, replicates=replicates)
    result = ManifoldResult.from_frame(run_grid(**kwargs), seed=kwargs["seed"])
    return RunOutcome(result, resolved, result.summary_text(), 0)
