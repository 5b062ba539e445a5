"""Predict, then run (issue 28): the answer cells of labs 00-03.

Each exercise passes on the instructor's answer, fails on the untouched placeholder and on
wrong answers a learner plausibly gives (invented here, after the checks were written), in
both routes: the notebook cell (self-study and nbgrader) and the scores of record, which judge
the literal answers outside the kernel. A demo cell that hits a bug shows the course's note."""

from __future__ import annotations

import ast
import json
import math
import re

import numpy as np
import pytest

from minitorch_course import exercises
from minitorch_course.catalog import CELLS
from minitorch_course.exercises import (
    EXERCISES,
    ExerciseFailure,
    answer_cell,
    answer_input_cell,
    check_exercise,
)
from minitorch_grading import course, record

WRONG = {  # mistakes a learner makes: each must fail
    "topo_order": [["x", "w", "y", "z", "s"], ["s", "z", "y", "x"], ["x", "y", "z"],
                          ["x", "y", "y", "z", "s"], "x y z s"],
    "grad_shapes": [((5, 3), ()), ((3, 5), (1,)), ([3, 5], ()), ((3, 5), (3, 5)), ((), ())],
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
        assert answer_input_cell(name) in ids and answer_cell(name) in ids, name
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
    assert "The graded check of this op (its check_ops cell in this lab)" in out
    assert "Traceback" not in out
    with pending():  # o37: the learner's own assertion message was cut to "AssertionError: "
        np.testing.assert_allclose(np.zeros(3), np.ones(3), rtol=1e-7)
    out = capsys.readouterr().out
    assert "your code raised AssertionError: Not equal to tolerance rtol=1e-07" in out, out
    assert "Mismatched elements: 3 / 3" in out and "below" not in out, out
    with pending():
        raise NotImplementedError("Tensor.add: not written yet")
    assert "(not written yet)" in capsys.readouterr().out


def _learner_copy(tmp_path, lab: str, answers: dict | None) -> None:
    """tmp_path/notebooks/<lab>.ipynb: the student notebook, its answer cells filled with
    ``answers`` ({variable: value}) or left as shipped (None)."""
    from minitorch_authoring.repository import STUDENT_NOTEBOOKS

    nb = json.loads((STUDENT_NOTEBOOKS / f"{lab}.ipynb").read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if answers is not None and meta.get("solution") and cell["cell_type"] == "code":
            names = [n.targets[0].id for n in ast.parse("".join(cell["source"])).body
                     if isinstance(n, ast.Assign)]
            cell["source"] = "".join(f"{n} = {answers[n]!r}\n" for n in names if n in answers)
    (tmp_path / "notebooks").mkdir(exist_ok=True)
    (tmp_path / "notebooks" / f"{lab}.ipynb").write_text(json.dumps(nb), encoding="utf-8")


def test_the_progress_report_shows_each_answer_cells_state(tmp_path, monkeypatch):
    """make check once showed «?/1» for an answer cell, answered or not (issue 28): now each
    answer cell's state is read from the learner's saved notebook, as literals."""
    from minitorch_course.exercises import ANSWER_CELLS, cell_states

    lab = "02-reductions-and-shapes"
    ids = {c.grade_id for c in ANSWER_CELLS if c.lab == lab}
    monkeypatch.chdir(tmp_path)
    _learner_copy(tmp_path, lab, None)
    assert cell_states(lab) == dict.fromkeys(ids, "unanswered")
    right = record.literal_answers(course.SOURCE_NOTEBOOKS / f"{lab}.ipynb")[0]
    _learner_copy(tmp_path, lab, right)
    assert cell_states(lab) == dict.fromkeys(ids, "right")
    _learner_copy(tmp_path, lab, {**right, "grad_A": [[0, 1, 0], [2, 0, 0]]})
    assert cell_states(lab)[answer_cell("max_ties")] == "wrong"
    # a keyed cell (lab 06): judged with the instructor's key, or "answered" without it
    keyed = "06-extension-silu"
    silu = record.literal_answers(course.SOURCE_NOTEBOOKS / f"{keyed}.ipynb")[0]
    _learner_copy(tmp_path, keyed, silu)
    assert cell_states(keyed) == {"check_answer_silu_prime": "right"}
    assert cell_states(keyed, key_notebook=tmp_path / "absent.ipynb") == {
        "check_answer_silu_prime": "answered"}
    _learner_copy(tmp_path, keyed, {"silu_prime": (1.0, 0.0)})
    assert cell_states(keyed) == {"check_answer_silu_prime": "wrong"}


def test_make_check_prints_the_answer_state_and_counts_a_right_answer(tmp_path, monkeypatch):
    import io

    from minitorch_authoring import stubgen
    from minitorch_authoring.repository import REFERENCE
    from minitorch_course import check as check_cli

    monkeypatch.setenv("MINITORCH_LANG", "en")
    monkeypatch.setenv("MINITORCH_CACHE", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    lab = "00-tensor-skeleton"
    right = record.literal_answers(course.SOURCE_NOTEBOOKS / f"{lab}.ipynb")[0]
    _learner_copy(tmp_path, lab, {**right, "grad_x_shape": (5, 3)})
    stub = tmp_path / "tensor.py"
    stub.write_text(stubgen.generate(REFERENCE.read_text(encoding="utf-8")), encoding="utf-8")
    stream = io.StringIO()
    check_cli.main(["--impl", str(stub), "--examples", "1"], stream=stream)
    out = stream.getvalue()
    topo = next(line for line in out.splitlines() if "answer_topo_order" in line)
    shapes = next(line for line in out.splitlines() if line.strip().startswith("exercise_shapes"))
    assert "right" in topo and topo.rstrip().endswith("1/1"), topo
    assert "not right yet" in shapes and shapes.rstrip().endswith("0/1"), shapes
    assert "?/1" not in topo + shapes
    assert re.search(r"Lab 00: .*\b1/\d+ points", out), out[:400]
    # the Total counts what the lab headers count, answer cells included (issue 28)
    headers = re.findall(r"^Lab \d\d: .*?(\d+)/\d+ points(?: \(\d+ not scored here.*\))?$", out,
                         re.MULTILINE)
    total = re.search(r"^Total: (\d+)/", out, re.MULTILINE)
    assert int(total.group(1)) == sum(map(int, headers)) == 1, (headers, total.group(0))
    assert "…" not in out.split("Total: ")[0]  # no table cell cut short


@pytest.mark.parametrize("lang", ["es", "en"])
def test_no_table_cell_is_cut_short(lang, monkeypatch):
    """make check once printed «padres primero; cadena de 100.000 operacio…» (issue 28): a cell
    longer than its column goes on below its row, every word of it."""
    import io

    from minitorch_authoring.repository import REFERENCE
    from minitorch_course import check as check_cli
    from minitorch_course import runner

    monkeypatch.setenv("MINITORCH_LANG", lang)
    reports = runner.run(["topological_order", "retain_graph"], runner.load_impl(REFERENCE),
                         max_examples=1)
    text = check_cli.table(reports, check_cli.Style(io.StringIO()), whole=False)
    assert "…" not in text
    # the text of the rows without their points column, read as one run of words
    flat = " ".join(" ".join(re.sub(r"\s\d+/\d+$", "", line) for line in text.splitlines()).split())
    for r in reports:
        assert " ".join(check_cli._what(r).split()) in flat, (check_cli._what(r), text)


def test_every_answer_cell_of_the_labs_is_in_the_one_registry():
    """One owner of the labs' answer cells (issue 28): every graded cell that judges an answer
    (``check_exercise`` or ``quiz.check_format``) is an entry of exercises.ANSWER_CELLS, with
    the variables it reads, and every entry is such a cell."""
    from minitorch_authoring.repository import SOURCE_NOTEBOOKS
    from minitorch_course.exercises import ANSWER_CELLS

    found = {}
    for path in sorted(SOURCE_NOTEBOOKS.glob("0[0-6]-*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            source = "".join(cell["source"])
            if meta.get("grade") and ("check_exercise(" in source or "check_format(" in source):
                calls = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)
                         and getattr(n.func, "attr", getattr(n.func, "id", "")) in (
                             "check_exercise", "check_format")]
                names = tuple(a.id for c in calls for a in c.args if isinstance(a, ast.Name))
                found[meta["grade_id"]] = (path.stem, names)
    registry = {c.grade_id: (c.lab, c.variables) for c in ANSWER_CELLS}
    assert found == registry


# softmax_ek (s = (1/4, 1/4, 1/2), g = e_3): each classic slip worked out by hand, and the words
# its feedback must use; two answers no rule produces get the plain count, no named slip
SOFTMAX_SLIP_ANSWERS = {
    "the sum term is missing": [0.0, 0.0, 0.5],  # s ⊙ g
    "only the Jacobian's diagonal": [0.0, 0.0, 0.25],  # s ⊙ (1 - s) ⊙ g
    "opposite sign": [0.125, 0.125, -0.25],  # -(right answer)
    "plain sum of g": [-0.25, -0.25, 0.0],  # s ⊙ (g - Σ g)
    "softmax(z) itself": [0.25, 0.25, 0.5],  # the forward
}


def test_softmax_ek_names_each_classic_slip_and_only_that_one():
    said = {}
    for words, answer in SOFTMAX_SLIP_ANSWERS.items():
        with pytest.raises(ExerciseFailure) as err:
            check_exercise("softmax_ek", answer)
        said[words] = str(err.value)
        assert words in said[words], said[words]
        assert "Re-read: theory/03" in said[words]
    for words, text in said.items():  # no slip's words in another slip's feedback
        assert not [w for w in SOFTMAX_SLIP_ANSWERS if w != words and w in text], text
    for invented in ([0.0, 0.0, 1.0], [-0.125, -0.125, 0.5], [0.1, -0.2, 0.1]):
        with pytest.raises(ExerciseFailure) as err:
            check_exercise("softmax_ek", invented)
        assert "of its 3 values are not" in str(err.value)
        assert not [w for w in SOFTMAX_SLIP_ANSWERS if w in str(err.value)]
