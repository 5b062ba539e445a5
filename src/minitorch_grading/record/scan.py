"""A submission read, not run: what its tensor.py and notebooks reach for (flags for the
instructor, never scores)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from minitorch_course import quiz
from minitorch_course.worker import main as worker

SUSPICIOUS = {  # names a tensor.py has no business using (flagged, not scored)
    "minitorch_course": "the course checker", "__main__": "the grader's main module",
    "modules": "the module table (sys.modules)", "_getframe": "the caller's frames",
    "inspect": "frame inspection", "gc": "the garbage collector's object lists",
    "builtins": "the builtins", "ctypes": "foreign functions", "subprocess": "processes",
    "solutions": "the reference's folder", "direct_url": "an install's metadata",
    "importlib": "loading modules by path", "__import__": "dynamic imports",
    "NBGRADER_EXECUTION": "nbgrader's environment", "MINITORCH_IMPL": "the implementation switch",
    "__globals__": "another module's globals", "f_globals": "a frame's globals",
    "f_back": "the caller's frame", "tb_frame": "a traceback's frames",
    "__closure__": "a closure's cells", "cell_contents": "a closure's cells",
    "__code__": "a function's code", "settrace": "a tracer", "setprofile": "a profiler",
}


def scan(source: str) -> list[str]:
    """What a tensor.py imports or names that it should not (flags for the instructor).

    Read, never run: imports of an autograd library, and names (identifiers, attributes,
    strings other than docstrings) that reach for the grader, the reference or the switch."""
    try:
        tree = ast.parse(source)
    except SyntaxError as err:
        return [f"tensor.py does not parse ({err.msg}, line {err.lineno})"]
    imported, words = set(), set()
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                                | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
            words |= {part for a in node.names for part in a.name.split(".")}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
            words |= set(node.module.split(".")) | {a.name for a in node.names}
        elif isinstance(node, ast.Name):
            words.add(node.id)
        elif isinstance(node, ast.Attribute):
            words.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docstrings:
            words |= {w for w in SUSPICIOUS if w in node.value}
    flags = [f"imports {name} (an autograd library)"
             for name in sorted(imported & set(worker.AUTOGRAD))]
    flags += [f"uses {word!r} ({what})" for word, what in SUSPICIOUS.items() if word in words]
    return flags


NOTEBOOK_TRICKS = re.compile(  # in a notebook's code: switches off or replaces the graders
    r"NBGRADER_EXECUTION|MINITORCH_IMPL|sys\.path|__eq__|refuse_foreign_code"
    r"|\bcheck_(ops|engine)\s*=(?!=)|\.\s*check_(ops|engine)\s*=(?!=)")


def scan_notebooks(folder: Path) -> list[str]:
    """Code cells of the submitted notebooks that reach for the graders (flags: the record
    runs none of them, but the in-kernel feedback may have been fooled), and answer cells or
    notebooks too large for the grader to parse (``quiz.MAX_CELL_BYTES``, ``MAX_NOTEBOOK_BYTES``:
    scored as unreadable)."""
    flags = []
    for path in sorted(folder.glob("*.ipynb")):
        try:
            size = path.stat().st_size
            if size > quiz.MAX_NOTEBOOK_BYTES:
                flags.append(f"{path.stem}: {quiz.too_large(size, quiz.MAX_NOTEBOOK_BYTES, 'notebook')}")
                continue
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        for index, cell in enumerate(cells if isinstance(cells, list) else []):
            if not isinstance(cell, dict) or cell.get("cell_type") != "code":
                continue
            source = quiz.cell_source(cell)
            meta = cell.get("metadata")
            meta = meta.get("nbgrader") if isinstance(meta, dict) else None
            meta = meta if isinstance(meta, dict) else {}
            grade_id = meta.get("grade_id", f"cell {index}")
            size = len(source.encode("utf-8", errors="replace"))
            if meta.get("solution") and size > quiz.MAX_CELL_BYTES:
                flags.append(f"{path.stem}/{grade_id}: "
                             + quiz.too_large(size, quiz.MAX_CELL_BYTES, "answer cell"))
            found = NOTEBOOK_TRICKS.search(source)
            if found:
                flags.append(f"{path.stem}/{grade_id}: uses {found.group(0)!r}")
    return flags[:10]

