"""No solution line leaks into the student materials (issue 28: derive, then write).

Every statement inside a ``### BEGIN SOLUTION`` / ``### END SOLUTION`` fence of
``solutions/tensor.py`` is compared with what a learner reads before writing it, in both
languages: the theory (``theory/``, ``theory/en/``), the student notebooks (``notebooks/``,
``notebooks/en/``: every cell's source and output), the stub as ``stubgen`` writes it in each
language (its docstrings are the learner's specification) and the README's part for the learner.
Two comparisons, with all whitespace removed on both sides: the whole statement, and by its
right-hand side, the expression it assigns or returns, so that ``return (g / a,)`` is also found
as ``grad = g / a``. A third compares them with every name changed (``renamed_leaks``, below),
so that ``grad_y = -out_grad * x / (y * y)`` is found as div's ``-g * a / (b * b)``.

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
import bisect
import builtins
import copy
import io
import itertools
import json
import keyword
import math
import random
import re
import textwrap
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

from minitorch_authoring import stubgen
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


# ---------------------------------------------------------------- names changed
# A reviewer found demo cells holding the learner's lines with the variables renamed
# (`grad_y = -out_grad * x / (y * y)` for div's `-g * a / (b * b)`). So each piece is also compared
# after renaming: every identifier becomes one placeholder, except Python's keywords and builtins,
# `np` and `math`, an attribute (what follows a dot: NumPy's API, `.sum`, `.T`) and a keyword
# argument's name (`axis=`); `x.data` is one placeholder (the closure names the Tensor's array
# `a`, a demo writes `x.data`). Operators, numbers and brackets stay. A match must rename
# consistently, one name for one name both ways: `g * (a > 0)` is not `x * (x > 0)`.
#
# Short pieces are ignored, by weight: the tokens that are neither a placeholder nor punctuation
# (operators, numbers, kept names). Measured on the materials: at weight 1 placeholders match
# prose (`g / a` is `he / she`, `-g` is `- tensor`), at weight 2 idioms the course must use
# (`seen.add(id(node))`, `e = np.exp(z)`); from 3 on every hit was the learner's line, and the
# shortest backward lines that carry a derivative weigh 3 (`g * (a > 0)`, `g * 0.5 / out_data`).
# A sub-expression, matched anywhere inside a line, needs more: at weights 4 to 6 the hits were
# idioms the theory teaches (`g.sum(axis=i, keepdims=True)`, `np.swapaxes(B, -1, -2)`); at 7 the
# first was matmul's backward itself, `G @ np.swapaxes(B, -1, -2)`.
LINE_WEIGHT, INNER_WEIGHT = 3, 7
_TOKEN = re.compile(r"""
    (?P<num>\d+\.\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)?)
  | (?P<name>[^\W\d]\w*)
  | (?P<op>\*\*=?|//=?|->|[<>=!]=|[-+*/%@&|^]=|[-+*/%@<>=~&|^])
  | (?P<other>\S)""", re.X)
_KEPT = frozenset(keyword.kwlist) | frozenset(dir(builtins)) | {"np", "numpy", "math"}
_HOLE = "_"
_PUNCTUATION = frozenset("()[]{},.:;='\"`")


def tokens(text: str) -> list[tuple[str, str]]:
    """(normalised, as written) for each token of ``text``, code or prose alike."""
    out: list[tuple[str, str]] = []
    for m in _TOKEN.finditer(text):
        kind, tok = m.lastgroup, m.group()
        if kind == "name" and tok not in _KEPT:
            before = out[-1][1] if out else ""
            after = text[m.end():].lstrip()[:2]
            if tok in ("data", "shape") and before == "." and len(out) > 1 and (
                    out[-2][0] == _HOLE):
                out.pop()  # `x.data`: one value, like the closure's `a` (`z.shape`: `shape`)
                out[-1] = (_HOLE, out[-1][1] + "." + tok)
                continue
            keyword_argument = after[:1] == "=" and after != "==" and before in ("(", ",")
            if before != "." and not keyword_argument:
                out.append((_HOLE, tok))
                continue
        out.append((tok, tok))
    return out


def weight(text: str) -> int:
    return sum(norm != _HOLE and norm not in _PUNCTUATION for norm, _ in tokens(text))


class Renamed:
    """One material's tokens, searchable for a piece of code with its names changed."""

    SEP = "\x1f"

    def __init__(self, text: str):
        self.tokens = tokens(text)
        self.starts, position = [], 1
        for norm, _ in self.tokens:
            self.starts.append(position)
            position += len(norm) + 1
        self.joined = self.SEP + self.SEP.join(n for n, _ in self.tokens) + self.SEP

    def find(self, piece: str) -> str | None:
        """Where ``piece`` occurs with its names consistently renamed (as written), or None."""
        wanted = tokens(piece)
        key = self.SEP + self.SEP.join(n for n, _ in wanted) + self.SEP
        at = self.joined.find(key)
        while at >= 0:
            window = self.tokens[bisect.bisect_left(self.starts, at + 1):][:len(wanted)]
            there: dict[str, str] = {}
            back: dict[str, str] = {}
            if all(there.setdefault(w[1], m[1]) == m[1] and back.setdefault(m[1], w[1]) == w[1]
                   for w, m in zip(wanted, window) if w[0] == _HOLE):
                return " ".join(m[1] for m in window)
            at = self.joined.find(key, at + 1)
        return None


def renamed_leaks(lines: list[Line], texts: dict[str, str] | dict[str, Renamed],
                  least: int = LINE_WEIGHT) -> list[str]:
    """One sentence per (solution line, material) where the line, its right-hand side, a
    returned gradient or a heavy sub-expression appears with its names changed. ``least``: the
    weight a line needs to count (``CODE_WEIGHT`` where the material is code only)."""
    found = []
    indexes = {name: text if isinstance(text, Renamed) else Renamed(text)
               for name, text in texts.items()}
    for line in lines:
        pieces = [p for p in (line.text, *line.parts) if weight(p) >= least]
        pieces += [p for p in line.inner if p not in pieces]
        for name, index in indexes.items():
            if not _before(name, line.lab):
                continue
            for piece in pieces:
                if (hit := index.find(piece)) is not None and (
                        weight(piece) >= LINE_WEIGHT or _telling(piece, hit)):
                    found.append(f"solutions/tensor.py:{line.lineno} `{piece}` as `{hit}` "
                                 f"in {name}")
                    break
    return found


def _telling(piece: str, hit: str) -> bool:
    """A light piece (below LINE_WEIGHT) found in code counts when it cannot be an idiom: it
    computes twice (`seen.add(id(node))`), or it runs on a Tensor's array or shape
    (`np.exp(logp.data)`, `np.broadcast_to(g, z.shape)`: a closure's computation replayed on
    the graph's nodes). `e = np.exp(Zbig)` is neither."""
    try:
        twice = operations(ast.parse(textwrap.dedent(piece))) >= 2
    except SyntaxError:
        twice = False
    return twice or re.search(r"\.(data|shape)\b", hit) is not None


@dataclass(frozen=True)
class Line:
    lab: str
    lineno: int
    text: str  # the statement as written (comments removed)
    parts: tuple[str, ...]  # its right-hand side and returned gradients, when they count
    inner: tuple[str, ...] = ()  # its sub-expressions, compared with names changed (below)


_WORD_GAP = "\u2423"  # what whitespace between two word characters becomes (not whitespace)


def _squash(text: str) -> str:
    """``text`` without whitespace, except that a space between two word characters stays a
    boundary: prose glued to code (``use np.add.at(...)`` -> ``usenp.add.at(...)``) hid every
    line a sentence introduced without backticks."""
    return re.sub(r"\s+", "", re.sub(r"(?<=\w)\s+(?=\w)", _WORD_GAP, text))


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


def _solution_blocks() -> list[tuple[str, int, str]]:
    """(lab, line of the BEGIN fence, the fenced code dedented) of every solution fence of the
    reference, in order."""
    lines = REFERENCE.read_text(encoding="utf-8").splitlines()
    blocks = []
    lab, start = "", None
    for number, line in enumerate(lines, 1):
        if m := _LAB.match(line):
            lab = m.group(1)
        if line.strip() == BEGIN:
            start = number
        elif line.strip() == END:
            assert start is not None
            blocks.append((lab, start, textwrap.dedent("\n".join(lines[start: number - 1])) + "\n"))
            start = None
    return blocks


def solution_lines() -> list[Line]:
    """Every non-trivial statement inside a solution fence, with its lab."""
    found: list[Line] = []
    for lab, start, code in _solution_blocks():
        block = _uncomment(code)
        for lineno, text, nodes, value, gradients in _statements(block):
            if not any(computes(n) for n in nodes):
                continue
            parts = []
            if value is not None and operations(value) >= 2:
                parts.append(value)
            if gradients and value is not None:
                elements = value.elts if isinstance(value, ast.Tuple) else [value]
                parts += [e for e in elements if computes(e)]
            inner = {ast.get_source_segment(block, e) or "" for n in nodes
                     for e in ast.walk(n) if isinstance(e, ast.expr)}
            found.append(Line(lab, start + lineno, text,
                              tuple(ast.get_source_segment(block, p) for p in parts),
                              tuple(sorted(e for e in inner if weight(e) >= INNER_WEIGHT))))
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


README_LEARNER_END = "\n## For instructors"  # README.md: the learner's part ends here


def sources() -> dict[str, str]:
    """What a learner reads, in both languages: name -> text. The theory, the student notebooks
    (every cell's source and output), the stub as generated in each language (its docstrings are
    the learner's specification) and the README's part for the learner."""
    texts: dict[str, str] = {}
    for folder in (ROOT / "theory", ROOT / "theory" / "en"):
        for path in sorted(folder.glob("*.md")):
            texts[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    for folder in (ROOT / "notebooks", ROOT / "notebooks" / "en"):
        for path in sorted(folder.glob("*.ipynb")):
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
    texts[f"{STUB.relative_to(ROOT)} (en)"] = stubgen.stub_text(stubgen.STUBS["tensor"], "en")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert README_LEARNER_END in readme, "README.md: where does the learner's part end?"
    texts["README.md"] = readme.split(README_LEARNER_END)[0]
    return texts


def materials() -> dict[str, str]:
    """What a learner reads: name -> text with the whitespace inside each line removed."""
    return {name: _lines(text) for name, text in sources().items()}


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


# ---------------------------------------------------------------- code shows more than prose
# Below LINE_WEIGHT a piece matches prose (`g / a` is `he / she`), so the renamed comparison
# skips it. In CODE that excuse is gone: a hand-built graph whose closure is
# `lambda g: (g * w.data, g * y.data)` hands over mul's backward (`g * b, g * a`, weight 2),
# `np.broadcast_to(g, z.shape)` sum's, `seen.add(id(node))` the topological order's visited set,
# `s = np.exp(logp.data)` cross_entropy's softmax. So the code a learner reads (notebook code
# cells, fenced blocks and inline `code` of the Markdown and the docstrings) is compared again at
# CODE_WEIGHT; and the gradients a closure returns are also compared by their VALUE
# (`algebra_leaks`), so that `-G * x.data / y.data**2` is div's `-g * a / (b * b)`.
# Measured on the materials: at weight 2 in code, every hit was one of the four hand-overs
# above; at weight 1 the hits were idioms (`x = x + 1.0`, `np.zeros(n)`).
CODE_WEIGHT = 2
_FENCE = re.compile(r"```[^\n]*\n(.*?)```", re.S)
_INLINE = re.compile(r"``?([^`\n]+?)``?")
_MAGIC = re.compile(r"^\s*[%!].*$", re.M)


def code_of(name: str, text: str) -> str:
    """The code in a material: a notebook's code cells whole, and every fenced block and inline
    code span of its prose (Markdown cells, the theory, the README, the stub's docstrings)."""
    if name.endswith(".ipynb"):
        raise ValueError("pass a notebook's cells through code_sources()")
    if name.endswith(".py") or name.endswith("(en)"):
        return text  # the stub: its code and its docstrings' spans alike
    fenced = _FENCE.findall(text)
    prose = _FENCE.sub("", text)
    return "\n".join(fenced + _INLINE.findall(prose))


def code_sources() -> dict[str, str]:
    """What a learner reads, code only: name -> code (the names of ``sources()``)."""
    texts = {}
    for name, text in sources().items():
        if not name.endswith(".ipynb"):
            texts[name] = code_of(name, text)
    for folder in (ROOT / "notebooks", ROOT / "notebooks" / "en"):
        for path in sorted(folder.glob("*.ipynb")):
            parts = []
            for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
                source = "".join(cell.get("source", ""))
                parts.append(_MAGIC.sub("", source) if cell["cell_type"] == "code"
                             else code_of("cell.md", source))
            texts[str(path.relative_to(ROOT))] = "\n".join(parts)
    return texts


# The gradients a backward closure returns, compared by value: each returned expression that is
# arithmetic (names, numbers, + - * / ** and unary minus) with at least two operations, and each
# returned tuple of two or more whose operations add up to two (mul's `g * b, g * a`; not add's
# `g, g` nor sub's `g, -g`, which name values the mathematics gives). A piece of code is the same
# gradient when, its names renamed one to one, it takes the same values at random positive
# points: `w.data * g` and `g * w.data`, `y.data**2` and `b * b`.
ALGEBRA_OPERATIONS = 2
_ARITH = (ast.BinOp, ast.UnaryOp, ast.Name, ast.Attribute, ast.Constant)
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.USub, ast.UAdd)


def _leaf(node: ast.AST) -> str | None:
    """A value's name: ``g``, ``x.data`` (one value), else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and node.attr == "data" and isinstance(node.value, ast.Name):
        return node.value.id + ".data"
    return None


def arithmetic(node: ast.AST) -> tuple[int, tuple[str, ...]] | None:
    """(operations, names in order of first use) of a pure arithmetic expression, else None."""
    names: list[str] = []
    count = 0

    def walk(n: ast.AST) -> bool:
        nonlocal count
        if (leaf := _leaf(n)) is not None:
            if leaf not in names:
                names.append(leaf)
            return True
        if isinstance(n, ast.Constant):
            return isinstance(n.value, int | float) and not isinstance(n.value, bool)
        if isinstance(n, ast.BinOp) and isinstance(n.op, _OPERATORS):
            count += 1
            return walk(n.left) and walk(n.right)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, _OPERATORS):
            count += 1
            return walk(n.operand)
        return False

    return (count, tuple(names)) if walk(node) else None


@dataclass(frozen=True)
class Gradient:
    lab: str
    lineno: int
    code: str
    elements: tuple[ast.expr, ...]  # one expression, or a returned tuple's elements
    names: tuple[str, ...]


def _gradient(lab: str, lineno: int, code: str, elements: list[ast.expr]) -> Gradient | None:
    found = [arithmetic(e) for e in elements]
    if not found or any(f is None for f in found) or sum(
            f[0] for f in found) < ALGEBRA_OPERATIONS:
        return None
    names = tuple(dict.fromkeys(n for f in found for n in f[1]))
    return Gradient(lab, lineno, code, tuple(elements), names)


def solution_gradients() -> list[Gradient]:
    """Every returned gradient of a fenced ``_backward`` (and each returned tuple whole)."""
    found = []
    for lab, start, block in _solution_blocks():
        for f in ast.walk(ast.parse(block)):
            if not (isinstance(f, ast.FunctionDef) and f.name == "_backward"):
                continue
            for r in ast.walk(f):
                if not isinstance(r, ast.Return) or r.value is None:
                    continue
                elements = r.value.elts if isinstance(r.value, ast.Tuple) else [r.value]
                code = ast.get_source_segment(block, r.value) or ""
                candidates = [(elements, code)] if len(elements) > 1 else []
                candidates += [([e], ast.get_source_segment(block, e) or "") for e in elements]
                for els, text in candidates:
                    if (g := _gradient(lab, start + r.lineno, text, els)) is not None:
                        found.append(g)
    return found


def _code_expressions(code: str) -> list[tuple[str, list[ast.expr]]]:
    """(source, elements) of every arithmetic expression and tuple in ``code`` (each statement
    that parses: a Markdown span may be a fragment)."""
    chunks = [code]
    try:
        ast.parse(code)
    except SyntaxError:
        chunks = code.splitlines()
    out = []
    for chunk in chunks:
        try:
            tree = ast.parse(textwrap.dedent(chunk))
        except SyntaxError:
            continue
        source = textwrap.dedent(chunk)
        for node in ast.walk(tree):
            if isinstance(node, ast.Tuple) and len(node.elts) > 1:
                out.append((ast.get_source_segment(source, node) or "", list(node.elts)))
            elif isinstance(node, ast.BinOp | ast.UnaryOp):
                out.append((ast.get_source_segment(source, node) or "", [node]))
    return out


def _values(elements, names: tuple[str, ...], point: dict[str, float]) -> list[float] | None:
    env = {n.replace(".data", "__data"): v for n, v in point.items()}
    try:
        return [float(eval(compile(ast.Expression(_renamed(e)), "<leak>", "eval"),  # noqa: S307
                           {"__builtins__": {}}, env)) for e in elements]
    except (ArithmeticError, ValueError, OverflowError, NameError, TypeError):
        return None


def _renamed(node: ast.expr) -> ast.expr:
    """``x.data`` as the plain name ``x__data`` (evaluated on numbers)."""
    class Flatten(ast.NodeTransformer):
        def visit_Attribute(self, n):  # noqa: N802 (ast's visitor names)
            leaf = _leaf(n)
            return ast.Name(leaf.replace(".data", "__data"), ast.Load()) if leaf else n

    return ast.fix_missing_locations(Flatten().visit(copy.deepcopy(node)))


def same_gradient(gradient: Gradient, elements: list[ast.expr]) -> bool:
    """Whether ``elements`` compute ``gradient`` with the names renamed one to one."""
    if len(elements) != len(gradient.elements):
        return False
    found = [arithmetic(e) for e in elements]
    if any(f is None for f in found) or sum(f[0] for f in found) < ALGEBRA_OPERATIONS:
        return False
    names = tuple(dict.fromkeys(n for f in found for n in f[1]))
    if len(names) != len(gradient.names):
        return False
    rng = random.Random(0)
    points = [{n: rng.uniform(0.5, 2.0) for n in gradient.names} for _ in range(2)]
    wants = [_values(gradient.elements, gradient.names, p) for p in points]
    if any(w is None for w in wants):
        return False
    for order in itertools.permutations(gradient.names):
        mapping = dict(zip(names, order))
        gots = [_values(elements, names, {n: p[mapping[n]] for n in names}) for p in points]
        if all(got is not None and all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
                                        for a, b in zip(got, want))
               for got, want in zip(gots, wants)):
            return True
    return False


def algebra_leaks(gradients: list[Gradient], codes: dict[str, str]) -> list[str]:
    """One sentence per (gradient, material) where code computes that gradient."""
    found = []
    for name, code in codes.items():
        expressions = _code_expressions(code)
        for gradient in gradients:
            if not _before(name, gradient.lab):
                continue
            for text, elements in expressions:
                if same_gradient(gradient, elements):
                    found.append(f"solutions/tensor.py:{gradient.lineno} `{gradient.code}` "
                                 f"computed as `{text}` in {name}")
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


@pytest.fixture(scope="module")
def raw_sources() -> dict[str, str]:
    return sources()


@pytest.mark.parametrize("lab", LABS)
def test_no_solution_line_in_the_student_materials(lab, raw_sources):
    texts = {name: _lines(text) for name, text in raw_sources.items()}
    found = leaks([line for line in LINES if line.lab == lab], texts)
    assert not found, "solution lines a learner can copy:\n" + "\n".join(found)


@pytest.fixture(scope="module")
def renamed_sources(raw_sources) -> dict[str, Renamed]:
    return {name: Renamed(text) for name, text in raw_sources.items()}


@pytest.mark.parametrize("lab", LABS)
def test_no_solution_line_with_its_names_changed(lab, renamed_sources):
    found = renamed_leaks([line for line in LINES if line.lab == lab], renamed_sources)
    assert not found, ("solution lines a learner can copy, names changed (say the idea or the "
                       "shape rule instead):\n" + "\n".join(found))


@pytest.fixture(scope="module")
def code_renamed() -> dict[str, Renamed]:
    return {name: Renamed(code) for name, code in code_sources().items()}


@pytest.mark.parametrize("lab", LABS)
def test_no_light_solution_line_in_the_code_a_learner_reads(lab, code_renamed):
    found = renamed_leaks([line for line in LINES if line.lab == lab], code_renamed, CODE_WEIGHT)
    assert not found, ("code that replays a solution line (a closure, a visited set, a "
                       "gradient's array): show the idea in prose or a formula:\n"
                       + "\n".join(found))


GRADIENTS = solution_gradients()


def test_no_code_computes_a_returned_gradient():
    assert {"g * b, g * a", "-g * a / (b * b)"} <= {g.code for g in GRADIENTS}, GRADIENTS
    found = algebra_leaks(GRADIENTS, code_sources())
    assert not found, "code computing a learner's gradient:\n" + "\n".join(found)


# The NumPy call at the heart of one learner line, named by no lab, stub or run-time message:
# the theory teaches the tool (one place), the lab asks for the backward. A list, because which
# call is the heart of a line is a judgement: np.broadcast_to and np.expand_dims are named by the
# chapter itself ("expand_dims, then broadcast_to").
HEART_OF_A_LINE = {
    "np.add.at": "getitem's backward (theory 02, 'Indexing with repeated indices', teaches it)",
}


def heart_leaks(texts: dict[str, str]) -> list[str]:
    return [f"{name} names {call}: {why}" for name, text in texts.items()
            if not name.startswith("theory") for call, why in HEART_OF_A_LINE.items()
            if re.search(r"(?<![\w.])" + re.escape(call) + r"(?![\w])", text)]


def test_no_lab_or_message_names_the_call_at_the_heart_of_a_line(raw_sources):
    assert all(any(call in line.text for line in LINES) for call in HEART_OF_A_LINE)
    found = heart_leaks({**raw_sources, **_catalog_texts()})
    assert not found, "\n".join(found)


def test_both_languages_are_compared(raw_sources):
    """Each learner-facing folder and the stub count in Spanish and in English."""
    names = set(raw_sources)
    for spanish, english in (("theory/02", "theory/en/02"), ("notebooks/01", "notebooks/en/01"),
                             ("src/minitorch/tensor.py", "src/minitorch/tensor.py (en)")):
        assert any(n.startswith(spanish) for n in names), spanish
        assert any(n.startswith(english) for n in names), english
    assert "README.md" in names


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


def _lines_with(fragment: str) -> list[Line]:
    found = [line for line in LINES if fragment in line.text]
    assert found, f"no solution line holds `{fragment}` any more: update this test"
    return found


@pytest.mark.parametrize(("fragment", "planted", "how"), [
    ("-g * a / (b * b)", "grad_y = -out_grad * x / (y * y)", "div's gradient, renamed"),
    ("-g * a / (b * b)", "print(np.allclose(y.grad, -G * x.data / (y.data * y.data)))",
     "inside a check, Tensors' .data for the closure's arrays"),
    ("g * (a > 0)", "```python\ngrad = up * (z > 0)\n```", "relu's in a Markdown block"),
    ("g * (1.0 - t * t)", "Backward: ``gx = gy*(1.0-y*y)``", "tanh's in a docstring"),
    ("g @ np.swapaxes", "full_A = G @ np.swapaxes(B, -1, -2)  # (20, 3, 4)",
     "a sub-expression: matmul's backward inside a longer line"),
])
def test_a_planted_near_copy_is_found(fragment, planted, how):
    assert renamed_leaks(_lines_with(fragment), {"planted.ipynb": planted}), how


@pytest.mark.parametrize(("fragment", "text", "why"), [
    ("g * (a > 0)", "y = x * (x > 0)", "one name for two: not the same line"),
    ("g * (a > 0)", "y = x * (w >= 0)", "another operator"),
    ("g * 0.5 / out_data", "y = x * 2 / z", "another number"),
    ("-g * a / (b * b)", "La regla: $\\bar b = -\\bar y\\, a / b^2$, elemento a elemento.",
     "the mathematics"),
    ("g / b, -g * a / (b * b)", "grad = g / b", "too short to be a line (weight 1)"),
])
def test_what_is_not_a_near_copy(fragment, text, why):
    assert not renamed_leaks(_lines_with(fragment), {"other.md": text}), why


# each hand-over a review found below the prose weight, planted back: the check must see it
@pytest.mark.parametrize(("planted", "how"), [
    ('z = mt.Tensor._make(y.data * w.data, (y, w), "mul")\n'
     "z._backward = lambda g: (g * w.data, g * y.data)", "mul's backward in a hand-built graph"),
    ("s._backward = lambda g: (np.broadcast_to(g, z.shape),)", "sum's, with z.shape"),
    ("```python\ndef count(root):\n    seen, todo = set(), [root]\n    while todo:\n"
     "        node = todo.pop()\n        seen.add(id(node))\n```", "the visited set, in theory"),
    ("with pending():\n    s = np.exp(logp.data)\n", "cross_entropy's softmax from log-probs"),
])
def test_a_light_hand_over_in_code_is_found(planted, how):
    code = code_of("planted.md", planted) if planted.startswith("```") else planted
    assert renamed_leaks(LINES, {"planted.ipynb": Renamed(code)}, CODE_WEIGHT), how


@pytest.mark.parametrize(("planted", "how"), [
    ("z._backward = lambda g: (w.data * g, y.data * g)", "mul's, each product turned round"),
    ("grad_y = -G * x.data / y.data**2", "div's, y**2 for b*b"),
    ("print(np.allclose(t.grad, up * (1 - out.data**2)))", "tanh's, inside a check"),
])
def test_a_gradient_written_another_way_is_found(planted, how):
    assert algebra_leaks(GRADIENTS, {"planted.ipynb": planted}), how


@pytest.mark.parametrize(("text", "why"), [
    ("e = np.exp(Zbig)", "one call on a plain array: an idiom"),
    ("z._backward = lambda g: (g * w.data, None)", "one product: the graph's own rule"),
    ("s._backward = lambda g: (np.full(z.shape, g),)", "not sum's backward"),
    ("y = x + 1.0\nz = 2.0 * y * y", "arithmetic that is no returned gradient"),
    ("x.grad == 2·x·w: g * b, g * a en prosa", "prose, not code"),
])
def test_what_the_code_check_leaves_alone(text, why):
    code = code_of("other.md", text) if "prosa" in text else text
    assert not renamed_leaks(LINES, {"other.ipynb": Renamed(code)}, CODE_WEIGHT), why
    assert not algebra_leaks(GRADIENTS, {"other.ipynb": code}), why


def test_a_line_glued_to_prose_is_found():
    """A run-time message writes code without backticks: `use np.add.at(full, index, g)` once
    passed, squashed into `usenp.add.at(...)`."""
    getitem = _lines_with("np.add.at(full, index, g)")
    message = "Right except at repeated indices: use np.add.at(full, index, g), not assignment"
    assert leaks(getitem, {"message": _lines(message)})
    assert heart_leaks({"message": message, "theory/02.md": message}) == [
        f"message names np.add.at: {HEART_OF_A_LINE['np.add.at']}"]


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
        for number, message in enumerate(catalog):
            if not message.id:
                continue
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            for k, text in enumerate((*ids, *strings)):
                # numbered: two messages that begin alike once shared a key, and one was lost
                lang = "en" if k < len(ids) else po.parts[-3]
                texts[f"message {number} «{ids[0][:50]}» [{lang}]"] = text
    return texts


def upstream_calls(lines: list[Line], texts: dict[str, str]) -> list[str]:
    """A run-time message may teach an idiom (`np.swapaxes(x, -1, -2)`), not a backward's
    call on the upstream gradient: a call of a solution line (weight 3 or more) applied to `g`,
    found with its other names changed and `g` still `g` (the name the messages and the theory
    give the upstream gradient). `np.moveaxis(g, axis, 0)[i]` handed stack's backward."""
    found = []
    indexes = {name: Renamed(text) for name, text in texts.items()}
    for line in lines:
        try:
            tree = ast.parse(line.text if not line.text.rstrip().endswith(":")
                             else line.text + " pass")
        except SyntaxError:
            continue
        calls = {ast.get_source_segment(line.text, c) or ast.unparse(c) for c in ast.walk(tree)
                 if isinstance(c, ast.Call) and any(
                     isinstance(a, ast.Name) and a.id == "g" for a in c.args)}
        for call in sorted(c for c in calls if weight(c) >= LINE_WEIGHT):
            wanted = [w for _, w in tokens(call)]
            for name, index in indexes.items():
                hit = index.find(call)
                if hit is not None and all(h == "g" for w, h in zip(wanted, hit.split(" "))
                                           if w == "g"):
                    found.append(f"solutions/tensor.py:{line.lineno} `{call}` as `{hit}` in "
                                 f"{name}")
    return found


def test_no_run_time_message_hands_a_call_on_the_upstream_gradient():
    found = upstream_calls(LINES, _catalog_texts())
    assert not found, "messages that hand a backward's call:\n" + "\n".join(found)
    stack = _lines_with("np.moveaxis(g, axis, 0)")
    assert upstream_calls(stack, {"m": "the slice i along the axis: np.moveaxis(g, axis, 0)[i]"})
    assert not upstream_calls(stack, {"m": "swap the last two: np.moveaxis(x, axis, 0)"})


def test_no_run_time_message_gives_a_solution_line():
    """A diagnosis names the mistake and the rule, never the line to write (issue 28): every
    message of the course, in both languages, against every fenced solution line."""
    # a sentence's full stop is not part of a code token: `... : g * (a > 0).` shows the line
    texts = {name: _lines(re.sub(r"\.(\s|$)", r" \1", text))
             for name, text in _catalog_texts().items()}
    assert len(texts) > 500, len(texts)
    found = leaks(LINES, texts)
    assert not found, "run-time messages that hand over a solution line:\n" + "\n".join(found)
