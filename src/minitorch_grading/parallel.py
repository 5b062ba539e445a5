"""The class run in parallel: each learner's whole job on a Dask cluster, merged here.

Instructor tooling (never ships). ``classrun autograde`` sends one task per learner to a
`Dask distributed <https://distributed.dask.org>`_ cluster: by default a ``LocalCluster`` made
here (one worker process per core, one thread each); with ``--scheduler ADDRESS`` an existing
cluster. A task is the learner's whole job (:func:`grade_job`): nbgrader's execution of the
notebooks in the OS sandbox (``classrun.grade_one``), then the scores of record and the
learner's tests (``record.grade_submission``), all on a private *staging course* in a temporary
folder of the worker: the course's source and a gradebook with no learner in it (the
:class:`Kit`, sent once to every worker by Dask), and the learner's snapshot (taken HERE,
before any of its code runs, and sent with the task). Nothing moves through a shared
directory: the submission goes to the worker and the results come back as data, through
Dask's own connections (cloudpickle over TCP; TLS if the cluster is configured with it).

What comes back (:class:`JobResult`: the learner's result, the record, the autograded notebooks' bytes
and the staging gradebook's scores) is written into the course here, by this process only, in
learner-id order (:func:`merge`), whatever order the jobs finish in: so a parallel run leaves
the same gradebook, autograded notebooks and reports as a serial one (tests/test_classrun_
parallel.py). A job that dies (its worker process killed, out of memory) costs that learner
only: Dask's scheduler reschedules it on another worker up to ``allowed-failures`` times and
then raises ``KilledWorker`` for that task, which is reported as the learner's failure. A job
that loops is ended by its own sandbox's wall-clock limit (3 x the budget; ``classrun``).

The workers must have this package with its ``course`` and ``grading`` extras installed (the
same Python environment: nbgrader, torch, numpy, distributed), and bubblewrap (``make
system-deps``); docs/INSTRUCTOR.md, "The class run in parallel". A learner's installation has
no Dask (``grading`` is the instructor's extra): :func:`require_dask` says what to install.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from minitorch_grading import classrun, course, nbgrader_job, sandbox
from minitorch_grading.classrun import LearnerResult, Run
from minitorch_grading.job import SKIPPED, Meter, SubmissionTooLarge, part, snapshot

INSTALL = ("python -m pip install -e '.[course,grading]' in the course repository (`make "
           "class-bench` and `make test` install it)")


def require_dask() -> None:
    """Stop with what to install when Dask distributed is missing (the ``grading`` extra)."""
    try:
        import distributed  # noqa: F401
    except ImportError as err:
        raise SystemExit(f"the class run in parallel needs Dask distributed ({err}): install "
                         f"the instructor's `grading` extra: {INSTALL}; or grade one learner "
                         "after another without it: classrun autograde --serial") from None


# ---------------------------------------------------------------- what moves to the workers
def pack(folder: Path) -> dict[str, bytes]:
    """{relative posix path: bytes} of the regular files under ``folder`` (no links, caches
    left out)."""
    files = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if any(part in SKIPPED for part in rel.parts) or path.is_symlink() or not path.is_file():
            continue
        files[rel.as_posix()] = path.read_bytes()
    return files


def unpack(files: dict[str, bytes], dest: Path) -> None:
    """Write :func:`pack`'s files under ``dest``; a path that would leave it is refused."""
    for rel, data in files.items():
        parts = PurePosixPath(rel).parts
        if not parts or PurePosixPath(rel).is_absolute() or ".." in parts:
            raise ValueError(f"refused path {rel!r}: outside the folder")
        path = dest.joinpath(*parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


@dataclass(frozen=True)
class Kit:
    """What every job needs from the course: the gradebook with no learner in it and
    ``source/<assignment>/``, as bytes (a few MB, sent once to each worker)."""

    files: dict[str, bytes]
    key: str  # a digest of the files: the worker's plan cache is keyed by it


def course_kit(course_dir: Path) -> Kit:
    """The :class:`Kit` of a course directory."""
    files: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory(prefix="minitorch-kit-") as tmp:
        files["gradebook.db"] = nbgrader_job.template_gradebook(course_dir, Path(tmp)).read_bytes()
    source = f"source/{course.ASSIGNMENT}"
    files.update({f"{source}/{rel}": data
                  for rel, data in pack(course_dir / source).items()})
    digest = hashlib.sha256()
    for rel in sorted(files):
        digest.update(rel.encode() + b"\0" + hashlib.sha256(files[rel]).digest())
    return Kit(files, digest.hexdigest()[:16])


@dataclass
class Task:
    """One learner's job: their snapshot's files and how to grade them."""

    student: str
    files: dict[str, bytes]
    budget: float
    seed: int
    unsafe: bool = False
    problems: list[str] = field(default_factory=list)  # found while taking the snapshot
    plan_var: str = ""  # the Dask Variable holding the record's plan (share_plan)


@dataclass
class JobResult:
    """What a learner's job sends back: data, written into the course by :func:`merge`."""

    result: LearnerResult
    record: Any = None  # record.Record, or None (nothing was graded for the record)
    autograded: dict[str, bytes] = field(default_factory=dict)  # under autograded/ID/
    grades: dict[str, dict[str, list]] = field(default_factory=dict)  # nb -> id -> [auto, manual?]
    submitted: bool = False  # the staging gradebook holds a submission for the learner
    timestamp: Any = None  # the submission's timestamp.txt (datetime) or None


# ---------------------------------------------------------------- on the worker
_PLANS: dict[str, Any] = {}  # per worker process: the run's Variable name -> record.Plan
PLAN_WAIT = 1800.0  # seconds a job waits for the plan (made once, by the class run's process)


def _plan(task: Task):
    """The record's plan (the cases and their expected values: 15 s of one core at a load of
    10, 2 MB), made ONCE by the class run's process while the first jobs run nbgrader, and
    shared through a Dask ``Variable`` (then cached by the worker process)."""
    from distributed import Variable

    if task.plan_var not in _PLANS:
        got = Variable(task.plan_var).get(timeout=PLAN_WAIT).result()
        if isinstance(got, str):  # the class run could not make it: its error
            raise RuntimeError(f"no plan for the scores of record: {got}")
        _PLANS.clear()
        _PLANS[task.plan_var] = got
    return _PLANS[task.plan_var]


def share_plan(client, name: str, course_dir: Path, seed: int) -> None:
    """Make the record's plan here and publish it to the workers as Dask ``Variable``
    ``name`` (the error's text if it cannot be made)."""
    from distributed import Variable

    from minitorch_grading import record

    source = course_dir / "source" / course.ASSIGNMENT
    try:
        made: Any = record.plan(record.graded_cells(source), seed, source)
    except Exception as err:  # noqa: BLE001 - said to every job that needs it
        made = f"{type(err).__name__}: {err}"
    [future] = client.scatter([made], broadcast=True, hash=False)
    Variable(name, client=client).set(future)


def grade_job(kit: Kit, task: Task) -> JobResult:
    """One learner's whole job, run on a worker (``classrun.grade_job``: nbgrader in the
    sandbox, then the scores of record and the learner's tests), on a staging course of its
    own. Never raises for anything the submission holds; writes nothing but its temporary
    folder."""
    staging = Path(tempfile.mkdtemp(prefix="minitorch-staging-"))
    meter = Meter()  # the staging course counts as nbgrader's part here (serially: shared)
    try:
        with meter, part("nbgrader"):
            unpack(kit.files, staging)
            unpack(task.files, staging / "submitted" / task.student / course.ASSIGNMENT)
            try:
                ctx = classrun.Context(staging, task.unsafe)
            except sandbox.SandboxUnavailable as err:
                out = LearnerResult(task.student, status="failed", problems=[
                    f"refusing to grade on worker {os.uname().nodename}: {err}"])
                return JobResult(out)
            expected = classrun.expected_cells(staging)
        try:  # the plan: waited for the first time (share_plan)
            out, rec = classrun.grade_job(ctx, task.student, expected, task.budget, True,
                                          lambda: _plan(task), meter)
            out.problems[:0] = task.problems
        finally:
            ctx.close()
        folder = staging / "autograded" / task.student
        grades, submitted, when = _staged_grades(staging, task.student)
        return JobResult(out, rec, pack(folder) if folder.is_dir() else {}, grades,
                         submitted, when)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _staged_grades(staging: Path, student: str) -> tuple[dict, bool, Any]:
    """The staging gradebook's scores of ``student``: {nb: {grade_id: [auto_score,
    needs_manual_grade]}}, whether it holds a submission, and its timestamp."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{staging / 'gradebook.db'}", course_id=course.COURSE_ID) as gb:
        try:
            submission = gb.find_submission(course.ASSIGNMENT, student)
        except MissingEntry:
            return {}, False, None
        grades = {nb.name: {g.name: [g.auto_score, bool(g.needs_manual_grade)]
                            for g in nb.grades} for nb in submission.notebooks}
        return grades, True, submission.timestamp


# ---------------------------------------------------------------- here: the one writer
def merge(course_dir: Path, result: JobResult) -> None:
    """Write one job's results into the course: its autograded notebooks (under
    ``autograded/ID/``) and its scores (the course's gradebook; a human's manual score, and
    its flag, are left alone)."""
    from nbgrader.api import Gradebook, MissingEntry
    from sqlalchemy.exc import SAWarning

    student = result.result.student
    unpack(result.autograded, course_dir / "autograded" / student)
    if not result.submitted:
        return
    url = f"sqlite:///{course_dir / 'gradebook.db'}"
    with Gradebook(url, course_id=course.COURSE_ID) as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)
        gb.update_or_create_student(student)
        gb.update_or_create_submission(course.ASSIGNMENT, student, timestamp=result.timestamp)
        for notebook, cells in result.grades.items():
            for grade_id, (auto, manual) in cells.items():
                try:
                    grade = gb.find_grade(grade_id, notebook, course.ASSIGNMENT, student)
                except MissingEntry:
                    continue
                grade.auto_score = auto
                if grade.manual_score is None:
                    grade.needs_manual_grade = manual
        gb.db.commit()


def prepare(course_dir: Path, student: str, budget: float, seed: int, force: bool,
            unsafe: bool, taken: Path) -> LearnerResult | Task:
    """A learner's task (their snapshot taken now, into ``taken``), or their result when
    there is nothing to run (no folder, graded before, not copyable)."""
    folder = course_dir / "submitted" / student / course.ASSIGNMENT
    if not folder.is_dir():
        return LearnerResult(student, status="failed",
                             problems=[f"no {course.ASSIGNMENT}/ folder in submitted/{student}/"])
    if not force and classrun.graded_before(course_dir, student, folder):
        return LearnerResult(student, status="skipped",
                             scores=classrun.notebook_scores(course_dir, student))
    snap = taken / student
    try:
        left_out = snapshot(folder, snap)
    except (SubmissionTooLarge, OSError) as err:
        return LearnerResult(student, status="failed",
                             problems=[f"the submission could not be copied: {err}"])
    course.upgrade_submission(snap, course_dir / "source" / course.ASSIGNMENT)  # older names
    problems = ["not graded (links or special files): " + ", ".join(left_out[:5])] \
        if left_out else []
    return Task(student, pack(snap), budget, seed, unsafe, problems)


def local_cluster(workers: int | None):
    """A LocalCluster on this machine: ``workers`` processes (default: every core), one thread
    each, no dashboard."""
    from distributed import LocalCluster

    return LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                        processes=True, dashboard_address=None, host="127.0.0.1")


def class_run(course_dir: Path, budget: float = classrun.BUDGET, pattern: str = "*",
              force: bool = False, seed: int | None = None, unsafe: bool = False,
              scheduler: str | None = None, workers: int | None = None,
              progress=None) -> Run:
    """Grade the learners of ``submitted/`` on a Dask cluster (``scheduler``: an existing one's
    address; else a local one of ``workers`` processes) and merge the results here in
    learner-id order. ``progress``: a :class:`minitorch_grading.progress.Progress` (default: a
    bar on a terminal, plain lines otherwise)."""
    require_dask()
    from distributed import Client

    from minitorch_grading import progress as progress_mod
    from minitorch_grading import record

    course_dir = course_dir.expanduser().resolve()
    start = time.monotonic()
    if not (course_dir / "gradebook.db").is_file():
        raise SystemExit(f"no gradebook in {course_dir}: run `nbgrader generate_assignment "
                         f"{course.ASSIGNMENT}` there first (docs/INSTRUCTOR.md)")
    learners = classrun.students(course_dir, pattern)
    if not learners:
        raise SystemExit(f"nobody to grade: {course_dir / 'submitted'} holds no learner folder"
                         + (f" matching {pattern!r}" if pattern != "*" else ""))
    seed = record.new_seed() if seed is None else int(seed)
    results: dict[str, LearnerResult | JobResult] = {}
    with tempfile.TemporaryDirectory(prefix="minitorch-snapshots-") as taken:
        os.chmod(taken, 0o700)
        tasks = []
        for student in learners:  # every snapshot before any learner's code runs
            got = prepare(course_dir, student, budget, seed, force, unsafe, Path(taken))
            if isinstance(got, Task):
                tasks.append(got)
            else:
                results[student] = got
    kit = course_kit(course_dir)
    cluster = None if scheduler else local_cluster(workers)
    with Client(scheduler or cluster) as client:
        threads = sum(client.nthreads().values())
        plan_var = f"minitorch-plan-{kit.key}-{seed}-{time.time_ns()}"
        for task in tasks:
            task.plan_var = plan_var
        maker = threading.Thread(target=share_plan, args=(client, plan_var, course_dir, seed),
                                 daemon=True)
        if tasks:
            maker.start()
        bar = progress or progress_mod.Progress(len(learners), threads)
        for student, got in results.items():
            bar.finished(student, got)
        try:
            _dispatch(client, kit, tasks, results, course_dir, learners, bar)
        finally:
            bar.close()
            if maker.is_alive():
                maker.join()
            if cluster is not None:
                cluster.close()
    run = Run([], seed=seed, cores=threads)
    for student in learners:
        got = results[student]
        run.results.append(got.result if isinstance(got, JobResult) else got)
        if isinstance(got, JobResult) and got.record is not None:
            run.records.append(got.record)
    run.seconds = round(time.monotonic() - start, 1)
    return run


def _dispatch(client, kit: Kit, tasks: list[Task], results: dict, course_dir: Path,
              learners: list[str], bar, job=None) -> None:
    """Submit every task (``job``: :func:`grade_job`), follow them, and merge finished ones in
    learner-id order."""
    from distributed import as_completed

    [kit_future] = client.scatter([kit], broadcast=True)
    futures = {client.submit(job or grade_job, kit_future, task, key=f"grade-{task.student}-{kit.key}"
                             f"-{time.time_ns()}", pure=False): task.student for task in tasks}
    bar.running(min(len(futures), bar.threads))
    order = iter(learners)
    waiting = next(order, None)
    for future in as_completed(futures):
        student = futures[future]
        try:
            got: LearnerResult | JobResult = future.result()
        except Exception as err:  # noqa: BLE001 - KilledWorker, a crash in the job: that learner
            got = LearnerResult(student, status="failed", problems=[
                f"the grading job died: {type(err).__name__}: {err}"])
        results[student] = got
        del futures[future]
        bar.running(min(len(futures), bar.threads))
        bar.finished(student, got.result if isinstance(got, JobResult) else got)
        while waiting is not None and waiting in results:  # in learner-id order
            done = results[waiting]
            if isinstance(done, JobResult):
                merge(course_dir, done)
            waiting = next(order, None)


def autograde(course_dir: Path, budget: float, pattern: str, force: bool, seed: int | None,
              unsafe: bool, scheduler: str | None, workers: int | None) -> int:
    """``classrun autograde`` in parallel: the run, then the reports, ledger and export as the
    serial path writes them."""
    require_dask()  # before anything else: the fix, not a traceback
    course_dir = course_dir.expanduser().resolve()
    if not unsafe and not scheduler:
        try:
            sandbox.check()
        except sandbox.SandboxUnavailable as err:
            raise SystemExit(f"refusing to grade: {err}") from None
    if unsafe:
        print("WARNING: --unsafe-no-sandbox: every learner's code runs as you, with your files "
              "writable (docs/INSTRUCTOR.md, threat model)", file=sys.stderr)
    run = class_run(course_dir, budget, pattern, force, seed, unsafe, scheduler, workers)
    return classrun.finish(course_dir, run, budget)
