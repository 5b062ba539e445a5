"""Quiz 08 and the labs' answer cells (minitorch_course.quiz): the notebook's cells, the key,
the judging, the feedback and the score the progress report shows without nbgrader.

Counts are derived from ``quiz.QUESTIONS``; the keys are recomputed here with PyTorch or by
hand, never read back from the code under test."""

from __future__ import annotations

import ast
import io
import json
import math
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from minitorch_authoring import stubgen
from minitorch_authoring.repository import ROOT
from minitorch_course import check as check_cli
from minitorch_course import done, quiz, renames
from minitorch_grading import record

SOURCE = ROOT / "solutions" / "notebooks"
KEY_NB = SOURCE / f"{quiz.NOTEBOOK}.ipynb"


def _cells(path: Path) -> list[dict]:
    assert path.is_file(), f"{path} is missing"  # a missing notebook fails, never skips
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _src(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _wrong(value):
    """A wrong answer of the right form."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, str):
        return "a" if value != "a" else "d"
    if isinstance(value, int | float):
        return value - 7  # an exponent's answer stays a plausible exponent (quiz.EXPONENTS)
    return tuple(_wrong(v) for v in value)


# ---------------------------------------------------------------- the notebook and the key
def test_every_question_has_its_three_cells_and_one_point():
    cells = _cells(KEY_NB)
    graded = {c["metadata"]["nbgrader"]["grade_id"]: c for c in cells
              if c["metadata"].get("nbgrader", {}).get("grade")}
    assert set(graded) == {f"test_{q.number:02d}" for q in quiz.QUESTIONS}
    ids = [c["metadata"].get("nbgrader", {}).get("grade_id") for c in cells]
    for q in quiz.QUESTIONS:
        n = f"{q.number:02d}"
        assert ids.index(f"question_{n}") + 1 == ids.index(f"answer_{n}") \
            == ids.index(f"test_{n}") - 1, q.number
        test = graded[f"test_{n}"]
        assert test["metadata"]["nbgrader"]["points"] == 1
        assert f"quiz.check_format({q.number}, {q.variable})" in _src(test)


def test_the_pass_mark_is_70_percent_of_the_derived_count():
    count = len(quiz.QUESTIONS)
    need = quiz.pass_mark()
    assert need / count >= 0.70 > (need - 1) / count
    assert quiz.pass_mark(10) == 7 and quiz.pass_mark(17) == 12
    intro = _src(_cells(KEY_NB)[0])
    assert f"{need} de {count} puntos" in intro


def test_the_solution_cells_and_the_hidden_keys_agree_and_pass():
    key = quiz.read_key(KEY_NB)
    answers = quiz.read_answers(KEY_NB)
    assert set(key) == {q.number for q in quiz.QUESTIONS}
    for q in quiz.QUESTIONS:
        assert answers[q.variable] == key[q.number], q.number
        assert quiz.judge(q.number, answers[q.variable], key[q.number]) == "right"


def _torch_keys() -> dict[int, object]:
    """The numeric keys, recomputed with PyTorch float64 (an independent oracle)."""
    torch = pytest.importorskip("torch")
    f64 = torch.float64

    def leaf(values):
        return torch.tensor(values, dtype=f64, requires_grad=True)

    keys = {}
    x = leaf([1.0, 2.0])
    h = x * x
    (h * x + h).sum().backward()
    keys[2] = tuple(x.grad.tolist())
    x = leaf([2.0, -1.0])
    (x * x + x).backward(torch.tensor([1.0, 10.0], dtype=f64))
    keys[3] = tuple(x.grad.tolist())
    x = leaf([0.5, -1.0, 2.0])
    loss = (x * x * x).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    grad = tuple(x.grad.tolist())
    try:
        loss.backward()
        raised = False
    except RuntimeError:
        raised = True
    keys[4] = (grad, raised)
    w = leaf([2.0])
    with torch.no_grad():
        a = w * w
    (a * w + w * w.detach()).sum().backward()
    keys[5] = (w.grad.item(), a.requires_grad)
    a, b = leaf(np.ones((5, 1, 4))), leaf(np.ones((3, 1)))
    y = a * b
    expanded = [i for i, (n, m) in enumerate(zip(y.shape, (1,) * (y.dim() - b.dim())
                                                 + tuple(b.shape), strict=True)) if n != m]
    keys[7] = tuple(expanded)
    big = leaf([1.0, 2.0, 3.0, 4.0])
    big[[1, 1, 3]].backward(torch.tensor([1.0, 2.0, 4.0], dtype=f64))
    keys[8] = tuple(big.grad.tolist())
    v, m = leaf([1.0, 2.0]), leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    (v @ m).backward(torch.tensor([1.0, 0.0, -1.0], dtype=f64))
    keys[9] = (tuple(v.grad.tolist()), tuple(m.grad[1].tolist()))
    z = leaf([0.0, 0.0, math.log(2.0)])
    torch.log_softmax(z, -1).backward(torch.tensor([1.0, 0.0, 2.0], dtype=f64))
    keys[10] = tuple(z.grad.tolist())
    logits = torch.tensor([[-500.0, 300.0, 300.0]], dtype=f64)
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor([0])).item()
    two_step = -torch.log(torch.softmax(logits, -1))[0, 0].item()
    keys[11] = (loss, math.isfinite(two_step))
    return keys


def test_the_numeric_keys_match_pytorch():
    key = quiz.read_key(KEY_NB)
    for number, expected in _torch_keys().items():
        assert quiz.judge(number, expected, key[number]) == "right", (number, expected)


def test_the_reasoned_keys():
    """The keys PyTorch cannot give directly, derived here by hand."""
    key = quiz.read_key(KEY_NB)
    # 1: the valid reverse topological order of u = 2x, v = x + u, w = u*v, L = sum(w)
    consumers = {"x": {"u", "v"}, "u": {"v", "w"}, "v": {"w"}, "w": {"L"}, "L": set()}
    orders = {"a": "Lwuvx", "b": "Lwvux", "c": "Lvwux", "d": "Lwvxu"}
    valid = [k for k, order in orders.items()
             if all(order.index(c) < order.index(n) for n in order for c in consumers[n])]
    assert valid == [key[1]]
    # 12: truncation error ~ eps^2, rounding ~ 1/eps, from the two measured points
    assert quiz.judge(12, (1e-9 * (1e-3 / 1e-4) ** 2, 1e-8 * (1e-8 / 1e-10)), key[12]) == "right"
    # 13: |a - n| <= atol + rtol |n|
    passes = tuple(abs(a - n) <= 1e-5 + 1e-3 * abs(n) for n, a in ((250.0, 250.2),
                                                                    (0.001, 0.0012)))
    assert quiz.judge(13, passes, key[13]) == "right"


def test_in_place_key_matches_the_engine():
    """Question 6 on the reference engine: only P1 raises."""
    import minitorch as mt

    raised = []
    for program in range(3):
        x = mt.Tensor([1.0, 2.0, 3.0], requires_grad=True)
        try:
            if program == 0:
                y = x.exp()
                z = y * 2.0
                y.data[0] = 10.0
                z.sum().backward()
            elif program == 1:
                y = x.exp()
                z = y + 1.0
                z.data[0] = 10.0
                z.sum().backward()
            else:
                loss = (x * x).sum()
                loss.backward()
                x.data -= 0.1 * x.grad
        except mt.BackwardError:
            raised.append(program)
    assert raised == [0] and quiz.read_key(KEY_NB)[6] == "c"


# ---------------------------------------------------------------- judging and feedback
@pytest.mark.parametrize("q", quiz.QUESTIONS, ids=lambda q: f"q{q.number:02d}")
def test_wrong_malformed_and_missing_answers_fail(q):
    key = quiz.read_key(KEY_NB)[q.number]
    assert quiz.judge(q.number, _wrong(key), key) == "wrong"
    assert quiz.judge(q.number, "zz" if q.form != quiz.LETTER else 3, key) == "malformed"
    assert quiz.judge(q.number, None, key) == "unanswered"
    with pytest.raises(AssertionError) as err:
        quiz.grade(q.number, _wrong(key), key)
    assert repr(key) not in str(err.value) and q.theory in str(err.value)
    with pytest.raises(NotImplementedError):
        quiz.check_format(q.number, None)
    quiz.grade(q.number, key, key)


def _headings(path: Path) -> set[str]:
    return {line.lstrip("#").strip() for line in path.read_text(encoding="utf-8").splitlines()
            if line.startswith("#")}


@pytest.mark.parametrize("lang", ["es", "en"])
def test_feedback_points_to_a_section_that_exists(lang, monkeypatch):
    monkeypatch.setenv("MINITORCH_LANG", lang)
    folder = ROOT / ("theory/en" if lang == "en" else "theory")
    for q in (*quiz.QUESTIONS, *quiz.EXERCISES.values()):
        text = quiz.where_to_read(q)
        section = re.search(r"«(.+)»", text).group(1)
        assert section in _headings(folder / q.theory), (lang, q.label, section)
        assert str(folder.relative_to(ROOT)) + "/" + q.theory in text
    if lang == "es":
        assert "relee" in quiz.where_to_read(quiz.QUESTIONS[0])


def test_the_record_judges_the_cells_that_import_the_quiz():
    cells = {c.grade_id: c for c in record.graded_cells(SOURCE)["07-quiz"]}
    solution = record.literal_answers(KEY_NB)[0]
    key = quiz.read_key(KEY_NB)
    for q in quiz.QUESTIONS:
        cell = cells[f"test_{q.number:02d}"]
        assert record.judge_answer(cell, solution), q.number
        assert not record.judge_answer(cell, {**solution, q.variable: _wrong(key[q.number])})
    assert not record.judge_answer(cells["test_01"], {})


# ---------------------------------------------------------------- the labs' answer cells
def _hidden_grades(path: Path) -> dict[str, tuple[object, dict]]:
    """{variable: (key, its graded cell)} from the grade("name", variable, key) calls."""
    found = {}
    for cell in _cells(path):
        if not cell["metadata"].get("nbgrader", {}).get("grade") or cell["cell_type"] != "code":
            continue
        for node in ast.walk(ast.parse(_src(cell))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "grade":
                found[ast.literal_eval(node.args[0])] = (ast.literal_eval(node.args[2]), cell)
    return found


def test_every_exercise_is_graded_in_a_lab_with_its_solution_as_key():
    found = {}
    for lab in ("04-gradcheck-and-properties", "06-extension-silu"):
        grades = _hidden_grades(SOURCE / f"{lab}.ipynb")
        answers = quiz.read_answers(SOURCE / f"{lab}.ipynb")
        for name, (key, _cell) in grades.items():
            assert answers[name] == key and quiz.judge(name, key, key) == "right"
            assert quiz.judge(name, _wrong(key), key) == "wrong", name
        found.update(grades)
    assert set(found) == set(quiz.EXERCISES)


def test_the_exercise_keys_by_hand():
    sigma = lambda a: 1.0 / (1.0 + math.exp(-a))  # noqa: E731

    def central(f, a, h=1e-6):
        return (f(a + h) - f(a - h)) / (2 * h)

    silu = lambda a: a * sigma(a)  # noqa: E731
    key = _hidden_grades(SOURCE / "06-extension-silu.ipynb")["silu_prime"][0]
    assert quiz.judge("silu_prime", (central(silu, 1.0), central(silu, -2.0)), key) == "right"
    u = np.finfo(np.float64).eps / 2
    optimum = math.log10((3 * u) ** (1 / 3))
    key = _hidden_grades(SOURCE / "04-gradcheck-and-properties.ipynb")["log10_best_eps"][0]
    assert quiz.judge("log10_best_eps", optimum, key) == "right"
    assert quiz.judge("log10_best_eps", -8.0, key) == "wrong"  # sqrt(u): one-sided


@pytest.mark.parametrize("value", [1e-5, 7e-6, 3, -20])
def test_an_exponent_answer_refuses_what_is_no_exponent(value):
    """o37: ``log10_best_eps = 1e-5`` (ε itself, not its exponent) passed the format check
    silently: it is refused with a message saying why, and the progress report reads it as
    malformed, not as a wrong answer."""
    with pytest.raises(AssertionError) as err:
        quiz.check_format("log10_best_eps", value)
    assert repr(value) in str(err.value) and "log10_best_eps" in str(err.value)
    assert f"{quiz.EXPONENTS[0]}" in str(err.value)
    assert quiz.judge("log10_best_eps", value, -5) == "malformed"
    for exponent in (-5, -5.2, -6, float(quiz.EXPONENTS[0]), 0):
        quiz.check_format("log10_best_eps", exponent)


# ---------------------------------------------------------------- the progress report
def test_the_report_scores_the_saved_notebook(tmp_path):
    answered = tmp_path / "07-quiz.ipynb"
    nb = json.loads(KEY_NB.read_text(encoding="utf-8"))
    key = quiz.read_key(KEY_NB)
    wrong = {q.variable: _wrong(key[q.number]) for q in quiz.QUESTIONS[:4]}
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        name = next(iter(quiz.read_answers_from_cells([cell])), None)
        if meta.get("solution") and name in wrong:
            cell["source"] = f"{name} = {wrong[name]!r}"
    answered.write_text(json.dumps(nb), encoding="utf-8")
    rep = quiz.report(answered, KEY_NB)
    count = len(quiz.QUESTIONS)
    assert rep.right == count - 4 and rep.passed == (count - 4 >= quiz.pass_mark())
    text = "\n".join(quiz.lines(rep))
    assert f"{count - 4}/{count}" in text and text.count("theory") == 4
    unanswered = quiz.report(ROOT / "notebooks" / f"{quiz.NOTEBOOK}.ipynb", KEY_NB)
    assert unanswered.right == 0 and not unanswered.passed
    nokey = quiz.report(answered, tmp_path / "absent.ipynb")
    assert nokey.unavailable and not nokey.passed


@pytest.mark.parametrize("lab", [quiz.NOTEBOOK, "00-tensor-skeleton", "01-elementwise-ops",
                                 "02-reductions-and-shapes", "03-matmul-softmax-ce",
                                 "04-gradcheck-and-properties", "06-extension-silu"])
def test_a_notebook_saved_with_the_old_spanish_names_scores_the_same(tmp_path, monkeypatch,
                                                                     lab):
    """A submission saved before the answer variables had English names (#24, a class in
    progress): its answer cells assign the old names (``respuesta_01``, ``pendientes``) and it
    scores as the same answers under the new names, one answer wrong in both; without the
    table of old names it would not."""
    from minitorch_course.exercises import ANSWER_CELLS, cell_states

    nb = json.loads((SOURCE / f"{lab}.ipynb").read_text(encoding="utf-8"))
    old_of = {new: old for old, new in renames.old_variables().items()}
    registry = {v for c in ANSWER_CELLS for v in c.variables} | {
        q.variable for q in quiz.QUESTIONS}
    assert set(old_of) <= registry  # answer variables only (grad_a and others were English)
    renamed_ones = set(old_of)
    solution_cells = [c for c in nb["cells"]
                      if (c["metadata"].get("nbgrader") or {}).get("solution")
                      and set(quiz.read_answers_from_cells([c])) & renamed_ones]
    first = solution_cells[0]
    answers = quiz.read_answers_from_cells([first])
    name = next(iter(answers))
    answers[name] = _wrong(answers[name])  # one wrong answer, the same in both
    first["source"] = "".join(f"{n} = {v!r}\n" for n, v in answers.items())
    new = tmp_path / "new" / f"{lab}.ipynb"
    old = tmp_path / "old" / f"{lab}.ipynb"
    for path in (new, old):
        path.parent.mkdir()
    new.write_text(json.dumps(nb), encoding="utf-8")
    renamed = 0
    for cell in solution_cells:
        for variable in set(quiz.read_answers_from_cells([cell])) & renamed_ones:
            cell["source"] = re.sub(rf"\b{variable}\b", old_of[variable], _src(cell))
            renamed += 1
    old.write_text(json.dumps(nb), encoding="utf-8")
    assert renamed and not any(re.search(rf"\b{variable}\b", _src(cell))
                               for cell in solution_cells for variable in old_of)

    def scores(path: Path) -> object:
        if lab == quiz.NOTEBOOK:
            return quiz.report(path, KEY_NB).statuses
        return cell_states(lab, path, SOURCE / f"{lab}.ipynb")

    assert quiz.read_answers(old) == quiz.read_answers(new)
    assert record.literal_answers(old) == record.literal_answers(new)
    expected = scores(new)
    assert expected == scores(old)
    assert "wrong" in expected.values() and set(expected.values()) <= {"right", "wrong"}
    monkeypatch.setattr(renames, "RENAMED", {})  # without the table: unanswered
    assert scores(old) != expected


def test_make_check_ends_with_the_quiz_and_the_definition_of_done(tmp_path, monkeypatch):
    """The stub, run from a folder whose notebooks/ holds the quiz answered right and lab 06
    unanswered: the quiz is passed, the extension is not, and the list is ticked."""
    (tmp_path / "notebooks").mkdir()
    shutil.copy(KEY_NB, tmp_path / "notebooks" / KEY_NB.name)
    shutil.copy(ROOT / "notebooks" / "06-extension-silu.ipynb", tmp_path / "notebooks")
    stub = tmp_path / "tensor.py"
    stub.write_text(stubgen.generate((ROOT / "solutions" / "tensor.py").read_text()))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MINITORCH_LANG", "en")
    stream = io.StringIO()
    check_cli.main(["--impl", str(stub), "--examples", "1"], stream=stream)
    out = stream.getvalue()
    count = len(quiz.QUESTIONS)
    assert f"Quiz 08 (07-quiz.ipynb): {count}/{count} right" in out
    tail = out[out.index("Definition of done"):]
    lines = [line for line in tail.splitlines() if re.match(r"\s+\S+ \d+\. ", line)]
    assert len(lines) == len(done.ITEMS)
    marks = {done.ITEMS[int(re.match(r"\s+\S+ (\d+)\.", line).group(1)) - 1].key:
             line.split()[0] for line in lines}
    assert marks["quiz"] in ("✓", "ok") and marks["ops"] in ("✗", "X")
    # the stub's mlp.py fails lab 05's checks, which the report runs: the MLP item is ticked ✗
    assert marks["extension"] in ("✗", "X") and marks["mlp"] in ("✗", "X")


def test_the_grader_refuses_an_answer_cell_too_large_before_parsing_it(tmp_path, monkeypatch):
    """x37's route 6: ast costs the grader ~500 bytes of memory per byte of an answer cell, in
    its own process. A cell over ``MAX_CELL_BYTES`` is refused with its size and the limit and
    never parsed, the other cells read as before; a notebook file over ``MAX_NOTEBOOK_BYTES``
    is not read at all; a cell that is not a JSON object is skipped. The score of record says
    why to the learner."""
    nb = json.loads(KEY_NB.read_text(encoding="utf-8"))
    solution = quiz.read_literals(KEY_NB)[0]
    q = quiz.QUESTIONS[0]
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("solution")
                and q.variable in quiz.read_answers_from_cells([c]))
    cell["source"] = f"{q.variable} = [" + "0, " * (quiz.MAX_CELL_BYTES // 3) + "]"
    size = len(cell["source"].encode("utf-8"))
    nb["cells"].append(1)  # not a cell at all
    path = tmp_path / f"{quiz.NOTEBOOK}.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    parsed, parse = [], ast.parse
    monkeypatch.setattr(quiz.ast, "parse", lambda src, *a, **k: parsed.append(len(src))
                        or parse(src, *a, **k))
    values, problems = quiz.read_literals(path)
    why = f"answer cell too large: {size} bytes, limit {quiz.MAX_CELL_BYTES}"
    assert problems == {cell["metadata"]["nbgrader"]["grade_id"]: why}, problems
    assert values == {k: v for k, v in solution.items() if k != q.variable}
    assert parsed and max(parsed) <= quiz.MAX_CELL_BYTES < size
    monkeypatch.undo()
    graded = {quiz.NOTEBOOK: record.graded_cells(SOURCE)[quiz.NOTEBOOK]}
    rec = record.grade_submission(tmp_path, "big", record.plan(graded, 1))
    assert why in rec.failures[f"{quiz.NOTEBOOK}/test_{q.number:02d}"], rec.failures
    assert rec.total[0] == rec.total[1] - 1  # every other answer still right
    assert f"{quiz.NOTEBOOK}/{cell['metadata']['nbgrader']['grade_id']}: {why}" in rec.flags
    monkeypatch.setattr(quiz, "MAX_NOTEBOOK_BYTES", path.stat().st_size - 1)
    assert quiz.read_literals(path) == ({}, {"*": f"notebook too large: {path.stat().st_size} "
                                             f"bytes, limit {path.stat().st_size - 1}"})
