"""Every argument form an op accepts has a fixed case in its catalog row.

The forms are enumerated, not listed by hand: from the op's signature (an ``axis`` or ``axes``
parameter asks for a negative axis), from its row (a domain that avoids a kink torch defines,
relu's 0 or max's ties, asks for a case on it; a Hypothesis family that draws 0-d inputs asks
for a 0-d case) and from torch, the oracle (an op that torch runs on an input with an empty
axis asks for a size-0 case; the families never draw empty axes). A fixed case runs in every
suite that reads the cases: the torch cross-check, gradcheck where its flag allows, the graded
cells and ``make check``.
"""

from __future__ import annotations

import inspect
from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from hypothesis import Phase, find, settings
from hypothesis.errors import NoSuchExample

from minitorch_course.catalog import OPS, Case, Evidence, Op
from minitorch_course.strategies import FAMILIES

AXIS_PARAMETERS = ("axis", "axes")


def _callable(op: Op):
    """The method or module function the learner writes for ``op``, in the reference."""
    import minitorch

    impl = minitorch.tensor
    return getattr(impl.Tensor, op.method, None) or getattr(impl, op.method)


def _axis_values(op: Op, case: Case) -> list[int]:
    """Every axis the case passes (the signature's default when the case gives none)."""
    params = inspect.signature(_callable(op)).parameters
    values: list[int] = []
    for name in AXIS_PARAMETERS:
        if name not in params:
            continue
        default = params[name].default
        value = case.kwargs.get(name, None if default is inspect.Parameter.empty else default)
        values += [value] if isinstance(value, int) else list(value or ())
    return values


def _has_ties(op: Op, case: Case) -> bool:
    k = Evidence(case, op.inputs(case))
    x = k.x
    if not x.size:
        return False
    winners = x == x.max(axis=k.axes, keepdims=True)
    return bool((winners.sum(axis=k.axes) > 1).any())


@cache
def _family_draws_0d(family: str) -> bool:
    """Hypothesis tries the simplest shapes first: a family that can draw () draws it at once."""
    try:
        find(FAMILIES[family](), lambda c: any(s == () for s in c.shapes),
             settings=settings(max_examples=50, database=None, phases=[Phase.generate]))
    except NoSuchExample:
        return False
    return True


def _emptied(case: Case, axis: int) -> Case | None:
    """The case with right-aligned ``axis`` (negative) emptied in every input (and target shape)
    that has it with a size other than 1 (so broadcasting still lines up)."""
    def empty(shape):
        shape = tuple(shape)
        if len(shape) < -axis or shape[axis] == 1:
            return shape
        return shape[:axis] + (0,) + (shape[axis + 1:] if axis != -1 else ())

    shapes = tuple(empty(s) for s in case.shapes)
    if shapes == case.shapes:
        return None
    kwargs = dict(case.kwargs)
    if "shape" in kwargs:
        kwargs["shape"] = empty(kwargs["shape"])
    return Case(shapes, kwargs)


def _torch_accepts_empty_axis(op: Op) -> bool:
    """Does torch run the op on some case of the row with one axis emptied?"""
    import torch

    for case in op.cases:
        if case.data is not None:
            continue
        for axis in range(-1, -max((len(s) for s in case.shapes), default=0) - 1, -1):
            probe = _emptied(case, axis)
            if probe is None:
                continue
            leaves = [torch.zeros(s, dtype=torch.float64) for s in probe.shapes]
            try:
                op.ref(torch, *leaves, **probe.kwargs)
            except (RuntimeError, ValueError, IndexError, TypeError):
                continue
            return True
    return False


def forms(op: Op) -> dict[str, bool]:
    """The argument forms ``op`` accepts -> whether one of its fixed cases covers each."""
    wanted: dict[str, bool] = {}
    params = inspect.signature(_callable(op)).parameters
    if any(name in params for name in AXIS_PARAMETERS):
        wanted["negative axis"] = any(a < 0 for c in op.cases for a in _axis_values(op, c))
    for i, domain in enumerate(op.domains):
        if domain.kink is not None:
            wanted[f"input at its kink {domain.kink:g}"] = any(
                not c.gradcheck and c.data is not None and np.any(op.inputs(c)[i] == domain.kink)
                for c in op.cases)
        if domain.unique:
            wanted["ties"] = any(not c.gradcheck and c.data is not None and _has_ties(op, c)
                                 for c in op.cases)
    if _family_draws_0d(op.family):
        wanted["0-d input"] = any(s == () for c in op.cases for s in c.shapes)
    if _torch_accepts_empty_axis(op):
        wanted["size-0 axis"] = any(0 in s for c in op.cases for s in c.shapes)
    return wanted


def missing(op: Op) -> list[str]:
    return [form for form, covered in forms(op).items() if not covered]


@pytest.mark.parametrize("op", OPS, ids=[op.name for op in OPS])
def test_every_argument_form_has_a_fixed_case(op):
    assert not missing(op), f"{op.name}: no fixed case for {missing(op)}"


def test_the_enumeration_finds_the_forms_the_issue_names():
    """The enumeration is not vacuous: it asks for what issue 14 lists, where it lists it."""
    asked = {op.name: set(forms(op)) for op in OPS}
    for name in ("transpose", "sum", "mean", "max", "softmax", "log_softmax", "cat", "stack"):
        assert "negative axis" in asked[name], name
    assert "input at its kink 0" in asked["relu"]
    assert "ties" in asked["max"]
    assert {"0-d input", "size-0 axis"} <= asked["add"]
    assert "0-d input" not in asked["matmul"]  # np.matmul and torch refuse 0-d operands


@pytest.mark.parametrize("form", ["negative axis", "input at its kink 0", "ties", "0-d input",
                                  "size-0 axis"])
def test_a_row_without_the_case_for_a_form_fails(form):
    """Drop the cases that cover a form from a row that needs it: the test reports it."""
    for op in OPS:
        if form not in forms(op):
            continue
        kept = tuple(c for c in op.cases
                     if forms(replace(op, cases=(c,))).get(form) is not True)
        stripped = replace(op, cases=kept or (Case(((3, 5),)),))
        assert form in missing(stripped), (op.name, form)
        return
    pytest.fail(f"no row asks for {form}")
