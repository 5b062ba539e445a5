"""The held-out mistakes (solutions/heldout/) are well formed and REAL.

For every ``mNN_<slug>.py``: the constants exist and are valid, the target exists in
solutions/tensor.py, the mutated engine compiles and imports, and its ``WITNESS`` shows the
mistake: the reference agrees with torch float64 on that input, the mutated engine does not
(a wrong value or an exception both count).
"""

from __future__ import annotations

import ast
import re
import textwrap

import pytest
from heldout import apply

from minitorch_course import catalog

MISTAKES = apply.all_mistakes()
KINDS = {
    "wrong-formula", "wrong-scale", "swapped-inputs", "missing-upstream", "sign", "wrong-axis",
    "keepdims", "reverse-broadcast", "scatter-indexing", "transposed", "numerical-stability",
    "kink-convention", "engine-order", "engine-accumulation", "engine-reset", "engine-aliasing",
    "engine-freeing",
    # held-out set 2 (m52-m97, issue 25)
    "constant-operand", "api-misuse", "domain", "engine-depth",
}
OPS = {op.method for op in catalog.OPS} | {"engine"}
IDS = [m.__name__.rsplit(".", 1)[-1] for m in MISTAKES]


@pytest.fixture(scope="module")
def reference():
    return apply.load_reference()


def test_the_set_is_large_and_numbered():
    assert len(MISTAKES) >= 30
    assert [int(name[1:3]) for name in IDS] == list(range(1, len(IDS) + 1))
    assert len({m.OP for m in MISTAKES}) >= 20


@pytest.mark.parametrize("mistake", MISTAKES, ids=IDS)
def test_constants(mistake):
    assert re.fullmatch(r"m\d\d_[a-z0-9_]+", mistake.__name__.rsplit(".", 1)[-1], re.I)
    for name in ("TARGET", "OP", "KIND", "DESCRIPTION", "APT", "SOURCE"):
        assert isinstance(getattr(mistake, name), str) and getattr(mistake, name).strip(), name
    assert callable(mistake.WITNESS)
    assert mistake.KIND in KINDS
    assert mistake.OP in OPS
    assert mistake.KIND.startswith("engine-") <= (mistake.OP == "engine")


@pytest.mark.parametrize("mistake", MISTAKES, ids=IDS)
def test_source_replaces_an_existing_def(mistake):
    try:
        target = apply.find_def(apply._reference_tree(), mistake.TARGET)
        name = target.name
    except KeyError:  # a helper the reference imports from a course-provided module
        target, name = apply.provided_def(mistake.TARGET), mistake.TARGET
    tree = ast.parse(textwrap.dedent(mistake.SOURCE).strip("\n"))
    assert len(tree.body) == 1 and isinstance(tree.body[0], ast.FunctionDef)
    assert tree.body[0].name == name
    assert ast.dump(tree.body[0]) != ast.dump(target), "SOURCE is the reference unchanged"
    mutated = apply.mutated_source(mistake)
    compile(mutated, mistake.__name__, "exec")
    assert mutated != apply.reference_source()


@pytest.mark.parametrize("mistake", MISTAKES, ids=IDS)
def test_witness_shows_the_mistake(mistake, reference):
    mistake.WITNESS(reference)  # the reference agrees with torch on the witness input
    module = apply.load(mistake)
    try:
        mistake.WITNESS(module)
    except Exception:  # noqa: BLE001  (a wrong gradient or a crash: both differ from torch)
        return
    pytest.fail(f"{mistake.TARGET}: the mutated engine agrees with torch on the witness")
