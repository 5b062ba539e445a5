"""The packages' shape: layers by audience, no import circle, no per-op knowledge outside the
catalog.

The boundaries are folders (issue 23), and these tests keep them: what ships to learners
(``minitorch``, ``minitorch_course``) never imports what does not (``minitorch_grading``, the
instructor's; ``minitorch_authoring``, the maintainers'); the grading worker's own package
(``minitorch_course.worker``) needs nothing but the standard library, NumPy, ``minitorch`` and
itself; and ``minitorch`` needs nothing of the course.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from minitorch_authoring.repository import SRC
from minitorch_course import stubfiles
from minitorch_course.catalog import ENGINE_ROWS, OPS

PACKAGES = ("minitorch", "minitorch_course", "minitorch_grading", "minitorch_authoring")
SHIPS = ("minitorch", "minitorch_course")  # what the class release copies, whole
WORKER = "minitorch_course.worker"


def _dotted(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _top(name: str) -> str:
    return name.split(".")[0]


# the package's modules; not the learner's files it ships in English (stubs_en/: copies of the
# stubs and test skeletons, data for `make english`, which no module imports)
TREES = {_dotted(p): ast.parse(p.read_text(encoding="utf-8"))
         for package in PACKAGES for p in sorted((SRC / package).rglob("*.py"))
         if not p.is_relative_to(stubfiles.ENGLISH)}
COURSE = {name.rsplit(".", 1)[-1]: tree for name, tree in TREES.items()
          if _top(name) != "minitorch" and not name.startswith(WORKER)}


def _is_main_block(node: ast.AST) -> bool:
    """``if __name__ == "__main__":``: runs only as a script, where the module is loaded as
    ``__main__`` (a module of its own), so what it imports makes no import circle."""
    return (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__"
            and any(isinstance(c, ast.Constant) and c.value == "__main__"
                    for c in node.test.comparators))


def _nodes(tree: ast.AST):
    """``ast.walk`` without the bodies of ``if __name__ == "__main__":`` blocks."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(c for c in ast.iter_child_nodes(node) if not _is_main_block(c))


def imported(tree: ast.Module, module: str) -> set[str]:
    """Every module ``tree`` imports, at any depth (inside functions too), dotted and absolute."""
    found = set()
    for node in _nodes(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against the importing module's package
                package = module.split(".")
                package = package[:len(package) - node.level + (module in PACKAGES)]
                base = ".".join(package + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in TREES}
    return found


def test_the_layers_read_every_package():
    """The checks below can fail: they see each package's modules, the worker's included."""
    assert {_top(name) for name in TREES} == set(PACKAGES)
    assert any(name.startswith(WORKER) for name in TREES)
    assert "minitorch_grading.record" in TREES and "minitorch_authoring.stubgen" in TREES


@pytest.mark.parametrize("package", SHIPS)
def test_what_ships_imports_nothing_that_does_not(package):
    found = [f"{name} imports {dep}" for name, tree in TREES.items() if _top(name) == package
             for dep in imported(tree, name) if _top(dep) in PACKAGES and _top(dep) not in SHIPS]
    assert not found, found


def test_minitorch_needs_nothing_of_the_course():
    found = [f"{name} imports {dep}" for name, tree in TREES.items() if _top(name) == "minitorch"
             for dep in imported(tree, name)
             if _top(dep) in PACKAGES and _top(dep) != "minitorch" or _top(dep) == "torch"]
    assert not found, found


def _worker_needs(allowed: set[str]) -> list[str]:
    """What the worker's modules load beyond ``allowed``: imports, and course modules loaded
    by path (a string naming ``minitorch_course/<module>.py`` outside the worker)."""
    found = [f"{name} imports {dep}" for name, tree in TREES.items() if name.startswith(WORKER)
             for dep in imported(tree, name)
             if not (dep == WORKER or dep.startswith(WORKER + ".") or _top(dep) in allowed)]
    named = {node.value.removesuffix(".py").replace("/", ".") for name, tree in TREES.items()
             if name.startswith(WORKER) for node in ast.walk(tree)
             if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    found += [f"the worker loads {dep} by name" for dep in sorted(named)
              if dep in TREES and _top(dep) not in allowed and dep not in allowed
              and not dep.startswith(WORKER) and _top(dep) != dep]
    return found


STDLIB_NUMPY_MINITORCH = set(sys.stdlib_module_names) | {"numpy", "minitorch"}


def test_the_worker_needs_only_the_standard_library_numpy_minitorch_and_itself():
    """Lab 00's hand-built graphs reach the worker as programs (``worker.engine`` runs them;
    ``engine_checks`` keeps their expected values and judges, in the instructor's process)."""
    found = _worker_needs(STDLIB_NUMPY_MINITORCH)
    assert not found, found


def test_the_worker_check_sees_a_course_module():
    """The check above can fail: a worker module that imported the engine checks, or loaded
    them by path, is found."""
    planted = {f"{WORKER}.planted": ast.parse(
        "import minitorch_course.engine_checks\n"
        "PATH = 'minitorch_course/engine_checks.py'\n")}
    saved = dict(TREES)
    TREES.update(planted)
    try:
        found = _worker_needs(STDLIB_NUMPY_MINITORCH)
    finally:
        TREES.clear()
        TREES.update(saved)
    assert found == [f"{WORKER}.planted imports minitorch_course.engine_checks",
                     "the worker loads minitorch_course.engine_checks by name"], found


def test_no_import_circle():
    graph = {name: {dep for dep in imported(tree, name) if dep in TREES} - {name}
             for name, tree in TREES.items()}
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import circle: {' -> '.join(path + (name,))}"
        if name in done:
            return
        for dep in graph[name]:
            if not dep.startswith(name + "."):  # a package importing its own submodule
                visit(dep, path + (name,))
        done.add(name)

    for name in graph:
        visit(name, ())


def test_no_op_name_as_a_string_outside_the_catalog():
    """What is particular to an op lives in its catalog row: an op's name written elsewhere
    (an if on it, a special case, a list of ops) is a second owner. The catalog has two halves:
    catalog.py, which ships to learners, and solutions/planted.py, the planted versions of its
    mistakes (reference lines verbatim, hidden with the solutions), keyed by mistake id."""
    names = {op.name for op in OPS} | {op.method for op in OPS}
    found = [f"{module}.py:{node.lineno}: {node.value!r}"
             for module, tree in COURSE.items() if module != "catalog"
             for node in ast.walk(tree)
             if isinstance(node, ast.Constant) and node.value in names]
    assert not found, found


def test_the_diagnosis_does_not_branch_on_a_row():
    """No comparison with a row's name, method or family in the diagnosis."""
    rowish = {"name", "method", "family"}
    found = [node.lineno for node in ast.walk(COURSE["diagnosis"])
             if isinstance(node, ast.Compare)
             and any(isinstance(n, ast.Attribute) and n.attr in rowish
                     for n in [node.left, *node.comparators])]
    assert not found, f"diagnosis.py branches on a row at lines {found}"


def test_every_planted_mistake_belongs_to_a_row_and_names_real_rows():
    from minitorch_authoring import mutants

    rows = {op.name for op in OPS} | {row.name for row in ENGINE_ROWS}
    mistakes = {m.id for row in OPS + ENGINE_ROWS for m in row.mistakes}
    for mistake_id, plant in mutants.PLANTS.items():
        assert mistake_id in mistakes, mistake_id
        assert set(plant.affects) <= rows, mistake_id
        assert plant.what, mistake_id


GUARD = "minitorch_course.op_checks"  # THE run-and-classify guard (op_checks.guard, .crashed)


def _crash_classifiers(trees: dict[str, ast.Module]) -> list[str]:
    """Modules that classify a crash themselves (a call of ``diagnosis.explain_crash``
    outside the guard's module): a second owner of what a crash means."""
    return sorted(f"{name}:{node.lineno}" for name, tree in trees.items()
                  if name not in (GUARD, "minitorch_course.diagnosis")
                  for node in ast.walk(tree) if isinstance(node, ast.Call)
                  and (getattr(node.func, "attr", None) or getattr(node.func, "id", None))
                  == "explain_crash")


def test_one_guard_classifies_every_crash():
    """The notebook, make check and the scores of record classify the learner's exceptions
    through ``op_checks`` alone (the record raises the worker's exception again there)."""
    found = _crash_classifiers(TREES)
    assert not found, found


def test_the_guard_check_sees_a_second_classifier():
    planted = {"minitorch_grading.record.planted": ast.parse(
        "from minitorch_course import diagnosis\n"
        "d = diagnosis.explain_crash(None, ValueError('x'))\n")}
    assert _crash_classifiers({**TREES, **planted}) == ["minitorch_grading.record.planted:2"]
