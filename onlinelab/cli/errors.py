"""How the command line ends: exit codes, one-line messages instead of tracebacks, a closed pipe.

Exit status (as in the README): 0 success; 2 bad input (an `onlinelab.errors.OnlinelabError`
raised before a run started); 1 a run that failed midway (its completed part is saved) or an
unexpected error; 3 a bound whose assumptions held was violated; 130 interrupted.  A raw
traceback is shown only with ``--debug``.  When the reader of stdout goes away
(``onlinelab list | head -1``) the command stops quietly with status 0.

>>> import argparse
>>> def boom(args):
...     raise ValueError("bad")
>>> import io
>>> run_command(boom, argparse.Namespace(), debug=False, stderr=io.StringIO())
1
"""
from __future__ import annotations

import errno
import os
import sys
import traceback

from onlinelab.errors import OnlinelabError

BAD_INPUT, FAILED, VIOLATED, INTERRUPTED = 2, 1, 3, 130
DISK_FULL = (errno.ENOSPC, errno.EDQUOT)   # an OSError with one of these is the machine's state, not a bug


def _say(stream, text: str) -> None:
    print(text, file=stream if stream is not None else sys.stderr)


def _silence_stdout() -> None:
    """After a closed pipe, point stdout at /dev/null so that the interpreter's final flush cannot fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def run_command(func, args, *, debug: bool = False, stderr=None) -> int:
    """Run ``func(args)`` and turn what it raises into a message and an exit status.

    Parameters
    ----------
    func : callable
        The subcommand, returning its exit status.
    args : argparse.Namespace
        Parsed command-line arguments.
    debug : bool, default False
        Re-raise instead (the full traceback).
    stderr : file or None, default None
        Where messages go (None: ``sys.stderr`` at the time of the error).
    """
    try:
        return func(args)
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except KeyboardInterrupt:
        if debug:
            raise
        _say(stderr, "interrupted")
        return INTERRUPTED
    except OnlinelabError as exc:
        if debug:
            raise
        run_dir = getattr(exc, "run_dir", None)
        if run_dir is not None:
            _say(stderr, f"error: {exc}\nthe completed part of the run is in {run_dir}")
            return FAILED
        _say(stderr, f"error: {exc}")
        return BAD_INPUT
    except OSError as exc:
        if debug:
            raise
        if exc.errno not in DISK_FULL:
            return _unexpected(exc, stderr)
        where = f" writing {exc.filename}" if exc.filename else ""
        _say(stderr, f"error: the disk is full{where} ({exc.strerror}); free some space and run the command again "
                     "(a run directory left unfinished is finished by `onlinelab resume DIR`)")
        return FAILED
    except Exception as exc:  # noqa: BLE001 — the last line of defence against a raw traceback
        if debug:
            raise
        return _unexpected(exc, stderr)


def _unexpected(exc: BaseException, stderr) -> int:
    """Say that ``exc`` is unexpected (a bug), where it was raised, and how to see the traceback."""
    where = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    at = f" (at {os.path.basename(where.filename)}:{where.lineno})" if where else ""
    _say(stderr, f"error: unexpected {type(exc).__name__}: {exc}{at}; this is a bug in onlinelab or in a "
                 "plugin; rerun with --debug for the full traceback")
    return FAILED
