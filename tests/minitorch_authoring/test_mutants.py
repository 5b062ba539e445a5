"""The catalog of classic mistakes: each mutant of the reference must be caught, by exactly the
rows it affects, with the diagnosis that names it.

Every mutant runs the forward, backward, gradcheck (small cases) and broadcasting suites on the
fixed cases of every catalog op, plus the engine rows; the property suite only where a mutant
says it needs it. The ids read ``<mutant>-><diagnosis>``; the closing test prints
caught/total and correctly-diagnosed/total.
"""

from __future__ import annotations

from functools import cache

import pytest

from minitorch_authoring import mutants
from minitorch_authoring.mutants import Plant
from minitorch_course.catalog import BY_NAME, ENGINE_BY_NAME, KINDS

MUTANTS = mutants.MUTANTS
IDS = [f"{m.name}->{m.diagnosis}" for m in MUTANTS]


@cache
def verdict(name: str) -> mutants.Verdict:
    return mutants.run(mutants.MUTANT_BY_NAME[name])


def test_at_least_fifteen_classic_mistakes_covering_the_issue_list():
    assert len(MUTANTS) >= 15
    kinds = {m.diagnosis for m in MUTANTS}
    assert {"reverse-broadcast", "keepdims", "transposed", "softmax-sum-term", "factor",
            "unstable-forward", "repeated-indices", "ties", "sign", "local-derivative",
            "exp-uses-input", "accumulate", "recursion"} <= kinds
    affected = {row for m in MUTANTS for row in m.affects}
    assert {"add", "sub", "mul", "div", "pow", "matmul", "sum", "mean", "max", "transpose",
            "getitem", "softmax", "cross_entropy", "relu", "gelu", "exp",
            "topological_order"} <= affected


@pytest.mark.parametrize("mutant", MUTANTS, ids=IDS)
def test_mutant_is_well_formed_and_applies_exactly_once(mutant):
    assert mutant.diagnosis in KINDS
    for row in mutant.affects:
        assert row in BY_NAME or row in ENGINE_BY_NAME, f"{mutant.name}: unknown row {row}"
    source = mutants.reference_source()
    planted = mutant.apply(source)  # MutantRotted if an edit does not apply exactly once
    assert planted != source


def test_a_rotted_mutant_fails_loudly():
    rotted = mutants.Mutant("rotted", "sign", Plant("Tensor.div", ("div",),
                                                     (("no such text", "y"),)))
    with pytest.raises(mutants.MutantRotted, match="occurs 0 times"):
        rotted.apply(mutants.reference_source())
    gone = mutants.Mutant("gone", "sign", Plant("Tensor.no_such_op", ("div",)))
    with pytest.raises(mutants.MutantRotted, match="no function"):
        gone.apply(mutants.reference_source())


def test_an_edit_is_located_by_function_not_by_text():
    """The same line in two functions (mul's and matmul's dot product) is planted in the one
    the mutant names; comments do not count, so rewording one cannot rot a mutant."""
    source = mutants.reference_source()
    assert source.count("return g * b, g * a") == 2
    planted = mutants.MUTANT_BY_NAME["mul_forgets_second_parent"].apply(source)
    assert planted.count("return g * b, g * a") == 1
    reworded = source.replace("# the one reverse-broadcast point", "# reworded comment")
    assert reworded != source
    for mutant in MUTANTS:
        assert mutant.apply(reworded) != reworded


@pytest.mark.slow  # a catalog-wide sweep: every planted mistake vs every row
@pytest.mark.parametrize("mutant", MUTANTS, ids=IDS)
def test_mutant_is_caught_by_exactly_its_rows_with_the_right_diagnosis(mutant):
    v = verdict(mutant.name)
    assert v.caught, f"{mutant.name} ({mutant.mistake}) was not caught by any check"
    assert set(v.failing) == set(mutant.affects), (
        f"{mutant.name}: failing rows {sorted(v.failing)}, expected {sorted(mutant.affects)}")
    wrong = {row: kind for row, kind in v.failing.items() if kind != mutant.diagnosis}
    assert not wrong, f"{mutant.name}: expected diagnosis {mutant.diagnosis}, got {wrong}"


@pytest.mark.slow  # a catalog-wide sweep: every planted mistake vs every row
def test_closing_note_caught_and_diagnosed(capsys):
    verdicts = [verdict(m.name) for m in MUTANTS]
    total = len(verdicts)
    caught = sum(v.caught for v in verdicts)
    exact = sum(v.exact for v in verdicts)
    diagnosed = sum(v.diagnosed for v in verdicts)
    seconds = sum(v.seconds for v in verdicts)
    with capsys.disabled():
        print(f"\nmutant catalog: caught {caught}/{total}, exactly the affected rows "
              f"{exact}/{total}, correctly diagnosed {diagnosed}/{total} ({seconds:.0f} s)")
    assert caught == exact == diagnosed == total
