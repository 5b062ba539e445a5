"""The course modules' shape: no import circle, no per-op knowledge outside the catalog."""

from __future__ import annotations

import ast
from pathlib import Path

from minitorch_course.catalog import ENGINE_ROWS, OPS

COURSE = Path(__file__).resolve().parents[1] / "src" / "minitorch_course"
MODULES = {p.stem: ast.parse(p.read_text(encoding="utf-8")) for p in COURSE.glob("*.py")}


def imports(tree: ast.Module) -> set[str]:
    """The course modules ``tree`` imports, at any depth (inside functions too)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "minitorch_course":
                found |= {a.name for a in node.names}
            elif node.module.startswith("minitorch_course."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names
                      if a.name.startswith("minitorch_course.")}
    return found & set(MODULES)


def test_no_import_circle():
    graph = {name: imports(tree) - {name} for name, tree in MODULES.items()}
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import circle: {' -> '.join(path + (name,))}"
        if name in done:
            return
        for dep in graph[name]:
            visit(dep, path + (name,))
        done.add(name)

    for name in graph:
        visit(name, ())


def test_no_op_name_as_a_string_outside_the_catalog():
    """What is particular to an op lives in its catalog row: an op's name written elsewhere
    (an if on it, a special case, a list of ops) is a second owner. The catalog has two halves:
    catalog.py, which ships to learners, and mutants.py, the planted versions of its mistakes
    (reference lines verbatim, so instructor-only), keyed by mistake id."""
    names = {op.name for op in OPS} | {op.method for op in OPS}
    found = [f"{module}.py:{node.lineno}: {node.value!r}"
             for module, tree in MODULES.items() if module not in ("catalog", "mutants")
             for node in ast.walk(tree)
             if isinstance(node, ast.Constant) and node.value in names]
    assert not found, found


def test_the_diagnosis_does_not_branch_on_a_row():
    """No comparison with a row's name, method or family in the diagnosis."""
    rowish = {"name", "method", "family"}
    found = [node.lineno for node in ast.walk(MODULES["diagnosis"])
             if isinstance(node, ast.Compare)
             and any(isinstance(n, ast.Attribute) and n.attr in rowish
                     for n in [node.left, *node.comparators])]
    assert not found, f"diagnosis.py branches on a row at lines {found}"


def test_every_planted_mistake_belongs_to_a_row_and_names_real_rows():
    from minitorch_course import mutants

    rows = {op.name for op in OPS} | {row.name for row in ENGINE_ROWS}
    mistakes = {m.id for row in OPS + ENGINE_ROWS for m in row.mistakes}
    for mistake_id, plant in mutants.PLANTS.items():
        assert mistake_id in mistakes, mistake_id
        assert set(plant.affects) <= rows, mistake_id
        assert plant.what, mistake_id
