"""A time limit on user callbacks (an environment's ``emit``, an adaptive delay rule), so a run never hangs silently.

``simulate(..., callback_timeout=s)`` (config key ``[run] callback_timeout``) runs every call of user code that
the loop waits on through `call`: an environment's ``emit`` and ``emit_block``, and an adaptive delay
rule.  A call still running after ``s`` seconds is interrupted with a
`onlinelab.errors.SimulationError` that names the callback and the round, and the run's completed
checkpoints stay in the error's ``.partial``.  While it runs, a call that takes longer than
`NOTICE_S` seconds logs one line every `NOTICE_S` seconds (logger ``onlinelab.core.watchdog``,
printed on stderr by default) saying what the loop waits on, so a long wait is never silent.

How: ``signal.setitimer(ITIMER_REAL)`` and a ``SIGALRM`` handler, which exist on POSIX only and may be
installed by the main thread only.  Elsewhere (Windows, a worker thread) asking for a limit is a
`onlinelab.errors.ConfigError` that says so; without a limit nothing is installed and `call`
is a plain call.  Python runs the handler between bytecodes, so a callback stuck inside one long C call (a
huge BLAS product) is interrupted when that call returns.  A ``SIGALRM`` handler of your own is put back
when the run ends.  Theory: the protocol of a round, docs/guide/writing-environments.md.

>>> with time_limit(None):
...     call("emit of environment 'x'", 1, max, 2, 3)
3
"""
from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time

from onlinelab.errors import ConfigError, SimulationError

NOTICE_S = 10.0          # a call running this long logs what the loop waits on, and again every NOTICE_S
_log = logging.getLogger(__name__)
_state: dict = {"limit": None, "current": None}


def check_timeout(value, field: str = "callback_timeout"):
    """``value`` checked: None (no limit) or a positive number of seconds.

    Parameters
    ----------
    value : float or None
        The limit in seconds.
    field : str, default "callback_timeout"
        Its name in the message.
    """
    if value is None:
        return None
    from onlinelab.core import validation as v
    seconds = v.real(field, value)
    if seconds <= 0:
        raise ConfigError(f"{field} must be a number of seconds > 0, got {value!r}; e.g. {field} = 60, or leave it "
                          "unset for no limit")
    return seconds


@contextlib.contextmanager
def time_limit(seconds, field: str = "callback_timeout"):
    """Within the block, `call` interrupts a callback still running after ``seconds`` (None: no limit).

    Parameters
    ----------
    seconds : float or None
        The limit per call.
    field : str, default "callback_timeout"
        The name of the setting, for messages.
    """
    seconds = check_timeout(seconds, field)
    if seconds is None or _state["limit"] is not None:   # no limit, or one already in force (a nested run)
        yield
        return
    if not hasattr(signal, "setitimer"):
        raise ConfigError(f"{field} = {seconds:g} needs signal.setitimer, which this platform lacks (POSIX only); "
                          f"leave {field} unset here")
    if threading.current_thread() is not threading.main_thread():
        raise ConfigError(f"{field} = {seconds:g} works only in the main thread (a SIGALRM handler); run the "
                          f"simulation in the main thread or leave {field} unset")
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    _state["limit"] = seconds
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _state.update(limit=None, current=None)
        signal.signal(signal.SIGALRM, previous)


def call(what: str, t: int, fn, *args):
    """``fn(*args)``, under the limit of the enclosing `time_limit` (a plain call when there is none).

    Parameters
    ----------
    what : str
        The callback as the messages name it (``"emit of environment 'drift(d=4)'"``).
    t : int
        The round.
    fn : callable
        The callback.
    *args
        Its arguments.
    """
    limit = _state["limit"]
    if limit is None or _state["current"] is not None:   # no limit, or inside a call already timed
        return fn(*args)
    _state["current"] = (what, t, time.monotonic())
    signal.setitimer(signal.ITIMER_REAL, min(limit, NOTICE_S))
    try:
        return fn(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _state["current"] = None


def _on_alarm(signum, frame):
    current, limit = _state["current"], _state["limit"]
    if current is None or limit is None:
        return
    what, t, start = current
    waited = time.monotonic() - start
    left = limit - waited
    if left <= 1e-3:
        _state["current"] = None
        raise SimulationError(f"the {what} did not return within callback_timeout = {limit:g} s in round {t}; it "
                              "may loop forever or wait on something that never comes: fix it, or raise "
                              "callback_timeout if it is merely slow")
    _log.warning("waiting on the %s in round %d: %.3g s so far (callback_timeout = %g s)", what, t, waited, limit)
    signal.setitimer(signal.ITIMER_REAL, min(left, NOTICE_S))
