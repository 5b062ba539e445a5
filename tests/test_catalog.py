"""The catalog-driven proof: every op against PyTorch float64, gradcheck, broadcasting pairs and
Hypothesis property tests. The test ids name the op and the case, so the report lists the catalog.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from minitorch_authoring import stubgen
from minitorch_course import messages, op_checks
from minitorch_course.catalog import BROADCAST_PAIRS, BY_NAME, ENGINE_BY_NAME, OPS, resolve
from minitorch_course.outcomes import PASS, SKIP, CheckFailed, Outcome

CASES = [(op, case) for op in OPS for case in op.cases]
IDS = [f"{op.name}-{case.label}" for op, case in CASES]
BROADCAST = [(op, case) for op in OPS for case in op.broadcast_cases]
BROADCAST_IDS = [f"{op.name}-{case.label}" for op, case in BROADCAST]
README = Path(__file__).resolve().parents[1] / "README.md"


def _assert(outcome: Outcome) -> None:
    assert outcome.status in (PASS, SKIP), messages.block(outcome)


def test_every_function_the_learner_writes_is_checked_by_a_row():
    """Each fenced function of the reference is an op row's method or an engine row, and each
    op row's method is one the learner writes: no learner code escapes the checks."""
    fenced = {line.split('NotImplementedError("')[1].split(":")[0].split(".")[-1].lstrip("_")
              for line in stubgen.generate(stubgen.REFERENCE.read_text(encoding="utf-8"))
              .splitlines() if 'NotImplementedError("' in line}
    methods = {op.method for op in OPS}
    assert fenced <= methods | set(ENGINE_BY_NAME), fenced - methods - set(ENGINE_BY_NAME)
    assert methods <= fenced, methods - fenced


def test_the_readme_counts_the_catalogs_ops():
    promised = re.search(r"más de (\d+) operaciones", README.read_text(encoding="utf-8"))
    assert promised, "README.md no longer says how many ops the learner writes"
    assert len({op.method for op in OPS}) > int(promised.group(1))


def test_catalog_rows_are_well_formed():
    for op in OPS:
        assert op.cases, f"{op.name} has no fixed case"
        assert op.formula, f"{op.name} has no formula"
        for case in op.cases:
            assert len(op.inputs(case)) == len(case.shapes)


def test_broadcasting_pairs_exercise_every_way_unbroadcast_reduces():
    """Leading axes summed away, size-1 axes summed back, a 0-d operand, and both operands
    stretched at once (each reduces along an axis the other sets)."""
    ways = set()
    for pair in BROADCAST_PAIRS:
        out = np.broadcast_shapes(*pair)
        stretched = [shape for shape in pair if shape != out]
        assert stretched, f"{pair} broadcasts nothing"
        for shape in stretched:
            padded = (None,) * (len(out) - len(shape)) + tuple(shape)
            if len(shape) < len(out):
                ways.add("leading")
            if any(n == 1 and m != 1 for n, m in zip(padded, out)):
                ways.add("size-1")
            if shape == ():
                ways.add("0-d")
        if len(stretched) == 2:
            ways.add("both")
    assert ways == {"leading", "size-1", "0-d", "both"}, ways


def test_binary_elementwise_rows_run_the_broadcasting_suite():
    for op in OPS:
        if op.family == "binary":
            assert op.broadcasting and op.broadcast_cases, op.name


def test_resolve_by_method_name():
    gelu = resolve("gelu")
    assert len(gelu) > 1 and {op.method for op in gelu} == {"gelu"}
    with pytest.raises(KeyError, match="unknown op"):
        resolve("no such op")


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


@pytest.mark.slow  # a catalog-wide sweep: 100 Hypothesis examples per op
@pytest.mark.parametrize("op", OPS, ids=[op.name for op in OPS])
def test_property(op):
    _assert(op_checks.check_property(op, max_examples=100))


def test_max_ties_split_like_amax():
    op = BY_NAME["max"]
    tie_cases = [c for c in op.cases if not c.gradcheck and "ties" in c.note]
    assert tie_cases
    for case in tie_cases:
        _assert(op_checks.check_backward(op, case))


def test_a_wrong_value_is_reported_with_the_worst_element():
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
