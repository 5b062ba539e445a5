"""The random-program differential fuzzer (minitorch_authoring.fuzz): programs of catalog ops run in
minitorch and in torch float64 must agree; its coverage is counted and asserted; planted bugs
must be caught.

``FUZZ_PROGRAMS`` sets how many programs run (``make fuzz N=...``; 2,000 in ``make test``).
"""

from __future__ import annotations

import os
from collections import Counter

import pytest
from hypothesis import given, settings

from minitorch_authoring import fuzz, mutants
from minitorch_course import runner
from minitorch_course.catalog import BY_NAME, OPS
from minitorch_course.strategies import FORMS

pytestmark = pytest.mark.slow  # a catalog-wide sweep: random programs of every op vs torch

PROGRAMS = int(os.environ.get("FUZZ_PROGRAMS", fuzz.PROGRAMS))
MIN_PER_OP, MIN_PER_FORM, MIN_REUSE = 50, 20, 0.20
REFERENCE = runner.load("reference")[0]
COVERAGE: Counter[str] = Counter()
FAILURES: list[fuzz.Failure] = []


@settings(settings.get_profile("fuzz"), max_examples=PROGRAMS)
@given(fuzz.programs())
def test_random_programs_against_torch(program):
    """Records every difference (asserted below), so one run covers every program."""
    fuzz.record(program, COVERAGE)
    failure = fuzz.check(REFERENCE, program)
    if failure is not None:
        FAILURES.append(failure)


def _ran() -> None:
    if not COVERAGE["programs"]:  # this test selected alone
        test_random_programs_against_torch()


def test_every_op_form_and_reuse_is_covered():
    _ran()
    n = COVERAGE["programs"]
    assert n >= PROGRAMS
    scale = min(1.0, n / fuzz.PROGRAMS)  # FUZZ_PROGRAMS below 2,000: proportionally fewer
    rare_ops = {op.name: COVERAGE[f"op {op.name}"] for op in OPS
                if COVERAGE[f"op {op.name}"] < MIN_PER_OP * scale}
    rare_forms = {f: COVERAGE[f"form {f}"] for f in FORMS
                  if COVERAGE[f"form {f}"] < MIN_PER_FORM * scale}
    unknown = {k for k in COVERAGE if k.startswith("form ")} - {f"form {f}" for f in FORMS}
    assert not rare_ops, f"ops in fewer than {MIN_PER_OP} of {n} programs: {rare_ops}"
    assert not rare_forms, f"forms in fewer than {MIN_PER_FORM} of {n} programs: {rare_forms}"
    assert not unknown
    assert COVERAGE["node reuse"] >= MIN_REUSE * n, COVERAGE["node reuse"]
    print("\n".join(f"{k:32s} {v:6d}" for k, v in sorted(COVERAGE.items())))


def test_the_reference_agrees_with_torch():
    """Every program's forward values and leaf gradients agree with torch (issue 10's bugs,
    which this fuzzer found, are fixed)."""
    _ran()
    assert not FAILURES, f"{len(FAILURES)} programs differ from torch; the first:\n{FAILURES[0]}"


# ---------------------------------------------------------------- planted bugs it must catch
# issue 10's transpose bug: the permutation inverted without normalising negative axes
TRANSPOSE_BUG = mutants.Plant("Tensor.transpose", ("transpose",), body="""\
if len(axes) == 1 and not isinstance(axes[0], int):
    axes = tuple(axes[0])
perm = tuple(axes) if axes else tuple(reversed(range(self.ndim)))
out = Tensor._make(self.data.transpose(perm), (self,), "transpose")
inverse = tuple(np.argsort(perm))

def _backward(g):
    return (g.transpose(inverse),)

out._backward = _backward
return out
""")
PLANTED_PROGRAMS = 50  # each contains the planted op (derandomised, pinned: the same 50 every run)
PLANTED = ("getitem_assigns_repeated_indices", "matmul_T_reverses_batch_axes",
           "sum_backward_keepdims_lost")


@pytest.mark.parametrize("name", ("transpose_negative_axes",) + PLANTED)
def test_the_fuzzer_catches_a_planted_bug(name):
    if name in mutants.MUTANT_BY_NAME:
        impl, rows = mutants.load(name), mutants.MUTANT_BY_NAME[name].affects
    else:
        source = mutants.plant(mutants.reference_source(), TRANSPOSE_BUG, name)
        impl, rows = runner.load_impl(source=source, name="planted"), TRANSPOSE_BUG.affects
    result = fuzz.compare(impl, PLANTED_PROGRAMS, focus=[BY_NAME[r] for r in rows])
    caught = [f for f in result.failures if fuzz.check(REFERENCE, f.program) is None]
    assert caught, f"{name}: {result.programs} programs with {rows}, the bug not caught"
