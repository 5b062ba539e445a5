"""Score the course's diagnosis on the held-out mistakes (``make heldout``).

For every ``mNN_*.py``: plant it into the reference (``apply.mutated_source``), load it the way
``make check`` loads a learner's file (``runner.load_impl`` from source), run every catalog row
with the graded suites (what the notebook cells and ``make check``'s points run; gradcheck on the
small cases, as ``make mutants`` does) and record

- caught: some row fails;
- op named: the first failing row in ``make check``'s table order is the mistake's op (a row of
  that method), or an engine row (``unbroadcast`` included) when ``OP`` is ``engine``;
- the diagnosis block the learner reads for that row (``messages.block`` of its first problem:
  what the graded cell shows and what ``make check OP=...`` prints under the table).

    python -m heldout.score               # from solutions/ (or: make heldout)
    python -m heldout.score --markdown F  # also write the per-mistake blocks to F

Measurement only: nothing here reads the diagnosis code's internals, and the diagnosis code must
not read the held-out files.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass, field
from types import ModuleType

from heldout import apply
from minitorch_authoring import mutants
from minitorch_course import messages, runner
from minitorch_course.catalog import BY_NAME, ENGINE_BY_NAME
from minitorch_course.outcomes import FAIL, Outcome


@dataclass
class Score:
    """What the checks made of one held-out mistake."""

    name: str
    op: str
    kind: str
    failing: list[str] = field(default_factory=list)  # failing rows, table order
    block: str = ""  # the diagnosis block of the first failing row
    diagnosis_kind: str = ""
    seconds: float = 0.0
    outcome: Outcome | None = None  # the first failing row's first problem

    @property
    def caught(self) -> bool:
        return bool(self.failing)

    @property
    def named(self) -> bool:
        return bool(self.failing) and names_op(self.failing[0], self.op)


def names_op(row: str, op: str) -> bool:
    """Does failing row ``row`` point at ``op``?"""
    if op == "engine":
        return row in ENGINE_BY_NAME
    return row in BY_NAME and (BY_NAME[row].method == op or row == op)


def mistake_name(mistake: ModuleType) -> str:
    return mistake.__name__.rsplit(".", 1)[-1]


def score(mistake: ModuleType, max_examples: int = 25, first: bool = False) -> Score:
    """Run the course checks on the reference with ``mistake`` planted; ``first``: stop at the
    first failing row (all that caught, op named and the block need)."""
    start = time.perf_counter()
    name = mistake_name(mistake)
    impl = runner.load_impl(source=apply.mutated_source(mistake), name=f"heldout_{name}")
    s = Score(name, mistake.OP, mistake.KIND)
    reports = []
    for row in runner.rows():
        report = runner.run_row(row, impl, runner.GRADED_SUITES, max_examples,
                                mutants.GRADCHECK_MAX_SIZE)
        reports.append(report)
        if report.status == FAIL:
            s.failing.append(report.row)
            if first:
                break
    if s.failing:
        first = next(r for r in reports if r.row == s.failing[0])
        problem = first.first_problem
        s.block = messages.block(problem)
        s.outcome = problem
        s.diagnosis_kind = problem.kind
    s.seconds = time.perf_counter() - start
    return s


def score_all(names: list[str] | None = None, first: bool = False) -> list[Score]:
    chosen = [m for m in apply.all_mistakes() if not names or mistake_name(m) in names
              or mistake_name(m)[:3] in names]
    return [score(m, first=first) for m in chosen]


def markdown(scores: list[Score]) -> str:
    """Every mistake's figures and diagnosis block, as Markdown."""
    out = []
    for s in scores:
        out.append(f"### {s.name} ({s.op}, {s.kind})\n")
        out.append(f"caught: {'yes' if s.caught else 'NO'} · op named: "
                   f"{'yes' if s.named else 'NO'} · failing rows: "
                   f"{', '.join(s.failing) or 'none'} · diagnosis kind: "
                   f"{s.diagnosis_kind or '-'}\n")
        if s.block:
            out.append("```\n" + s.block + "\n```\n")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mistakes (m07 or the module name); default all")
    parser.add_argument("--markdown", help="write every diagnosis block to this file")
    parser.add_argument("--first", action="store_true",
                        help="stop each mistake at its first failing row (faster)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    scores = score_all(args.names, args.first)
    for s in scores:
        mark = "✓" if s.caught and s.named else "✗"
        print(f"{mark} {s.name:48s} {s.seconds:4.1f}s caught={s.caught} named={s.named} "
              f"rows={','.join(s.failing)} kind={s.diagnosis_kind}")
    n = len(scores)
    caught = sum(s.caught for s in scores)
    named = sum(s.named for s in scores)
    print(f"\ncaught {caught}/{n} · op named {named}/{n} · "
          f"{time.perf_counter() - start:.1f} s")
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(markdown(scores))
    return 0 if caught == named == n else 1


if __name__ == "__main__":
    sys.exit(main())
