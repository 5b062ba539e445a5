"""The class run (``course autograde``) and nbgrader's exchange, on this machine.

Two module fixtures, each a small class graded by ``minitorch_grading.classrun``:

- ``exchange``: the whole exchange round trip with two learners, each in their own working
  directory with their own nbgrader cache: release_assignment, fetch_assignment, submit,
  collect, the class run, generate_feedback, release_feedback, fetch_feedback. One learner
  submits the reference ``tensor.py`` (answered notebooks), the other the stub.
- ``bad_class``: an honest submission graded together with a looping op (``while True: pass``
  in ``add``), a renamed graded cell's ``grade_id``, a graded cell turned into Markdown and a
  flipped ``grade`` flag, with a 12 s budget: nobody stops the class, the looping one costs
  about its budget, the others are named as needing manual grading (never a silent 0).

Learners submit a few notebooks each (nbgrader scores a missing notebook 0): the point here is
the class machinery, the grading itself is tests/minitorch_grading/test_nbgrader_roundtrip.py's.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest
from conftest import Submissions

from minitorch_authoring.repository import REFERENCE
from minitorch_grading import classrun, course

pytestmark = pytest.mark.slow

ASSIGNMENT = course.ASSIGNMENT
ENGINE_LAB = "00-tensor-skeleton"
LAB = "01-elementwise-ops"
QUIZ = classrun.QUIZ
LOOP_AT = 'return Tensor._make(self.data + other.data, (self, other), "add", _backward)'
# A loop that waits rather than computes: wall time passes, the kernel's CPU time hardly does,
# as for a busy loop on a loaded machine (where the first budget, in CPU time, cost 274 s).
LOOPING = "while True:\n            time.sleep(0.05)\n        " + LOOP_AT
MUL_AT = 'return Tensor._make(a * b, (self, other), "mul", _backward)'
CRASHING = "import os\n        os._exit(3)\n        " + MUL_AT  # the kernel dies in mul
BUDGET = 30.0
MARGIN = 15.0  # after the deadline: interrupting, killing the kernel, nbgrader's own writing
LOOP_CPU = 15.0  # CPU s of the looping job's nbgrader part (nbgrader, a kernel, the cells before
# the loop): 7 s measured at load 13-17, whatever the wall time
TIMES: dict[str, float] = {}


def _nbgrader(args: list[str], cwd: Path) -> str:
    proc = course.nbgrader(args, cwd)
    return proc.stdout + proc.stderr


# ---------------------------------------------------------------- the exchange
def _learner(tmp: Path, name: str, exchange: Path) -> tuple[Path, list[str]]:
    """A learner's home (their working directory) and the options of their nbgrader commands."""
    home = tmp / name
    home.mkdir()
    return home, ["--course", course.COURSE_ID, f"--Exchange.root={exchange}",
                  f"--Exchange.cache={home / '.nbgrader-cache'}", "--student", name]


@pytest.fixture(scope="module")
def exchange(tmp_path_factory, submissions, generated_course) -> dict:
    start, load = time.monotonic(), os.getloadavg()[0]
    tmp = tmp_path_factory.mktemp("exchange")
    course_dir = tmp / "course"
    release = generated_course(course_dir)
    root = course_dir / "exchange"
    assert not root.exists()
    logs = {"release": _nbgrader(["release_assignment", ASSIGNMENT], course_dir)}
    learners = {"ana": REFERENCE.read_text("utf-8"),
                "bea": (release / course.GRADED_FILE).read_text("utf-8")}
    homes, options = {}, {}
    for name, tensor in learners.items():
        home, opts = _learner(tmp, name, root)
        homes[name], options[name] = home, opts
        _nbgrader(["fetch_assignment", ASSIGNMENT, *opts], home)
        work = home / ASSIGNMENT
        (work / course.GRADED_FILE).write_text(tensor, encoding="utf-8")
        for nb in work.glob("*.ipynb"):  # each hands in the engine lab and the quiz
            if nb.stem not in (ENGINE_LAB, QUIZ):
                nb.unlink()
            elif name == "ana":
                nb.write_text(submissions.answered(nb, course.SOURCE_NOTEBOOKS / nb.name),
                              encoding="utf-8")
        _nbgrader(["submit", ASSIGNMENT, *opts], home)
    logs["collect"] = _nbgrader(["collect", ASSIGNMENT], course_dir)
    run = classrun.class_run(course_dir, budget=classrun.BUDGET)  # the scores of record too
    _nbgrader(["generate_feedback", ASSIGNMENT], course_dir)
    _nbgrader(["release_feedback", ASSIGNMENT], course_dir)
    for name, home in homes.items():
        _nbgrader(["fetch_feedback", ASSIGNMENT, *options[name]], home)
    TIMES["exchange"] = time.monotonic() - start
    load = max(load, os.getloadavg()[0])
    return {"course": course_dir, "root": root, "homes": homes, "logs": logs, "load": load,
            "outcomes": {o.student: o for o in run.results}}


def test_the_exchange_is_the_courses(exchange):
    """release_assignment used the configured exchange, not a system-wide one."""
    root = exchange["root"]
    assert (root / course.COURSE_ID / "outbound" / ASSIGNMENT / f"{QUIZ}.ipynb").is_file()
    assert str(root) in exchange["logs"]["release"]


def test_both_learners_are_collected_and_graded(exchange):
    course_dir = exchange["course"]
    assert classrun.students(course_dir) == ["ana", "bea"]
    outcomes = exchange["outcomes"]
    assert {s: o.status for s, o in outcomes.items()} == {"ana": "graded", "bea": "graded"}
    ana, bea = outcomes["ana"].scores, outcomes["bea"].scores
    for nb in (ENGINE_LAB, QUIZ):
        # the reference, answered: full marks but for its tests (skeletons: the record's 0)
        assert ana[nb][0] == ana[nb][1] - Submissions.record_points(nb) > 0, ana
        assert bea[nb][0] == 0, bea  # the stub, unanswered
    assert ana[LAB][0] == 0  # not handed in


def test_feedback_reaches_each_learner(exchange):
    for name, home in exchange["homes"].items():
        pages = sorted((home / ASSIGNMENT / "feedback").rglob("*.html"))
        assert {p.stem for p in pages} == {ENGINE_LAB, QUIZ}, (name, pages)
        page = next(p for p in pages if p.stem == QUIZ).read_text("utf-8")
        assert "test_01" in page  # the quiz's first graded cell
        assert re.search(r"(Puntuación oficial|Score of record) .*(semilla|seed) \d+", page)


def test_the_exchange_round_trip_takes_under_two_minutes(exchange):
    """About 35 s on a quiet 2-core machine; a machine busy with other work scales it."""
    if exchange["load"] > (os.cpu_count() or 1):
        pytest.skip(f"machine busy (load {exchange['load']:.1f}): the round trip took "
                    f"{TIMES['exchange']:.0f} s, not timed")
    assert TIMES["exchange"] < 120, TIMES


# ---------------------------------------------------------------- a class with bad submissions
def _edit_cell(path: Path, grade_id: str, edit) -> None:
    nb = json.loads(path.read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"]
                if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id)
    edit(cell)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")


def _to_markdown(cell: dict) -> None:
    cell["cell_type"] = "markdown"
    cell.pop("outputs", None)
    cell.pop("execution_count", None)


@pytest.fixture(scope="module")
def bad_class(tmp_path_factory, submissions, generated_course) -> dict:
    course_dir = tmp_path_factory.mktemp("badclass") / "course"
    release = generated_course(course_dir)
    reference = REFERENCE.read_text("utf-8")
    assert reference.count(LOOP_AT) == 1, "the looping op no longer applies: update LOOP_AT"
    labs = (ENGINE_LAB, LAB)
    submissions.submit(course_dir, release, "honest", reference, answered=True, only=labs)
    looping = reference.replace(LOOP_AT, LOOPING).replace("import math\n",
                                                          "import math\nimport time\n", 1)
    submissions.submit(course_dir, release, "looping", looping, answered=True, only=labs)
    submissions.submit(course_dir, release, "renamed", reference, answered=True, only=labs)
    assert reference.count(MUL_AT) == 1, "the crashing op no longer applies: update MUL_AT"
    submissions.submit(course_dir, release, "crashing", reference.replace(MUL_AT, CRASHING),
                       answered=True, only=labs)
    submissions.submit(course_dir, release, "markdown", reference, answered=True, only=(LAB,))
    submissions.submit(course_dir, release, "flipped", reference, answered=True, only=(QUIZ,))
    folder = course_dir / "submitted"
    _edit_cell(folder / "renamed" / ASSIGNMENT / f"{LAB}.ipynb", "check_add",
               lambda c: c["metadata"]["nbgrader"].update(grade_id="check_add_mine"))
    _edit_cell(folder / "markdown" / ASSIGNMENT / f"{LAB}.ipynb", "check_mul", _to_markdown)
    _edit_cell(folder / "flipped" / ASSIGNMENT / f"{QUIZ}.ipynb", "test_01",
               lambda c: c["metadata"]["nbgrader"].update(grade=False))
    start, load = time.monotonic(), os.getloadavg()[0]
    code = classrun.autograde_command(course_dir, budget=BUDGET)
    TIMES["bad_class"] = time.monotonic() - start
    load = max(load, os.getloadavg()[0])
    reports = sorted((course_dir / classrun.REPORTS).glob("autograde-*.json"))
    data = json.loads(reports[-1].read_text("utf-8"))
    return {"course": course_dir, "code": code, "load": load, "text": reports[-1]
            .with_suffix(".txt").read_text("utf-8"),
            "outcomes": {o["student"]: o for o in data["submissions"]}}


def test_every_submission_is_in_the_report(bad_class):
    assert set(bad_class["outcomes"]) == {"honest", "looping", "renamed", "markdown", "flipped",
                                          "crashing"}
    assert bad_class["code"] == 1  # two learners could not be graded at all (below)


def test_the_honest_one_is_graded_in_full(bad_class):
    honest = bad_class["outcomes"]["honest"]
    assert honest["status"] == "graded" and not honest["timed_out"] and not honest["manual"]
    for nb in (ENGINE_LAB, LAB):
        got, most = honest["scores"][nb]
        assert got == most - Submissions.record_points(nb) > 0, honest["scores"]  # tests: skeletons


def _stopped_cells(course_dir: Path, student: str) -> int:
    """The cells stopped by their timeout (nbgrader's CellTimeoutError) in the learner's
    autograded notebooks."""
    return sum(out.get("ename") == "CellTimeoutError"
               for path in (course_dir / "autograded" / student / ASSIGNMENT).glob("*.ipynb")
               for cell in json.loads(path.read_text("utf-8"))["cells"]
               for out in cell.get("outputs", []))


def test_the_looping_one_costs_its_budget_and_is_named(bad_class):
    """Whatever the load: one cell stopped, given at most the budget of wall time (the
    deadline), in one nbgrader run, nothing after it run, and the job's own work (nbgrader,
    the kernels: CPU time, which a busy machine does not stretch) small beside the budget."""
    looping = bad_class["outcomes"]["looping"]
    assert looping["status"] == "graded" and not looping["killed"], looping
    assert looping["stopped_at"].startswith((f"{ENGINE_LAB}/", f"{LAB}/")), looping
    assert looping["timed_out"].get(LAB), looping  # the rest of the labs was never run
    assert _stopped_cells(bad_class["course"], "looping") == 1  # and no other cell ran
    assert 0 < looping["stopped_after"] <= BUDGET, looping  # the deadline's, not more
    assert looping["runs"] == 1, looping
    assert looping["cpu"]["nbgrader"] < LOOP_CPU, looping
    assert looping["scores"][LAB][0] < looping["scores"][LAB][1]
    assert f"looping: stopped in {looping['stopped_at']} after {looping['stopped_after']} s" \
        in bad_class["text"]


def test_the_looping_one_costs_its_budget_of_wall_time(bad_class):
    """On a machine that is not overloaded, the whole nbgrader part ends within the budget and
    a margin (interrupting, killing the kernel, nbgrader's own writing). On a busy one that
    margin's CPU work waits for a core (the test above checks what does not depend on it)."""
    looping = bad_class["outcomes"]["looping"]
    if bad_class["load"] > (os.cpu_count() or 1):
        pytest.skip(f"machine busy (load {bad_class['load']:.1f}): the looping job took "
                    f"{looping['wall']['nbgrader']:.0f} s of wall time, not timed")
    assert looping["wall"]["nbgrader"] < BUDGET + MARGIN, looping


def test_a_renamed_grade_id_needs_manual_grading_and_the_rest_is_graded(bad_class):
    renamed = bad_class["outcomes"]["renamed"]
    assert renamed["status"] == "partly graded"
    assert "check_add" in renamed["manual"][LAB] and "renamed" in renamed["manual"][LAB]
    got, most = renamed["scores"][ENGINE_LAB]
    assert got == most - Submissions.record_points(ENGINE_LAB) > 0  # its tests: skeletons
    assert f"renamed / {LAB}: cell check_add is missing" in bad_class["text"]
    assert renamed["runs"] == 1, renamed  # the rest in one nbgrader run, not one per notebook
    course_dir = bad_class["course"]
    assert (course_dir / "submitted" / "renamed" / ASSIGNMENT / f"{LAB}.ipynb").is_file()
    assert not [p for p in course_dir.iterdir() if "staging" in p.name]  # all in the job


def test_a_dead_kernel_costs_one_run_and_its_notebook_needs_manual_grading(bad_class):
    crashing = bad_class["outcomes"]["crashing"]
    assert crashing["status"] == "partly graded", crashing
    assert crashing["manual"][LAB].startswith("the kernel died at "), crashing
    got, most = crashing["scores"][ENGINE_LAB]
    assert got == most - Submissions.record_points(ENGINE_LAB) > 0  # its tests: skeletons
    assert crashing["runs"] == 1, crashing  # not regraded notebook by notebook
    assert f"crashing / {LAB}: the kernel died at" in bad_class["text"]


@pytest.mark.parametrize("student, notebook, why", [
    ("markdown", LAB, "cell check_mul became markdown"),
    ("flipped", QUIZ, "cell test_01: metadata 'grade' changed to False"),
])
def test_a_broken_graded_cell_is_reported_never_a_silent_zero(bad_class, student, notebook, why):
    outcome = bad_class["outcomes"][student]
    assert outcome["status"] == "failed" and why in outcome["manual"][notebook], outcome
    assert f"{student} / {notebook}: {why}" in bad_class["text"]


def _points(notebook: str) -> float:
    """A notebook's points, from the instructor notebook's cell metadata."""
    nb = json.loads((course.SOURCE_NOTEBOOKS / f"{notebook}.ipynb").read_text("utf-8"))
    return sum(c["metadata"]["nbgrader"].get("points", 0) for c in nb["cells"]
               if c["metadata"].get("nbgrader", {}).get("grade"))


def test_the_export_has_one_column_per_notebook_and_the_quiz_mark(bad_class):
    with (bad_class["course"] / classrun.EXPORT).open(encoding="utf-8") as fh:
        rows = {r["student_id"]: r for r in csv.DictReader(fh)}
    assert set(rows) == set(bad_class["outcomes"])
    assert float(rows["honest"][LAB]) == _points(LAB) - Submissions.record_points(LAB) > 0
    # the renamed cell's lab, and every lab with a cell a human grades (lab 06's note)
    manual = {LAB} | {nb for nb, _ in Submissions.manual_cells()}
    assert rows["renamed"][LAB] == ""
    assert set(rows["renamed"]["needs_manual_grading"].split()) == manual
    assert rows["flipped"]["quiz_passed"] == "pending"
    assert rows["honest"]["quiz_passed"] == "no"  # the quiz was not handed in
    total = sum(float(rows["honest"][nb]) for nb in (ENGINE_LAB, LAB))
    assert float(rows["honest"]["total"]) == total


def test_a_second_run_skips_what_is_graded_and_keeps_it(bad_class):
    course_dir = bad_class["course"]
    before = classrun.notebook_scores(course_dir, "honest")
    ctx = classrun.Context(course_dir)
    try:
        outcome = classrun.grade_one(ctx, "honest", classrun.expected_cells(course_dir),
                                     budget=BUDGET)
    finally:
        ctx.close()
    assert outcome.status == "skipped" and outcome.scores == before  # from the gradebook
    assert "honest" not in ctx.taken  # nothing of it was copied, let alone run
    assert (course_dir / "submitted" / "looping").is_dir()


def test_the_class_run_time(bad_class):
    """Six submissions, one looping: each bad one costs its budget at most, never minutes."""
    assert TIMES["bad_class"] < 5 * 60, TIMES
    print(f"class run of 6 submissions: {TIMES['bad_class']:.0f} s")


def test_copy_of_a_submission_folder_is_a_learner(tmp_path):
    """``students`` lists learner folders only (a stray file in submitted/ is no learner)."""
    (tmp_path / "submitted" / "x" / ASSIGNMENT).mkdir(parents=True)
    (tmp_path / "submitted" / "notes.txt").write_text("", "utf-8")
    shutil.copytree(tmp_path / "submitted" / "x", tmp_path / "submitted" / "y")
    assert classrun.students(tmp_path) == ["x", "y"]
    assert classrun.students(tmp_path, "y*") == ["y"]
