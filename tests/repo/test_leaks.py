"""No solution line leaks into the student materials (issue 28: derive, then write).

Every statement inside a ``### BEGIN SOLUTION`` / ``### END SOLUTION`` fence of
``solutions/tensor.py`` is compared with what a learner reads before writing it: the theory of
both languages (``theory/``, ``theory/en/``), the student notebooks (``notebooks/``: every cell's
source and output) and the generated stub (``src/minitorch/tensor.py``). Two comparisons, with all
whitespace removed on both sides: the whole statement, and by its right-hand side, the
expression it assigns or returns, so that ``return (g / a,)`` is also found as ``grad = g / a``.

Which lines count is one rule, not a list of exceptions. An operation is a call, operator,
comparison, subscript, comprehension, conditional expression or lambda.
- A statement is compared whole when it holds at least one operation. ``return out``, ``pass``,
  ``continue``, ``def _backward(g):``, ``a, b = self.data, other.data`` and ``return g, g``
  compute nothing: they only name values the mathematics already gives.
- A right-hand side alone is compared when it composes at least two operations: one operation
  on its own (``set()``, ``stack.pop()``, ``a**b``, ``np.arange(n)``) is an idiom, not a line.
- Except the gradients a backward closure returns, each compared when it holds an operation
  (``g / a``, ``-g``): they are what a learner derives.
"""

from __future__ import annotations

import ast
import io
import json
import re
import textwrap
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

from minitorch_authoring.repository import ROOT

REFERENCE = ROOT / "solutions" / "tensor.py"
STUB = ROOT / "src" / "minitorch" / "tensor.py"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
_LAB = re.compile(r"^\s*#\s*@lab\s+(\S+)")

# The nodes that compute something: a line holding none of them only names values.
COMPUTING = (
    ast.Call, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Subscript, ast.Lambda,
    ast.IfExp, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.AugAssign,
    ast.Await, ast.NamedExpr,
)


@dataclass(frozen=True)
class Line:
    lab: str
    lineno: int
    text: str  # the statement as written (comments removed)
    parts: tuple[str, ...]  # its right-hand side and returned gradients, when they count


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def operations(node: ast.AST) -> int:
    """How many operations ``node`` holds (the rule's measure)."""
    return sum(isinstance(n, COMPUTING) for n in ast.walk(node))


def computes(node: ast.AST) -> bool:
    return operations(node) > 0


def _uncomment(source: str) -> str:
    """``source`` with every comment blanked out (strings keep their ``#``)."""
    lines = source.splitlines(keepends=True)
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            lines[row - 1] = lines[row - 1][:col] + lines[row - 1][col:].replace(tok.string, "", 1)
    return "".join(lines)


def _statements(block: str):
    """(lineno, text, nodes, rhs_node, returns_gradients) of every statement in ``block``; for a compound
    statement, its header only (the body's statements come on their own)."""
    tree = ast.parse(block)
    physical = block.splitlines()
    closures = [f for f in ast.walk(tree)
                if isinstance(f, ast.FunctionDef) and f.name == "_backward"]
    returned = {id(n) for f in closures for n in ast.walk(f) if isinstance(n, ast.Return)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        body = getattr(node, "body", None)
        if body:  # def / for / while / if / with / try: the header lines
            text = "\n".join(physical[node.lineno - 1: body[0].lineno - 1]).strip()
            header = [getattr(node, f) for f in ("test", "iter", "target", "items", "args")
                      if getattr(node, f, None) is not None]
            header_nodes = [h for x in header for h in (x if isinstance(x, list) else [x])]
            yield node.lineno, text, header_nodes, None, False
            continue
        text = ast.get_source_segment(block, node) or ""
        value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign, ast.Return)) else None
        counted = [value] if isinstance(node, ast.AnnAssign) else [node]  # not the annotation
        yield node.lineno, text, [n for n in counted if n is not None], value, id(node) in returned


def solution_lines() -> list[Line]:
    """Every non-trivial statement inside a solution fence, with its lab."""
    lines = REFERENCE.read_text(encoding="utf-8").splitlines()
    found: list[Line] = []
    lab, start = "", None
    for number, line in enumerate(lines, 1):
        if m := _LAB.match(line):
            lab = m.group(1)
        if line.strip() == BEGIN:
            start = number
        elif line.strip() == END:
            assert start is not None
            block = _uncomment(textwrap.dedent("\n".join(lines[start: number - 1])) + "\n")
            for lineno, text, nodes, value, gradients in _statements(block):
                if not any(computes(n) for n in nodes):
                    continue
                parts = []
                if value is not None and operations(value) >= 2:
                    parts.append(value)
                if gradients and value is not None:
                    elements = value.elts if isinstance(value, ast.Tuple) else [value]
                    parts += [e for e in elements if computes(e)]
                found.append(Line(lab, start + lineno, text,
                                  tuple(ast.get_source_segment(block, p) for p in parts)))
            start = None
    return found


# The reading order of theory/README.md: the lab each theory document is read before. A line of
# lab L is compared with every material read before or during L (a later lab may show it).
THEORY_BEFORE_LAB = {"00": "00", "01": "00", "02": "01", "03": "03", "04": "04", "05": "06"}


def _before(name: str, lab: str) -> bool:
    """Whether the material ``name`` is read before (or while) writing lab ``lab``'s ops."""
    stem = Path(name).name
    if stem == "tensor.py":
        return True
    number = stem[:2]
    if not number.isdigit():  # README, glossary: read throughout
        return True
    if name.startswith("theory"):
        return THEORY_BEFORE_LAB[number] <= lab[:2]
    return number <= lab[:2]


def materials() -> dict[str, str]:
    """What a learner reads: name -> text with the whitespace inside each line removed."""
    texts: dict[str, str] = {}
    for folder in (ROOT / "theory", ROOT / "theory" / "en"):
        for path in sorted(folder.glob("*.md")):
            texts[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        parts = []
        for cell in nb["cells"]:
            parts.append("".join(cell.get("source", "")))
            for out in cell.get("outputs", []):
                parts.append("".join(out.get("text", "")))
                for value in out.get("data", {}).values():
                    parts.append("".join(value) if isinstance(value, list) else str(value))
        texts[str(path.relative_to(ROOT))] = "\n".join(parts)
    texts[str(STUB.relative_to(ROOT))] = STUB.read_text(encoding="utf-8")
    return {name: _lines(text) for name, text in texts.items()}


def _lines(text: str) -> str:
    """Whitespace removed inside each line; a line break becomes ``¶``, which ends a token."""
    return "¶".join(_squash(line) for line in text.splitlines())


def _occurs(piece: str, text: str) -> bool:
    """``piece`` (squashed) in ``text`` (squashed) as whole tokens: ``-g`` is not in ``-grad``."""
    if "\n" in piece.strip():  # a statement over several lines: compare across line breaks
        piece, text = piece, text.replace("¶", "")
    return re.search(r"(?<![\w.])" + re.escape(_squash(piece)) + r"(?![\w.])", text) is not None


def leaks(lines: list[Line], texts: dict[str, str]) -> list[str]:
    """One sentence per (solution line, material) where the line or its right-hand side appears."""
    found = []
    for line in lines:
        for name, text in texts.items():
            if not _before(name, line.lab):
                continue
            if _occurs(line.text, text):
                found.append(f"solutions/tensor.py:{line.lineno} `{line.text}` in {name}")
                continue
            for part in line.parts:
                if _occurs(part, text):
                    found.append(f"solutions/tensor.py:{line.lineno} `{part}` "
                                 f"(of `{line.text}`) in {name}")
                    break
    return found


LINES = solution_lines()
LABS = sorted({line.lab for line in LINES})


def test_every_lab_has_solution_lines_to_compare():
    """The parser found the fences: no lab's comparison passes by finding nothing."""
    from minitorch_course.catalog import LABS as COURSE_LABS

    fenced = {lab for lab in COURSE_LABS
              if f"# @lab {lab}" in REFERENCE.read_text(encoding="utf-8")}
    assert fenced and fenced <= set(LABS), (fenced, LABS)
    assert len(LINES) > 60, len(LINES)


@pytest.mark.parametrize("lab", LABS)
def test_no_solution_line_in_the_student_materials(lab):
    found = leaks([line for line in LINES if line.lab == lab], materials())
    assert not found, "solution lines a learner can copy:\n" + "\n".join(found)


# ---------------------------------------------------------------- the comparison can fail


def test_rule_keeps_what_computes_and_drops_what_only_names():
    def kept(statement):
        return computes(ast.parse(statement))

    for trivial in ("return out", "pass", "continue", "a, b = self.data, other.data",
                    "return g, g"):
        assert not kept(trivial), trivial
    assert all(line.text != "order: list[Tensor] = []" for line in LINES)
    for line in ("return (-g,)", "return g * b, g * a", "full = np.zeros(shape)",
                 "grad[rows, targets] -= 1.0", "g = g[..., None]"):
        assert kept(line), line


@pytest.mark.parametrize(("planted", "how"), [
    ("Backward: `return (g / a,)`", "the whole line"),
    ("Backward:\n```python\nreturn (g   /  a,)\n```", "whitespace changed"),
    ("el gradiente es `grad = g / a`", "the right-hand side under another name"),
    ("    def log(self):\n        return (g/a,)", "in code, squashed"),
])
def test_a_planted_line_is_found(planted, how):
    log_lines = [line for line in LINES if "g / a" in line.text]
    assert log_lines, "log's backward line is no longer `return (g / a,)`: update this test"
    assert leaks(log_lines, {"planted.md": _lines(planted)}), how


def test_reading_order_covers_every_theory_document():
    numbers = {p.name[:2] for p in (ROOT / "theory").glob("[0-9][0-9]-*.md")}
    assert numbers == set(THEORY_BEFORE_LAB)


def test_the_mathematics_is_not_a_leak():
    prose = ("La derivada de $\\ln a$ es $1/a$: $\\bar a = \\bar y / a$. "
             "The upstream gradient `g` has the output's shape.")
    assert not leaks(LINES, {"prose.md": _lines(prose)})


# ---------------------------------------------------------------- what the course says at run time
def _catalog_texts() -> dict[str, str]:
    """Every run-time message (diagnoses, hints, feedback) in both languages: the English
    message id and its Spanish translation, from the catalogs the course ships."""
    from babel.messages.pofile import read_po

    texts: dict[str, str] = {}
    for po in sorted((ROOT / "src" / "minitorch_course" / "locale").glob("*/LC_MESSAGES/*.po")):
        with po.open("rb") as handle:
            catalog = read_po(handle)
        for message in catalog:
            if not message.id:
                continue
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            for k, text in enumerate((*ids, *strings)):
                texts[f"message «{ids[0][:50]}» [{'en' if k < len(ids) else po.parts[-3]}]"] = text
    return texts


def test_no_run_time_message_gives_a_solution_line():
    """A diagnosis names the mistake and the rule, never the line to write (issue 28): every
    message of the course, in both languages, against every fenced solution line."""
    # a sentence's full stop is not part of a code token: `... : g * (a > 0).` shows the line
    texts = {name: _lines(re.sub(r"\.(\s|$)", r" \1", text))
             for name, text in _catalog_texts().items()}
    assert len(texts) > 500, len(texts)
    found = leaks(LINES, texts)
    assert not found, "run-time messages that hand over a solution line:\n" + "\n".join(found)
