"""Step-size assumptions as data: the SGD bound of theory §4 (τ_k ≤ 1/L) and a warning for a step far past
every bound a learner has.

`sgd_average` is the bound of theory §4 (docs/theory/04-streaming.md, Theorem 3.3) on the suboptimality of
SGD's τ-weighted average, ``E E(w̄^K) − E* ≤ ‖w⁰ − ŵ‖²/(2Σ τ_k) + σ² Σ τ_k²/Σ τ_k``, as an ordinary
`onlinelab.bounds.base.Bound` on the metric ``suboptimality``: it applies only when every step τ_k ≤ 1/L, and
a run above it while that held is a violation like any other.  Past 1/L the iterates can grow geometrically:
the bound is then not applicable, and the divergence is caught by `onlinelab.core.numerics`.

`step_warning` is the construction-time check: a step more than `STEP_FACTOR` times the largest step any
of the learner's bounds assumes gets a `onlinelab.errors.NumericalWarning` naming the parameter.

>>> import numpy as np
>>> b = sgd_average(dist0=1.0, sigma2=0.5, L=2.0, tau_max=0.4, sums=[(0.4, 0.16), (0.8, 0.32)])
>>> b.holds, b.metric
(True, 'suboptimality')
>>> np.round(b.curve(None), 4).tolist()   # 1/(2·0.4) + 0.5·0.16/0.4, 1/(2·0.8) + 0.5·0.32/0.8
[1.45, 0.825]
"""
from __future__ import annotations

import warnings

import numpy as np

from onlinelab.bounds.base import TOL, Bound
from onlinelab.errors import NumericalWarning

STEP_FACTOR = 100.0   # "orders of magnitude past": two of them


def first_step(schedule: str, c: float, t0: float) -> float:
    """τ₁, the largest step of a schedule c, c/(k + t₀) or c/√(k + t₀) (k = 1, 2, …; each non-increasing for
    t₀ > −1).

    Parameters
    ----------
    schedule : {"constant", "inverse", "inverse_sqrt"}
        The schedule's kind.
    c : float
        Its constant.
    t0 : float
        Its offset.
    """
    if schedule == "constant":
        return float(c)
    base = 1.0 + float(t0)
    return float(c / (base if schedule == "inverse" else np.sqrt(base)))


def sgd_average(dist0: float, sigma2: float, L: float, tau_max: float, sums, extra: dict | None = None) -> Bound:
    """theory §4 Theorem 3.3: ‖w⁰ − ŵ‖²/(2Σ τ_k) + σ² Σ τ_k²/Σ τ_k on E E(w̄) − E*, for τ_k ≤ 1/L.

    Parameters
    ----------
    dist0 : float
        ‖w⁰ − ŵ‖².
    sigma2 : float
        σ², the variance bound of the stochastic gradients.
    L : float
        The smoothness constant of E.
    tau_max : float
        The largest step the learner takes (τ₁ for the non-increasing schedules).
    sums : sequence of (float, float)
        (Σ τ_k, Σ τ_k²) at each checkpoint, as the learner's state held them; a checkpoint with Σ τ_k = 0 (no
        step yet) bounds nothing (inf).
    extra : dict or None, default None
        Further assumptions (statement → held).
    """
    s = np.asarray(list(sums), dtype=float).reshape(-1, 2)
    s1, s2 = s[:, 0], s[:, 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(s1 > 0, dist0 / (2 * s1) + sigma2 * s2 / s1, np.inf)
    assumptions = {f"every step τ_k ≤ 1/L = {1 / L:.4g} (largest τ = {tau_max:.4g})": tau_max <= (1 + TOL) / L,
                   **(extra or {})}
    return Bound("sgd-average", "theory §4 Theorem 3.3 [derived]", "‖w⁰ − ŵ‖²/(2Στ_k) + σ²·Στ_k²/Στ_k",
                 assumptions, lambda stats: _padded(values, stats), metric="suboptimality")


def _padded(values: np.ndarray, stats) -> np.ndarray:
    """The values at the run's checkpoints; checkpoints not recorded (before a resume) bound nothing."""
    n = len(values) if stats is None else len(stats.t)
    return np.concatenate([np.full(max(n - len(values), 0), np.inf), values[-n:] if n else values[:0]])


def step_warning(learner: str, param: str, value: float, largest: float, where: str) -> bool:
    """Warn (`NumericalWarning`) when ``value`` exceeds ``STEP_FACTOR × largest``; return whether it did.

    Parameters
    ----------
    learner : str
        The learner's name, for the message.
    param : str
        The parameter's name (``"eta"``, ``"step"``).
    value : float
        Its value.
    largest : float
        The largest value any of the learner's bounds assumes (over every dimension it may meet).
    where : str
        Which bound assumes it, e.g. ``"η ≤ 1/2 (theory §2)"``.
    """
    if value <= STEP_FACTOR * largest:
        return False
    warnings.warn(f"{learner}: {param} = {value!r} is more than {STEP_FACTOR:g} times the largest step any of its "
                  f"bounds assumes ({where}); its updates will be numerically unstable and no bound applies. Use "
                  f"{param} ≤ {largest:g}, or leave {param} unset for the tuned value", NumericalWarning, stacklevel=3)
    return True
