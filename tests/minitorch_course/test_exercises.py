"""Predict, then run (issue 28): the answer cells of labs 00-03.

Each exercise passes on the instructor's answer, fails on the untouched placeholder and on
wrong answers a learner plausibly gives (invented here, after the checks were written), in
both routes: the notebook cell (self-study and nbgrader) and the scores of record, which judge
the literal answers outside the kernel. A demo cell that hits a bug shows the course's note."""

from __future__ import annotations

import ast
import json
import math

import numpy as np
import pytest

from minitorch_course import exercises
from minitorch_course.catalog import CELLS
from minitorch_course.exercises import EXERCISES, ExerciseFailure, answer_cell, check_exercise
from minitorch_grading import course, record

WRONG = {  # mistakes a learner makes: each must fail
    "topo_order": [["x", "w", "y", "z", "s"], ["s", "z", "y", "x"], ["x", "y", "z"],
                          ["x", "y", "y", "z", "s"], "x y z s"],
    "bcast_sum": [([6.0, 15.0], [[5.0, 7.0, 9.0]]),  # shape lost
                      ([[21.0], [21.0]], [[5.0, 7.0, 9.0]]),  # summed over every axis
                      (BROADCAST := [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], BROADCAST)],  # not reduced
    "div_pow": [(1, 0.0), (-1, -math.inf), (-1, 1.0), (True, 0.0)],
    "sum_trap": [((3, 3), (4, 3)), ((4, 3), (4, 3)), ([4, 3], (3, 3))],
    "max_ties": [([[0, 1, 0], [2, 0, 0]],), ([[0, 1, 1], [2, 2, 0]],), ([[0, 1, 1], [1, 1, 0]],)],
    "cat_axis1": [([[1], [2]], [[4], [8]]), ([[1, 5]], [[4], [8]]), ([[1], [5]], [[3], [7]])],
    "matmul_2x2": [([[3, 1], [4, 2]], [[1, 2], [7, 10]]),  # A·G instead of Aᵀ·G
                   ([[1, 3], [3, 7]], [[1, 7], [2, 10]])],  # G·B instead of G·Bᵀ
    "softmax_ek": [([0, 0, 1],), ([0.125, 0.125, -0.25],),
                                 ([-0.125, -0.125, 0.5],)],
    "ce_1000": [(math.log(3) / 2, False), ((2000 + math.log(3)) / 2, True),
                       (1000.0, False), (math.inf, False)],
}


def _notebook(lab: str) -> dict:
    return json.loads((course.SOURCE_NOTEBOOKS / f"{lab}.ipynb").read_text(encoding="utf-8"))


def _instructor_answers(name: str) -> tuple:
    """The instructor's answers, read as literals from the solution cell (not from this test)."""
    values = record.literal_answers(course.SOURCE_NOTEBOOKS / f"{EXERCISES[name].lab}.ipynb")[0]
    return tuple(values[var] for var in EXERCISES[name].answers)


def test_every_exercise_has_its_cells_in_its_lab():
    for name, exercise in EXERCISES.items():
        ids = {c.get("metadata", {}).get("nbgrader", {}).get("grade_id"): c
               for c in _notebook(exercise.lab)["cells"]}
        assert f"answer_{name}" in ids and answer_cell(name) in ids, name
        check = "".join(ids[answer_cell(name)]["source"])
        call = next(n for n in ast.walk(ast.parse(check)) if isinstance(n, ast.Call))
        assert [a.id for a in call.args[1:]] == list(exercise.answers), name
        assert any(c.grade_id == answer_cell(name) and c.points == 1 for c in CELLS)
    assert {e.lab for e in EXERCISES.values()} == {
        "00-tensor-skeleton", "01-elementwise-ops", "02-reductions-and-shapes",
        "03-matmul-softmax-ce"}


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_right_answer_passes_placeholder_and_wrong_answers_fail(name, capsys):
    check_exercise(name, *_instructor_answers(name))
    assert "✓" in capsys.readouterr().out
    with pytest.raises(NotImplementedError, match="None"):
        check_exercise(name, *([None] * len(EXERCISES[name].answers)))
    for wrong in WRONG[name]:
        answers = wrong if isinstance(wrong, tuple) else (wrong,)
        with pytest.raises(ExerciseFailure) as err:
            check_exercise(name, *answers)
        assert "Re-read: theory/0" in str(err.value), str(err.value)


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_the_feedback_never_gives_the_expected_value(name):
    """A wrong answer is told what is wrong and where to re-read, not the answer."""
    right = _instructor_answers(name)
    for wrong in WRONG[name]:
        answers = wrong if isinstance(wrong, tuple) else (wrong,)
        try:
            check_exercise(name, *answers)
        except ExerciseFailure as err:
            message = str(err).replace(" ", "")
            for value in right:
                if isinstance(value, list):
                    assert str(value).replace(" ", "") not in message, (name, message)


def test_spanish_feedback(monkeypatch):
    monkeypatch.setenv("MINITORCH_LANG", "es")
    with pytest.raises(ExerciseFailure, match="Vuelve a leer: theory/02"):
        check_exercise("max_ties", [[0, 1, 0], [2, 0, 0]])
    with pytest.raises(NotImplementedError, match="sin responder"):
        check_exercise("max_ties", None)


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_scores_of_record_judge_the_literal_answers(name):
    """The class route: the record runs the instructor's test cell on the answers read as data."""
    lab = EXERCISES[name].lab
    cells = {c.grade_id: c for c in record.graded_cells(course.SOURCE_NOTEBOOKS)[lab]}
    cell = cells[answer_cell(name)]
    solution = record.literal_answers(course.SOURCE_NOTEBOOKS / f"{lab}.ipynb")[0]
    assert record.judge_answer(cell, solution)
    first = EXERCISES[name].answers[0]
    assert not record.judge_answer(cell, {**solution, first: None})
    wrong = WRONG[name][0]
    answers = wrong if isinstance(wrong, tuple) else (wrong,)
    assert not record.judge_answer(cell, {**solution,
                                          **dict(zip(EXERCISES[name].answers, answers))})


def test_expected_values_are_computed_not_copied():
    """The module holds inputs, never an expected gradient: a planted wrong input changes the
    verdict (the check computes, it does not compare with a copied result)."""
    source = (exercises.__file__)
    tree = ast.parse(open(source, encoding="utf-8").read())
    names = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets
             if isinstance(t, ast.Name)}
    assert not any("EXPECTED" in n or "ANSWER" in n for n in names)
    right = _instructor_answers("max_ties")
    saved = exercises.MAX_G.copy()
    try:
        exercises.MAX_G[:] = [1.0, 4.0]
        with pytest.raises(ExerciseFailure):
            check_exercise("max_ties", *right)
    finally:
        exercises.MAX_G[:] = saved


def test_a_bug_in_a_demo_cell_shows_the_course_note_not_a_traceback(capsys):
    import minitorch as mt
    from minitorch_course.grading import pending

    with pending():
        mt.Tensor(np.ones(3)) + mt.Tensor(np.ones((2, 4)))
    out = capsys.readouterr().out
    assert "This demo stopped: your code raised ShapeError" in out
    assert "The graded check of this op, below" in out
    assert "Traceback" not in out
    with pending():
        raise NotImplementedError("Tensor.add: not written yet")
    assert "(not written yet)" in capsys.readouterr().out
