"""The class run in parallel (``minitorch_grading.parallel``) leaves what the serial one leaves.

One small class (the reference, handing in the quiz, and a wrong derivative handing in lab 01
and the quiz, with a renamed graded cell) is copied into two course directories; one is
graded serially (``classrun autograde --serial``), the other on a local Dask cluster of two
workers, with the same seed. Per learner and cell: the same scores and manual-grading flags in
the gradebook, the same comments of record in the autograded notebooks (the feedback), the same
flags and results in the reports, the same export and ledger.

Cost (issue 30: at most 45 s of `make test`): two learners, not three (a learner who scores
zero adds no case the comparison needs), the reference on the quiz only (the cheapest notebook
to run; lab 01 is the wrong derivative's, which the record comments on); the course generated
once per test run (``generated_course``); the record's plan (the expected values of the same
seed) made once and given to both runs, whose grading is otherwise untouched.
"""

from __future__ import annotations

import copy
import csv
import json
import re
import shutil
import time
from pathlib import Path

import pytest

from minitorch_authoring.repository import REFERENCE
from minitorch_grading import classrun, classrun_cli, course, parallel, record

pytestmark = pytest.mark.slow

ASSIGNMENT = course.ASSIGNMENT
QUIZ = classrun.QUIZ
LAB = "01-elementwise-ops"
TANH = ("return (g * (1.0 - t * t),)", "return (g * (1.0 - t),)")  # a wrong derivative
SEED = 20261202
TIMES: dict[str, float] = {}


@pytest.fixture(scope="module")
def runs(tmp_path_factory, submissions, generated_course) -> dict[str, Path]:
    serial = tmp_path_factory.mktemp("serial") / "course"
    release = generated_course(serial)
    reference = REFERENCE.read_text("utf-8")
    assert reference.count(TANH[0]) == 1, "the planted mistake no longer applies: update TANH"
    submissions.submit(serial, release, "ref", reference, answered=True, only=(QUIZ,))
    submissions.submit(serial, release, "tanh", reference.replace(*TANH), answered=True,
                       only=(LAB, QUIZ))
    path = serial / "submitted" / "tanh" / ASSIGNMENT / f"{QUIZ}.ipynb"
    nb = json.loads(path.read_text("utf-8"))
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "test_01":
            cell["metadata"]["nbgrader"]["grade_id"] = "test_01_mine"
    path.write_text(json.dumps(nb), "utf-8")
    dask = serial.parent.parent / "dask" / "course"
    shutil.copytree(serial, dask)
    plans: dict = {}
    make_plan = record.plan

    def plan_once(cells, seed, source_dir=None):  # the same seed, the same course: one plan
        if seed not in plans:
            plans[seed] = (cells, make_plan(cells, seed, source_dir))
        assert plans[seed][0] == cells
        return copy.deepcopy(plans[seed][1])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(record, "plan", plan_once)
        for name, folder, kind in (("serial", serial, {"serial": True}),
                                   ("dask", dask, {"serial": False, "workers": 2})):
            start = time.monotonic()
            classrun_cli.autograde(folder, seed=SEED, **kind)
            TIMES[name] = time.monotonic() - start
    assert len(plans) == 1
    return {"serial": serial, "dask": dask}


def _gradebook(course_dir: Path) -> dict:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        return {(s.student.id, nb.name, g.name): (g.auto_score, g.needs_manual_grade)
                for s in gb.find_assignment(ASSIGNMENT).submissions
                for nb in s.notebooks for g in nb.grades}


def _comments(course_dir: Path) -> dict:
    """The record's comment cell at the top of each autograded notebook (the feedback's)."""
    found = {}
    for path in sorted((course_dir / "autograded").rglob("*.ipynb")):
        cells = json.loads(path.read_text("utf-8"))["cells"]
        found[path.relative_to(course_dir).as_posix()] = [
            c["source"] for c in cells if c["metadata"].get("minitorch_record")]
    return found


def _report(course_dir: Path, kind: str) -> dict:
    [path] = sorted((course_dir / classrun.REPORTS).glob(f"{kind}-*.json"))
    return {s["student"]: s for s in json.loads(path.read_text("utf-8"))["submissions"]}


def test_same_scores_and_manual_flags_per_learner_and_cell(runs):
    serial, dask = _gradebook(runs["serial"]), _gradebook(runs["dask"])
    assert serial == dask
    students = {s for s, _, _ in serial}
    assert students == {"ref", "tanh"}
    scored = {s: sum(a or 0 for (t, _, _), (a, _) in serial.items() if t == s) for s in students}
    assert min(scored.values()) > 0, scored  # the graders engaged
    assert any(m for (s, nb, _), (_, m) in serial.items() if s == "tanh" and nb == QUIZ)


def test_same_comments_of_record_in_the_feedback(runs):
    serial = _comments(runs["serial"])
    assert serial == _comments(runs["dask"])
    tanh = serial[f"autograded/tanh/{ASSIGNMENT}/{LAB}.ipynb"]
    assert tanh and "check_tanh" in tanh[0] and str(SEED) in tanh[0]


def test_same_flags_and_results_in_the_reports(runs):
    keys = ("status", "manual", "timed_out", "stopped_at", "scores", "problems", "runs")
    serial, dask = _report(runs["serial"], "autograde"), _report(runs["dask"], "autograde")
    assert {s: {k: o[k] for k in keys} for s, o in serial.items()} == \
        {s: {k: o[k] for k in keys} for s, o in dask.items()}
    keys = ("seed", "cells", "failures", "flags", "problem")
    serial, dask = _report(runs["serial"], "record"), _report(runs["dask"], "record")
    assert {s: {k: r[k] for k in keys} for s, r in serial.items()} == \
        {s: {k: r[k] for k in keys} for s, r in dask.items()}
    assert set(serial) == {"ref", "tanh"}


def test_same_export_and_ledger(runs):
    for name in (classrun.EXPORT, f"{classrun.REPORTS}/{classrun.LEDGER}"):
        assert (runs["serial"] / name).read_text("utf-8") == (runs["dask"] / name).read_text(
            "utf-8"), name
    with (runs["dask"] / classrun.EXPORT).open(encoding="utf-8") as fh:
        assert [r["student_id"] for r in csv.DictReader(fh)] == ["ref", "tanh"]


def test_the_parallel_report_has_time_by_part_and_cpu_use(runs):
    [path] = sorted((runs["dask"] / classrun.REPORTS).glob("autograde-*.txt"))
    text = path.read_text("utf-8")
    assert "2 at a time, CPU" in text and "of 2 x the wall time" in text
    assert re.search(r"  ref: \S+ in \d+ s, \d+ s CPU \(\d+%\): nbgrader \d+ s / \d+ s CPU, "
                     r"record \d+ s / \d+ s CPU", text), text
    for mode in ("serial", "dask"):  # each part measured, the sandboxed kernels' CPU too
        for o in _report(runs[mode], "autograde").values():
            assert list(o["wall"]) == list(o["cpu"]) == ["nbgrader", "record", "tests"], o
            assert o["cpu"]["nbgrader"] >= o["spent"] > 0 and o["cpu"]["record"] > 0, o
    print(f"serial {TIMES['serial']:.0f} s, two workers {TIMES['dask']:.0f} s")


def test_a_dead_job_costs_its_learner_only(tmp_path):
    """A task whose job raises (as KilledWorker does when its worker dies) fails that learner;
    the others are merged, in learner-id order. Reached through a scheduler's address, as
    ``--scheduler ADDRESS`` does."""
    from distributed import Client, LocalCluster

    class Bar:
        threads = 2

        def __init__(self):
            self.seen = []

        def running(self, count):
            pass

        def finished(self, student, result):
            self.seen.append((student, result.status))

    merged = []
    original = parallel.merge
    parallel.merge = lambda course_dir, result: merged.append(result.result.student)
    try:
        with LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                          dashboard_address=None) as cluster, \
                Client(cluster.scheduler_address) as client:
            tasks = [parallel.Task(s, {}, 1.0, 1) for s in ("a", "b", "c")]
            results: dict = {}
            bar = Bar()
            parallel._dispatch(client, parallel.Kit({}, "k"), tasks, results, tmp_path,
                               ["a", "b", "c"], bar, job=_fake_job)
    finally:
        parallel.merge = original
    assert results["b"].status == "failed" and "RuntimeError" in results["b"].problems[0]
    assert merged == ["a", "c"]
    assert sorted(bar.seen) == [("a", "graded"), ("b", "failed"), ("c", "graded")]


def _fake_job(kit, task):
    if task.student == "b":
        raise RuntimeError("the worker died")
    return parallel.JobResult(classrun.LearnerResult(task.student))


def test_a_second_run_sends_nothing_already_graded(runs, tmp_path):
    """Decided from the gradebook before anything is sent; ``--force`` sends it again."""
    course_dir = runs["dask"]
    got = parallel.prepare(course_dir, "ref", 60.0, SEED, False, False, tmp_path)
    assert isinstance(got, classrun.LearnerResult) and got.status == "skipped"
    assert got.scores == classrun.notebook_scores(course_dir, "ref")
    assert not (tmp_path / "ref").exists()  # not even copied
    again = parallel.prepare(course_dir, "ref", 60.0, SEED, True, False, tmp_path)
    assert isinstance(again, parallel.Task) and f"{QUIZ}.ipynb" in again.files
