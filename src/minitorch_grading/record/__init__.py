"""Scores of record: graded outside the learner's kernel, written into nbgrader's gradebook.

    python -m minitorch_grading.record [--course-dir DIR] [--seed N] [--student GLOB]

Instructor tooling (never ships). The graded notebook cells run inside the learner's kernel,
which the learner controls entirely (what it imports, what it patches, how a cell ends): their
results are feedback. The scores of record come from here:

- each submission's ``minitorch/tensor.py`` runs in a worker process (``minitorch_course.worker.main``:
  a fresh interpreter in a temporary folder, guarded by an audit hook: it can read nothing but
  its own folder, the standard library and NumPy, write nothing, start nothing, import no
  autograd library) that returns the learner's outputs and gradients as data;
- the expected values (torch float64, and the engine cases' own: lab 00's hand-built graphs go
  to the worker as programs, ``minitorch_course.engine_checks``) and every comparison are
  computed here, in the instructor's process, with the suites' own comparisons and diagnoses
  (``op_checks.compare_forward`` / ``compare_backward``, the engine cases' judges);
- quiz and exercise answers are read from the submitted notebook's source with
  ``ast.literal_eval`` (never executed) and judged by the instructor's own test cells (hidden
  tests included), run here on those plain values;
- graded inputs keep their shapes and edge cases, but their values are drawn from a seed chosen
  at grading time (recorded in the report and the feedback; ``python -m minitorch_course.check --seed N`` reproduces);
- what a graded cell checks is read from the instructor's notebook (``check_ops(...)`` /
  ``check_engine(...)`` calls, parsed, not run), so the record grades exactly those rows and
  suites, all-or-nothing per cell as nbgrader does.

The scores are written into the gradebook (``Grade.auto_score``), so formgrader, feedback and
export show them; a human's ``manual_score`` is kept. Flags for the instructor (an autograd
import, a refused file access, an in-kernel score above the record's) go to ``reports/record-<time>.{txt,json}``.
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
import time
from pathlib import Path

from minitorch_course.quiz import read_literals as literal_answers
from minitorch_grading import course, sandbox
from minitorch_grading.record.answers import judge_answer
from minitorch_grading.record.cells import Check, GradedCell, graded_cells
from minitorch_grading.record.gradebook import write_gradebook, write_record
from minitorch_grading.record.judging import judge_engine, judge_task
from minitorch_grading.record.planning import Plan, Task, mlp_seeds, mlp_task, plan
from minitorch_grading.record.report import report_text, write_report
from minitorch_grading.record.submission import Record, grade_submission, say
from minitorch_grading.record.worker_run import WALL, WORKER_BUDGET, run_worker, worker_folder

# The record's names that the class run, the parallel jobs, the docs and the tests use as
# ``record.X``; each is owned by the module named above. The class itself is below.
__all__ = ["WALL", "WORKER_BUDGET", "Check", "GradedCell", "Plan", "Record", "Task",
           "grade_submission", "graded_cells", "judge_answer", "judge_engine", "judge_task",
           "literal_answers", "main", "mlp_seeds", "mlp_task", "new_seed", "plan",
           "record_class", "report_text", "run_worker", "say", "worker_folder",
           "write_gradebook", "write_record", "write_report"]


# ---------------------------------------------------------------- the class
def new_seed() -> int:
    """A grading seed chosen now (nobody can know it when writing tensor.py)."""
    return secrets.randbelow(2**31 - 1) + 1


def record_class(course_dir: Path, students: list[str] | None = None, seed: int | None = None,
                 budget: float = WORKER_BUDGET, skip: dict[str, set[str]] | None = None,
                 log=print, snapshots: dict[str, Path] | None = None,
                 unsafe: bool = False) -> tuple[int, list[Record], Path]:
    """Grade every learner of ``submitted/`` (or ``students``) for the record, in one call;
    writes the gradebook, the feedback cells and ``reports/record-<time>.{txt,json}``.
    ``skip``: {student: notebooks} left alone (flagged for manual grading by the class run).
    ``budget``: seconds of each worker's clock for all its cases. ``snapshots``: {student:
    the folder the class run copied before running anything} graded instead of submitted/.
    Each worker runs in the OS sandbox (``minitorch_grading.sandbox``); ``unsafe``: without."""
    course_dir = course_dir.expanduser().resolve()
    if not unsafe:
        sandbox.check()  # before planning: a missing sandbox is said at once
    seed = new_seed() if seed is None else int(seed)
    cells = graded_cells(course_dir / "source" / course.ASSIGNMENT)
    start = time.monotonic()
    plan_ = plan(cells, seed, course_dir / "source" / course.ASSIGNMENT)
    log(f"record: seed {seed}, {len(plan_.tasks)} cases planned in "
        f"{time.monotonic() - start:.0f} s")
    submitted = course_dir / "submitted"
    names = students if students is not None else sorted(
        p.name for p in submitted.iterdir() if p.is_dir()) if submitted.is_dir() else []
    records = []
    with tempfile.TemporaryDirectory(prefix="minitorch-record-") as taken:
        for i, student in enumerate(names, 1):
            folder = (snapshots or {}).get(student) or _snapshot(
                submitted / student / course.ASSIGNMENT, Path(taken) / student)
            course.upgrade_submission(folder, course_dir / "source" / course.ASSIGNMENT)
            rec = grade_submission(folder, student, plan_, WALL, budget, unsafe)
            write_record(course_dir, rec, (skip or {}).get(student, ()))
            got, most = rec.total
            log(f"[{i}/{len(names)}] {student}: record {got:g}/{most:g} in {rec.seconds:.0f} s"
                + (f" (the tests' job {rec.tests_seconds:.0f} s)" if rec.tests_seconds else "")
                + (f"; FLAGGED: {'; '.join(rec.flags)}" if rec.flags else ""))
            records.append(rec)
    path = write_report(course_dir, seed, records, time.monotonic() - start)
    return seed, records, path


def _snapshot(folder: Path, dest: Path) -> Path:
    """A copy of a submission folder without links (``job.snapshot``); an unreadable one
    grades as missing."""
    from minitorch_grading.job import snapshot

    try:
        snapshot(folder, dest)
    except (OSError, RuntimeError):
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True, exist_ok=True)
    return dest



def main(argv: list[str] | None = None) -> int:
    """``python -m minitorch_grading.record``: the record of every submission."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m minitorch_grading.record",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--course-dir", type=Path, default=course.COURSE_DIR)
    parser.add_argument("--seed", type=int, default=None, help="default: chosen now")
    parser.add_argument("--student", action="append", help="only these learners")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="run learner code without the OS sandbox (never for a real class)")
    args = parser.parse_args(argv)
    try:
        seed, records, path = record_class(args.course_dir, args.student, args.seed,
                                           unsafe=args.unsafe_no_sandbox)
    except sandbox.SandboxUnavailable as err:
        raise SystemExit(f"refusing to grade: {err}") from None
    print(report_text(seed, records, 0.0), end="")
    print(f"report: {path}")
    return 0
