"""The judge and the equivalence fuzzing behind ``make mutation-score`` (Cosmic Ray itself only
generates the mutants and keeps the session; it is not needed here).

Mutants are written by hand as one-line edits of the reference, each one a mutation Cosmic Ray
makes; which of them survive or die is what the graded checks are for, so the expectations come
from reasoning about the edit, not from running the judge.
"""

from __future__ import annotations

import pytest

from minitorch_authoring import mutation_score
from minitorch_course import runner

pytestmark = pytest.mark.slow  # a sweep: the judge on each mutant, fuzzing survivors

REFERENCE = runner.REFERENCE_FILE.read_text(encoding="utf-8")


def edit(old: str, new: str) -> str:
    """The reference with the one line containing ``old`` changed."""
    assert REFERENCE.count(old) == 1, old
    return REFERENCE.replace(old, new)


KILLED = {
    # a node met twice ends the depth-first search: the root never reaches the order
    "topological sort stops at a visited node": edit(
        "            if id(node) in visited:\n                continue",
        "            if id(node) in visited:\n                break"),
    # the first leaf in the reversed order ends the pass: the other branch gets nothing
    "backward stops at the first leaf": edit(
        "                continue  # a leaf, or no gradient reached it",
        "                break  # a leaf, or no gradient reached it"),
    # a constant first parent ends the loop over parents
    "backward stops at a constant parent": edit(
        "                if g is None or not parent.requires_grad:\n                    continue",
        "                if g is None or not parent.requires_grad:\n                    break"),
    # the reverse-broadcast point inverted: only broadcasting ops' rows can see it
    "reverse broadcasting inverted": edit(
        "if g.shape != parent.data.shape:  # the one reverse-broadcast point",
        "if g.shape == parent.data.shape:  # the one reverse-broadcast point"),
}


@pytest.mark.parametrize("name", sorted(KILLED))
def test_the_judge_kills(name, capsys):
    assert mutation_score.judge_source(KILLED[name]) == 1
    assert "failing: none" not in capsys.readouterr().out


def test_the_judge_lets_an_unchanged_behaviour_live(capsys):
    # a & b -> a * b on two boolean arrays: the same mask (an equivalent mutant)
    source = edit("np.where((a == 0) & (b >= 0), 0.0,", "np.where((a == 0) * (b >= 0), 0.0,")
    assert mutation_score.judge_source(source) == 0
    out = capsys.readouterr().out
    assert "Tensor.pow: rows pow, pow_scalar, topological_order" in out


def test_engine_functions_meet_every_row():
    assert mutation_score.is_engine("Tensor.backward") and mutation_score.is_engine("unbroadcast")
    assert not mutation_score.is_engine("Tensor.transpose")


def test_fuzzing_tells_a_real_difference_from_an_equivalent_mutant():
    # issue 8's bug: the forward permutation where its inverse belongs (same on 2-D, wrong on 3-D
    # with a cyclic permutation), and the equivalent boolean-mask mutant above
    sources = {
        "transpose": edit("inverse = tuple(np.argsort(perm))", "inverse = tuple(perm)"),
        "mask": edit("np.where((a == 0) & (b >= 0), 0.0,", "np.where((a == 0) * (b >= 0), 0.0,"),
    }
    from minitorch_course.catalog import BY_NAME

    seen = mutation_score.fuzz_survivors({"transpose": sources["transpose"]}, 300,
                                         [BY_NAME["transpose"]])
    assert seen["transpose"]["differ"] > 0 and "transpose" in seen["transpose"]["first"]
    seen = mutation_score.fuzz_survivors({"mask": sources["mask"]}, 100, [BY_NAME["pow"]])
    assert seen["mask"] == {"programs": seen["mask"]["programs"], "differ": 0, "first": ""}
    assert seen["mask"]["programs"] >= 90  # programs the reference itself refuses are not counted
