"""The mypy row of the progress report (minitorch_course.typecheck): the reference and the stub
pass ``mypy --strict`` with the learner's two relaxations, a type error is reported with its
line, and a result is recalled by the file's hash."""

from __future__ import annotations

import shutil

import pytest

from minitorch_authoring.repository import ROOT
from minitorch_course import typecheck

pytestmark = pytest.mark.skipif(typecheck._version() is None, reason="mypy is not installed")


@pytest.mark.parametrize("path", ["solutions/tensor.py", "src/minitorch/tensor.py"])
def test_the_reference_and_the_stub_pass(path):
    rep = typecheck.check(ROOT / path)
    assert rep.ok, rep.errors or rep.problem


def test_a_type_error_is_reported_with_its_line_and_the_result_cached(tmp_path):
    planted = tmp_path / "tensor.py"
    shutil.copy(ROOT / "solutions" / "tensor.py", planted)
    text = planted.read_text(encoding="utf-8")
    anchor = "    def silu(self) -> Tensor:\n"
    assert anchor in text
    planted.write_text(text.replace(anchor, "    def planted(self) -> Tensor:\n"
                                            "        return self.shape\n\n" + anchor, 1),
                       encoding="utf-8")
    line = text[:text.index(anchor)].count("\n") + 2
    first = typecheck.check(planted, use_cache=False)
    assert first.ok is False and not first.cached
    assert any(e.startswith(f"{line}:") and "return value" in e for e in first.errors), \
        first.errors
    again = typecheck.check(planted)
    assert again.cached and again.errors == first.errors


def test_unannotated_closures_are_allowed_but_their_bodies_checked(tmp_path):
    planted = tmp_path / "tensor.py"
    text = (ROOT / "solutions" / "tensor.py").read_text(encoding="utf-8")
    anchor = "    def silu(self) -> Tensor:\n"
    shape = "self.data.shape"
    body = ("    def closure_demo(self) -> Tensor:\n"
            "        def _backward(g):\n"
            f"            return (g * ({shape} + 1),)\n\n"
            "        return Tensor._make(self.data, (self,), 'demo', _backward)\n\n")
    planted.write_text(text.replace(anchor, body + anchor, 1), encoding="utf-8")
    rep = typecheck.check(planted)
    assert rep.ok is False and len(rep.errors) == 1 and "[operator]" in rep.errors[0]


def _natural_transpose(stub: str, reference: str) -> str:
    """The reference with transpose's provided line taken from the stub and its fenced body
    replaced by what a learner naturally writes with the name that line gives."""
    provided = next(line for line in stub.splitlines() if "= _permutation(" in line)
    name = provided.split("=")[0].strip()
    lines = reference.splitlines()
    first = next(k for k, line in enumerate(lines) if "= _permutation(" in line)
    last = next(k for k in range(first, len(lines)) if lines[k].strip() == "### END SOLUTION")
    natural = [provided,
               f"        if not {name}:  # transpose(): reverse every axis",
               f"            {name} = tuple(reversed(range(self.ndim)))",
               f"        inverse = tuple(np.argsort({name}))",
               "",
               "        def _backward(g):",
               "            return (g.transpose(inverse),)",
               "",
               f"        return Tensor._make(self.data.transpose({name}), (self,), "
               "\"transpose\", _backward)"]
    return "\n".join(lines[:first] + natural + lines[last + 1:]) + "\n"


def test_a_natural_transpose_passes_mypy(tmp_path):
    """The stub's provided line names the permutation so that the natural code (fill in the
    default when no axes are given, argsort it, transpose by it) type-checks: reassigning the
    ``*axes`` parameter kept its ``int | Sequence[int]`` type and failed mypy --strict
    (issue 28)."""
    stub = (ROOT / "src" / "minitorch" / "tensor.py").read_text(encoding="utf-8")
    reference = (ROOT / "solutions" / "tensor.py").read_text(encoding="utf-8")
    planted = tmp_path / "tensor.py"
    planted.write_text(_natural_transpose(stub, reference), encoding="utf-8")
    rep = typecheck.check(planted, use_cache=False)
    assert rep.ok, rep.errors or rep.problem
