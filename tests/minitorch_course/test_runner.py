"""One runner, two front ends: outcomes are plain data that survive JSON, and the graded
notebook cell and `make check` print the same block for the same failure."""

from __future__ import annotations

import io
import json
import textwrap
from contextlib import redirect_stdout

import numpy as np
import pytest
from conftest import run_report

from minitorch_authoring import mutants
from minitorch_course import grading, messages, runner
from minitorch_course.outcomes import FAIL, RowReport

# (mutant, rows): failures of every kind of outcome: values, shapes, crashes, engine, Hypothesis
FAILURES = [
    ("max_ties_not_split", ["max"]),
    ("matmul_T_reverses_batch_axes", ["matmul"]),
    ("cross_entropy_without_logsumexp", ["cross_entropy"]),
    ("unbroadcast_forgets_size1_axes", ["unbroadcast", "add"]),
    ("recursive_topological_sort", ["topological_order"]),
    ("accumulate_overwrites", ["backward"]),
    ("div_quotient_rule_sign", ["div"]),
    ("sum_backward_keepdims_lost", ["sum"]),
]


@pytest.fixture(scope="module")
def reports() -> list[tuple[str, RowReport]]:
    found = []
    for mutant, rows in FAILURES:
        impl = mutants.load(mutant)
        found += [(mutant, r) for r in runner.run(rows, impl, max_examples=5)]
    return found


def test_every_failure_is_a_failure(reports):
    assert all(r.status == FAIL for _, r in reports), [r.row for _, r in reports
                                                       if r.status != FAIL]


def test_outcomes_round_trip_through_json_and_read_the_same(reports):
    for _, report in reports:
        data = json.loads(json.dumps(report.to_dict()))
        again = RowReport.from_dict(data)
        assert again.to_dict() == report.to_dict()
        for suite, outcomes in report.suites.items():
            for before, after in zip(outcomes, again.suites[suite]):
                assert messages.block(after) == messages.block(before)


def _graded_cell(mutant: str, row: str) -> str:
    """What the graded cell for ``row`` raises, with ``mutant`` as the learner's code."""
    call = grading.check_engine if row in runner.ENGINE_BY_NAME else grading.check_ops
    with runner.using(mutants.load(mutant)), redirect_stdout(io.StringIO()):
        with pytest.raises(grading.CheckFailure) as failure:
            call(row)
    return str(failure.value)


@pytest.mark.parametrize(("mutant", "row"), [
    ("max_ties_not_split", "max"), ("accumulate_overwrites", "backward"),
    ("matmul_T_reverses_batch_axes", "matmul")])
def test_the_graded_cell_and_make_check_print_the_same_block(mutant, row):
    shown = _graded_cell(mutant, row)
    assert shown.startswith(f"[fail] {row} · ")
    _, text = run_report("--op", row, "--examples", "5", mutant=mutant)
    assert textwrap.indent(shown, "      ", bool) in text


def test_a_failing_graded_cell_shows_the_diagnosis_first_and_no_course_frames():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    out = io.StringIO()
    with redirect_stdout(out):
        shell.run_cell(
            "from minitorch_authoring import mutants\n"
            "from minitorch_course import grading, runner\n"
            "with runner.using(mutants.load('matmul_T_reverses_batch_axes')):\n"
            "    grading.check_ops('matmul')\n")
    shown = out.getvalue()
    assert shown.lstrip().startswith("CheckFailure: [fail] matmul · backward"), shown[:300]
    assert "grading.py" not in shown and "runner.py" not in shown and "Traceback" not in shown
    assert "Your code (most recent call last):" in shown and "in _backward" in shown


def test_a_second_backward_on_a_freed_graph_must_raise_and_is_graded():
    """Theory 01: after a backward() without retain_graph, a second one raises BackwardError.
    An engine that frees the graph but lets the second call return silently used to pass every
    graded row; now the retain_graph row fails it, saying what to re-read (never the line), and
    the reference passes while the stub is not started."""
    from minitorch_authoring import repository
    from minitorch_course.outcomes import NOT_STARTED, PASS

    silent = runner.run_engine_row("retain_graph",
                                   mutants.load("freed_graph_backward_silent"))
    assert silent.status == FAIL and silent.diagnosis.kind == "freed-graph"
    assert silent.fact.id == "engine-freed-silent"
    text = messages.message(silent)
    assert "BackwardError" in text and "theory/01" in text and "lab 00" in text
    assert "_backward is None" not in text and "raise BackwardError(" not in text  # no line
    reference = runner.run_engine_row("retain_graph", runner.load_impl(repository.REFERENCE))
    assert reference.status == PASS, reference
    stub = runner.run_engine_row("retain_graph", runner.load_impl(repository.STUB))
    assert stub.status == NOT_STARTED


def test_a_freed_graph_reported_with_another_error_class_is_named():
    """A second backward() that raises RuntimeError (or an accidental TypeError) instead of
    BackwardError is not a generic crash: the diagnosis names both classes, where it was raised
    and where to re-read, in the full report and in the table's one line; the same from a
    stand-in of the grading worker (the score of record's path)."""
    from minitorch_course import engine_checks
    from minitorch_course.outcomes import StandIn

    wrong = runner.run_engine_row("retain_graph", mutants.load("freed_graph_wrong_error"))
    assert wrong.status == FAIL and wrong.fact.id == "engine-freed-wrong-error", wrong
    assert wrong.diagnosis.kind == "freed-graph"
    report = RowReport("retain_graph", "00-tensor-skeleton", 1, True, {"engine": [wrong]})
    for text in (messages.message(wrong), messages.brief(report.first_failure)):
        assert "RuntimeError" in text and "BackwardError" in text, text
        assert "theory/01" in text and "lab 00" in text, text  # the one line keeps it too

    case = next(c for c in engine_checks.cases("retain_graph")
                if c.name == "second_backward_raises")
    stand_in = type("RuntimeError", (Exception, StandIn), {})("graph freed")
    stand_in.frames, stand_in.function = [], ""
    seen = engine_checks.Seen({"x.grad": np.zeros((3, 5))})
    seen.error = stand_in
    try:
        case.judge(seen)
    except engine_checks.CheckFailed as failed:
        assert failed.fact.id == "engine-freed-wrong-error"
        assert failed.fact.params["error"] == "RuntimeError"
    else:
        raise AssertionError("a stand-in RuntimeError passed the freed-graph case")
    crashed = engine_checks.Seen()  # the FIRST backward() crashed: a crash, said as one
    crashed.error = stand_in
    with pytest.raises(Exception, match="graph freed") as first:
        case.judge(crashed)
    assert not isinstance(first.value, engine_checks.CheckFailed)
