"""A class run's progress: a bar on a terminal, plain lines in a log.

Instructor tooling (never ships). The bar (tqdm) shows the learners done out of the class,
how many jobs are running and how many failed, the time elapsed and the ETA; where the output
is not a terminal (a log file, CI), each finished learner is one line with the same figures and
the learner's time by part (nbgrader's execution, the scores of record, the learner's tests).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

PARTS = ("nbgrader", "record", "tests")  # Outcome.parts' keys, in the order they run


def clock(seconds: float) -> str:
    """``h:mm:ss`` or ``m:ss``."""
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def parts_text(parts: dict[str, float]) -> str:
    """``nbgrader 21 s, record 6 s, tests 3 s`` (the parts that ran)."""
    return ", ".join(f"{name} {parts[name]:.0f} s" for name in PARTS if name in parts)


class Progress:
    """Follows ``total`` learners graded by ``threads`` jobs at a time. ``tty``: draw a bar
    (default: whether ``stream`` is a terminal)."""

    def __init__(self, total: int, threads: int = 1, stream: TextIO | None = None,
                 tty: bool | None = None):
        self.total, self.threads = total, threads
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.done = self.failed = self.graded = self.now_running = 0
        self.start = time.monotonic()
        self.bar = None
        if self.tty:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="learner", file=self.stream, dynamic_ncols=True,
                            desc="autograde")
        else:
            print(f"autograde: {total} learners, {threads} at a time", file=self.stream,
                  flush=True)

    def eta(self) -> float | None:
        """Seconds left, from the learners graded so far (skipped ones cost nothing)."""
        if not self.graded:
            return None
        elapsed = time.monotonic() - self.start
        return elapsed / self.graded * (self.total - self.done)

    def running(self, count: int) -> None:
        self.now_running = count
        if self.bar is not None:
            self.bar.set_postfix(running=count, failed=self.failed)

    def finished(self, student: str, outcome) -> None:
        """One learner is done (an ``Outcome``)."""
        self.done += 1
        self.failed += outcome.status == "failed"
        self.graded += outcome.status != "skipped"
        if self.bar is not None:
            self.bar.set_postfix(running=self.now_running, failed=self.failed)
            self.bar.update(1)
            return
        parts = parts_text(getattr(outcome, "parts", {}) or {})
        eta = self.eta()
        print(f"[{self.done}/{self.total}] {student}: {outcome.status}"
              + (f" in {sum(outcome.parts.values()):.0f} s ({parts})" if parts else "")
              + f"; running {self.now_running}, failed {self.failed}, elapsed "
              f"{clock(time.monotonic() - self.start)}, ETA "
              + (clock(eta) if eta is not None else "?"), file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
