"""The planted mistakes: every catalog mistake with a ``Plant``, planted into the reference.

A mutant is located by FUNCTION (``Tensor.div``, ``unbroadcast``) with ``ast``, and its edits
are matched on that function's code with the comments removed (so rewording a comment cannot
break one), or it replaces the function's whole body. An edit must occur exactly once in its
function, so a mutant whose target changed fails loudly (``MutantRotted``) instead of silently
testing nothing. ``tests/test_mutants.py`` plants each one and asserts that the checks catch it,
that exactly the rows in ``affects`` fail, and that the diagnosis names its kind.

    python -m minitorch_course.mutants            # caught / correctly diagnosed, per mutant
    python -m minitorch_course.check_cli --mutant div_quotient_rule_sign   # the learner's view
"""

from __future__ import annotations

import argparse
import ast
import io
import sys
import time
import tokenize
from dataclasses import dataclass
from functools import cache
from types import ModuleType

from minitorch_course import runner
from minitorch_course.catalog import ENGINE_ROWS, OPS, Plant

REFERENCE = runner.REFERENCE_FILE


class MutantRotted(AssertionError):
    """A mutant's function is gone, or an edit no longer occurs exactly once in it."""


@dataclass(frozen=True)
class Mutant:
    """One planted mistake: a catalog mistake's id, kind and plant."""

    name: str
    diagnosis: str  # the kind the diagnosis must name (catalog.KINDS)
    plant: Plant

    @property
    def mistake(self) -> str:
        return self.plant.what

    @property
    def affects(self) -> tuple[str, ...]:
        return self.plant.affects

    @property
    def needs_property(self) -> bool:
        return self.plant.needs_property

    def apply(self, source: str) -> str:
        """``source`` with the mistake planted; MutantRotted if it does not apply once."""
        return plant(source, self.plant, self.name)


def _function(tree: ast.Module, qualname: str) -> ast.FunctionDef | None:
    """The function ``name`` or ``Class.name`` at the top level of ``tree``."""
    scope: list[ast.stmt] = tree.body
    *owners, name = qualname.split(".")
    for owner in owners:
        cls = next((n for n in scope if isinstance(n, ast.ClassDef) and n.name == owner), None)
        if cls is None:
            return None
        scope = cls.body
    return next((n for n in scope if isinstance(n, ast.FunctionDef) and n.name == name), None)


def _without_comments(code: str) -> str:
    """``code`` with every comment removed and trailing spaces stripped; lines stay in place."""
    drop = [t for t in tokenize.generate_tokens(io.StringIO(code).readline)
            if t.type == tokenize.COMMENT]
    lines = code.splitlines(keepends=True)
    for t in reversed(drop):
        row, col = t.start
        line = lines[row - 1]
        lines[row - 1] = line[:col].rstrip() + ("\n" if line.endswith("\n") else "")
    return "".join(lines)


def plant(source: str, p: Plant, name: str = "mutant") -> str:
    """``source`` with ``p`` applied to its function (comments of that function removed)."""
    node = _function(ast.parse(source), p.function)
    if node is None:
        raise MutantRotted(f"mutant {name}: no function {p.function} in the reference")
    lines = source.splitlines(keepends=True)
    first, last = node.lineno - 1, node.end_lineno
    code = _without_comments("".join(lines[first:last]))
    if p.body is not None:
        body_start = node.body[0].lineno - node.lineno
        if ast.get_docstring(node) is not None:  # keep the docstring
            body_start = node.body[0].end_lineno - node.lineno + 1
        indent = " " * node.body[0].col_offset
        head = "".join(code.splitlines(keepends=True)[:body_start])
        code = head + "".join(indent + line if line.strip() else line
                              for line in p.body.splitlines(keepends=True))
    for old, new in p.edits:
        count = code.count(old)
        if count != 1:
            raise MutantRotted(
                f"mutant {name}: the code to replace occurs {count} times in {p.function} "
                f"(expected exactly 1; comments are ignored); update the mutant:\n{old}")
        code = code.replace(old, new)
    return "".join(lines[:first]) + code + "".join(lines[last:])


MUTANTS: tuple[Mutant, ...] = tuple(
    Mutant(m.id, m.kind, m.plant) for row in ENGINE_ROWS + OPS for m in row.mistakes if m.plant)
BY_NAME: dict[str, Mutant] = {m.name: m for m in MUTANTS}
assert len(BY_NAME) == len(MUTANTS), "planted mistakes must have distinct ids"


def reference_source() -> str:
    return REFERENCE.read_text(encoding="utf-8")


@cache
def load(name: str) -> ModuleType:
    """The reference with mutant ``name`` planted, as a tensor module (see runner.using)."""
    mutant = BY_NAME[name]
    return runner.load_impl(source=mutant.apply(reference_source()), name=f"mutant_{name}")


def load_labelled(name: str) -> tuple[ModuleType, str]:
    """``load(name)`` and how ``make check`` names it."""
    if name not in BY_NAME:
        raise KeyError(f"no mutant {name!r}; the planted mistakes are {sorted(BY_NAME)}")
    return load(name), f"reference with mutant '{name}' ({BY_NAME[name].mistake})"


# ---------------------------------------------------------------- running the catalog
@dataclass
class Verdict:
    """What the checks made of one mutant."""

    mutant: Mutant
    failing: dict[str, str]  # failing row -> the kind of its first failure
    seconds: float

    @property
    def caught(self) -> bool:
        return bool(self.failing)

    @property
    def exact(self) -> bool:
        """Exactly the affected rows fail."""
        return set(self.failing) == set(self.mutant.affects)

    @property
    def diagnosed(self) -> bool:
        """Every affected row fails with the expected diagnosis."""
        return all(self.failing.get(row) == self.mutant.diagnosis for row in self.mutant.affects)


GRADCHECK_MAX_SIZE = 60  # central differences only on the small fixed cases: 10× faster


def run(mutant: Mutant, max_examples: int = 25) -> Verdict:
    """Every row's fixed suites (and the property suite where the mutant needs it).

    Forward, backward and broadcasting pairs run on every fixed case; gradcheck on the cases
    with at most GRADCHECK_MAX_SIZE input elements (the big grid cases cost 90% of its time and
    the torch cross-check covers them).
    """
    start = time.perf_counter()
    impl = load(mutant.name)
    suites = runner.GRADED_SUITES + (("property",) if mutant.needs_property else ())
    failing: dict[str, str] = {}
    for report in runner.run(None, impl, suites, max_examples, GRADCHECK_MAX_SIZE):
        first = report.first_failure
        if first is not None:
            failing[report.row] = first.kind or first.status
        elif report.status == runner.NOT_STARTED:
            failing[report.row] = runner.NOT_STARTED
    return Verdict(mutant, failing, time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutants to run (default: all)")
    args = parser.parse_args(argv)
    chosen = [BY_NAME[n] for n in args.names] if args.names else list(MUTANTS)
    caught = diagnosed = exact = 0
    for mutant in chosen:
        v = run(mutant)
        caught += v.caught
        diagnosed += v.diagnosed
        exact += v.exact
        mark = "✓" if v.caught and v.exact and v.diagnosed else "✗"
        kinds = ", ".join(f"{row}: {kind}" for row, kind in v.failing.items())
        print(f"{mark} {mutant.name:36s} {v.seconds:5.1f}s  expected {mutant.diagnosis} on "
              f"{', '.join(mutant.affects)}\n      got {kinds or 'nothing failed'}")
    total = len(chosen)
    print(f"\ncaught {caught}/{total} · exactly the affected rows {exact}/{total} · "
          f"correctly diagnosed {diagnosed}/{total}")
    return 0 if caught == diagnosed == exact == total else 1


if __name__ == "__main__":
    sys.exit(main())
