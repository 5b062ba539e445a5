"""Predict, then run: no cell of a lab shows an answer cell's value (issue 28).

An answer cell asks the learner to predict a value before running anything. If another cell of
the same notebook prints that value when a correct implementation runs it (the instructor
notebook's rendered outputs are exactly that), or holds it in its source (student notebook,
both languages' cells), the prediction can be copied instead of made; and a graded check cell
that compares with the notebook's own variables (``grad_x_shape == x.shape``) shows the answer
in its source. Every cell counts, wherever it sits: a learner can run or read any cell first.

The expected values are the instructor's answers, read as literals from the answer cells
(``quiz.read_answers``); tests/minitorch_course/test_exercises.py and tests/minitorch_course/test_quiz.py check those against
the course's own computation. A value the question itself states (its Markdown cell gives the
options or the shape) is not a leak.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import numpy as np
import pytest

from minitorch_authoring.repository import SOURCE_NOTEBOOKS, STUDENT_NOTEBOOKS
from minitorch_course import quiz
from minitorch_grading.record.answers import _free_names  # the record's own reading

NUMBER = re.compile(r"-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?")
LABS = sorted(p.stem for p in SOURCE_NOTEBOOKS.glob("0[0-6]-*.ipynb"))


def _source(cell: dict) -> str:
    """A cell's source as a learner gets it: hidden tests (the key) are stripped in a release."""
    source = cell.get("source", "")
    source = "".join(source) if isinstance(source, list) else str(source)
    return re.sub(r"### BEGIN HIDDEN TESTS.*?### END HIDDEN TESTS", "", source, flags=re.S)


def _outputs(cell: dict) -> str:
    parts = []
    for out in cell.get("outputs", []):
        parts.append("".join(out.get("text", "")))
        for mime, value in out.get("data", {}).items():
            if mime.startswith("text/"):
                parts.append("".join(value) if isinstance(value, list) else str(value))
    return "\n".join(parts)


def _is_answer_cell(cell: dict) -> bool:
    meta = (cell.get("metadata") or {}).get("nbgrader") or {}
    if cell.get("cell_type") != "code" or not meta.get("solution"):
        return False
    try:
        tree = ast.parse(_source(cell))
    except SyntaxError:
        return False
    return bool(tree.body) and all(isinstance(n, ast.Assign) for n in tree.body)


def _flat(value) -> list | None:
    """The numbers of a (nested) numeric answer, in reading order; None if not numeric."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return [float(value)]
    if isinstance(value, list | tuple) and value:
        parts = [_flat(v) for v in value]
        return None if any(p is None for p in parts) else [x for p in parts for x in p]
    return None


def _numbers(text: str) -> list[float]:
    return [float(m) for m in NUMBER.findall(text) if m not in ("-", ".")]


def _has_run(numbers: list[float], want: list[float]) -> bool:
    n = len(want)
    target = np.array(want)
    for i in range(len(numbers) - n + 1):
        if np.allclose(numbers[i:i + n], target, rtol=1e-3, atol=5e-4):
            return True
    return False


def _ops(cells: list[dict]) -> dict[str, str]:
    """The op label of each hand-built node (``y = mt.Tensor._make(..., "square")``): an order of
    node names can also be printed as the order of their ops."""
    labels = {}
    for cell in cells:
        for name, op in re.findall(r"(\w+)\s*=\s*mt\.Tensor\._make\(.*?,\s*[\"'](\w+)[\"']\)",
                                   _source(cell)):
            labels[name] = op
    return labels


def shows(value, text: str, ops: dict[str, str]) -> bool:
    """Whether ``text`` shows the answer ``value``: its numbers in a row (two or more, or one
    non-integer), a shape printed beside a gradient, or a sequence of names (or of their ops)."""
    if isinstance(value, list | tuple) and value and all(isinstance(v, str) for v in value):
        words = re.findall(r"\w+", text)
        for seq in ([str(v) for v in value], [ops[v] for v in value if v in ops]):
            n = len(seq)
            if n >= 2 and any(words[i:i + n] == seq for i in range(len(words) - n + 1)):
                return True
        return False
    if isinstance(value, tuple) and all(isinstance(v, int) and not isinstance(v, bool)
                                        for v in value):  # a shape: shown beside a gradient
        return any(re.search(r"\bgrad\b|\.grad\b", line) and repr(value) in line
                   for line in text.splitlines())
    flat = _flat(value)
    if flat is None or (len(flat) == 1 and float(flat[0]).is_integer()):
        return False  # a bool, a letter, an integer alone: too common to tell
    if isinstance(value, list | tuple) and re.search(_nested(value), text):
        return True  # as a list or a NumPy array, brackets and all
    if len(flat) <= 2 and all(float(x).is_integer() for x in flat):
        return False  # two integers in a row are everywhere (shapes, axes)
    return _has_run(_numbers(text), flat)


def _nested(value) -> str:
    """A pattern for ``value`` printed as a Python list or a NumPy array (``[[1.]\n [5.]]``)."""
    if isinstance(value, list | tuple):
        return r"[\[(]\s*" + r"\s*,?\s*".join(_nested(v) for v in value) + r"\s*,?\s*[\])]"
    number = float(value)
    if number.is_integer():
        return rf"-?{abs(int(number))}(?:\.0*)?(?![\d.])" if number else r"-?0(?:\.0*)?(?![\d.])"
    return re.escape(f"{number:g}")


def leaks(cells: list[dict], with_outputs: bool) -> list[str]:
    """One sentence per (cell, answer variable) where a cell shows the answer."""
    found = []
    ops = _ops(cells)
    for k, cell in enumerate(cells):
        if not _is_answer_cell(cell):
            continue
        question = _source(cells[k - 1]) if k and cells[k - 1]["cell_type"] == "markdown" else ""
        answers = quiz.read_answers_from_cells([cell])
        for var, value in answers.items():
            if shows(value, question, ops):
                continue  # the question gives it (the options, a shape): not a prediction
            for other in cells:
                if other is cell:
                    continue
                text = _source(other) + ("\n" + _outputs(other) if with_outputs else "")
                if shows(value, text, ops):
                    found.append(f"cell {other.get('id')} shows {var} = {value!r}")
    return found


@pytest.mark.parametrize("lab", LABS)
def test_no_cell_shows_an_answer(lab):
    """Rendered instructor notebook (what a correct implementation prints) and the student
    notebook's sources."""
    instructor = json.loads((SOURCE_NOTEBOOKS / f"{lab}.ipynb").read_text(encoding="utf-8"))
    found = leaks(instructor["cells"], with_outputs=True)
    student_path = STUDENT_NOTEBOOKS / f"{lab}.ipynb"
    student = json.loads(student_path.read_text(encoding="utf-8"))
    # the student's answer cells hold None: take the instructor's answers into them
    answers = {c.get("id"): c for c in instructor["cells"] if _is_answer_cell(c)}
    cells = [answers.get(c.get("id"), c) for c in student["cells"]]
    found += [f"(student) {f}" for f in leaks(cells, with_outputs=True)]
    assert not found, "predict-then-run answers a learner can copy:\n" + "\n".join(found)


def check_cell_reads(cells: list[dict]) -> list[str]:
    """A graded cell that reads an answer variable may read nothing else of the notebook: a
    check written against the notebook's own variables shows the answer in its source."""
    answer_vars: set[str] = set()
    for cell in cells:
        if _is_answer_cell(cell):
            answer_vars |= set(quiz.read_answers_from_cells([cell]))
    found = []
    for cell in cells:
        meta = (cell.get("metadata") or {}).get("nbgrader") or {}
        if cell.get("cell_type") != "code" or not meta.get("grade"):
            continue
        names = _free_names(_source(cell))
        if names & answer_vars and names - answer_vars:
            found.append(f"cell {cell.get('id')} checks {sorted(names & answer_vars)} "
                         f"against {sorted(names - answer_vars)}")
    return found


@pytest.mark.parametrize("lab", LABS)
def test_answer_checks_read_only_the_answers(lab):
    cells = json.loads((SOURCE_NOTEBOOKS / f"{lab}.ipynb").read_text(encoding="utf-8"))["cells"]
    found = check_cell_reads(cells)
    assert not found, "\n".join(found)


_EXAMPLE = re.compile(r"`(\[[^`\]]*\])`")


def example_nudges(cells: list[dict]) -> list[str]:
    """An answer that is a list of names (a topological order) is chosen among the graph's
    nodes; a question whose example of the FORM uses those names (`["x", "w"]`) nudges the
    prediction (a learner took the constant w in, as the example did). Its example must use
    names the answer is not chosen from."""
    found = []
    for k, cell in enumerate(cells):
        if not _is_answer_cell(cell) or not k or cells[k - 1]["cell_type"] != "markdown":
            continue
        answers = quiz.read_answers_from_cells([cell])
        if not any(isinstance(v, list) and v and all(isinstance(x, str) for x in v)
                   for v in answers.values()):
            continue
        candidates = set(re.findall(r"[\"']([^\"']+)[\"']", _source(cell)))
        for literal in _EXAMPLE.findall(_source(cells[k - 1])):
            try:
                example = ast.literal_eval(literal)
            except (ValueError, SyntaxError):
                continue
            if isinstance(example, list) and set(map(str, example)) & candidates:
                found.append(f"cell {cells[k - 1].get('id')}: the example {literal} uses the "
                             f"graph's names {sorted(set(map(str, example)) & candidates)}")
    return found


@pytest.mark.parametrize("lab", LABS)
def test_no_question_nudges_with_its_example(lab):
    for folder in (SOURCE_NOTEBOOKS, SOURCE_NOTEBOOKS / "en"):
        cells = json.loads((folder / f"{lab}.ipynb").read_text(encoding="utf-8"))["cells"]
        assert not example_nudges(cells), example_nudges(cells)


def test_an_example_with_the_graphs_names_is_found():
    answer = _cell('topo_order = None  # "x", "w", "y", "z", "s"\n### BEGIN SOLUTION\n'
                   'topo_order = ["x", "y", "z", "s"]\n### END SOLUTION', solution=True)
    old = _cell('Escríbela con los nombres, p. ej. `["x", "w"]`.', cell_type="markdown")
    new = _cell('La forma, con otros nombres: `["a", "b", "c"]`.', cell_type="markdown")
    assert example_nudges([old, answer]) and not example_nudges([new, answer])


# ---------------------------------------------------------------- the detector can fail
def _cell(source: str, outputs: str = "", cell_type: str = "code", **nbgrader) -> dict:
    cell = {"cell_type": cell_type, "id": "c", "source": source,
            "metadata": {"nbgrader": nbgrader} if nbgrader else {}}
    if cell_type == "code":
        cell["outputs"] = [{"output_type": "stream", "text": outputs}] if outputs else []
    return cell


ANSWER = _cell("grad_A = None\n### BEGIN SOLUTION\ngrad_A = [[0.0, 0.5, 0.5], [1.0, 1.0, 0.0]]\n"
               "### END SOLUTION", solution=True)


@pytest.mark.parametrize(("planted", "how"), [
    (_cell("t.max(axis=1).backward(g)", "[[0.  0.5 0.5]\n [1.  1.  0. ]]"), "printed by NumPy"),
    (_cell("print(grad)", "grad [0.0, 0.5, 0.5, 1.0, 1.0, 0.0]"), "printed flat"),
    (_cell("La respuesta es `[[0, 0.5, 0.5], [1, 1, 0]]`.", cell_type="markdown"), "in prose"),
])
def test_a_printed_answer_is_found(planted, how):
    question = _cell("¿Qué vale `A.grad`?", cell_type="markdown")
    assert leaks([question, ANSWER, planted], with_outputs=True), how


def test_an_order_printed_as_ops_is_found():
    graph = _cell('y = mt.Tensor._make(x.data ** 2, (x,), "square")\n'
                  'z = mt.Tensor._make(y.data * w.data, (y, w), "mul")\n'
                  's = mt.Tensor._make(z.data.sum(), (z,), "sum")')
    answer = _cell('orden = None\n### BEGIN SOLUTION\norden = ["x", "y", "z", "s"]\n'
                   '### END SOLUTION', solution=True)
    demo = _cell("print(order)", "hoja -> square -> mul -> sum")
    assert leaks([graph, _cell("?", cell_type="markdown"), answer, demo], with_outputs=True)
    assert not leaks([graph, _cell("?", cell_type="markdown"), answer,
                      _cell("print(ok)", "padres antes que hijos: True")], with_outputs=True)


def test_a_check_against_the_notebooks_variables_is_found():
    answer = _cell("forma = None\n### BEGIN SOLUTION\nforma = (3, 5)\n### END SOLUTION",
                   solution=True)
    bad = _cell("assert forma == x.shape", grade=True)
    good = _cell("from minitorch_course.exercises import check_exercise\n"
                 "check_exercise('grad_shapes', forma)", grade=True)
    assert check_cell_reads([answer, bad]) and not check_cell_reads([answer, good])


def test_the_question_may_state_its_options():
    question = _cell("¿`(4, 3)` o `(3, 3)`? Con `X` de forma `(4, 3)`, grad...", cell_type="markdown")
    answer = _cell("f = None\n### BEGIN SOLUTION\nf = (4, 3)\n### END SOLUTION", solution=True)
    other = _cell("print('X.grad', (4, 3))", "X.grad (4, 3)")
    assert not leaks([question, answer, other], with_outputs=True)


def test_every_lab_with_answer_cells_is_scanned():
    with_answers = {lab for lab in LABS if any(
        _is_answer_cell(c) for c in json.loads(
            (SOURCE_NOTEBOOKS / f"{lab}.ipynb").read_text(encoding="utf-8"))["cells"])}
    assert {"00-tensor-skeleton", "01-elementwise-ops", "02-reductions-and-shapes",
            "03-matmul-softmax-ce"} <= with_answers, with_answers
    assert Path(STUDENT_NOTEBOOKS).is_dir()
