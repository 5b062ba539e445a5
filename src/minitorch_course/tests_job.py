"""The learner's tests in the score of record's sandboxed job: ``examplar.grade``, as data.

Instructor tooling (``minitorch_grading.learner_tests`` starts it inside the per-learner
sandbox; it runs nothing of the learner's outside that sandbox). The job's folder holds the
course-provided packages (``minitorch`` with the public stub, ``minitorch_course``) and the
submission's test files in ``my_tests/``; the implementation set (wheats and chaffs, as text)
comes on stdin as JSON and is never written to the job's folder. The learner's tests run against
each implementation in processes forked from this one (``examplar.run_many``), with torch
available (only course-provided implementations are under test here).

The answer, ``{lab: LabGrade.to_dict()}``, goes to this process's original stdout, which the
forked runs never hold (``examplar.CHILD_CLOSES``) and cannot reach through ``/proc`` (this
process is made non-dumpable first). The instructor's process checks it against the set it
sent and computes the points itself.
"""

from __future__ import annotations

import ctypes
import json
import os
import sys


def _not_dumpable() -> None:
    """prctl(PR_SET_DUMPABLE, 0): other processes of this uid (the forked runs, the learner's
    tests) cannot open this one's /proc/<pid>/fd, mem or environ."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
    except (OSError, AttributeError):
        pass


def main() -> None:
    job = json.loads(sys.stdin.read())
    answer = os.fdopen(os.dup(1), "w", encoding="utf-8", closefd=True)
    os.dup2(2, 1)  # anything printed here goes to stderr, never into the answer
    sys.stdout = sys.stderr
    _not_dumpable()
    here = job["folder"]
    sys.path.insert(0, here)
    from minitorch_course import examplar

    examplar.CHILD_CLOSES.append(answer.fileno())
    examplar.ISOLATE = True  # each run: its own /tmp, the job read-only (a chaff run looks
    #                          like a wheat's from inside)
    impls = examplar.ImplSet(job["set"], [], [])
    for item in job["impls"]:
        impl = examplar.Impl(str(item["name"]), str(item["role"]), str(item["kind"]),
                             tuple(item["labs"]), source=str(item["source"]),
                             faults=tuple(item["faults"]))
        (impls.wheats if impl.role == "wheat" else impls.chaffs).append(impl)
    grades = examplar.grade(os.path.join(here, examplar.FOLDER), impls, job["labs"],
                            timeout=float(job["timeout"]))
    answer.write(json.dumps({lab: g.to_dict() for lab, g in grades.items()}))
    answer.flush()


if __name__ == "__main__":
    main()
