"""The catalog-driven proof: every op against PyTorch float64, gradcheck, broadcasting pairs and
Hypothesis property tests. The test ids name the op and the case, so the report lists the catalog.
"""

from __future__ import annotations

import pytest

from minitorch_course import messages, op_checks
from minitorch_course.catalog import BROADCAST_PAIRS, BY_NAME, OPS, resolve
from minitorch_course.outcomes import PASS, SKIP, CheckFailed, Outcome

CASES = [(op, case) for op in OPS for case in op.cases if not case.awaits]
IDS = [f"{op.name}-{case.label}" for op, case in CASES]
AWAITING = [(op, case) for op in OPS for case in op.cases if case.awaits]
BROADCAST = [(op, case) for op in OPS for case in op.broadcast_cases]
BROADCAST_IDS = [f"{op.name}-{case.label}" for op, case in BROADCAST]


def _assert(outcome: Outcome) -> None:
    assert outcome.status in (PASS, SKIP), messages.block(outcome)


def test_catalog_has_at_least_25_distinct_ops():
    methods = {op.method for op in OPS}
    assert len(methods) >= 25, sorted(methods)
    assert {"add", "matmul", "cross_entropy", "getitem", "cat", "stack", "silu"} <= methods


def test_catalog_rows_are_well_formed():
    for op in OPS:
        assert op.cases, f"{op.name} has no fixed case"
        assert op.formula, f"{op.name} has no formula"
        for case in op.cases:
            assert len(op.inputs(case)) == len(case.shapes)


def test_broadcasting_pairs_cover_the_issue_list():
    required = {((3,), (4, 3)), ((4, 1), (1, 3)), ((), (2, 3)), ((1,), (2, 3, 4)),
                ((2, 1, 4), (3, 1)), ((5,), (20, 3, 5)), ((3, 5), (20, 3, 5)),
                ((20, 1, 5), (1, 3, 1))}
    assert required <= set(BROADCAST_PAIRS)
    binary = [op for op in OPS if op.broadcasting]
    assert {op.name for op in binary} == {"add", "sub", "mul", "div", "pow"}


def test_resolve_by_method_name():
    assert [op.name for op in resolve("gelu")] == ["gelu", "gelu_tanh"]
    with pytest.raises(KeyError, match="unknown op"):
        resolve("softplus")


@pytest.mark.parametrize(("op", "case"), CASES, ids=IDS)
def test_forward_matches_torch(op, case):
    _assert(op_checks.check_forward(op, case))


@pytest.mark.parametrize(("op", "case"), CASES, ids=IDS)
def test_backward_matches_torch(op, case):
    _assert(op_checks.check_backward(op, case))


@pytest.mark.parametrize(("op", "case"), CASES, ids=IDS)
def test_gradcheck(op, case):
    _assert(op_checks.check_gradcheck(op, case))


@pytest.mark.parametrize(("op", "case"), BROADCAST, ids=BROADCAST_IDS)
def test_broadcasting_backward(op, case):
    outcome = op_checks.check_broadcast(op, case)
    _assert(outcome)


@pytest.mark.parametrize("op", OPS, ids=[op.name for op in OPS])
def test_property(op):
    _assert(op_checks.check_property(op, max_examples=100))


@pytest.mark.parametrize(("op", "case"), AWAITING,
                         ids=[f"{op.name}-{case.label}" for op, case in AWAITING])
@pytest.mark.xfail(strict=True, reason="reference bug fixed in issue 10")
def test_case_awaiting_a_reference_fix(op, case):
    """Cases the reference fails today (kept out of the graded suites until it is fixed):
    when the fix lands this passes, the strict xfail fails, and the case's ``awaits`` goes."""
    for check in (op_checks.check_forward, op_checks.check_backward, op_checks.check_gradcheck):
        _assert(check(op, case))


def test_max_ties_split_like_amax():
    op = BY_NAME["max"]
    tie_cases = [c for c in op.cases if not c.gradcheck and "ties" in c.note]
    assert tie_cases
    for case in tie_cases:
        _assert(op_checks.check_backward(op, case))


def test_a_wrong_value_is_reported_with_the_worst_element():
    import numpy as np

    op, case = BY_NAME["mul"], BY_NAME["mul"].cases[0]
    arrays = op.inputs(case)
    with pytest.raises(CheckFailed) as failure:
        op_checks.compare_forward(op, case, arrays, arrays[0] * arrays[1] + 1e-3,
                                  arrays[0] * arrays[1])
    assert failure.value.fact.params["element"] is not None
    assert "torch" in messages.fact_text(failure.value.fact)
    with pytest.raises(CheckFailed) as failure:
        op_checks.compare_forward(op, case, arrays, np.zeros((5, 3)), arrays[0] * arrays[1])
    assert "output shape (5, 3)" in messages.fact_text(failure.value.fact)
