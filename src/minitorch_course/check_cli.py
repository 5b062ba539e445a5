"""``make check``: the learner's progress report, one row per op, grouped by lab.

    python -m minitorch_course.check                 # every row, against src/minitorch/tensor.py
    python -m minitorch_course.check --op add        # one op (or engine row), full diagnosis
    python -m minitorch_course.check --impl reference             # the reference (must be all ✓)
    python -m minitorch_course.check --impl path/to/tensor.py     # any other implementation
    python -m minitorch_course.check --mutant max_ties_not_split  # a planted classic mistake

Columns: forward vs torch, backward vs torch, gradcheck, broadcasting pairs, property test
(Hypothesis, fewer examples than pytest to stay under a minute). A row earns its points when
the graded suites pass, exactly what the graded notebook cells run (``grading.check_ops``), so
the notebook, this command and nbgrader agree. Exit status 0 only when every cell passes.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import textwrap
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from minitorch_course import checks
from minitorch_course.catalog import ENGINE_BY_NAME, ENGINE_ROWS, LABS, OPS, lab_points, resolve
from minitorch_course.diagnosis import KINDS

ROOT = Path(__file__).resolve().parents[2]
LEARNER_FILE = ROOT / "src" / "minitorch" / "tensor.py"
REFERENCE_FILE = ROOT / "solutions" / "tensor.py"
PROPERTY_EXAMPLES = 25
COLUMNS = ("forward", "backward", "gradcheck", "broadcast", "property")
WIDTH = 100


def _graded_suites() -> tuple[str, ...]:
    from minitorch_course.grading import GRADED_SUITES

    return tuple(GRADED_SUITES)


# ---------------------------------------------------------------- symbols and colour
class Style:
    """✓/✗ (or ok/X when the terminal cannot print them), coloured only on a TTY."""

    def __init__(self, stream) -> None:
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            "✓✗·–".encode(encoding)
            unicode = True
        except (UnicodeEncodeError, LookupError):
            unicode = False
        self.ok, self.bad, self.todo = ("✓", "✗", "–") if unicode else ("ok", "X", "-")
        self.colour = (hasattr(stream, "isatty") and stream.isatty()
                       and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb")

    def paint(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.colour and text.strip() else text

    def status(self, status: str, width: int) -> str:
        symbol = {checks.PASS: self.ok, checks.FAIL: self.bad, checks.NOT_STARTED: self.todo,
                  checks.SKIP: ""}[status]
        code = {checks.PASS: "32", checks.FAIL: "31;1", checks.NOT_STARTED: "2"}.get(status, "0")
        return self.paint(symbol.ljust(width), code)


# ---------------------------------------------------------------- results
@dataclass
class Row:
    """One table row: a catalog op or an engine check."""

    name: str
    lab: str
    points: int
    what: str
    engine: bool
    report: dict[str, list[checks.Outcome]] = field(default_factory=dict)

    def cell(self, suite: str) -> str:
        return checks.summarize(self.report.get(suite, []))

    @property
    def cells(self) -> dict[str, str]:
        return {suite: self.cell(suite) for suite in (("engine",) if self.engine else COLUMNS)}

    @property
    def not_started(self) -> bool:
        states = [s for s in self.cells.values() if s != checks.SKIP]
        return bool(states) and all(s == checks.NOT_STARTED for s in states)

    @property
    def status(self) -> str:
        states = set(self.cells.values())
        if checks.FAIL in states:
            return checks.FAIL
        if checks.NOT_STARTED in states:
            return checks.NOT_STARTED
        return checks.PASS

    def earned(self, graded: tuple[str, ...]) -> int:
        suites = ("engine",) if self.engine else graded
        ok = all(checks.summarize(self.report.get(s, [])) in (checks.PASS, checks.SKIP)
                 for s in suites)
        return self.points if ok else 0

    @property
    def first_failure(self) -> checks.Outcome | None:
        return checks.first_failure(self.report)


def run_rows(impl: ModuleType, names: list[str] | None = None,
             max_examples: int = PROPERTY_EXAMPLES) -> list[Row]:
    """Run every row (or the named ones) against ``impl``."""
    rows: list[Row] = []
    ops = _op_names(names or [])
    wanted_ops = {op.name for op in resolve(ops)} if ops else set()
    wanted_engine = {n for n in names or [] if n in ENGINE_BY_NAME}
    for lab in LABS:
        for er in ENGINE_ROWS:
            if er.lab != lab or (names and er.name not in wanted_engine):
                continue
            row = Row(er.name, lab, er.points, er.what, True)
            row.report["engine"] = [checks.check_engine_row(er.name, impl)]
            rows.append(row)
        for op in OPS:
            if op.lab != lab or (names and op.name not in wanted_ops):
                continue
            row = Row(op.name, lab, op.points, op.formula, False)
            row.report = checks.check_op(op, impl, COLUMNS[:-1])
            forward = row.cell("forward")
            if forward == checks.NOT_STARTED:
                row.report["property"] = [checks.Outcome(op.name, "property", checks.NOT_STARTED)]
            else:
                row.report["property"] = [checks.check_property(op, impl, max_examples)]
            rows.append(row)
    return rows


def _op_names(names: list[str]) -> list[str]:
    return [n for n in names if n not in ENGINE_BY_NAME]


# ---------------------------------------------------------------- printing
def table(rows: list[Row], style: Style, graded: tuple[str, ...]) -> str:
    """The per-lab table with points, then one diagnosis line per failing row."""
    out: list[str] = []
    name_w = max([14] + [len(r.name) + 2 for r in rows])
    col_w = 11
    for lab, title in LABS.items():
        lab_rows = [r for r in rows if r.lab == lab]
        if not lab_rows:
            continue
        earned = sum(r.earned(graded) for r in lab_rows)
        possible = sum(r.points for r in lab_rows)
        if len(lab_rows) == _lab_size(lab):
            possible = lab_points(lab)
        head = f"{title}"
        points = f"{earned}/{possible} points"
        out.append(head + points.rjust(max(1, WIDTH - len(head))))
        out.append("  " + "".ljust(name_w) + "".join(c.ljust(col_w) for c in COLUMNS) + "points")
        for r in lab_rows:
            pts = f"{r.earned(graded)}/{r.points}"
            if r.not_started:
                cells = style.paint("not started".ljust(col_w * len(COLUMNS)), "2")
            elif r.engine:
                what = f"(engine) {r.what}"
                room = col_w * len(COLUMNS) - col_w
                what = what if len(what) <= room - 1 else what[: room - 2] + "…"
                cells = style.status(r.cell("engine"), col_w) + what.ljust(room)
            else:
                cells = "".join(style.status(r.cell(c), col_w) for c in COLUMNS)
            out.append("  " + r.name.ljust(name_w) + cells + pts)
        failing = [r for r in lab_rows if r.status == checks.FAIL]
        for r in failing:
            out.append(_one_line(r, style))
        out.append("")
    return "\n".join(out)


def _lab_size(lab: str) -> int:
    return (sum(1 for r in ENGINE_ROWS if r.lab == lab) + sum(1 for op in OPS if op.lab == lab))


def _diagnosis_of(outcome: checks.Outcome) -> str:
    """The 'Likely mistake' part of an outcome's message, else its first line."""
    message = outcome.message
    if "Likely mistake: " in message:
        return message.split("Likely mistake: ", 1)[1].split("\n(raised:", 1)[0]
    return message.strip().split("\n")[0]


def _wrap(text: str, indent: str) -> str:
    """Wrap long prose lines to the report's width; keep indented (code-like) lines as they are."""
    lines = []
    for line in text.splitlines():
        if len(line) + len(indent) > WIDTH and not line.startswith(" "):
            lines.append(textwrap.fill(line, WIDTH, initial_indent=indent,
                                       subsequent_indent=indent + "  "))
        else:
            lines.append(indent + line if line else "")
    return "\n".join(lines)


def _brief(text: str, sentences: int = 2) -> str:
    """The first ``sentences`` sentences of the first paragraph."""
    first = text.strip().split("\n")[0]
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z(])", first)
    return " ".join(parts[:sentences])


def _one_line(row: Row, style: Style) -> str:
    o = row.first_failure
    if o is None:
        return ""
    where = f"{row.name} · {o.suite}" + (f" · {o.case}" if o.case else "")
    label = KINDS.get(o.kind, o.kind or "failed")
    text = f"{style.bad} {where}: [{label}] {_brief(_diagnosis_of(o))}"
    wrapped = textwrap.fill(text, WIDTH, initial_indent="  ", subsequent_indent="      ")
    return wrapped + f"\n      (make check OP={row.name} for the full diagnosis)"


def full_report(rows: list[Row], style: Style) -> str:
    """Every suite of the named rows: statuses, the smallest failure in full, other failures."""
    out: list[str] = []
    for r in rows:
        out.append(f"{r.name} — {LABS[r.lab]}" + (f" — {r.what}" if r.what else ""))
        for suite, outcomes in r.report.items():
            status = checks.summarize(outcomes)
            ran = [o for o in outcomes if o.status != checks.SKIP]
            bad = [o for o in outcomes if o.status == checks.FAIL]
            line = f"  {suite:<10} {style.status(status, 2)}"
            if status == checks.PASS:
                line += f"{len(ran)} case(s) pass" if suite != "engine" else outcomes[0].case
            elif status == checks.NOT_STARTED:
                todo = next(o for o in outcomes if o.status == checks.NOT_STARTED)
                line += "not started" + (f": {todo.message}" if todo.message else "")
            elif status == checks.FAIL:
                line += f"{len(bad)} of {len(ran)} case(s) fail"
            elif status == checks.SKIP:
                line += "n/a"
            out.append(line)
            if bad:
                worst = min(bad, key=lambda o: o.size)
                if suite == "property":
                    out.append(f"      Hypothesis, {worst.case.strip(' ()')}; the example below "
                               "is its shrunk (smallest) counterexample")
                elif worst.case:
                    out.append(f"      smallest failing case: {worst.case}")
                kind = KINDS.get(worst.kind, worst.kind)
                if kind:
                    out.append(f"      diagnosis: {kind}")
                out.append(_wrap(worst.message.rstrip(), "      "))
                others = [o.case for o in bad if o is not worst]
                if others:
                    listed = "; ".join(others[:8]) + (" ..." if len(others) > 8 else "")
                    out.append(textwrap.fill(f"also failing: {listed}", WIDTH,
                                             initial_indent="      ",
                                             subsequent_indent="        "))
        out.append("")
    return "\n".join(line for line in out if line is not None)


# ---------------------------------------------------------------- implementations
def load(which: str, mutant: str | None) -> tuple[ModuleType, str]:
    """The tensor module to check and how to name it."""
    if mutant:
        from minitorch_course import mutants

        m = mutants.BY_NAME[mutant]
        return mutants.load(mutant), f"reference with mutant '{mutant}' ({m.mistake})"
    if which == "learner":
        import minitorch

        if minitorch.IMPLEMENTATION == "learner":
            return minitorch.tensor, f"learner ({_shown(minitorch.TENSOR_FILE)})"
        return checks.load_impl(LEARNER_FILE, name="learner_tensor"), (
            f"learner ({_shown(LEARNER_FILE)})")
    path = REFERENCE_FILE if which == "reference" else Path(which)
    if not path.is_file():
        raise FileNotFoundError(f"no tensor implementation at {path}")
    return checks.load_impl(path, name="checked_tensor"), f"{which} ({_shown(path)})"


def _shown(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None, stream=None) -> int:
    stream = stream or sys.stdout
    parser = argparse.ArgumentParser(prog="make check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--op", action="append", help="one op or engine row (repeatable); "
                        "prints the full diagnosis")
    parser.add_argument("--impl", default="learner",
                        help="learner (default), reference, or a path to a tensor.py")
    parser.add_argument("--mutant", help="check the reference with this planted mistake")
    parser.add_argument("--examples", type=int, default=PROPERTY_EXAMPLES,
                        help=f"Hypothesis examples per op (default {PROPERTY_EXAMPLES})")
    args = parser.parse_args(argv)
    style = Style(stream)

    def say(text: str = "") -> None:
        print(text, file=stream)

    start = time.perf_counter()
    try:
        impl, label = load(args.impl, args.mutant)
    except Exception as err:  # a tensor.py that does not even import
        say(f"make check: cannot load the implementation: {type(err).__name__}: {err}")
        return 2
    names = None
    if args.op:
        names = [n for item in args.op for n in item.split(",") if n]
        try:
            ops = _op_names(names)
            if ops:
                resolve(ops)
        except KeyError as err:
            say(f"make check: {err.args[0]}; engine rows: {sorted(ENGINE_BY_NAME)}")
            return 2
    graded = _graded_suites()
    say(f"make check · minitorch implementation: {label}")
    say(textwrap.fill(
        f"Columns: forward and backward vs torch (float64, 1e-7), gradcheck (central "
        f"differences), broadcasting pairs, property ({args.examples} Hypothesis examples per "
        f"op here; pytest runs 100). Points count {', '.join(graded)}: the suites the graded "
        f"notebook cells run.", WIDTH))
    say()
    with checks.using(impl):
        rows = run_rows(impl, names, args.examples)
    say(table(rows, style, graded))
    if names:
        say(full_report(rows, style))
    earned = sum(r.earned(graded) for r in rows)
    possible = sum(r.points for r in rows)
    counts = {s: sum(r.status == s for r in rows)
              for s in (checks.PASS, checks.FAIL, checks.NOT_STARTED)}
    elapsed = time.perf_counter() - start
    say(f"Total: {earned}/{possible} points · {counts[checks.PASS]} of {len(rows)} rows pass · "
        f"{counts[checks.FAIL]} failing · {counts[checks.NOT_STARTED]} not started · "
        f"{elapsed:.1f} s")
    return 0 if counts[checks.PASS] == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
