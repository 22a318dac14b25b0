"""Build progress on stderr: a bar that redraws itself on a terminal, plain lines in CI logs.

Nothing is shown for a build that finishes within ``DELAY`` seconds. On a
terminal the bar is redrawn at most every ``TTY_EVERY`` seconds and cleared at
the end; elsewhere (a CI log) one line is printed every ``LOG_EVERY`` seconds.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

DELAY = 1.0
TTY_EVERY = 0.1
LOG_EVERY = 10.0
WIDTH = 30


class Progress:
    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        tty: bool | None = None,
        clock=time.monotonic,
        delay: float = DELAY,
        log_every: float = LOG_EVERY,
    ):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.clock = clock
        self.start = clock()
        self.delay = delay
        self.every = TTY_EVERY if self.tty else log_every
        self.last = None  # when the last update was shown
        self.drawn = False

    def __call__(self, done: int, total: int, path: str) -> None:
        now = self.clock()
        if now - self.start < self.delay and done < total:
            return
        if self.last is not None and now - self.last < self.every and done < total:
            return
        if self.last is None and done >= total:
            return  # finished within the delay: nothing to show
        self.last = now
        share = done / total if total else 1.0
        if self.tty:
            filled = int(WIDTH * share)
            bar = "#" * filled + "-" * (WIDTH - filled)
            self.stream.write(f"\r\x1b[2Kpodium: [{bar}] {share:4.0%} {done:,}/{total:,} files")
            self.drawn = True
        else:
            self.stream.write(f"podium: rendered {done:,} of {total:,} files ({share:.0%}, {now - self.start:.0f} s)\n")
        self.stream.flush()

    def finish(self) -> None:
        """Clear the bar (terminal only) so the closing lines start on a clean line."""
        if self.tty and self.drawn:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
