"""The catalog-driven proof: every op against PyTorch float64, gradcheck, broadcasting pairs and
Hypothesis property tests. The test ids name the op and the case, so the report lists the catalog.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from minitorch_authoring import stubgen
from minitorch_authoring.repository import ROOT
from minitorch_course import messages, op_checks
from minitorch_course.catalog import BROADCAST_PAIRS, BY_NAME, ENGINE_BY_NAME, OPS, resolve
from minitorch_course.outcomes import PASS, SKIP, CheckFailed, Outcome

CASES = [(op, case) for op in OPS for case in op.all_cases]
IDS = [f"{op.name}-{case.label}" for op, case in CASES]
BROADCAST = [(op, case) for op in OPS for case in op.broadcast_cases]
BROADCAST_IDS = [f"{op.name}-{case.label}" for op, case in BROADCAST]
README = ROOT / "README.md"


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


# ---------------------------------------------------------------- every way an op is called
def missing_calls(op) -> list[str]:
    """What ``op``'s fixed cases lack of issue 25's two demands, read off the cases' data: each
    operand as a constant in turn (and all of them, for several operands), and inputs at
    magnitudes from tiny (<= 1e-2) to large (>= 100) on a case without gradcheck."""
    lacking = []
    # the call with the most constant cases (a variadic op's are on one of its calls)
    calls: dict = {}
    for c in op.all_cases:
        calls.setdefault(c.shapes, set()).add(c.constant)
    shapes, constants = max(calls.items(), key=lambda kv: len(kv[1]))
    for i in range(max(len(shapes), 1)):
        if (i,) not in constants:
            lacking.append(f"input {i} constant")
    if len(shapes) > 1 and tuple(range(len(shapes))) not in constants:
        lacking.append("every input constant")
    wide = False
    for case in op.all_cases:
        values = np.abs(np.concatenate([a.ravel() for a in op.inputs(case)] or [np.zeros(0)]))
        nonzero = values[values > 0]
        if (not case.gradcheck and nonzero.size and nonzero.max() >= 100
                and nonzero.min() <= 1e-2):
            wide = True
    if not wide:
        lacking.append("wide value range")
    return lacking


@pytest.mark.parametrize("op", OPS, ids=[op.name for op in OPS])
def test_every_row_grades_constant_operands_and_wide_values(op):
    assert not missing_calls(op), f"{op.name} lacks {missing_calls(op)}"


def test_a_row_without_its_derived_cases_is_reported():
    """Strip the derived cases from a copy of a row: the test above reports each of them."""
    from copy import copy

    op = copy(BY_NAME["matmul"])
    object.__setattr__(op, "derived", ())
    assert set(missing_calls(op)) == {"input 0 constant", "input 1 constant",
                                      "every input constant", "wide value range"}


@pytest.mark.parametrize("name", ["tanh", "sigmoid", "gelu_tanh", "silu", "exp"])
def test_the_wide_case_reaches_where_an_exponential_overflows(name):
    """A forward written with e^a (tanh, sigmoid, gelu's tanh form) overflows beyond |a| ≈ 355
    to 710: the activations' wide case must go there (exp's stays finite: e^700 ≈ 1e304)."""
    op = BY_NAME[name]
    wide = next(c for c in op.all_cases if c.note == "wide range")
    biggest = float(np.abs(op.inputs(wide)[0]).max())
    assert 355 < biggest <= 709 if name == "exp" else biggest > 710


def test_a_constant_operand_case_fails_a_backward_that_skips_the_wrong_gradient():
    """The constant cases can fail: matmul deciding need_b from the LEFT operand passes every
    case where both require grad and fails only with a constant left operand."""
    from heldout import apply

    from minitorch_course import runner

    source = apply.reference_source().replace(
        "need_a, need_b = self.requires_grad, other.requires_grad",
        "need_a, need_b = self.requires_grad, self.requires_grad")
    assert source != apply.reference_source()
    impl = runner.load_impl(source=source, name="need_b_from_left")
    report = runner.run_row("matmul", impl, ("backward",))
    failing = [o for o in report.suites["backward"] if o.status == "fail"]
    assert [o.case for o in failing] == [c.label for c in BY_NAME["matmul"].all_cases
                                         if c.constant == (0,)]
    assert failing[0].diagnosis.id == "constant-operand"
