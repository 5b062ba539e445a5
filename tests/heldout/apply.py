"""Load the reference engine with ONE function replaced by a held-out mistake.

``load(mistake)`` reads ``solutions/tensor.py``, finds the def named by ``mistake.TARGET``
(``Tensor.<method>`` or a module-level function) with ``ast``, replaces its lines (decorators
included) with ``mistake.SOURCE`` re-indented to the def's column, and executes the result as a
fresh module named ``minitorch.tensor`` (not registered in ``sys.modules``; the package's own
``minitorch.tensor`` is left alone). ``mutated_source(mistake)`` gives the text, e.g. to write a
learner's ``tensor.py`` for a ``make check``-style run.
"""

from __future__ import annotations

import ast
import functools
import importlib
import pkgutil
import textwrap
import types
from pathlib import Path

REFERENCE_FILE = Path(__file__).resolve().parents[2] / "solutions" / "tensor.py"


@functools.cache
def reference_source() -> str:
    """The text of solutions/tensor.py (read once)."""
    return REFERENCE_FILE.read_text(encoding="utf-8")


@functools.cache
def _reference_tree() -> ast.Module:
    return ast.parse(reference_source())


def find_def(tree: ast.Module, qualname: str) -> ast.FunctionDef:
    """The FunctionDef for ``qualname`` (``Class.method`` or ``function``); KeyError if absent."""
    body: list[ast.stmt] = tree.body
    *owners, name = qualname.split(".")
    for owner in owners:
        classes = [n for n in body if isinstance(n, ast.ClassDef) and n.name == owner]
        if not classes:
            raise KeyError(f"{qualname}: no class {owner!r} in {REFERENCE_FILE.name}")
        body = classes[0].body
    for node in body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise KeyError(f"{qualname}: no def {name!r} in {REFERENCE_FILE.name}")


def def_span(node: ast.FunctionDef) -> tuple[int, int]:
    """First line (its first decorator, if any) and last line of a def, 1-based inclusive."""
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    assert node.end_lineno is not None
    return first, node.end_lineno


def reference_def_source(qualname: str, dedent: bool = True) -> str:
    """The reference text of ``qualname``'s def (decorators included), dedented by default."""
    source = reference_source()
    first, last = def_span(find_def(_reference_tree(), qualname))
    text = "".join(source.splitlines(keepends=True)[first - 1 : last])
    return textwrap.dedent(text) if dedent else text


def mutated_source(mistake: types.ModuleType) -> str:
    """solutions/tensor.py with ``mistake.TARGET`` replaced by ``mistake.SOURCE``."""
    source = reference_source()
    node = find_def(_reference_tree(), mistake.TARGET)
    first, last = def_span(node)
    replacement = textwrap.indent(textwrap.dedent(mistake.SOURCE).strip("\n") + "\n",
                                  " " * node.col_offset)
    lines = source.splitlines(keepends=True)
    return "".join(lines[: first - 1]) + replacement + "".join(lines[last:])


def _execute(source: str, filename: str) -> types.ModuleType:
    import minitorch  # noqa: F401  (minitorch.errors and minitorch.node must be importable)

    module = types.ModuleType("minitorch.tensor")
    module.__file__ = filename
    exec(compile(source, filename, "exec"), module.__dict__)
    return module


def load(mistake: types.ModuleType) -> types.ModuleType:
    """A fresh ``minitorch.tensor`` module: the reference with the mistake patched in."""
    name = mistake.__name__.rsplit(".", 1)[-1]
    return _execute(mutated_source(mistake), f"<heldout {name}: {REFERENCE_FILE}>")


def load_reference() -> types.ModuleType:
    """A fresh ``minitorch.tensor`` module executed from the unmodified reference."""
    return _execute(reference_source(), str(REFERENCE_FILE))


def all_mistakes() -> list[types.ModuleType]:
    """Every ``mNN_<slug>`` module of this package, in file order."""
    names = sorted(
        info.name for info in pkgutil.iter_modules([str(Path(__file__).parent)])
        if info.name[:1] == "m" and info.name[1:3].isdigit()
    )
    return [importlib.import_module(f"{__package__}.{name}") for name in names]
