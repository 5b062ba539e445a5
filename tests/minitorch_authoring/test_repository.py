"""One owner for the repository's paths and fence markers (minitorch_authoring.repository).

What ships to learners finds the repository on its own (it cannot import the maintainers'
package): those places must agree with the owner. No other module writes a fence marker.
"""

from __future__ import annotations

import ast
from pathlib import Path

import minitorch
from minitorch_authoring import repository
from minitorch_course import runner

MARKERS = set(repository.SOLUTION + repository.HIDDEN_TESTS)


def test_the_shipping_side_finds_the_same_repository():
    assert runner.ROOT == repository.ROOT
    assert minitorch.REFERENCE_FILE == repository.REFERENCE
    assert Path(minitorch.__file__).resolve().parent / "tensor.py" == repository.STUB


def test_every_path_is_there():
    for name in ("SRC", "SOLUTIONS", "REFERENCE", "STUB", "SOURCE_NOTEBOOKS",
                 "STUDENT_NOTEBOOKS", "THEORY"):
        assert getattr(repository, name).exists(), name


def test_the_fences_are_the_ones_the_sources_use():
    lines = {line.strip() for line in repository.REFERENCE.read_text("utf-8").splitlines()}
    assert set(repository.SOLUTION) <= lines
    notebooks = "".join(p.read_text("utf-8") for p in repository.SOURCE_NOTEBOOKS.glob("*.ipynb"))
    assert all(marker in notebooks for marker in repository.HIDDEN_TESTS)


def test_no_other_module_writes_a_fence_marker():
    found = [f"{path.relative_to(repository.ROOT)}:{node.lineno}"
             for path in sorted(repository.SRC.rglob("*.py"))
             if path != Path(repository.__file__)
             for node in ast.walk(ast.parse(path.read_text("utf-8")))
             if isinstance(node, ast.Constant) and node.value in MARKERS]
    assert not found, found
