"""Points have one source, the catalog: every graded `check_ops(...)` cell of an instructor
notebook is worth exactly what its catalog rows are worth, and `make check` totals the same."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from minitorch_course.catalog import ENGINE_BY_NAME, LABS, lab_points, resolve

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "solutions" / "notebooks").glob("*.ipynb"))


def graded_check_cells(path: Path):
    """(grade_id, points, row names) for every graded cell that is one check_ops or
    check_engine call."""
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if not meta.get("grade") or cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
                 and getattr(n.func, "id", "") in ("check_ops", "check_engine")]
        if len(calls) != 1 or calls[0].keywords:  # suites=... cells grade a skill, not ops
            continue
        names = [a.value for a in calls[0].args if isinstance(a, ast.Constant)]
        yield meta["grade_id"], meta["points"], names


def catalog_points(names: list[str]) -> int:
    engine = [ENGINE_BY_NAME[n].points for n in names if n in ENGINE_BY_NAME]
    ops = resolve([n for n in names if n not in ENGINE_BY_NAME]) if len(engine) < len(names) \
        else []
    return sum(engine) + sum(op.points for op in ops)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_graded_cells_are_worth_their_catalog_points(path):
    for grade_id, points, names in graded_check_cells(path):
        assert points == catalog_points(names), (grade_id, names)


@pytest.mark.parametrize("lab", sorted(LABS))
def test_each_lab_grades_every_catalog_row_once(lab):
    path = ROOT / "solutions" / "notebooks" / f"{lab}.ipynb"
    if not path.exists():
        pytest.skip(f"{path.name} not written yet")
    graded = [n for _, _, names in graded_check_cells(path) for n in names]
    ops = [n for n in graded if n not in ENGINE_BY_NAME]
    rows = [op.name for op in resolve(ops)] + [n for n in graded if n in ENGINE_BY_NAME]
    assert sorted(rows) == sorted(set(rows)), "a row graded twice"
    total = sum(points for _, points, _ in graded_check_cells(path))
    assert total == lab_points(lab)
