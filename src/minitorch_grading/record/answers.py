"""Quiz and exercise answers read as data (``ast.literal_eval``, never executed) and judged by
the instructor's own test cells, run here on those plain values."""

from __future__ import annotations

import ast
import builtins
import contextlib
import copy
import io
import warnings

import numpy as np

from minitorch_grading.record.cells import GradedCell


def _free_names(source: str) -> set[str]:
    """Names a cell reads that it does not assign (the kernel state it relies on)."""
    tree = ast.parse(source)
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Load)}
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Store)}
    imported = {(a.asname or a.name).split(".")[0] for n in ast.walk(tree)
                if isinstance(n, ast.Import | ast.ImportFrom) for a in n.names}
    return loaded - stored - imported - set(vars(builtins))


def judge_answer(cell: GradedCell, values: dict, solution: dict | None = None) -> bool:
    """The instructor's test cell (hidden tests included), run HERE on literal values only.

    A test that also reads what earlier cells computed (``x.shape``) cannot run outside the
    notebook: then the answers it reads are compared with the instructor's solution values."""
    free = _free_names(cell.source) - {"np"}
    if free - set(solution or {}) - set(values):
        used = free & set(solution or {})
        return bool(used) and all(
            k in values and type(values[k]) is type(solution[k]) and values[k] == solution[k]
            for k in used)
    namespace = {"np": np, "__builtins__": __builtins__, **copy.deepcopy(values)}
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            exec(compile(cell.source, f"<{cell.grade_id}>", "exec"), namespace)  # noqa: S102
    except Exception:  # noqa: BLE001 - an assert, NotImplementedError (unanswered)...
        return False
    return True

