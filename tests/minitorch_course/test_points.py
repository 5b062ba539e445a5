"""Points have one source, the catalog: every graded cell of an instructor notebook is a catalog
cell worth the same points and checking the same rows, and `make check` shows each lab worth
what its notebook is worth."""

from __future__ import annotations

import ast
import io
import json
import re
from pathlib import Path

import pytest

from minitorch_authoring import stubgen
from minitorch_authoring.repository import ROOT
from minitorch_course import check as check_cli
from minitorch_course.catalog import CELLS, ENGINE_BY_NAME, LABS, resolve


@pytest.fixture(autouse=True)
def _mlp_cache(tmp_path, monkeypatch):
    """The report caches lab 05's MLP checks: here in a temporary folder, never in ~/.cache."""
    monkeypatch.setenv(check_cli.CACHE_ENV, str(tmp_path / "mlp-cache"))


def notebook(lab: str) -> Path:
    path = ROOT / "solutions" / "notebooks" / f"{lab}.ipynb"
    assert path.is_file(), f"{path.name} is missing"  # a missing notebook fails, never skips
    return path


def graded_cells(path: Path) -> dict[str, tuple[int, list[str] | None]]:
    """grade_id -> (points, the row names of its one check_ops/check_engine call, or None)."""
    cells = {}
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if not meta.get("grade") or cell["cell_type"] != "code":
            continue
        names = None
        try:
            tree = ast.parse("".join(cell["source"]))
        except SyntaxError:
            tree = ast.Module([], [])
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
                 and getattr(n.func, "id", "") in ("check_ops", "check_engine")]
        if len(calls) == 1 and not calls[0].keywords:
            names = [a.value for a in calls[0].args if isinstance(a, ast.Constant)]
        cells[meta["grade_id"]] = (meta["points"], names)
    return cells


def rows_of(names: list[str]) -> set[str]:
    ops = [n for n in names if n not in ENGINE_BY_NAME]
    return {op.name for op in resolve(ops)} | {n for n in names if n in ENGINE_BY_NAME}


@pytest.mark.parametrize("lab", sorted(LABS))
def test_every_graded_cell_is_a_catalog_cell(lab):
    found = graded_cells(notebook(lab))
    catalog = {c.grade_id: c for c in CELLS if c.lab == lab}
    assert set(found) == set(catalog)
    for grade_id, (points, names) in found.items():
        cell = catalog[grade_id]
        assert points == cell.points, grade_id
        if names is not None:
            assert rows_of(names) == set(cell.rows), grade_id
        else:
            assert not cell.rows, f"{grade_id} grades rows the catalog does not know of"


def test_make_check_shows_each_lab_worth_its_notebook_points(tmp_path):
    """Lab 00 once showed 5 points in make check and 6 in the notebook (an exercise cell)."""
    stub = tmp_path / "tensor.py"
    stub.write_text(stubgen.generate((ROOT / "solutions" / "tensor.py").read_text()))
    stream = io.StringIO()
    check_cli.main(["--impl", str(stub), "--examples", "1"], stream=stream)
    shown = {title: int(m.group(1)) for title in LABS.values()
             for m in [re.search(re.escape(title) + r" +\d+/(\d+) points", stream.getvalue())]
             if m}
    for lab, title in LABS.items():
        worth = sum(points for points, _ in graded_cells(notebook(lab)).values())
        assert shown[title] == worth, (lab, shown[title], worth)
