"""Progress of a run on stderr: a tqdm bar with rate and ETA on a terminal, one line per tenth in a log file.

>>> bar = Progress(total=10, stream=None)
>>> bar.advance(10); bar.close()
"""
from __future__ import annotations

import sys
import time


def _clock(seconds: float) -> str:
    m, s = divmod(int(round(seconds)), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Progress:
    """Count ``total`` units (rounds) of work and show how far a run is and how long it has left.

    Parameters
    ----------
    total : int
        Units of work in the run.
    stream : file or None, default sys.stderr
        Where to draw; None draws nothing.
    label : str, default "rounds"
        The unit's name.
    """

    def __init__(self, total: int, stream=sys.stderr, label: str = "rounds"):
        self.total, self.stream, self.label = max(int(total), 1), stream, label
        self.done, self.start = 0, time.perf_counter()
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self._shown = -1
        self._bar = None
        if stream is not None and self.tty:
            from tqdm import tqdm
            self._bar = tqdm(total=self.total, file=stream, unit=label, mininterval=0.1, dynamic_ncols=True,
                             leave=True)

    def advance(self, n: int = 1) -> None:
        """Record ``n`` more units done."""
        self.done += n
        if self._bar is not None:
            self._bar.update(n)
            return
        if self.stream is None:
            return
        frac = min(self.done / self.total, 1.0)
        tenth = int(frac * 10)
        if tenth > self._shown:  # a log file: one line per tenth, no carriage returns
            self._shown = tenth
            spent = time.perf_counter() - self.start
            eta = spent * (1 - frac) / frac if frac > 0 else float("nan")
            left = f"ETA {_clock(eta)}" if frac < 1 else "done"
            self.stream.write(f"{frac:6.1%} {self.done}/{self.total} {self.label}  {_clock(spent)} elapsed, {left}\n")
            self.stream.flush()

    def close(self) -> None:
        """Finish the bar."""
        if self._bar is not None:
            self._bar.close()
