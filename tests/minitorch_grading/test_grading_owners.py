"""One owner per grading fact (issue 26): what the scores of record read and how.

The literal answers of a notebook's solution cells are read by one function,
``minitorch_course.quiz.read_literals``; the record calls it (no reader of its own).
"""

from __future__ import annotations

import ast
import json

import nbformat

from minitorch_authoring.repository import ROOT
from minitorch_course import quiz
from minitorch_grading import record


def _answer_notebook(path, sources: dict[str, str]):
    nb = nbformat.v4.new_notebook()
    for grade_id, source in sources.items():
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata["nbgrader"] = {"solution": True, "grade": False, "grade_id": grade_id,
                                     "locked": False, "schema_version": 3}
        nb.cells.append(cell)
    nbformat.write(nb, path)
    return path


def test_one_reader_of_literal_answers_values_and_problems(tmp_path):
    nb = _answer_notebook(tmp_path / "a.ipynb", {
        "ok": "answer_01 = (3, 4)\n", "calls": "answer_02 = len([1])\n",
        "broken": "answer_03 = (\n"})
    values, problems = quiz.read_literals(nb)
    assert values == {"answer_01": (3, 4)}
    assert problems == {"calls": "not a literal", "broken": "syntax error"}
    assert quiz.read_answers(nb) == values
    assert record.literal_answers(nb) == (values, problems)
    (tmp_path / "bad.ipynb").write_text("{not json", encoding="utf-8")
    assert quiz.read_literals(tmp_path / "bad.ipynb") == ({}, {})
    json.loads(nb.read_text(encoding="utf-8"))  # the probe notebook itself was readable


def test_the_record_has_no_literal_reader_of_its_own():
    """No function of the record's modules reads solution cells' literals itself (its reading
    of the instructor's own ``check_*`` call arguments is another fact)."""
    modules = sorted((ROOT / "src/minitorch_grading/record").glob("*.py"))
    assert len(modules) > 5, modules  # the package is found: the scan below can fail
    readers = [f"{path.name}:{f.name}" for path in modules
               for f in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
               if isinstance(f, ast.FunctionDef)
               and any(isinstance(n, ast.Attribute) and n.attr == "literal_eval"
                       for n in ast.walk(f))
               and any(isinstance(n, ast.Constant) and n.value == "solution"
                       for n in ast.walk(f))]
    assert not readers, f"the record reads answer cells itself in {readers}: call quiz.read_literals"



def test_an_ops_call_is_sent_as_data_and_replays_as_the_catalog_calls_it():
    """The worker gets each op's call as a program (``minitorch_grading.calls``), never the
    catalog's code: replayed on the reference it gives what ``op.fn`` gives, on every case of
    every row (operators, methods with keywords, module functions over a tuple of tensors)."""
    import numpy as np

    from minitorch_course import runner
    from minitorch_course.catalog import OPS
    from minitorch_course.worker import main as worker
    from minitorch_grading import calls

    impl, _ = runner.load("reference")
    checked = 0
    for op in OPS:
        for case in op.all_cases + op.broadcast_cases:
            arrays = op.inputs(case, 3)
            program = worker.decode(json.loads(json.dumps(worker.encode(
                calls.program(op.fn, len(arrays), case.kwargs)))))
            assert "fn" not in json.dumps(worker.encode(program))  # plain data only
            got = worker.run_program(program, impl, [impl.Tensor(a) for a in arrays])
            want = op.fn(impl, *[impl.Tensor(a) for a in arrays], **case.kwargs)
            np.testing.assert_array_equal(got.data, want.data, err_msg=f"{op.name} {case}")
            checked += 1
    assert checked > 100
