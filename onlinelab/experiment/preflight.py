"""The pre-flight check of a config: its memory and time, before anything is allocated or claimed.

The estimates themselves live in `onlinelab.core.sizes`, below the simulator and the families, so that
``onlinelab run`` and the Python API (``simulate``, ``run_grid``, ``NearIsometricEmbedding.fit``, the Bregman
solvers) refuse the same sizes with the same numbers.  Here a config's environments are given by name and
parameters (nothing is built yet: building ``d = 10⁶`` would itself exhaust memory), so each name is looked up
for its default ``d`` and its domain.  The other run kinds check their own tables when they parse them (the
families' entry points call `onlinelab.core.sizes`); a sweep's grid is counted in `check_grid`.

>>> est = estimate([("spiked-covariance", {"d": 8})], n_learners=3, T=1000, R=4)
>>> est.bytes == 8 * 4 * 8 ** 2 * (4 + 5 * 3)
True
"""
from __future__ import annotations

from onlinelab.core.sizes import (  # noqa: F401  (re-exported: the names this module has always had)
    FLOPS_PER_S,
    REFUSE_S,
    ROUND_OVERHEAD_S,
    WARN_S,
    Estimate,
    PreflightWarning,
    available_memory,
    check_count,
    check_regret,
    regret_estimate,
)

#: The most cells a sweep may have: each is a run directory, and every cell's config is checked up front.
MAX_GRID_CELLS = 10_000


def _dimension(name: str, params: dict) -> tuple[int, bool]:
    from onlinelab.core.compat import env_domain, is_spectral
    from onlinelab.core.registry import environment_class
    cls = environment_class(name)
    d = params.get("d", cls.param_defaults().get("d", 0))
    d = d if isinstance(d, int) and not isinstance(d, bool) and d > 0 else 0
    domain = params.get("domain") or getattr(cls, "domain", None) or "spectraplex"
    return d, is_spectral(domain if isinstance(domain, str) else env_domain(cls))


def estimate(environments, *, n_learners: int, T: int, R: int) -> Estimate:
    """Memory and time of playing ``n_learners`` learners against each ``(name, params)`` environment.

    Parameters
    ----------
    environments : list of (str, dict)
        Registered environment names and their parameters.
    n_learners : int
        Number of learners.
    T : int
        Rounds.
    R : int
        Replicates.
    """
    return regret_estimate([_dimension(n, p) for n, p in environments], n_learners=n_learners, T=T, R=R)


def check(environments, *, n_learners: int, T: int, R: int, arrival_rate: float | None = None) -> Estimate:
    """Refuse (`onlinelab.errors.ConfigError`) a config that cannot fit in memory or time; warn on a long one.

    Parameters
    ----------
    environments : list of (str, dict)
        Registered environment names and their parameters.
    n_learners : int
        Number of learners.
    T : int
        Rounds (simulated time under ``[arrivals]``).
    R : int
        Replicates.
    arrival_rate : float or None, default None
        ``[arrivals] rate``: the run then plays about rate × T arrivals instead of T rounds.
    """
    dims = [_dimension(n, p) for n, p in environments]
    if arrival_rate is not None:
        from onlinelab.core.sizes import check_arrivals
        return check_arrivals(dims, rate=arrival_rate, n_learners=n_learners, T=T, R=R, config=True)
    return check_regret(dims, n_learners=n_learners, T=T, R=R)


def check_grid(grid: dict) -> int:
    """Refuse a sweep grid of more than `MAX_GRID_CELLS` cells before a single cell is built; the count.

    Parameters
    ----------
    grid : dict
        Flattened sweep keys → lists of values.
    """
    count = 1.0
    for values in grid.values():
        count *= len(values) if isinstance(values, list) else 1
    sizes = " × ".join(f"{len(val)} ({key})" for key, val in grid.items() if isinstance(val, list))
    check_count("the [sweep] grid", count, MAX_GRID_CELLS, unit=f"cells ({sizes})",
                why="each cell is a run directory, and every cell's config is checked before the first runs",
                fix="sweep fewer values at once, or split the grid into several sweeps")
    return int(count)
