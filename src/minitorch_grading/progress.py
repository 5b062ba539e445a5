"""A class run's progress: a bar on a terminal, plain lines in a log.

Instructor tooling (never ships). The bar (tqdm) shows the learners done out of the class,
how many jobs are running and how many failed, the time elapsed and the ETA; where the output
is not a terminal (a log file, CI), each finished learner is one line with the same figures and
the learner's time by part (nbgrader's execution, the scores of record, the learner's tests),
wall and CPU, as the class report gives it (:func:`time_text`: one format for both).
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from minitorch_grading.job import PARTS


def clock(seconds: float) -> str:
    """``h:mm:ss`` or ``m:ss``."""
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def share(cpu: float, wall: float) -> str:
    """CPU time as a share of wall time (of one core, or of ``cores`` x the wall time)."""
    return f"{cpu / wall:.0%}" if wall > 0 else "?"


def summed(by_part: list[dict[str, float]]) -> dict[str, float]:
    """{part: seconds} added up over several jobs, in :data:`PARTS` order."""
    total: dict[str, float] = {}
    for parts in by_part:
        for name, seconds in parts.items():
            total[name] = total.get(name, 0.0) + seconds
    return {name: total[name] for name in sorted(total, key=_order)}


def _order(name: str) -> int:
    return PARTS.index(name) if name in PARTS else len(PARTS)


def time_text(wall: dict[str, float], cpu: dict[str, float]) -> str:
    """A job's time, every part counted once, wall and CPU: ``70 s, 64 s CPU (91 %):
    nbgrader 40 s / 38 s CPU, record 3 s / 2 s CPU, tests 27 s / 24 s CPU`` (the parts that
    ran; CPU as a share of one core's wall time)."""
    took, used = sum(wall.values()), sum(cpu.values())
    parts = ", ".join(f"{name} {wall[name]:.0f} s / {cpu.get(name, 0.0):.0f} s CPU"
                      for name in sorted(wall, key=_order))
    return f"{took:.0f} s, {used:.0f} s CPU ({share(used, took)})" + (f": {parts}" if parts else "")


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

    def finished(self, student: str, result) -> None:
        """One learner is done (a ``classrun.LearnerResult``)."""
        self.done += 1
        self.failed += result.status == "failed"
        self.graded += result.status != "skipped"
        if self.bar is not None:
            self.bar.set_postfix(running=self.now_running, failed=self.failed)
            self.bar.update(1)
            return
        eta = self.eta()
        print(f"[{self.done}/{self.total}] {student}: {result.status}"
              + (f" in {time_text(result.wall, result.cpu)}" if result.wall else "")
              + f"; running {self.now_running}, failed {self.failed}, elapsed "
              f"{clock(time.monotonic() - self.start)}, ETA "
              + (clock(eta) if eta is not None else "?"), file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
