"""A dependency-free progress bar on stderr, redrawn at most ten times a second.

>>> bar = Progress(total=10, stream=None)
>>> bar.advance(10); bar.close()
"""
from __future__ import annotations

import sys
import time


class Progress:
    def __init__(self, total: int, stream=sys.stderr, width: int = 30, label: str = "rounds"):
        self.total, self.stream, self.width, self.label = max(int(total), 1), stream, width, label
        self.done, self.start, self._last = 0, time.perf_counter(), 0.0
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self._shown = -1

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = time.perf_counter()
        if self.stream is None:
            return
        frac = min(self.done / self.total, 1.0)
        if not self.tty:  # a log file: one line per tenth, no carriage returns
            tenth = int(frac * 10)
            if tenth > self._shown:
                self._shown = tenth
                self.stream.write(f"{frac:6.1%} {self.done}/{self.total} {self.label}  {now - self.start:6.1f}s\n")
                self.stream.flush()
            return
        if now - self._last > 0.1 or self.done >= self.total:
            self._last = now
            filled = int(frac * self.width)
            self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {frac:6.1%} "
                              f"{self.done}/{self.total} {self.label}  {now - self.start:6.1f}s")
            self.stream.flush()

    def close(self) -> None:
        if self.stream is not None and self.tty:
            self.stream.write("\n")
            self.stream.flush()
