"""Size checks and the one memory-and-time estimate that the command line and the Python API share.

Every entry point that allocates from a size a user typed checks it here first, so that a size that
cannot work is a `onlinelab.errors.ConfigError` naming the field, the value and the fix, in well
under a second, instead of a ``MemoryError`` or a run that never ends:

* a regret run (``simulate``, ``onlinelab run``): `regret_estimate` and `check_regret` — per
  replicate a few d × d matrices for the comparator and each learner's state on spectral domains (a few
  length-d vectors on vector domains), and an eigendecomposition-sized O(d³) per learner and round on
  spectral domains (O(d) on vector domains);
* a dimension on its own (`check_dimension`, called when an environment is built), an array of a given
  shape (`check_array`) and a count of things (`check_count`: sweep cells, arrivals);
* any other estimate (`check_estimate`): the families (games, manifold, embedding, Bregman methods)
  state their memory and time with the same constants and go through the same refusal.

The estimate is deliberately rough (a factor of a few either way) but catches the sizes that cannot
work: ``replicates = 10⁹`` or ``d = 10⁶``.  More than 80 % of this machine's memory, or more than 30 days,
is refused; more than an hour warns (`PreflightWarning`).  Theory: the cost of a round is the
learner's update, docs/theory/01-bandit-pca.md (the eigendecomposition of the spectral learners).

>>> est = regret_estimate([(8, True)], n_learners=3, T=1000, R=4)
>>> est.bytes == 8 * 4 * 8 ** 2 * (4 + 5 * 3)
True
"""
from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass

from onlinelab.errors import ConfigError

BYTES = 8                    # one float64
FLOPS_PER_S = 2e9            # one BLAS thread, order of magnitude
ROUND_OVERHEAD_S = 30e-6     # per learner and round: Python, the event loop, recording
WARN_S, REFUSE_S = 3600.0, 30 * 86400.0
MEMORY_SHARE = 0.8           # refuse an estimate above this share of the machine's memory

#: How a regret run's sizes are called: in a config (``onlinelab run``) and in the Python API (``simulate``).
CONFIG_FIELDS = {"rounds": "run.rounds", "replicates": "run.replicates"}
API_FIELDS = {"rounds": "T", "replicates": "replicates"}


class PreflightWarning(UserWarning):
    """A run is estimated to take long (more than an hour)."""


@dataclass
class Estimate:
    """Estimated peak memory (bytes) and time (seconds) of a run, and the largest ``d`` it plays.

    Parameters
    ----------
    bytes : float
        Peak memory.
    seconds : float
        Wall-clock time on one core.
    d : int, default 0
        The largest dimension (regret runs).
    spectral : bool, default False
        Whether that dimension is a matrix side (d × d) rather than a vector length.
    """

    bytes: float
    seconds: float
    d: int = 0
    spectral: bool = False


def available_memory() -> float:
    """This machine's physical memory in bytes (inf when the platform does not say)."""
    try:
        return float(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return float("inf")


def human_bytes(n: float) -> str:
    """``n`` bytes as ``"7.3 TB"``."""
    for unit, scale in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n / 1e3:.3g} kB"


def human_seconds(s: float) -> str:
    """``s`` seconds as ``"2.1 days"``."""
    for unit, scale in (("years", 365 * 86400.0), ("days", 86400.0), ("hours", 3600.0), ("minutes", 60.0)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s:.3g} s"


def check_estimate(est: Estimate, *, sizes: str, fix: str, time_sizes: str | None = None,
                   time_fix: str | None = None, stacklevel: int = 3) -> Estimate:
    """Refuse an estimate that cannot fit in memory or in time, warn on a long one; returns ``est``.

    Parameters
    ----------
    est : Estimate
        The run's estimate.
    sizes : str
        The sizes that gave it, as the user wrote them (``"run.replicates = 1000000000, d = 8"``).
    fix : str
        What to lower (``"lower run.replicates or d"``).
    time_sizes, time_fix : str or None, default None
        The same for a run that takes too long (default: ``sizes`` and ``fix``).
    stacklevel : int, default 3
        Passed to `warnings.warn`.
    """
    mem = available_memory()
    if est.bytes > MEMORY_SHARE * mem:
        raise ConfigError(f"this run needs about {human_bytes(est.bytes)} of memory ({sizes}), more than this "
                          f"machine's {human_bytes(mem)}; {fix}")
    time_sizes, time_fix = time_sizes or sizes, time_fix or fix
    if est.seconds > REFUSE_S:
        raise ConfigError(f"this run would take about {human_seconds(est.seconds)} ({time_sizes}); {time_fix}")
    if est.seconds > WARN_S:
        warnings.warn(f"this run is estimated to take about {human_seconds(est.seconds)} ({time_sizes})",
                      PreflightWarning, stacklevel=stacklevel)
    return est


def regret_estimate(dims, *, n_learners: int, T: int, R: int) -> Estimate:
    """Memory and time of playing ``n_learners`` learners against environments of the given dimensions.

    Parameters
    ----------
    dims : iterable of (int, bool)
        Each environment's ``d`` and whether its domain is spectral (d × d matrices).
    n_learners : int
        Number of learners.
    T : int
        Rounds (for arrivals: the expected number of arrivals).
    R : int
        Replicates.
    """
    peak, seconds, d_max, spectral_max = 0.0, 0.0, 0, False
    for d, spectral in dims:
        size = float(d) ** 2 if spectral else float(d)
        peak = max(peak, BYTES * float(R) * size * (4 + 5 * n_learners))
        work = 15.0 * float(d) ** 3 if spectral else 50.0 * d
        seconds += float(T) * (n_learners + 1) * (float(R) * work / FLOPS_PER_S + ROUND_OVERHEAD_S)
        if d >= d_max:
            d_max, spectral_max = d, spectral
    return Estimate(peak, seconds, d_max, spectral_max)


def check_regret(dims, *, n_learners: int, T: int, R: int, fields: dict = CONFIG_FIELDS,
                 stacklevel: int = 3) -> Estimate:
    """`regret_estimate`, refused or warned about by `check_estimate`.

    Parameters
    ----------
    dims : iterable of (int, bool)
        Each environment's ``d`` and whether its domain is spectral.
    n_learners, T, R : int
        Learners, rounds and replicates.
    fields : dict, default CONFIG_FIELDS
        What the message calls rounds and replicates: `CONFIG_FIELDS` or `API_FIELDS`.
    stacklevel : int, default 3
        Passed to `warnings.warn`.
    """
    est = regret_estimate(list(dims), n_learners=n_learners, T=T, R=R)
    reps, rounds = fields["replicates"], fields["rounds"]
    sizes = f"{reps} = {R}, d = {est.d}, {n_learners} learner{'s' if n_learners != 1 else ''}"
    return check_estimate(est, sizes=sizes, stacklevel=stacklevel + 1,
                          fix=f"lower {reps} or d, or split the replicates over runs with different seeds",
                          time_sizes=f"{sizes}, {rounds} = {T}", time_fix=f"lower {rounds}, {reps} or d")


def check_dimension(d: int, *, spectral: bool, field: str = "d", where: str = "") -> int:
    """Refuse a dimension whose smallest run (one replicate, one learner, one round) does not fit in memory.

    Parameters
    ----------
    d : int
        The dimension (already checked to be an integer).
    spectral : bool
        Whether the losses are d × d matrices.
    field : str, default "d"
        Its name in the message.
    where : str, default ""
        What it belongs to (``"environment 'spiked-covariance'"``), for the message.
    """
    est = regret_estimate([(d, spectral)], n_learners=1, T=1, R=1)
    mem = available_memory()
    if est.bytes > MEMORY_SHARE * mem:
        shape = f"{d} × {d} matrices" if spectral else f"vectors of length {d}"
        owner = f"{where}: " if where else ""
        raise ConfigError(f"{owner}{field} = {d} is too large: one replicate of one learner already needs about "
                          f"{human_bytes(est.bytes)} ({shape}), more than this machine's {human_bytes(mem)}; "
                          f"lower {field}")
    return d


def check_array(field: str, shape, *, copies: float = 1.0, itemsize: int = BYTES, fix: str = "") -> None:
    """Refuse an allocation of ``copies`` arrays of ``shape`` that would not fit in memory.

    Parameters
    ----------
    field : str
        What the user set that gives this shape (``"bregman.n × bregman.s"``).
    shape : tuple of int
        The array's shape.
    copies : float, default 1.0
        How many such arrays live at once.
    itemsize : int, default 8
        Bytes per entry.
    fix : str, default ""
        What to do instead; default: lower the sizes in ``field``.
    """
    need = float(itemsize) * copies * math.prod(float(s) for s in shape)
    mem = available_memory()
    if need > MEMORY_SHARE * mem:
        dims = " × ".join(str(int(s)) for s in shape)
        raise ConfigError(f"{field} gives arrays of {dims} entries, about {human_bytes(need)} of memory, more than "
                          f"this machine's {human_bytes(mem)}; {fix or 'lower ' + field}")


def check_count(field: str, count: float, limit: float, *, unit: str, why: str, fix: str) -> None:
    """Refuse ``count`` things above ``limit``: ``"<field> gives <count> <unit>, more than <limit> (<why>); <fix>"``.

    Parameters
    ----------
    field : str
        What gives the count (``"the [sweep] grid"``).
    count : float
        How many.
    limit : float
        The most allowed.
    unit : str
        What is counted, with how (``"cells (3 (seed) × 4 (rounds))"``).
    why : str
        Why there is a limit.
    fix : str
        What to do instead.
    """
    if count > limit:
        raise ConfigError(f"{field} gives {count:,.0f} {unit}, more than {limit:,.0f} ({why}); {fix}")


def check_arrivals(dims, *, rate: float, n_learners: int, T: float, R: int, config: bool = False,
                   stacklevel: int = 3) -> Estimate:
    """A run with Poisson arrivals: about ``rate × T`` arrivals, each emitted once and served by every learner.

    The estimate of a regret run with ``rate × T`` rounds (`regret_estimate`), so an arrival rate that
    would never finish is refused like a round count that would not.

    Parameters
    ----------
    dims : iterable of (int, bool)
        Each environment's ``d`` and whether its domain is spectral.
    rate : float
        ``arrivals.rate``, arrivals per unit of simulated time.
    n_learners, R : int
        Learners and replicates.
    T : float
        Simulated time.
    config : bool, default False
        Name the fields as a config does (``run.rounds``) rather than as ``simulate`` does (``T``).
    stacklevel : int, default 3
        Passed to `warnings.warn`.
    """
    fields = CONFIG_FIELDS if config else API_FIELDS
    arrivals = float(rate) * float(T)
    est = regret_estimate(list(dims), n_learners=n_learners, T=arrivals, R=R)
    rounds, reps = fields["rounds"], fields["replicates"]
    sizes = (f"arrivals.rate × {rounds} = {rate:g} × {T:g} = {arrivals:.3g} arrivals, {reps} = {R}, d = {est.d}, "
             f"{n_learners} learner{'s' if n_learners != 1 else ''}")
    return check_estimate(est, sizes=sizes, stacklevel=stacklevel + 1,
                          fix=f"lower arrivals.rate or {rounds} (simulated time), or {reps} or d")


def check_run(environments, *, n_learners: int, T: int, R: int, rate: float | None = None) -> Estimate:
    """``simulate``'s pre-flight: `check_regret` (or `check_arrivals`) on built environments.

    The same estimate as ``onlinelab run`` makes from a config, named as ``simulate``'s arguments are.

    Parameters
    ----------
    environments : list of Environment
        The environments (their ``d`` and declared ``domain``).
    n_learners, T, R : int
        Learners, rounds (simulated time under arrivals) and replicates.
    rate : float or None, default None
        The arrival rate, when the run has arrivals.
    """
    from onlinelab.core.compat import env_domain, is_spectral
    dims = [(int(env.d), is_spectral(env_domain(env))) for env in environments]
    if rate is not None:
        return check_arrivals(dims, rate=rate, n_learners=n_learners, T=T, R=R, stacklevel=4)
    return check_regret(dims, n_learners=n_learners, T=T, R=R, fields=API_FIELDS, stacklevel=4)
