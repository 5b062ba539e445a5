"""Time the grading of learners' own tests (issue 29), submission by submission, serially.

    MINITORCH_IMPL=reference PYTHONPATH=src python benchmarks/learner_tests.py [--class N]

A "class" of N submissions cycles through the proof sets of solutions/learner_tests/ (model,
weak, the skeletons, failing, fingerprint), each graded on all five labs against the course's
wheats and chaffs, as the score of record would per learner. Prints wall and CPU seconds
(this process and its forked runs) per submission and in total, and the load average.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

from minitorch_authoring import stubgen
from minitorch_course import examplar

ROOT = Path(__file__).resolve().parents[1]
SETS = ("model", "weak", "skeletons", "failing", "fingerprint")


def _cpu() -> float:
    own, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--class", dest="size", type=int, default=len(SETS))
    args = parser.parse_args()
    impls = examplar.course_set()
    examplar.preload()
    with tempfile.TemporaryDirectory() as tmp:
        skeletons = Path(tmp) / "skeletons"
        skeletons.mkdir()
        for name, text in stubgen.skeletons().items():
            (skeletons / name).write_text(text, encoding="utf-8")
        start_wall, start_cpu = time.perf_counter(), _cpu()
        print(f"load average at start: {os.getloadavg()[0]:.1f}")
        for i in range(args.size):
            which = SETS[i % len(SETS)]
            folder = skeletons if which == "skeletons" else ROOT / "solutions/learner_tests" / which
            copy = Path(tmp) / f"learner{i}"
            shutil.copytree(folder, copy)
            wall, cpu = time.perf_counter(), _cpu()
            grades = examplar.grade(copy, impls)
            score = sum(g.score for g in grades.values()) / len(grades)
            print(f"learner {i:2d} ({which:11s}) score {score:4.2f}  "
                  f"{time.perf_counter() - wall:6.1f} s wall  {_cpu() - cpu:6.1f} s CPU")
        print(f"total: {args.size} submissions, {time.perf_counter() - start_wall:.1f} s wall, "
              f"{_cpu() - start_cpu:.1f} s CPU; load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
