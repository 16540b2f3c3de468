"""Numerical health of a learner, checked at metric checkpoints only (never per round): non-finite plays are an
error, unstable updates and a plan that left its domain are a warning; each message names the step parameter.

Why at checkpoints: a run's hot path (a round, or a compiled block of rounds) pays nothing, and a checkpoint
already holds what tells a learner went wrong:

- the cumulative expected loss: a play with a NaN or an infinite entry makes it non-finite, so
  `NumericalError` is raised at the first checkpoint after the play (the completed checkpoints stay in
  its ``partial`` result);
- a learner's own ``unstable_rounds`` diagnostic (log-det OMD counts the rounds where ``W⁻¹ + ηL̃`` was not
  positive definite, theory §1.4, docs/theory/01-bandit-pca.md): above zero, one `NumericalWarning` per learner and run;
- a state whose ``lam`` field holds eigenvalues of a density matrix (or a probability vector): an entry
  below −`PLAN_TOL` or a sum off 1 by more than `PLAN_TOL` is a `NumericalWarning` too.

>>> import warnings
>>> import onlinelab as ol
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     _ = ol.simulate("spiked-covariance", [ol.make_learner("logdet-omd", eta=1e4)], T=20, seed=0)
>>> any("eta" in str(w.message) for w in caught if w.category is ol.errors.NumericalWarning)
True
"""
from __future__ import annotations

import warnings

import numpy as np

from onlinelab.errors import NumericalError, NumericalWarning

STEP_PARAMS = ("eta", "step", "gamma", "lr", "learning_rate", "step_size")  # the names a step may go by
PLAN_TOL = 1e-9   # a density matrix's eigenvalues sum to 1 (and are ≥ 0) up to rounding; 1e-9 is far above it


def step_params(learner) -> str:
    """``"eta = 1e+06, gamma = 0"``: the learner's step-like parameters as set, for messages.

    Parameters
    ----------
    learner : Learner
        The learner whose parameters to name.
    """
    try:
        params = learner.get_params()
    except Exception:  # noqa: BLE001  (a user learner without get_params: name none)
        params = {}
    named = [f"{k} = {params[k]!r}" for k in STEP_PARAMS if k in params]
    return ", ".join(named) if named else "its step size"


def check(slot, t: int, extra: dict) -> None:
    """Check one slot at checkpoint ``t`` (called by `onlinelab.core.slot.Slot.checkpoint`).

    Parameters
    ----------
    slot : Slot
        The learner's slot (its learner, state, recorder and label).
    t : int
        The checkpoint round.
    extra : dict
        The checkpoint's learner diagnostics and environment metrics.

    Raises
    ------
    NumericalError
        When the cumulative expected loss is NaN or infinite (the plays were).
    """
    cum = slot.recorder.cum_expected
    if not np.all(np.isfinite(cum)):
        bad = np.flatnonzero(~np.isfinite(cum))
        raise NumericalError(
            f"learner {slot.label!r} ({type(slot.learner).__name__}) played non-finite values (NaN or inf) by round "
            f"{t}: the cumulative loss of replicate(s) {bad[:5].tolist()} is {float(cum[bad[0]])}; the updates "
            "diverged. "
            f"Lower {step_params(slot.learner)} (a step past its bounds' assumptions, result.bounds(), diverges)")
    if getattr(slot, "numerics_warned", False):
        return
    message = _unstable(slot, t, extra) or _plan(slot, t)
    if message:
        slot.numerics_warned = True   # once per learner and run
        warnings.warn(message, NumericalWarning, stacklevel=2)


def _unstable(slot, t, extra) -> str | None:
    count = extra.get("unstable_rounds")
    if count is None or not np.any(np.asarray(count) > 0):
        return None
    return (f"learner {slot.label!r} ({type(slot.learner).__name__}) is numerically unstable: a mean "
            f"{float(np.mean(count)):.4g} of its first {t} rounds had an update that was not positive definite "
            f"(the unstable_rounds metric); its numbers are not what the theory describes. Lower "
            f"{step_params(slot.learner)}")


def _plan(slot, t) -> str | None:
    lam = getattr(slot.state, "lam", None)
    if not isinstance(lam, np.ndarray) or lam.ndim != 2 or lam.dtype.kind != "f":
        return None
    lowest, off = float(np.min(lam)), float(np.max(np.abs(lam.sum(axis=1) - 1.0)))
    if np.isfinite(lowest) and lowest >= -PLAN_TOL and off <= PLAN_TOL:
        return None
    return (f"learner {slot.label!r} ({type(slot.learner).__name__}) no longer plays a density matrix at round {t}: "
            f"its eigenvalues reach {lowest:.3g} and their sums are off 1 by {off:.3g} (tolerance {PLAN_TOL:g}). "
            f"Lower {step_params(slot.learner)}")
