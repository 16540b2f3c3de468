"""A pre-flight estimate of a run's memory and time, checked before anything is allocated.

A regret simulation keeps, per replicate, a few d × d matrices for the comparator and for each
learner's state on spectral domains (a few length-d vectors on vector domains), and costs an
eigendecomposition-sized O(d³) per learner and round on spectral domains.  The estimate is
deliberately rough (a factor of a few either way) but catches the sizes that cannot work:
``replicates = 10⁹`` or ``d = 10⁶`` is refused with a message naming the field before round 1
instead of exhausting memory or running for years.  A run estimated to take more than an
hour warns.

>>> est = estimate([("spiked-covariance", {"d": 8})], n_learners=3, T=1000, R=4)
>>> est.bytes == 8 * 4 * 8 ** 2 * (4 + 5 * 3)
True
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass

from onlinelab.errors import ConfigError

FLOPS_PER_S = 2e9            # one BLAS thread, order of magnitude
ROUND_OVERHEAD_S = 30e-6     # per learner and round: Python, the event loop, recording
WARN_S, REFUSE_S = 3600.0, 30 * 86400.0


class PreflightWarning(UserWarning):
    """A run is estimated to take long (more than an hour)."""


@dataclass
class Estimate:
    """Estimated peak memory (bytes) and time (seconds) of a run, and the largest environment's ``d``."""

    bytes: float
    seconds: float
    d: int
    spectral: bool


def available_memory() -> float:
    """This machine's physical memory in bytes (inf when the platform does not say)."""
    try:
        return float(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return float("inf")


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
    peak, seconds, d_max, spectral_max = 0.0, 0.0, 0, False
    for name, params in environments:
        d, spectral = _dimension(name, params)
        size = float(d) ** 2 if spectral else float(d)
        peak = max(peak, 8.0 * R * size * (4 + 5 * n_learners))
        work = 15.0 * float(d) ** 3 if spectral else 50.0 * d
        seconds += T * (n_learners + 1) * (R * work / FLOPS_PER_S + ROUND_OVERHEAD_S)
        if d >= d_max:
            d_max, spectral_max = d, spectral
    return Estimate(peak, seconds, d_max, spectral_max)


def _size(n: float) -> str:
    for unit, scale in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n / 1e3:.3g} kB"


def _duration(s: float) -> str:
    for unit, scale in (("years", 365 * 86400.0), ("days", 86400.0), ("hours", 3600.0), ("minutes", 60.0)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s:.3g} s"


def check(environments, *, n_learners: int, T: int, R: int) -> Estimate:
    """Refuse (`onlinelab.errors.ConfigError`) a run that cannot fit in memory or time; warn on a long one.

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
    est = estimate(environments, n_learners=n_learners, T=T, R=R)
    sizes = f"run.replicates = {R}, d = {est.d}, {n_learners} learner{'s' if n_learners != 1 else ''}"
    mem = available_memory()
    if est.bytes > 0.8 * mem:
        raise ConfigError(f"this run needs about {_size(est.bytes)} of memory ({sizes}), more than this machine's "
                          f"{_size(mem)}; lower run.replicates or d, or split the replicates over runs with "
                          "different seeds")
    if est.seconds > REFUSE_S:
        raise ConfigError(f"this run would take about {_duration(est.seconds)} ({sizes}, run.rounds = {T}); "
                          "lower run.rounds, run.replicates or d")
    if est.seconds > WARN_S:
        warnings.warn(f"this run is estimated to take about {_duration(est.seconds)} ({sizes}, run.rounds = {T})",
                      PreflightWarning, stacklevel=2)
    return est
