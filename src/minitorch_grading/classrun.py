"""The class run: grade every submission of a course directory, learner by learner, and report.

    python -m minitorch_grading.classrun autograde [--course-dir DIR] [--budget 60] [--force]
                                                   [--workers N | --scheduler ADDRESS | --serial]
    python -m minitorch_grading.classrun export [--course-dir DIR]

By default the learners' jobs run in parallel on a Dask cluster (``minitorch_grading.parallel``:
a local one, one worker per core, or ``--scheduler``'s) and their results are merged here in
learner-id order; ``--serial`` (and :func:`class_run` below) runs the same jobs
(:func:`grade_job`: nbgrader, then the scores of record and the learner's tests) one after
another in this process. Each learner's time is counted by part, wall and CPU, once
(``job.Meter``), and shown the same way in the progress lines and the report.

``autograde`` grades each learner of ``submitted/`` in a job of their own
(``minitorch_grading.job``), so one broken submission never stops the class and no submission
can touch anything but its own copy:

- the submission is copied (a snapshot) before any of its code runs; everything later grades
  that copy. ``nbgrader autograde fase08 --student ID`` runs in the OS sandbox
  (``minitorch_grading.sandbox``: another user, no network, nothing of the machine visible but
  the Python environment and the course's source, read-only) on a private course holding a
  copy of the snapshot and a gradebook with no learner in it (``nbgrader_job``); the autograded
  notebooks come back as data, checked here, and only this process writes the course's
  gradebook. The scores of record (``minitorch_grading.record``) are then computed from the
  same snapshot, their worker in the same kind of sandbox. Where the sandbox cannot run, the
  class run refuses, saying why and how to fix it, unless told ``--unsafe-no-sandbox``;

- before grading, each submitted notebook is compared with the gradebook's cells: a graded or
  locked cell whose ``grade_id`` was renamed or deleted, that became Markdown, or whose
  ``grade``/``solution`` flags were flipped makes nbgrader stop ("nbgrader update", "Inconsistent
  checksums") or score it 0 silently. Such a notebook is not graded: its grades are flagged
  ``needs_manual_grade`` in the gradebook, the report names it and why, and the learner's other
  notebooks are graded in one nbgrader run over a copy of the submission without it (the
  submission itself is never touched);
- a learner whose nbgrader run fails anyway is retried notebook by notebook, to grade what can be
  graded and name the notebook that fails;
- each submission has a time budget (``--budget`` seconds for all its notebooks;
  ``nbgrader_ext.BudgetedExecute``): a cell still running ``--budget`` seconds of wall time
  after the submission's nbgrader started is stopped, unless the submission's cells keep
  finishing (a busy machine: then its kernels get ``--budget`` CPU seconds); after the first
  stopped cell the remaining cells are marked timed out without running; and at
  ``WALL_FACTOR`` times the budget nbgrader and its kernels are killed, whatever runs (the
  notebooks not scored by then are flagged for manual grading).

The run ends with a report (printed, and written to ``reports/autograde-<time>.{txt,json}`` in
the course directory): who was graded, who failed and why, whose cells timed out, who needs
manual grading. Then ``grades-by-notebook.csv`` (``export``): one row per learner, one column per
graded notebook, the total and the quiz's pass mark (70 %), read with nbgrader's Gradebook API.
Grading data is never deleted: without ``--force`` a submission the gradebook already holds is
skipped (decided from the gradebook, never from what a job printed), unless its
``timestamp.txt`` is newer (submitted again).
"""

from __future__ import annotations

import csv
import fnmatch
import json
import re
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from minitorch_grading import course, nbgrader_job, progress, sandbox
from minitorch_grading.job import Job, Meter, SubmissionTooLarge, part, snapshot

BUDGET = course.NOTEBOOK_BUDGET  # --budget's default (seconds per submission): course owns it
NO_BUDGET = 0.0  # --budget 0: no budget (only the per-cell Execute.timeout)
QUIZ = "07-quiz"
QUIZ_PASS = 0.70  # the quiz is passed with 70 % of its points
EXPORT = "grades-by-notebook.csv"
REPORTS = "reports"
TIMED_OUT = ("TimeBudgetExceeded", "CellTimeoutError")  # enames, see nbgrader_ext
GRADED = ("graded", "partly graded")  # statuses whose scores of record are computed


@dataclass
class LearnerResult:
    """What a class run did with one learner's submission (a line of the report)."""

    student: str
    status: str = "graded"  # graded | partly graded | failed | skipped (already autograded)
    wall: dict[str, float] = field(default_factory=dict)  # part -> wall seconds (job.PARTS)
    cpu: dict[str, float] = field(default_factory=dict)  # part -> CPU seconds (job.Meter)
    spent: float = 0.0  # of the time budget: the kernels' CPU seconds, start-ups included
    runs: int = 0  # nbgrader runs (more than one: retried notebook by notebook)
    problems: list[str] = field(default_factory=list)  # why it failed (nbgrader's errors)
    manual: dict[str, str] = field(default_factory=dict)  # notebook -> why it needs a human
    timed_out: dict[str, int] = field(default_factory=dict)  # notebook -> graded cells
    stopped_at: str = ""  # notebook/grade_id of the cell running when the budget ran out
    scores: dict[str, list[float]] = field(default_factory=dict)  # notebook -> [score, max]
    stopped: bool = False  # a cell was stopped by the budget: nothing more ran
    stopped_after: int = 0  # wall seconds that cell was given (its timeout: the deadline's)
    killed: bool = False  # nbgrader was killed at WALL_FACTOR x budget (Clock.kill_at)


# ---------------------------------------------------------------- what the gradebook expects
def _gradebook(course_dir: Path):
    from nbgrader.api import Gradebook

    return Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}", course_id=course.COURSE_ID)


def expected_cells(course_dir: Path) -> dict[str, dict[str, dict]]:
    """{notebook: {grade_id: {cell_type, grade, solution, locked}}} from the gradebook."""
    found: dict[str, dict[str, dict]] = {}
    with _gradebook(course_dir) as gb:
        assignment = gb.find_assignment(course.ASSIGNMENT)
        for nb in assignment.notebooks:
            cells = found.setdefault(nb.name, {})
            grades = {c.name for c in nb.grade_cells}
            solutions = {c.name for c in nb.solution_cells}
            for cell in nb.source_cells:
                cells[cell.name] = {"cell_type": cell.cell_type, "grade": cell.name in grades,
                                    "solution": cell.name in solutions, "locked": cell.locked}
    return found


def _graded_cells(cells) -> dict[str, dict]:
    """{grade_id: flags} of a notebook's cells; TypeError for anything not shaped like cells."""
    if not isinstance(cells, list):
        raise TypeError(f"cells is a {type(cells).__name__}, not a list")
    submitted: dict[str, dict] = {}
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict):
            raise TypeError(f"cell {index} is a {type(cell).__name__}, not an object")
        metadata = cell.get("metadata", {})
        meta = (metadata.get("nbgrader") or {}) if isinstance(metadata, dict) else None
        source = cell.get("source", "")
        if not (isinstance(meta, dict) and isinstance(cell.get("cell_type", ""), str)
                and (isinstance(source, str)
                     or isinstance(source, list) and all(isinstance(s, str) for s in source))):
            raise TypeError(f"cell {index}: metadata, cell_type or source of the wrong type")
        grade_id = meta.get("grade_id")
        if grade_id and not isinstance(grade_id, str):
            raise TypeError(f"cell {index}: grade_id is a {type(grade_id).__name__}")
        if grade_id:
            submitted.setdefault(grade_id, {
                "cell_type": cell.get("cell_type"), "grade": bool(meta.get("grade")),
                "solution": bool(meta.get("solution")), "locked": bool(meta.get("locked"))})
    return submitted


def malformed(path: Path, expected: dict[str, dict]) -> str | None:
    """Why nbgrader cannot grade this submitted notebook as is (None: it can). Any JSON at all
    may come back: whatever is not shaped like a notebook is "not a readable notebook"."""
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
        submitted = _graded_cells(nb["cells"])
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as err:
        return f"not a readable notebook ({type(err).__name__}: {err})"
    problems = []
    for name, want in expected.items():
        got = submitted.get(name)
        if got is None:
            problems.append(f"cell {name} is missing (grade_id renamed or cell deleted)")
            continue
        if got["cell_type"] != want["cell_type"]:
            problems.append(f"cell {name} became {got['cell_type']} (was {want['cell_type']})")
        for flag in ("grade", "solution"):
            if got[flag] != want[flag]:
                problems.append(f"cell {name}: metadata '{flag}' changed to {got[flag]}")
    unknown = sorted(set(submitted) - set(expected))
    if unknown and problems:
        problems.append(f"unknown grade_id {', '.join(unknown)}")
    return "; ".join(problems) or None


def flag_for_manual_grading(course_dir: Path, student: str, notebook: str) -> None:
    """Mark a notebook's grades as needing a human (nbgrader's own flag, shown by formgrader)."""
    from sqlalchemy.exc import SAWarning

    with _gradebook(course_dir) as gb, warnings.catch_warnings():
        # nbgrader's own submission creation warns about its autoflush; the rows are written
        warnings.simplefilter("ignore", SAWarning)
        gb.update_or_create_student(student)
        gb.update_or_create_submission(course.ASSIGNMENT, student)
        nb = gb.find_submission_notebook(notebook, course.ASSIGNMENT, student)
        for grade in nb.grades:
            grade.auto_score = None
            if grade.manual_score is None:  # a human's grade stays (a later run re-flags)
                grade.needs_manual_grade = True
        gb.db.commit()


# ---------------------------------------------------------------- running nbgrader
def _errors(log: str) -> list[str]:
    """nbgrader's error lines, without the traceback noise."""
    lines = [line.strip() for line in log.splitlines()
             if "ERROR" in line or "NbGraderException" in line or "Inconsistent" in line
             or "nbgrader update" in line]
    return list(dict.fromkeys(lines))[:6]


def spent(log: str) -> float:
    """The seconds of budget a run's log says it spent (``nbgrader_ext.SPENT_LOG``)."""
    found = re.findall(r"time budget: \S* spent ([0-9.]+) s", log)
    return float(found[-1]) if found else 0.0


@dataclass
class Clock:
    """One submission's wall clock: its budget's deadline, and when it is killed (time.time())."""

    deadline: float = 0.0  # cells still running then are stopped (nbgrader_ext.BudgetedExecute)
    kill_at: float = 0.0  # nbgrader and its kernels are killed then (0: never)

    @classmethod
    def start(cls, budget: float) -> Clock:
        if budget == NO_BUDGET:
            return cls()
        now = time.time()
        return cls(deadline=now + budget, kill_at=now + WALL_FACTOR * budget)


WALL_FACTOR = 3.0  # a submission's nbgrader is killed at 3 x budget of wall time, whatever runs
STOPPED = re.compile(r"time budget: \S* stopped at .+ after (\d+) s$", re.M)  # STOPPED_LOG
DIED = re.compile(r"kernel died: \S* in (\S+)/(.+)$", re.M)  # nbgrader_ext.DIED_LOG


class Context:
    """What one class run's jobs share: the course directory, the jobs' setup (template
    gradebook, configuration: ``nbgrader_job.Setup``) and the learners' snapshots, in a folder
    only the instructor reads. ``unsafe``: learner code runs without the OS sandbox."""

    def __init__(self, course_dir: Path, unsafe: bool = False):
        if not unsafe:
            sandbox.check()  # raises SandboxUnavailable: why, and how to fix it
        self.course_dir = course_dir
        self.unsafe = unsafe
        self.setup = nbgrader_job.Setup(course_dir)
        self.snapshots = self.setup.folder / "snapshots"
        self.snapshots.mkdir(mode=0o700)
        self.taken: dict[str, Path] = {}  # student -> their snapshot

    def close(self) -> None:
        self.setup.close()


def _run(ctx: Context, box: Job, out: LearnerResult, budget: float,
         notebook: str | None = None, clock: Clock | None = None) -> tuple[int, str]:
    """``nbgrader autograde`` of one learner in their job; ``budget`` <= 0: no time left (not:
    no budget). Past ``clock.kill_at`` the job is killed: exit code -9 and a line saying so.
    Returns the exit code and the log (its CPU time goes to the learner's ``job.Meter``)."""
    clock = clock or Clock()
    left = max(budget, 0.001) if budget != NO_BUDGET else 0  # 0 means none to nbgrader_ext
    args = [f"--BudgetedExecute.budget={left:g}"]
    if clock.deadline:
        args.append(f"--BudgetedExecute.deadline={clock.deadline:.3f}")
    if notebook:
        args.append(f"--notebook={notebook}")
    wall = clock.kill_at - time.time() if clock.kill_at else NO_WALL
    out.runs += 1
    result = nbgrader_job.run_autograde(ctx.setup, box, out.student, args, wall)
    log = (result.stdout + result.stderr).decode("utf-8", "replace")
    if result.timed_out:
        log += f"\nERROR killed: the submission's time ran out ({KILLED})\n"
        return -9, log
    return result.returncode, log


NO_WALL = 24 * 3600.0  # --budget 0: the job still ends some day
KILLED = f"nbgrader and its kernels were killed at {WALL_FACTOR:g} x the budget of wall time"


def grade_one(ctx: Context, student: str, expected: dict[str, dict[str, dict]],
              budget: float = BUDGET, force: bool = False) -> LearnerResult:
    """Autograde one learner's submission in a job of its own; never raises for anything the
    submission holds. The submission is copied (``job.snapshot``) before anything runs; its
    notebooks run in the OS sandbox on a copy of that snapshot; what comes back is checked
    and written to the gradebook here (``nbgrader_job.import_results``). The scores of record
    come after it (:func:`grade_job`)."""
    course_dir = ctx.course_dir
    out = LearnerResult(student)
    folder = course_dir / "submitted" / student / course.ASSIGNMENT
    if not folder.is_dir():
        out.status = "failed"
        out.problems.append(f"no {course.ASSIGNMENT}/ folder in submitted/{student}/")
        return out
    if not force and graded_before(course_dir, student, folder):
        out.status = "skipped"  # decided from the gradebook, never from a job's output
        out.scores = notebook_scores(course_dir, student)
        return out
    snap = ctx.snapshots / student
    try:
        left_out = snapshot(folder, snap)
    except (SubmissionTooLarge, OSError) as err:
        out.status = "failed"
        out.problems.append(f"the submission could not be copied: {err}")
        return out
    ctx.taken[student] = snap
    course.upgrade_submission(snap, course_dir / "source" / course.ASSIGNMENT)  # older names
    if left_out:
        out.problems.append("not graded (links or special files): " + ", ".join(left_out[:5]))
    present = sorted(p.stem for p in snap.glob("*.ipynb") if p.stem in expected)
    for name in present:
        why = malformed(snap / f"{name}.ipynb", expected[name])
        if why:
            out.manual[name] = why
    if not (snap / course.GRADED_FILE).is_file():
        out.problems.append(f"no {course.GRADED_FILE} in the submission")
    clock = Clock.start(budget)
    gradable = [n for n in present if n not in out.manual]
    if gradable:  # one nbgrader run, without the notebooks it stops at
        with nbgrader_job.new_job(ctx.setup, snap, student, list(out.manual),
                                  ctx.unsafe) as box:
            code, log = _run(ctx, box, out, budget, clock=clock)
            out.spent = spent(log)
            _stopped(log, out)
            _kernel_died(log, out)
            if code == -9:
                out.killed = True
            elif code != 0:  # grade what can be graded, notebook by notebook
                out.problems.extend(_errors(log) or [f"nbgrader exited with {code}"])
                _grade_notebooks(ctx, box, student, gradable, out, budget, clock)
            returned = [n for n in gradable if n not in out.manual]
            for name, why in nbgrader_job.import_results(course_dir, box, student, returned,
                                                         snap).items():
                out.manual.setdefault(name, f"not graded: {KILLED}" if out.killed else why)
    for name in out.manual:
        flag_for_manual_grading(course_dir, student, name)
    out.timed_out, out.stopped_at = timed_out_cells(course_dir, student)
    out.scores = notebook_scores(course_dir, student)
    graded = [n for n in present if n not in out.manual]
    if out.manual and graded:
        out.status = "partly graded"
    elif out.manual or (out.problems and not out.scores):
        out.status = "failed"
    return out


def _grade_notebooks(ctx: Context, box: Job, student: str, names: list[str],
                     out: LearnerResult, budget: float, clock: Clock | None = None) -> None:
    """Notebook by notebook, one budget: what nbgrader cannot grade goes to ``out.manual``.
    After a stopped cell the next notebooks get no time (their cells are marked timed out)."""
    for name in names:
        if name in out.manual:
            continue
        left = budget - out.spent if budget != NO_BUDGET else NO_BUDGET
        if out.stopped and budget != NO_BUDGET:
            left = 0.0
        if out.killed:
            out.manual[name] = f"not graded: {KILLED}"
            continue
        code, log = _run(ctx, box, out, left, notebook=name, clock=clock)
        out.spent += spent(log)
        _stopped(log, out)
        _kernel_died(log, out)
        if code == -9:
            out.killed = True
            out.manual[name] = f"not graded: {KILLED}"
        elif code != 0:
            errors = _errors(log)
            out.manual[name] = "nbgrader failed: " + (" | ".join(errors) or f"exit {code}")


def _stopped(log: str, out: LearnerResult) -> None:
    """A cell stopped by the budget (``nbgrader_ext.STOPPED_LOG``): nothing more runs, and
    the wall seconds that cell was given are kept."""
    found = STOPPED.search(log)
    if found:
        out.stopped, out.stopped_after = True, int(found[1])


def _kernel_died(log: str, out: LearnerResult) -> None:
    """A notebook whose kernel died (``nbgrader_ext.DIED_LOG``) needs a human: the cells after
    the one it died in were not run."""
    for notebook, cell in DIED.findall(log):
        out.manual.setdefault(notebook, f"the kernel died at {cell.strip()} (os._exit, a crash): "
                                        "the cells after it were not run")


def timed_out_cells(course_dir: Path, student: str) -> tuple[dict[str, int], str]:
    """({notebook: graded cells stopped or skipped by the time budget}, the cell that was
    running when time ran out, as ``notebook/grade_id``, or "")."""
    found, first = {}, ""
    for path in sorted((course_dir / "autograded" / student / course.ASSIGNMENT).glob("*.ipynb")):
        try:
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        except (OSError, ValueError, KeyError):
            continue
        count = 0
        for index, cell in enumerate(cells):
            enames = {o.get("ename") for o in cell.get("outputs", [])
                      if o.get("output_type") == "error"}
            meta = (cell.get("metadata") or {}).get("nbgrader") or {}
            if TIMED_OUT[1] in enames and not first:
                first = f"{path.stem}/{meta.get('grade_id') or f'cell {index}'}"
            if enames & set(TIMED_OUT) and meta.get("grade"):
                count += 1
        if count:
            found[path.stem] = count
    return found, first


def notebook_scores(course_dir: Path, student: str) -> dict[str, list[float]]:
    """{notebook: [score, max score]} of a learner's graded notebooks (gradebook)."""
    from nbgrader.api import MissingEntry

    with _gradebook(course_dir) as gb:
        try:
            submission = gb.find_submission(course.ASSIGNMENT, student)
        except MissingEntry:
            return {}
        return {nb.name: [nb.score, nb.max_score] for nb in submission.notebooks if nb.max_score}


# ---------------------------------------------------------------- the class
def students(course_dir: Path, pattern: str = "*") -> list[str]:
    """The learners of ``submitted/`` (folder names matching ``pattern``)."""
    folder = course_dir / "submitted"
    return sorted(p.name for p in folder.iterdir()
                  if p.is_dir() and fnmatch.fnmatch(p.name, pattern)) if folder.is_dir() else []


def record_scale(budget: float) -> float:
    """How much more time the scores of record get when a class run is given more than the
    default ``--budget`` (a regrade with ``--budget 180`` triples the worker's clock and its
    wall limit too); never less than their defaults, and ``--budget 0`` (no notebook budget)
    keeps them."""
    return max(1.0, budget / course.NOTEBOOK_BUDGET) if budget > 0 else 1.0


def grade_job(ctx: Context, student: str, expected: dict[str, dict[str, dict]],
              budget: float = BUDGET, force: bool = False,
              plan: Callable[[], Any] | None = None,
              meter: Meter | None = None) -> tuple[LearnerResult, Any]:
    """One learner's whole job, the same serially and on a Dask worker: nbgrader's execution
    (:func:`grade_one`), then, for a graded submission, its scores of record and the learner's
    tests (``minitorch_grading.record``, from the snapshot; ``plan()`` gives the record's plan,
    made once per class run; None: no record), timed by part, wall and CPU, in ``meter`` (the
    caller's, which may hold more of the job, e.g. a worker's staging course; default: a new
    ``job.Meter``). Returns the learner's result and their record (None: not recorded)."""
    from minitorch_grading import record

    rec = None
    meter = meter or Meter()
    with meter:
        with part("nbgrader"):
            out = grade_one(ctx, student, expected, budget, force)
        if plan is not None and out.status in GRADED:
            plan_ = plan()  # made once for the class: no learner's part
            with part("record"):
                scale = record_scale(budget)
                rec = record.grade_submission(ctx.taken[student], student, plan_,
                                              record.WALL * scale,
                                              record.WORKER_BUDGET * scale, ctx.unsafe)
                record.write_record(ctx.course_dir, rec, out.manual)
                out.scores = notebook_scores(ctx.course_dir, student)
            out.problems += [f"record: {f}" for f in rec.flags]
    if out.status != "skipped":  # a skipped learner cost nothing this run
        out.wall, out.cpu = meter.rounded()
    return out, rec


@dataclass
class Run:
    """A class run's results (learner-id order), records and figures."""

    results: list[LearnerResult]
    records: list = field(default_factory=list)  # record.Record of each graded learner
    seed: int = 0  # the record's grading seed
    seconds: float = 0.0  # wall time of the whole run
    cores: int = 1  # jobs run at a time (a cluster's threads)


def class_run(course_dir: Path, budget: float = BUDGET, pattern: str = "*",
              force: bool = False, seed: int | None = None, ctx: Context | None = None,
              unsafe: bool = False, bar=None) -> Run:
    """Grade every learner of ``submitted/`` one after another in this process, each in a job
    of their own (:func:`grade_job`: nbgrader, then the scores of record with ``seed``,
    default chosen now). ``ctx``: the run's shared setup (made and removed here if None).
    ``bar``: a ``progress.Progress`` (default: plain lines, or a bar on a terminal)."""
    from minitorch_grading import record

    if ctx is None:
        ctx = Context(course_dir.expanduser().resolve(), unsafe)
        try:
            return class_run(course_dir, budget, pattern, force, seed, ctx, unsafe, bar)
        finally:
            ctx.close()
    start = time.monotonic()
    course_dir = ctx.course_dir
    if not (course_dir / "gradebook.db").is_file():
        raise SystemExit(f"no gradebook in {course_dir}: run `nbgrader generate_assignment "
                         f"{course.ASSIGNMENT}` there first (docs/INSTRUCTOR.md)")
    expected = expected_cells(course_dir)
    learners = students(course_dir, pattern)
    if not learners:
        raise SystemExit(f"nobody to grade: {course_dir / 'submitted'} holds no learner folder"
                         + (f" matching {pattern!r}" if pattern != "*" else ""))
    seed = record.new_seed() if seed is None else int(seed)
    source = course_dir / "source" / course.ASSIGNMENT
    plan = cache(lambda: record.plan(record.graded_cells(source), seed, source))
    bar = bar or progress.Progress(len(learners), 1)
    run = Run([], seed=seed)
    try:
        bar.running(1)
        for i, student in enumerate(learners, 1):
            try:
                result, rec = grade_job(ctx, student, expected, budget, force, plan)
            except Exception as err:  # noqa: BLE001 - a crash on one submission: that learner
                result, rec = LearnerResult(student, status="failed", problems=[  # only (as
                    f"the grading job died: {type(err).__name__}: {err}"]), None  # parallel)
            run.results.append(result)
            run.records += [rec] if rec is not None else []
            bar.running(int(i < len(learners)))  # the next one, as the parallel run counts
            bar.finished(student, result)
    finally:
        bar.close()
    run.seconds = round(time.monotonic() - start, 1)
    return run


def report_text(results: list[LearnerResult], budget: float, seconds: float,
                cores: int = 1) -> str:
    """The human-readable report of a class run (``cores``: jobs run at a time)."""
    def total(o: LearnerResult) -> str:
        score = sum(s for s, _ in o.scores.values())
        most = sum(m for _, m in o.scores.values())
        return f"{score:g}/{most:g}" if most else "no score"

    by = {s: [o for o in results if o.status == s]
          for s in ("graded", "partly graded", "skipped", "failed")}
    wall, cpu = progress.summed([o.wall for o in results]), progress.summed([o.cpu for o in results])
    clock = sum(o.spent for o in results)  # the kernels' CPU time (the budget's clock)
    use = f", CPU {sum(cpu.values()):.0f} s = " \
        f"{progress.share(sum(cpu.values()), seconds * cores)} of {cores} x the wall time" \
        if seconds else ""
    lines = [f"Class run of {course.ASSIGNMENT}: {len(results)} submissions in {seconds:.0f} s "
             f"(budget {budget:g} s each; {cores} at a time{use})"]
    if wall:
        lines.append(f"The learners' jobs: {progress.time_text(wall, cpu)}; the kernels' "
                     f"{clock:.0f} s of CPU on the budget")
    lines += ["", f"Graded ({len(by['graded']) + len(by['partly graded'])}):"]
    for o in by["graded"] + by["partly graded"]:
        note = " (partly: see manual grading)" if o.status == "partly graded" else ""
        lines.append(f"  {o.student}: {total(o)} in {progress.time_text(o.wall, o.cpu)}; "
                     f"{o.spent:.0f} s of the budget{note}")
    if by["skipped"]:
        lines.append(f"Already autograded, skipped ({len(by['skipped'])}; --force regrades):")
        lines += [f"  {o.student}: {total(o)}" for o in by["skipped"]]
    lines.append(f"Failed ({len(by['failed'])}):")
    for o in by["failed"]:
        why = "; ".join(o.problems) or "; ".join(f"{n}: {w}" for n, w in o.manual.items())
        lines.append(f"  {o.student}: {why}")
    warned = [o for o in results if o.problems and o.status != "failed"]
    if warned:
        lines.append("Graded with problems:")
        lines += [f"  {o.student}: {'; '.join(o.problems)}" for o in warned]
    timed = [o for o in results if o.timed_out]
    lines.append(f"Timed out (budget used up; those graded cells score 0) ({len(timed)}):")
    for o in timed:
        cells = ", ".join(f"{n} ({k})" for n, k in o.timed_out.items())
        where = f"stopped in {o.stopped_at} after {o.stopped_after} s; " if o.stopped_at else ""
        lines.append(f"  {o.student}: {where}graded cells not run: {cells}")
    if timed:
        lines.append("  (an honest submission on a busy machine? regrade it with more time: "
                     "python -m minitorch_grading.classrun autograde --force --student ID --budget 180)")
    manual = [o for o in results if o.manual]
    lines.append(f"Needs manual grading ({len(manual)}; flagged in the gradebook, not scored):")
    for o in manual:
        lines += [f"  {o.student} / {n}: {w}" for n, w in o.manual.items()]
    return "\n".join(lines) + "\n"


def write_report(course_dir: Path, results: list[LearnerResult], budget: float,
                 seconds: float, cores: int = 1) -> tuple[Path, str]:
    """reports/autograde-<time>.txt and .json; returns the text file and the text."""
    folder = course_dir / REPORTS
    folder.mkdir(exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    text = report_text(results, budget, seconds, cores)
    path = folder / f"autograde-{stamp}.txt"
    path.write_text(text, encoding="utf-8")
    data = {"assignment": course.ASSIGNMENT, "budget": budget, "seconds": round(seconds, 1),
            "cores": cores, "submissions": [asdict(o) for o in results]}
    path.with_suffix(".json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return path, text


# ---------------------------------------------------------------- export
def export(course_dir: Path, path: Path | None = None) -> Path:
    """``grades-by-notebook.csv``: one row per learner, one column per graded notebook.

    Columns: ``student_id``, each graded notebook's score, ``total``, ``max_total``,
    ``quiz_passed`` (the quiz's score is at least 70 % of its points: yes/no) and
    ``needs_manual_grading`` (notebooks nbgrader could not grade: their column is empty and the
    total leaves them out until a human grades them, e.g. in formgrader).
    """
    path = path or course_dir / EXPORT
    with _gradebook(course_dir) as gb:
        assignment = gb.find_assignment(course.ASSIGNMENT)
        notebooks = [nb.name for nb in assignment.notebooks if nb.max_score]
        maxima = {nb.name: nb.max_score for nb in assignment.notebooks if nb.max_score}
        rows = []
        for student in sorted(gb.students, key=lambda s: s.id):
            row = {"student_id": student.id}
            try:
                submission = gb.find_submission(course.ASSIGNMENT, student.id)
            except Exception:  # noqa: BLE001 - MissingEntry: nothing submitted
                rows.append({**row, "total": "", "max_total": sum(maxima.values()),
                             "quiz_passed": "no", "needs_manual_grading": "not submitted"})
                continue
            manual = []
            total = 0.0
            for nb in submission.notebooks:
                if nb.name not in maxima:
                    continue
                if nb.needs_manual_grade:
                    manual.append(nb.name)
                    row[nb.name] = ""
                else:
                    row[nb.name] = f"{nb.score:g}"
                    total += nb.score
            quiz = next((nb for nb in submission.notebooks if nb.name == QUIZ), None)
            passed = (quiz is not None and not quiz.needs_manual_grade
                      and quiz.score >= QUIZ_PASS * quiz.max_score)
            rows.append({**row, "total": f"{total:g}", "max_total": f"{sum(maxima.values()):g}",
                         "quiz_passed": "yes" if passed else
                         ("pending" if QUIZ in manual else "no"),
                         "needs_manual_grading": " ".join(manual)})
    fields = ["student_id", *notebooks, "total", "max_total", "quiz_passed",
              "needs_manual_grading"]
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    return path


# ---------------------------------------------------------------- what the grader wrote
LEDGER = "gradebook-ledger.json"  # in reports/: every auto score a class run wrote


def write_ledger(course_dir: Path, learners: list[str]) -> Path:
    """Record, per learner this run graded, the auto score of every cell as the class run left
    it in the gradebook (``reports/gradebook-ledger.json``; earlier learners kept)."""
    from nbgrader.api import MissingEntry

    path = course_dir / REPORTS / LEDGER
    path.parent.mkdir(exist_ok=True)
    data = json.loads(path.read_text("utf-8")) if path.is_file() else {}
    with _gradebook(course_dir) as gb:
        for student in learners:
            try:
                submission = gb.find_submission(course.ASSIGNMENT, student)
            except MissingEntry:
                continue
            data[student] = {f"{nb.name}/{g.name}": g.auto_score
                             for nb in submission.notebooks for g in nb.grades}
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path


def foreign_scores(course_dir: Path, only: str | None = None) -> list[str]:
    """Auto scores in the gradebook that no class run wrote (the ledger disagrees), and
    submissions no class run graded (``only``: that learner's). Manual scores (formgrader) are
    a human's: not checked."""
    from nbgrader.api import MissingEntry

    path = course_dir / REPORTS / LEDGER
    ledger = json.loads(path.read_text("utf-8")) if path.is_file() else {}
    flags = []
    with _gradebook(course_dir) as gb:
        for student in [only] if only else sorted(s.id for s in gb.students):
            try:
                submission = gb.find_submission(course.ASSIGNMENT, student)
            except MissingEntry:
                continue
            if student not in ledger:
                flags.append(f"{student}: in the gradebook, graded by no class run")
                continue
            for nb in submission.notebooks:
                for grade in nb.grades:
                    key = f"{nb.name}/{grade.name}"
                    wrote = ledger[student].get(key)
                    if grade.auto_score != wrote:
                        flags.append(f"{student} {key}: auto score {grade.auto_score} in the "
                                     f"gradebook, the class run wrote {wrote}")
    return flags


def graded_before(course_dir: Path, student: str, folder: Path) -> bool:
    """Whether a class run may skip this learner: the gradebook holds the submission
    (``nbgrader_job.graded_before``) AND the ledger holds exactly its auto scores, i.e. a
    class run finished with them. A run that stopped between nbgrader and the scores of record
    leaves the in-kernel scores without a ledger entry: that learner is graded again."""
    return (nbgrader_job.graded_before(course_dir, student, folder)
            and not foreign_scores(course_dir, only=student))


# ---------------------------------------------------------------- command line
def autograde_command(course_dir: Path, budget: float = BUDGET, pattern: str = "*",
                      force: bool = False, seed: int | None = None,
                      unsafe: bool = False) -> int:
    """``classrun autograde --serial``: the class run learner after learner in this process
    (each learner's whole job: nbgrader, the scores of record, the learner's tests), the
    report, the export. Refuses (exit message: why, how to fix) where the OS sandbox cannot
    run, unless ``unsafe``. The command line's default, in parallel on a Dask cluster, is
    ``minitorch_grading.parallel.autograde`` (``minitorch_grading.classrun_cli``)."""
    course_dir = course_dir.expanduser().resolve()
    try:
        ctx = Context(course_dir, unsafe)
    except sandbox.SandboxUnavailable as err:
        raise SystemExit(f"refusing to grade: {err}") from None
    if unsafe:
        print("WARNING: --unsafe-no-sandbox: every learner's code runs as you, with your files "
              "writable (docs/INSTRUCTOR.md, threat model)", file=sys.stderr)
    try:
        run = class_run(course_dir, budget=budget, pattern=pattern, force=force, seed=seed,
                        ctx=ctx)
    finally:
        ctx.close()
    return finish(course_dir, run, budget)


def finish(course_dir: Path, run: Run, budget: float) -> int:
    """The end of a class run, serial or parallel: the record's report, the ledger, the
    report, the export, the flags; the exit status (1: a learner could not be graded at all)."""
    from minitorch_grading import record

    results = run.results
    write_ledger(course_dir, [o.student for o in results if o.status != "skipped"])
    path, text = write_report(course_dir, results, budget, run.seconds, run.cores)
    print()
    print(text, end="")
    print(f"report: {path} (and {path.with_suffix('.json').name})")
    if run.records:
        record_report = record.write_report(course_dir, run.seed, run.records, run.seconds)
        print(f"record: {record_report} (seed, scores of record, flags)")
    print(f"grades: {export(course_dir)}")
    _say_foreign(course_dir)
    return 1 if any(o.status == "failed" for o in results) else 0


def _say_foreign(course_dir: Path) -> None:
    for flag in foreign_scores(course_dir):
        print(f"FLAG not written by the class run: {flag}")


def export_command(course_dir: Path) -> int:
    """``classrun export``: grades-by-notebook.csv from the gradebook."""
    course_dir = course_dir.expanduser().resolve()
    if not (course_dir / "gradebook.db").is_file():
        raise SystemExit(f"no gradebook in {course_dir}: nothing to export")
    print(f"grades: {export(course_dir)}")
    _say_foreign(course_dir)
    return 0


if __name__ == "__main__":  # the command line lives in classrun_cli (it also reaches parallel)
    from minitorch_grading.classrun_cli import main

    raise SystemExit(main())
