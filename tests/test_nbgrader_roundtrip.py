"""The nbgrader round trip, asserted through nbgrader's gradebook API.

generate_assignment, then autograde three submissions that differ only in ``minitorch/tensor.py``:
the reference (full marks on every autograded cell), the stub (zero), and the reference with one
planted mistake (``tanh``'s backward without the square: partial marks, and the failing cell
names the op); then generate_feedback. A fourth run grades the stub in a hostile environment
(an instructor's PYTHONPATH and MINITORCH_IMPL=reference pointing at the solution) and must still
give zero: the locked set-up cell refuses to grade a tensor.py from outside the submission.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from minitorch_course import course

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "solutions" / "tensor.py"
ASSIGNMENT = course.ASSIGNMENT
MUTANT_OP = "tanh"
LAB = "01-elementwise-ops"
ENGINE_LAB = "00-tensor-skeleton"
CORRECT = "return (g * (1.0 - t * t),)"
PLANTED = "return (g * (1.0 - t),)"  # forgot the square: d tanh / da = 1 - tanh²


def _answered(student_nb: Path, instructor_nb: Path) -> str:
    """The student notebook with every exercise answered as in the instructor's version."""
    student = json.loads(student_nb.read_text(encoding="utf-8"))
    answers = {c["metadata"]["nbgrader"]["grade_id"]: c["source"]
               for c in json.loads(instructor_nb.read_text(encoding="utf-8"))["cells"]
               if c["metadata"].get("nbgrader", {}).get("solution")}
    for cell in student["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("solution"):
            cell["source"] = answers[meta["grade_id"]]
    return json.dumps(student, indent=1, ensure_ascii=False)


def _submit(course_dir: Path, release: Path, student: str, tensor_source: str,
            answered: bool, only: tuple[str, ...] = ()) -> None:
    """Submit the release folder with this tensor.py (``only``: just these notebooks)."""
    dest = course_dir / "submitted" / student / ASSIGNMENT
    shutil.copytree(release, dest)
    if only:
        for nb in dest.glob("*.ipynb"):
            if nb.stem not in only:
                nb.unlink()
    (dest / "minitorch" / "tensor.py").write_text(tensor_source, encoding="utf-8")
    if answered:
        for nb in dest.glob("*.ipynb"):
            nb.write_text(_answered(nb, course.SOURCE_NOTEBOOKS / nb.name), encoding="utf-8")


def _grades(course_dir: Path, student: str) -> dict[tuple[str, str], tuple[float, float]]:
    """{(notebook, grade_id): (score, max_score)} of the autograded cells, from the gradebook."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        submission = gb.find_submission(ASSIGNMENT, student)
        return {(nb.name, grade.name): (grade.score, grade.max_score)
                for nb in submission.notebooks for grade in nb.grades
                if grade.auto_score is not None or grade.max_score}


def _total(course_dir: Path, student: str) -> tuple[float, float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        submission = gb.find_submission(ASSIGNMENT, student)
        return submission.score, submission.max_score


def _cell_error(course_dir: Path, student: str, notebook: str, grade_id: str) -> str:
    path = course_dir / "autograded" / student / ASSIGNMENT / f"{notebook}.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == grade_id:
            return "\n".join(f"{o['ename']}: {o['evalue']}" for o in cell.get("outputs", [])
                             if o["output_type"] == "error")
    raise KeyError(grade_id)


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    course_dir = tmp_path_factory.mktemp("roundtrip") / "course"
    release = course.generate_assignment(course_dir)
    reference = REFERENCE.read_text(encoding="utf-8")
    assert reference.count(CORRECT) == 1, "the planted mistake no longer applies: update it"
    _submit(course_dir, release, "ref", reference, answered=True)
    _submit(course_dir, release, "stub", (release / course.GRADED_FILE).read_text("utf-8"),
            answered=False)
    # these two only need the lab the mistake and the guard show up in (keeps the suite fast)
    _submit(course_dir, release, "mutant", reference.replace(CORRECT, PLANTED), answered=True,
            only=(LAB,))
    # unanswered: its in-notebook exercises (no tensor.py involved) could only add honest points
    _submit(course_dir, release, "hostile", (release / course.GRADED_FILE).read_text("utf-8"),
            answered=False, only=(ENGINE_LAB, LAB))
    course.nbgrader(["autograde", ASSIGNMENT, "--student", "[rsm]*"], course_dir)
    hostile_env = course.grading_env(MINITORCH_IMPL="reference", PYTHONPATH=str(ROOT / "src"))
    course.nbgrader(["autograde", ASSIGNMENT, "--student", "hostile"], course_dir,
                    env=hostile_env)
    course.nbgrader(["generate_feedback", ASSIGNMENT], course_dir)
    return course_dir


def _graded_notebooks(course_dir: Path) -> set[str]:
    """The source notebooks that have at least one graded cell."""
    names = set()
    for path in (course_dir / "source" / ASSIGNMENT).glob("*.ipynb"):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        if any(c["metadata"].get("nbgrader", {}).get("grade") for c in cells):
            names.add(path.stem)
    return names


def test_every_graded_notebook_is_in_the_gradebook(graded):
    notebooks = {nb for nb, _ in _grades(graded, "ref")}
    assert notebooks == _graded_notebooks(graded)
    assert {"00-tensor-skeleton", LAB} <= notebooks


def test_reference_gets_full_marks_on_every_cell(graded):
    grades = _grades(graded, "ref")
    short = {k: v for k, v in grades.items() if v[0] != v[1]}
    assert not short, f"the reference lost marks: {short}"
    score, max_score = _total(graded, "ref")
    assert score == max_score > 0


def test_stub_gets_zero(graded):
    grades = _grades(graded, "stub")
    scored = {k: v for k, v in grades.items() if v[0]}
    assert not scored, f"the stub scored: {scored}"
    assert _total(graded, "stub")[0] == 0


def test_planted_mistake_gets_partial_marks_and_names_the_op(graded):
    grades = {k: v for k, v in _grades(graded, "mutant").items() if k[0] == LAB}
    score = sum(s for s, _ in grades.values())
    max_score = sum(m for _, m in grades.values())
    assert 0 < score < max_score, (score, max_score)
    failing = {k for k, (s, m) in grades.items() if s != m}
    cell = (LAB, f"check_{MUTANT_OP}")
    assert failing == {cell}, failing
    error = _cell_error(graded, "mutant", *cell)
    assert error.startswith("CheckFailure") and f"{MUTANT_OP} backward" in error, error
    assert 0 < _total(graded, "mutant")[0] < _total(graded, "mutant")[1]


def test_hostile_environment_cannot_grade_the_engine_checks(graded):
    """The engine checks re-check the origin of minitorch.tensor at every graded call."""
    grades = _grades(graded, "hostile")
    engine = {k: v for k, v in grades.items()
              if k[0] == ENGINE_LAB and k[1] != "check_exercise_shapes"}
    assert engine and not any(s for s, _ in engine.values()), engine
    assert grades[(LAB, "check_unbroadcast")][0] == 0
    error = _cell_error(graded, "hostile", ENGINE_LAB, "check_backward")
    assert "refusing to grade" in error, error


def test_hostile_environment_cannot_grade_the_solution(graded):
    """PYTHONPATH and MINITORCH_IMPL pointing at the solution: the stub still scores zero."""
    assert _total(graded, "hostile")[0] == 0
    error = _cell_error(graded, "hostile", LAB, "setup")
    assert "refusing to grade" in error, error


def test_feedback_is_generated(graded):
    notebooks = sorted(p.stem for p in (graded / "source" / ASSIGNMENT).glob("*.ipynb"))
    for student in ("ref", "stub"):
        pages = sorted((graded / "feedback" / student / ASSIGNMENT).glob("*.html"))
        assert [p.stem for p in pages] == notebooks, pages
    page = (graded / "feedback" / "mutant" / ASSIGNMENT / f"{LAB}.html").read_text(
        encoding="utf-8")
    assert f"check_{MUTANT_OP}" in page and "CheckFailure" in page
