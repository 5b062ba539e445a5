"""The learner's own tests (``my_tests/``) in the score of record: a sandboxed job per learner.

Instructor tooling (never ships). ``minitorch_course.examplar.grade`` runs the submission's test
files against the wheats and every chaff of the course's set (``examplar.course_set``: the
private set named by ``MINITORCH_CHAFFS`` when set). The tests are the learner's code, so they
run inside the learner's sandboxed job (``minitorch_grading.job``), in a folder holding only the
course-provided packages (the public stub as ``minitorch/tensor.py``) and the submission's test
files named by ``examplar.LAB_FILES`` (nothing else of ``my_tests/``: no ``conftest.py``); torch
may load there, as only course-provided implementations are under test. The set goes on stdin,
never into the folder. The job answers with data (``minitorch_course.tests_job``);
here the answer is checked against the set that was sent (each kind's number of chaffs is the
set's, a count caught is clamped to it), the fingerprinting flags are recomputed from the
snapshot (``examplar.suspicious``), and the points are computed: a cell's points times the
mean over its labs of ``LabGrade.score`` (the fraction of chaff kinds caught).

A submission whose test files hold no test function (the skeletons) or only flagged files starts
no job at all: it scores 0, at no cost.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from minitorch_course import examplar
from minitorch_grading import sandbox
from minitorch_grading.job import Job, part

SRC = Path(__file__).resolve().parents[1]  # src/: the course-provided packages
WALL = 600.0  # seconds for one learner's whole job (a complete model set takes about 45 s)
ANSWER_BYTES = 16 * 2**20


@dataclass
class TestsRecord:
    """One learner's tests, graded: ``{lab: LabGrade}``, and what the instructor should know."""

    grades: dict[str, examplar.LabGrade] = field(default_factory=dict)
    seconds: float = 0.0
    problem: str = ""  # the job failed: no answer, a malformed one, a timeout
    flags: list[str] = field(default_factory=list)

    def score(self, labs: tuple[str, ...]) -> float:
        """The mean over ``labs`` of the fraction of chaff kinds caught, in [0, 1]."""
        found = [self.grades[lab].score for lab in labs if lab in self.grades]
        return sum(found) / len(labs) if labs else 0.0

    def feedback(self, labs: tuple[str, ...]) -> str:
        """What the learner reads about these labs' tests (their language), one paragraph."""
        lines = [line.strip() for lab in labs if lab in self.grades
                 for line in examplar.feedback(self.grades[lab])]
        return " · ".join(lines)


def empty_grade(folder: Path, lab: str, impls: examplar.ImplSet) -> examplar.LabGrade:
    """A lab's grade before anything ran: its files, its kinds with the set's chaff counts,
    nothing caught, the files that fingerprint flagged (computed here, from the snapshot)."""
    files = examplar.lab_files(folder, lab)
    grade = examplar.LabGrade(lab, [f.name for f in files],
                              kinds={k: [0, 0] for k in impls.kinds_for(lab)})
    for chaff in impls.chaffs_for(lab):
        grade.kinds[chaff.kind][1] += 1
    for path in files:
        means = examplar.suspicious(path)
        if means:
            grade.flagged[path.name] = means
    return grade


def runnable(grade: examplar.LabGrade, folder: Path) -> list[Path]:
    """The lab's files the job would run: not flagged, with a test function."""
    return [folder / name for name in grade.files
            if name not in grade.flagged and examplar.has_tests(folder / name)]


def job_folder(into: Path, files: list[Path]) -> None:
    """The job's folder: the course-provided packages (the stub tensor.py, no stored MLP
    curve) and only the test files to run, in ``my_tests/``."""
    pkg = into / "minitorch"
    pkg.mkdir()
    for path in (SRC / "minitorch").glob("*.py"):
        shutil.copy(path, pkg / path.name)
    shutil.copytree(SRC / "minitorch_course", into / "minitorch_course",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "mlp-curve.json"))
    tests = into / examplar.FOLDER
    tests.mkdir()
    for path in files:
        shutil.copyfile(path, tests / path.name, follow_symlinks=False)


def _checked(local: examplar.LabGrade, data) -> examplar.LabGrade:
    """The job's answer for one lab, as far as it agrees with what the instructor knows: the
    kinds and their chaff counts are the set's (``local``), a count caught is clamped to them,
    the flags are the ones computed here."""
    if not isinstance(data, dict):
        raise TypeError("a lab's answer is not a dict")
    grade = examplar.LabGrade(local.lab, list(local.files), flagged=dict(local.flagged),
                              kinds={k: [0, n] for k, (_, n) in local.kinds.items()})
    tests = data.get("tests") or []
    valid = data.get("valid") or []
    dropped = data.get("dropped") or {}
    if not (isinstance(tests, list) and isinstance(valid, list) and isinstance(dropped, dict)):
        raise TypeError("a lab's tests are not lists")
    grade.tests = [str(t) for t in tests][:1000]
    grade.valid = [str(t) for t in valid if t in grade.tests]
    grade.dropped = {str(k): str(v) for k, v in list(dropped.items())[:200]}
    kinds = data.get("kinds") or {}
    for kind, (_, n) in local.kinds.items():
        got = kinds.get(kind) if isinstance(kinds, dict) else None
        caught = got[0] if isinstance(got, list) and got and isinstance(got[0], int) else 0
        grade.kinds[kind][0] = max(0, min(int(caught), n)) if grade.valid else 0
    grade.problems = [str(p)[:300] for p in (data.get("problems") or [])][:20]
    seconds = data.get("seconds")
    grade.seconds = float(seconds) if isinstance(seconds, int | float) else 0.0
    return grade


def grade_tests(folder: Path, impls: examplar.ImplSet | None, labs: tuple[str, ...],
                unsafe: bool = False, wall: float = WALL) -> TestsRecord:
    """The learner's tests of ``labs`` in the submission ``folder`` (the snapshot), graded in
    a sandboxed job against ``impls``; ``unsafe``: without the sandbox. Counted as the
    ``tests`` part of the learner's time (``job.Meter``)."""
    with part("tests"):
        return _grade_tests(folder, impls, labs, unsafe, wall)


def _grade_tests(folder: Path, impls: examplar.ImplSet | None, labs: tuple[str, ...],
                 unsafe: bool, wall: float) -> TestsRecord:
    out = TestsRecord()
    if impls is None:
        out.problem = ("no implementation set (solutions/examplar_set.py or "
                       f"{examplar.PRIVATE_ENV}): the learner's tests are not graded")
        return out
    tests = folder / examplar.FOLDER
    for lab in labs:
        out.grades[lab] = empty_grade(tests, lab, impls)
        for name, means in out.grades[lab].flagged.items():
            out.flags.append(f"{examplar.FOLDER}/{name} reaches for {', '.join(means)} "
                             "(fingerprinting: earns nothing)")
    todo = {lab: runnable(g, tests) for lab, g in out.grades.items()}
    todo = {lab: files for lab, files in todo.items() if files}
    if not todo:
        return out
    start = time.monotonic()
    sent = [{"name": i.name, "role": i.role, "kind": i.kind, "labs": list(i.labs),
             "source": i.text(), "faults": list(i.faults)} for i in impls.wheats + impls.chaffs]
    with Job.new(unsafe) as box:
        job_folder(box.folder, [f for files in todo.values() for f in files])
        job = {"folder": box.root, "set": impls.name, "impls": sent, "labs": list(todo),
               "timeout": examplar.TIMEOUT}
        env = {"PATH": "/usr/bin:/bin", "HOME": box.root, "LANG": "C.UTF-8",
               "MINITORCH_LANG": "en", "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1",
               "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        result = box.run([sys.executable, "-I", "-B",
                          box.path("minitorch_course/tests_job.py")],
                         env=env, stdin=json.dumps(job).encode(),
                         limits=sandbox.Limits(wall=wall, cpu=wall))
    out.seconds = round(time.monotonic() - start, 1)
    answer = result.stdout
    try:
        if result.timed_out:
            raise RuntimeError(f"timed out after {wall:g} s")
        if len(answer) > ANSWER_BYTES or not answer.strip():
            raise RuntimeError(f"no answer (exit {result.returncode}): "
                               + result.stderr[-300:].decode("utf-8", "replace"))
        data = json.loads(answer)
        if not isinstance(data, dict):
            raise TypeError("the answer is not a dict")
        for lab in todo:
            out.grades[lab] = _checked(out.grades[lab], data.get(lab))
    except Exception as err:  # noqa: BLE001 - whatever the learner's tests made of the job
        out.problem = f"the tests' job failed: {type(err).__name__}: {str(err)[:300]}"
    return out
