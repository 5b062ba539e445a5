"""What each graded cell of the instructor's notebooks checks, read (not run) from its source."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from pathlib import Path

from minitorch_course import examplar, runner
from minitorch_course.catalog import resolve

MLP_CHECKS = ("loss_curve", "accuracy")  # mlp_checks' graded properties (check_mlp's argument)


@dataclass
class Check:
    """One ``check_ops`` / ``check_engine`` call of a graded cell."""

    rows: tuple[str, ...]
    suites: tuple[str, ...]
    max_examples: int = 25


@dataclass
class GradedCell:
    notebook: str
    grade_id: str
    points: float
    checks: list[Check] = field(default_factory=list)  # empty: an answer cell
    source: str = ""  # the instructor's test source (hidden tests included)
    mlp: tuple[str, ...] = ()  # lab 05: the ``check_mlp(...)`` checks of the learner's MLP
    my_tests: tuple[str, ...] = ()  # labs 00-04: ``check_my_tests(lab)``, the learner's tests


def _literal_args(call: ast.Call) -> tuple[list[str], dict]:
    args = [ast.literal_eval(a) for a in call.args]
    kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
    return args, kwargs


def graded_cells(source_dir: Path) -> dict[str, list[GradedCell]]:
    """{notebook: its graded cells} from the instructor's notebooks (the course's source)."""
    found: dict[str, list[GradedCell]] = {}
    for path in sorted(source_dir.glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        cells = []
        for cell in nb["cells"]:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if not meta.get("grade") or cell.get("cell_type") != "code":
                continue
            source = "".join(cell["source"]) if isinstance(cell["source"], list) \
                else cell["source"]
            graded = GradedCell(path.stem, meta["grade_id"], float(meta.get("points", 0)),
                                source=source)
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                        and node.func.id in ("check_ops", "check_engine"):
                    args, kwargs = _literal_args(node)
                    if node.func.id == "check_ops":
                        rows = tuple(op.name for op in resolve(list(args)))
                        suites = tuple(kwargs.get("suites", runner.GRADED_SUITES))
                    else:
                        rows, suites = tuple(args), ("engine",)
                    graded.checks.append(Check(rows, suites, int(kwargs.get("max_examples",
                                                                             25))))
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                        and node.func.id == "check_mlp":
                    args, _ = _literal_args(node)
                    if args[0] not in MLP_CHECKS:
                        raise ValueError(f"{path.name}/{graded.grade_id}: unknown MLP check "
                                         f"{args[0]!r}")
                    graded.mlp += (args[0],)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                        and node.func.id == "check_my_tests":
                    args, _ = _literal_args(node)
                    unknown = [lab for lab in args if lab not in examplar.LAB_FILES]
                    if unknown or not args:
                        raise ValueError(f"{path.name}/{graded.grade_id}: check_my_tests of "
                                         f"unknown labs {unknown}")
                    graded.my_tests += tuple(args)
            cells.append(graded)
        found[path.stem] = cells
    return found

