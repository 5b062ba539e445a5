"""A class in progress when grade ids and answer variables were renamed (issue 24).

Two module fixtures:

- ``two_learners``: today's course, and two learners who hand in the same answers (the stub
  ``tensor.py``: only the answer cells can score), one from today's release and one from the
  release before the renames (``conftest.old_release_notebook``: old grade ids such as
  ``respuesta_01`` and ``prediccion_sum``, old variables such as ``pendientes``). The class run
  (``classrun autograde``: nbgrader in the sandbox, then the scores of record) grades both the
  same, cell by cell, in the kernel and in the record, and never touches ``submitted/``.
- ``in_progress``: a course built and graded with the old grade ids (a gradebook holding a
  submission), rebuilt from today's source. nbgrader alone refuses to regenerate it ("Cannot add
  or remove cells ... because there are submissions"); ``course build`` renames the gradebook's
  cells and the autograded notebooks' grade ids first, after which regeneration works, the
  grades stay with their cells and the feedback of the learners graded before is generated.

Without the table (``minitorch_course.renames.RENAMED`` empty) the first fixture's old
submission goes to manual grading and its answers read as unanswered, and the second's
regeneration fails: tests/minitorch_course/test_renames.py shows both, cheaply.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import Submissions, old_release_notebook

from minitorch_course import renames
from minitorch_course.exercises import ANSWER_CELLS
from minitorch_grading import classrun, course

pytestmark = pytest.mark.slow

ASSIGNMENT = course.ASSIGNMENT
QUIZ = classrun.QUIZ
# every notebook with a rename: lab 00 (variables only), labs 04 and 06, the quiz (both kinds)
LABS = ("00-tensor-skeleton", "04-gradcheck-and-properties", "06-extension-silu", QUIZ)
IN_PROGRESS = ("06-extension-silu", QUIZ)  # graded cells renamed, and answer cells
SEED = 20261206
BUDGET = 120.0  # both submissions are small; a loaded machine must not time them out


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _as_old_release(folder: Path) -> None:
    for path in folder.glob("*.ipynb"):
        path.write_text(json.dumps(old_release_notebook(_load(path), path.stem), indent=1,
                                   ensure_ascii=False), encoding="utf-8")


def _kernel_scores(course_dir: Path, student: str) -> dict[tuple[str, str], float | None]:
    """{(notebook, grade_id): in-kernel score} of the autograded notebooks (nbgrader's rule)."""
    import warnings

    import nbformat
    from nbgrader.utils import determine_grade, is_grade

    scores = {}
    for path in sorted((course_dir / "autograded" / student / ASSIGNMENT).glob("*.ipynb")):
        with warnings.catch_warnings():  # nbgrader leaves some cells without an id
            warnings.simplefilter("ignore")
            nb = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
        for cell in nb.cells:
            if is_grade(cell):
                scores[(path.stem, cell.metadata.nbgrader["grade_id"])] = determine_grade(cell)[0]
    return scores


def _needs_a_human(course_dir: Path, student: str) -> set[tuple[str, str]]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        submission = gb.find_submission(ASSIGNMENT, student)
        return {(nb.name, g.name) for nb in submission.notebooks for g in nb.grades
                if g.needs_manual_grade}


@pytest.fixture(scope="module")
def two_learners(tmp_path_factory, submissions: Submissions, generated_course,
                 sandbox_required) -> dict:
    course_dir = tmp_path_factory.mktemp("old-release") / "course"
    release = generated_course(course_dir)
    stub = (release / course.GRADED_FILE).read_text("utf-8")
    for student in ("today", "before"):
        submissions.submit(course_dir, release, student, stub, answered=True, only=LABS)
    folder = course_dir / "submitted" / "before" / ASSIGNMENT
    _as_old_release(folder)
    handed_in = {p.name: p.read_bytes() for p in folder.glob("*.ipynb")}
    status = classrun.autograde_command(course_dir, budget=BUDGET, seed=SEED)
    return {"course": course_dir, "status": status, "handed_in": handed_in, "folder": folder}


def test_the_old_submission_holds_the_old_names(two_learners):
    """The fixture is what it says: the old learner's notebooks have the old grade ids and
    variables, none of today's renamed ones."""
    texts = {name: data.decode("utf-8") for name, data in two_learners["handed_in"].items()}
    assert set(texts) == {f"{lab}.ipynb" for lab in LABS}
    for lab in LABS:
        table = renames.RENAMED[lab]
        text = texts[f"{lab}.ipynb"]
        for old, new in {**table.grade_ids, **table.variables}.items():
            assert old in text and f'"grade_id": "{new}"' not in text, (lab, old)


def test_both_learners_are_graded_and_nobody_is_sent_to_a_human(two_learners):
    course_dir = two_learners["course"]
    assert two_learners["status"] == 0
    manual = {k for k in Submissions.manual_cells() if k[0] in LABS}  # lab 06's note: a human's
    for student in ("today", "before"):
        assert _needs_a_human(course_dir, student) == manual, student


def test_the_same_answers_score_the_same_in_the_kernel_and_in_the_record(two_learners):
    course_dir = two_learners["course"]
    kernel = {s: _kernel_scores(course_dir, s) for s in ("today", "before")}
    record = {s: Submissions.grades(course_dir, s) for s in ("today", "before")}
    assert kernel["before"] == kernel["today"] and len(kernel["today"]) > 20
    assert record["before"] == record["today"]
    # and the answers earn their points: a pass, not two equal zeros
    answer_cells = {(c.lab, c.grade_id) for c in ANSWER_CELLS if c.lab in LABS} | {
        (QUIZ, grade_id) for (nb, grade_id) in record["today"] if nb == QUIZ}
    assert {nb for nb, _ in answer_cells} == set(LABS)
    for key in answer_cells:
        score, points = record["today"][key]
        assert score == points > 0, key
        assert kernel["today"][key] == points, key


def test_the_submission_itself_is_never_touched(two_learners):
    folder = two_learners["folder"]
    assert {p.name: p.read_bytes() for p in folder.glob("*.ipynb")} == two_learners["handed_in"]


# ---------------------------------------------------------------- the gradebook of a class
def _old_course(course_dir: Path) -> None:
    """The course's source notebooks as the old release had them."""
    source = course_dir / "source" / ASSIGNMENT
    for path in source.glob("*.ipynb"):
        path.write_text(json.dumps(old_release_notebook(_load(path), path.stem), indent=1,
                                   ensure_ascii=False), encoding="utf-8")


def _answer_as_before(folder: Path) -> None:
    """Answer the old release's notebooks as the instructor does (cells matched by cell id,
    the answers with their old variable names)."""
    for path in folder.glob("*.ipynb"):
        key = old_release_notebook(_load(course.SOURCE_NOTEBOOKS / path.name), path.stem)
        answers = {c["id"]: c["source"] for c in key["cells"]
                   if c["metadata"].get("nbgrader", {}).get("solution")}
        nb = _load(path)
        for cell in nb["cells"]:
            if cell["metadata"].get("nbgrader", {}).get("solution"):
                cell["source"] = answers[cell["id"]]
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")


@pytest.fixture(scope="module")
def in_progress(tmp_path_factory, submissions: Submissions, generated_course) -> dict:
    course_dir = tmp_path_factory.mktemp("in-progress") / "course"
    generated_course(course_dir)
    _old_course(course_dir)
    course.nbgrader(["generate_assignment", ASSIGNMENT, "--force"], course_dir)  # no one yet
    release = course_dir / "release" / ASSIGNMENT
    stub = (release / course.GRADED_FILE).read_text("utf-8")
    submissions.submit(course_dir, release, "early", stub, answered=False, only=IN_PROGRESS)
    _answer_as_before(course_dir / "submitted" / "early" / ASSIGNMENT)
    course.nbgrader(["autograde", ASSIGNMENT, "--student", "early"], course_dir)
    graded = Submissions.grades(course_dir, "early")
    # today's source, without renaming the gradebook: what nbgrader alone does
    refused = tmp_path_factory.mktemp("refused") / "course"
    shutil.copytree(course_dir, refused, symlinks=True)
    course.build(refused)
    plain = course.nbgrader(["generate_assignment", ASSIGNMENT, "--force"], refused,
                            check=False)
    shutil.rmtree(refused.parent)
    return {"course": course_dir, "graded": graded, "plain": plain}


def test_nbgrader_alone_refuses_new_grade_ids_under_submissions(in_progress):
    plain = in_progress["plain"]
    assert plain.returncode != 0
    assert "Cannot add or remove cells" in plain.stdout + plain.stderr


def test_course_build_renames_the_gradebook_and_keeps_the_grades(in_progress, capsys):
    course_dir, before = in_progress["course"], in_progress["graded"]
    table = {(nb, old): (nb, new) for nb in renames.RENAMED  # every notebook has its grades
             for old, new in renames.grade_ids(nb).items()}
    assert set(before) & set(table)  # graded under the old ids (lab 06's graded cells)
    assert sum(s for s, _ in before.values()) > 0
    assert course.build_command(course_dir) == 0
    said = capsys.readouterr().out
    assert f"{QUIZ}/respuesta_01 -> answer_01" in said and "grades kept" in said
    course.nbgrader(["generate_assignment", ASSIGNMENT, "--force"], course_dir)
    after = Submissions.grades(course_dir, "early")
    assert after == {table.get(k, k): v for k, v in before.items()}
    assert course.rename_graded_cells(course_dir) == []  # done once
    # the notebooks autograded before carry today's grade ids: the feedback finds their grades
    course.nbgrader(["generate_feedback", ASSIGNMENT, "--student", "early"], course_dir)
    assert (course_dir / "feedback" / "early" / ASSIGNMENT / f"{QUIZ}.html").is_file()
