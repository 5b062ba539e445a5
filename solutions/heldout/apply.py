"""Load the reference engine with ONE function replaced by a held-out mistake.

``load(mistake)`` reads ``solutions/tensor.py``, finds the def named by ``mistake.TARGET``
(``Tensor.<method>``, a module-level function, or a static method of ``Tensor`` named without
its class) with ``ast``, replaces its lines (decorators included; ``@staticmethod`` kept) with
``mistake.SOURCE`` re-indented to the def's column, and executes the result as a fresh module
named ``minitorch.tensor`` (not registered in ``sys.modules``; the package's own
``minitorch.tensor`` is left alone). ``mutated_source(mistake)`` gives the text, e.g. to write a
learner's ``tensor.py`` for a ``make check``-style run.

The mistakes are frozen: they name things as the reference did when they were written. A
TARGET that is now a course-provided helper the reference imports (``_accumulate``, from
``minitorch.support``) is appended as a def of that name, which replaces the import; and
``LEGACY`` binds the few names the reference no longer defines itself.
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


# Names the frozen mistakes use that the reference no longer binds itself (appended at the end:
# a function looks its globals up when it runs).
LEGACY = """

# held-out loader: names of the reference as the frozen mistakes knew it
from minitorch.errors import ShapeError  # noqa: E402
from minitorch.support import as_array as _as_array  # noqa: E402

_as_tensor = Tensor._as_tensor
"""


def find_def(tree: ast.Module, qualname: str) -> ast.FunctionDef:
    """The FunctionDef for ``qualname`` (``Class.method``, ``function``, or a static method of a
    class named without it); KeyError if absent."""
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
    if not owners:  # cat, unbroadcast, ...: static methods of Tensor, exported by name
        for cls in (n for n in body if isinstance(n, ast.ClassDef)):
            for node in cls.body:
                if isinstance(node, ast.FunctionDef) and node.name == name and _static(node):
                    return node
    raise KeyError(f"{qualname}: no def {name!r} in {REFERENCE_FILE.name}")


def _static(node: ast.FunctionDef) -> bool:
    return any(getattr(d, "id", "") == "staticmethod" for d in node.decorator_list)


def provided_def(qualname: str) -> ast.FunctionDef:
    """The def in a course-provided module of a helper the reference imports as ``qualname``
    (``from minitorch.support import accumulate as _accumulate``); KeyError if there is none."""
    for node in _reference_tree().body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("minitorch."):
            for alias in node.names:
                if (alias.asname or alias.name) == qualname:
                    module = importlib.import_module(node.module)
                    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
                    return find_def(tree, alias.name)
    raise KeyError(f"{qualname}: neither a def in {REFERENCE_FILE.name} nor a helper it imports")


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


# The API grew after some mistakes were frozen: cross_entropy took no ``reduction`` before issue
# 25. Such a frozen def keeps the default reduction ('mean'); the reference's own def, renamed,
# answers the others (a learner who made the mistake in the mean and wrote the rest right).
GROWN = {"cross_entropy": ("reduction", """
@staticmethod
def cross_entropy(logits, targets, reduction="mean"):
    if reduction == "mean":
        return Tensor._frozen_cross_entropy(logits, targets)
    return Tensor._reference_cross_entropy(logits, targets, reduction)
""")}


def _grown(mistake: types.ModuleType, code: str) -> str | None:
    """The frozen def, renamed, beside the reference's (renamed) and a dispatcher, when the
    mistake's TARGET has since grown a parameter its SOURCE lacks; else None."""
    name = mistake.TARGET.rsplit(".", 1)[-1]
    if name not in GROWN or GROWN[name][0] in code:
        return None
    reference = reference_def_source(mistake.TARGET).replace(
        f"def {name}(", f"def _reference_{name}(", 1)
    frozen = code.replace(f"def {name}(", f"def _frozen_{name}(", 1)
    if not frozen.lstrip().startswith("@staticmethod"):
        frozen = "@staticmethod\n" + frozen
    return "\n".join([reference, frozen, textwrap.dedent(GROWN[name][1]).strip("\n") + "\n"])


def mutated_source(mistake: types.ModuleType) -> str:
    """solutions/tensor.py with ``mistake.TARGET`` replaced by ``mistake.SOURCE``."""
    source = reference_source()
    code = textwrap.dedent(mistake.SOURCE).strip("\n") + "\n"
    code = _grown(mistake, code) or code
    try:
        node = find_def(_reference_tree(), mistake.TARGET)
    except KeyError:
        provided_def(mistake.TARGET)  # KeyError if it is not a provided helper either
        return source + LEGACY + "\n\n" + code  # the def replaces the imported helper
    if _static(node) and not code.lstrip().startswith("@staticmethod"):
        code = "@staticmethod\n" + code
    first, last = def_span(node)
    replacement = textwrap.indent(code, " " * node.col_offset)
    lines = source.splitlines(keepends=True)
    return "".join(lines[: first - 1]) + replacement + "".join(lines[last:]) + LEGACY


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
