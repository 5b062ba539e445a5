"""The learner's progress report (``make check`` wraps it), one row per op, grouped by lab.

It works wherever the course's packages are, the repository or a class release folder, with no
make: ``python -m minitorch_course.check`` in a terminal whose current folder (or Python
environment) holds ``minitorch/`` and ``minitorch_course/``.

    python -m minitorch_course.check                 # every row, against src/minitorch/tensor.py
    python -m minitorch_course.check --op add        # one op (or engine row), full diagnosis
    python -m minitorch_course.check --impl reference             # the reference (all ✓)
    python -m minitorch_course.check --impl path/to/tensor.py     # any other implementation
    python -m minitorch_course.check --seed N        # the values a score of record was graded on
    python -m minitorch_course.check --op mlp        # lab 05's MLP file only, full messages

Columns: forward vs torch, backward vs torch, gradcheck, broadcasting pairs, property test
(Hypothesis, fewer examples than pytest to stay under a minute). A row earns its points when
the graded suites pass, exactly what the graded notebook cells run (``grading.check_ops``), so
the notebook, this command and nbgrader agree; a lab's points are its graded cells' (the
catalog's), including the cells only the notebook can grade. Lab 05's rows check the MLP file
(``minitorch/mlp.py`` beside the checked tensor.py; ``minitorch_course.mlp_checks``) trained on
the checked engine; their result is cached by the two files' hashes. A thin front end over
``minitorch_course.runner``; the words come from ``minitorch_course.messages``.
Exit status 0 only when every row passes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import textwrap
import time
from pathlib import Path

from minitorch_course import done, exercises, messages, oracle_cache, quiz, runner, typecheck
from minitorch_course.catalog import (
    BY_NAME,
    CELLS,
    ENGINE_BY_NAME,
    LABS,
    MLP_CELLS,
    MY_TESTS_CELLS,
    lab_points,
    resolve,
)
from minitorch_course.i18n import _, t
from minitorch_course.outcomes import FAIL, NOT_STARTED, PASS, SKIP, SUITES, RowReport, telling

COMMAND = "python -m minitorch_course.check"  # how every text names the progress report
PROPERTY_EXAMPLES = 25
COLUMNS = SUITES
WIDTH = 100
GRADED = runner.GRADED_SUITES


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
        symbol = {PASS: self.ok, FAIL: self.bad, NOT_STARTED: self.todo, SKIP: ""}[status]
        code = {PASS: "32", FAIL: "31;1", NOT_STARTED: "2"}.get(status, "0")
        return self.paint(symbol.ljust(width), code)


def _answer_line(state: str, what: str) -> tuple[str, str]:
    """An answer cell's status and words, from its state read from your saved notebook
    (minitorch_course.exercises.cell_states)."""
    if state == exercises.RIGHT:
        return PASS, t("(your answer) right: {what}", what=what)
    if state == exercises.WRONG:
        return FAIL, t("(your answer) not right yet, the cell says why: {what}", what=what)
    if state == exercises.UNANSWERED:
        return NOT_STARTED, t("(your answer) not answered yet: {what}", what=what)
    return SKIP, t("(your answer) answered; the key is not here: {what}", what=what)


def _what(report: RowReport) -> str:
    return _(ENGINE_BY_NAME[report.row].what) if report.engine else BY_NAME[report.row].formula


# ---------------------------------------------------------------- printing
def _notebook_only(lab: str) -> list:
    """A lab's graded cells that no row runs (answer cells, my_tests), lab 05's MLP aside."""
    mlp_ids = {c.grade_id for c in MLP_CELLS.values()}
    return [c for c in CELLS if c.lab == lab and not c.rows and c.grade_id not in mlp_ids]


def suite_cell(cell, reports: list[RowReport]) -> tuple[str, list[str]] | None:
    """A lab 04 cell that runs one suite over rows of labs 01-03 (``cell.suite`` over
    ``cell.over``): its status from the reports of those rows, and the rows that keep it from
    passing; None when the cell is not such a cell or one of its rows did not run here."""
    if not cell.suite:
        return None
    names = [op.name for op in resolve(list(cell.over))]
    by_row = {r.row: r for r in reports}
    if any(name not in by_row for name in names):
        return None
    states = {name: by_row[name].summary(cell.suite) for name in names}
    behind = [name for name, state in states.items() if state not in (PASS, SKIP)]
    if not behind:
        return PASS, []
    failing = [name for name in behind if states[name] == FAIL]
    return (FAIL, failing) if failing else (NOT_STARTED, behind)


def answer_points(lab: str, cells: list | None = None,
                  reports: list[RowReport] | None = None) -> int:
    """The points of ``lab``'s answer cells answered right in the saved notebook, and of its
    cells that the rows which ran can score (``suite_cell``): counted in the lab's header and
    in the Total alike."""
    cells = _notebook_only(lab) if cells is None else cells
    answered = exercises.cell_states(lab) if cells else {}
    scored = [suite_cell(c, reports or []) for c in cells]
    return sum(c.points for c, s in zip(cells, scored)
               if answered.get(c.grade_id) == exercises.RIGHT or (s and s[0] == PASS))


def _fit(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, wrapped at spaces: a table cell that
    does not fit goes on below its row, never cut."""
    return textwrap.wrap(text, width, break_on_hyphens=False) or [""]


def table(reports: list[RowReport], style: Style, whole: bool, mlp: list | None = None) -> str:
    """The per-lab table with points, then one diagnosis line per failing row. ``whole``: every
    row ran, so each lab also lists its cells that only the notebook can grade. ``mlp``: the
    MLP file's findings (lab 05's rows), when they ran."""
    out: list[str] = []
    name_w = max([14] + [len(r.row) + 2 for r in reports]
                 + [len(c.grade_id) - 4 for c in CELLS if not c.rows and (whole or mlp)])
    col_w = 13
    for lab, title in LABS.items():
        lab_rows = [r for r in reports if r.lab == lab]
        if mlp is not None and any(c.lab == lab for c in MLP_CELLS.values()):
            out.extend(mlp_block(mlp, style, name_w, col_w))
            continue
        notebook_only = _notebook_only(lab) if whole else []
        if not lab_rows and not notebook_only:  # lab 04 has cells but no rows of its own
            continue
        answered = exercises.cell_states(lab) if notebook_only else {}
        earned = (sum(r.earned(GRADED) for r in lab_rows)
                  + answer_points(lab, notebook_only, reports))
        possible = lab_points(lab) if whole else sum(r.points for r in lab_rows)
        unscored = sum(c.points for c in notebook_only  # the rows below that show ?/points
                       if answered.get(c.grade_id, exercises.ANSWERED) == exercises.ANSWERED
                       and suite_cell(c, reports) is None)
        title = _(title)
        points = t("{earned}/{possible} points", earned=earned, possible=possible)
        if unscored:
            points = t("{earned}/{possible} points ({unscored} not scored here: the rows "
                       "with ?)", earned=earned, possible=possible, unscored=unscored)
        out.append(title + points.rjust(max(1, WIDTH - len(title))))
        if lab_rows:
            out.append("  " + "".ljust(name_w) + "".join(messages.word(c).ljust(col_w)
                                                          for c in COLUMNS) + _("points"))
        room = col_w * len(COLUMNS)
        for r in lab_rows:
            pts = f"{r.earned(GRADED)}/{r.points}"
            if r.not_started:
                cells = style.paint(messages.status(NOT_STARTED).ljust(room), "2")
            elif r.engine:
                what, *more = _fit(t("(engine) {what}", what=_what(r)), room - col_w - 1)
                cells = style.status(r.summary("engine"), col_w) + what.ljust(room - col_w)
                out.append("  " + r.row.ljust(name_w) + cells + pts)
                out.extend("  " + "".ljust(name_w + col_w) + line for line in more)
                continue
            else:
                cells = "".join(style.status(r.summary(c), col_w) for c in COLUMNS)
            out.append("  " + r.row.ljust(name_w) + cells + pts)
        for cell in notebook_only:
            name = cell.grade_id.removeprefix("check_")
            state = answered.get(cell.grade_id)
            if state:  # an answer cell: its state read from your saved notebook
                status, note = _answer_line(state, _(cell.what))
                note, *more = _fit(note, room - col_w - 1)
                shown = "?" if state == exercises.ANSWERED else (
                    cell.points if state == exercises.RIGHT else 0)
                out.append("  " + name.ljust(name_w) + style.status(status, col_w)
                           + note.ljust(room - col_w) + f"{shown}/{cell.points}")
                out.extend("  " + "".ljust(name_w + col_w) + line for line in more)
                continue
            scored = suite_cell(cell, reports)
            if scored:  # the graded cell's suite, read from the rows that ran above
                status, behind = scored
                what = _(cell.what)
                note = (t("{what}: the graded cell's checks pass (on the rows above)", what=what)
                        if status == PASS else
                        t("{what}: the graded cell fails on {rows}", what=what,
                          rows=", ".join(behind)) if status == FAIL else
                        t("{what}: not written yet: {rows}", what=what, rows=", ".join(behind)))
                note, *more = _fit(note, room - col_w - 1)
                out.append("  " + name.ljust(name_w) + style.status(status, col_w)
                           + note.ljust(room - col_w)
                           + f"{cell.points if status == PASS else 0}/{cell.points}")
                out.extend("  " + "".ljust(name_w + col_w) + line for line in more)
                continue
            if cell in MY_TESTS_CELLS.values():  # the score of record's, never the notebook's
                note = _("(score of record only) your tests: kinds caught below")
            else:
                note = t("(graded in the notebook only) {what}", what=_(cell.what))
            note, *more = _fit(note, room - 1)
            out.append("  " + name.ljust(name_w) + style.paint(note.ljust(room), "2")
                       + f"?/{cell.points}")
            out.extend("  " + "".ljust(name_w) + style.paint(line, "2") for line in more)
        for r in lab_rows:
            if r.status == FAIL:
                out.append(_one_line(r, style))
        out.append("")
    return "\n".join(out)


def mlp_block(findings: list, style: Style, name_w: int, col_w: int) -> list[str]:
    """Lab 05's lines: a row per MLP check (its points), then each failure's sentence."""
    cells = [MLP_CELLS[f.check] for f in findings]
    lab = cells[0].lab
    title = _(LABS[lab])
    earned = sum(c.points for c, f in zip(cells, findings) if f.passed)
    points = t("{earned}/{possible} points", earned=earned, possible=lab_points(lab))
    out = [title + points.rjust(max(1, WIDTH - len(title)))]
    room = col_w * len(COLUMNS)
    for cell, f in zip(cells, findings):
        status = PASS if f.passed else (NOT_STARTED if "NotImplementedError" in f.detail
                                        else FAIL)
        name = cell.grade_id.removeprefix("check_").ljust(name_w)
        pts = f"{cell.points if f.passed else 0}/{cell.points}"
        if status == NOT_STARTED:  # as an op's row: the words, dimmed
            out.append("  " + name + style.paint(messages.status(NOT_STARTED).ljust(room), "2")
                       + pts)
            continue
        what = _(cell.what)[: room - col_w - 1]
        out.append("  " + name + style.status(status, col_w) + what.ljust(room - col_w) + pts)
    for cell, f in zip(cells, findings):
        if not f.passed:
            mark = style.todo if "NotImplementedError" in f.detail else style.bad
            out.append(textwrap.fill(f"{mark} {cell.grade_id.removeprefix('check_')}: "
                                     f"{f.message()}", WIDTH, initial_indent="  ",
                                     subsequent_indent="      "))
    out.append("")
    return out


def mlp_file(which: str) -> Path:
    """The MLP file checked with the implementation ``which``: the reference's solutions/mlp.py,
    the mlp.py beside a tensor.py path, else the learner's own minitorch/mlp.py."""
    import minitorch

    if which == "reference":
        return runner.REFERENCE_FILE.with_name("mlp.py")
    beside = Path(which).with_name("mlp.py")
    if which != "learner" and beside.is_file():
        return beside
    return Path(minitorch.__file__).with_name("mlp.py")


CACHE_ENV = oracle_cache.ENV  # a folder, or "off"; oracle_cache.default_folder's rule


def _cache_file() -> Path | None:
    """Where the MLP checks' last result is kept: in torch's answers' folder
    (``oracle_cache.default_folder``); None when ``MINITORCH_CACHE`` turns the cache off."""
    folder = oracle_cache.default_folder()
    return None if folder is None else folder / "mlp-checks.json"


def run_mlp(path: Path, impl, seeds: tuple[int, ...]) -> list:
    """Both MLP checks of the file ``path`` on the engine ``impl`` (mlp_checks.check_all),
    cached by the hashes of the MLP file, the engine's file, the checks and the seeds."""
    from dataclasses import asdict

    from minitorch_course import mlp_checks

    engine = getattr(impl, "__file__", None)
    parts = [path.read_bytes() if path.is_file() else b"",
             Path(engine).read_bytes() if engine and Path(engine).is_file() else b"",
             Path(mlp_checks.__file__).read_bytes(), repr(seeds).encode()]
    key = hashlib.sha256(b"\0".join(parts)).hexdigest()
    cache = _cache_file()
    try:
        stored = json.loads(cache.read_text(encoding="utf-8")) if cache else {}
    except (OSError, ValueError):
        stored = {}
    if engine and key in stored:
        return [mlp_checks._finding(f) for f in stored[key]]
    with runner.using(impl), _quiet_numpy():
        try:
            module = mlp_checks.load(path)
        except BaseException as exc:  # noqa: BLE001 - a file that does not even import
            if isinstance(exc, KeyboardInterrupt):
                raise
            error = mlp_checks._error("loss_curve", f"import {path.name}", exc)
            findings = [error, mlp_checks.Finding(**{**asdict(error), "check": "accuracy"})]
        else:
            findings = mlp_checks.check_all(module, seeds)
    if engine and cache:  # an implementation made from source text has no file to hash
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            stored = {key: [asdict(f) for f in findings]}  # the last run only
            cache.write_text(json.dumps(stored), encoding="utf-8")
        except OSError:
            pass  # a read-only home: no cache, same result
    return findings


def _quiet_numpy():
    import numpy as np

    return np.errstate(all="ignore")


def _one_line(report: RowReport, style: Style) -> str:
    o = report.first_failure
    where = f"{report.row} · {messages.word(o.suite)}" + (f" · {o.case}" if o.case else "")
    text = f"{style.bad} {where}: [{messages.label(o.kind)}] {messages.brief(o)}"
    wrapped = textwrap.fill(text, WIDTH, initial_indent="  ", subsequent_indent="      ")
    return wrapped + "\n      " + t("({command} --op {row} gives the full diagnosis)", command=COMMAND,
                                   row=report.row)


def full_report(reports: list[RowReport], style: Style) -> str:
    """Every suite of the named rows: statuses, and each failing suite's smallest failure as the
    block a graded cell shows (indented)."""
    out: list[str] = []
    for r in reports:
        what = _what(r)
        out.append(f"{r.row} — {_(LABS[r.lab])}" + (f" — {what}" if what else ""))
        for suite, outcomes in r.suites.items():
            status = r.summary(suite)
            ran = [o for o in outcomes if o.status != SKIP]
            bad = [o for o in outcomes if o.status == FAIL]
            line = f"  {messages.word(suite):<13} {style.status(status, 2)}"
            if status == PASS:
                line += (t("{n} case(s) pass", n=len(ran)) if suite != "engine"
                         else messages.fact_text(outcomes[0].fact))
            elif status == NOT_STARTED:
                todo = next(o for o in outcomes if o.status == NOT_STARTED)
                text = messages.fact_text(todo.fact) if todo.fact else ""
                line += messages.status(NOT_STARTED) + (f": {text}" if text else "")
            elif status == FAIL:
                line += t("{bad} of {ran} case(s) fail", bad=len(bad), ran=len(ran))
            elif status == SKIP:
                line += messages.status(SKIP)
            out.append(line)
            if bad:
                worst = telling(bad)
                if suite == "property":
                    out.append("      " + t("Hypothesis, {case}; the example below is its "
                                                "shrunk (smallest) counterexample",
                                                case=worst.case.strip(" ()")))
                elif worst.case:
                    out.append("      " + t("failing case explained: {case} (of the failing "
                                                "cases, the one that best tells mistakes apart, "
                                                "then the smallest)", case=worst.case))
                if worst.kind:
                    out.append("      " + t("diagnosis: {kind}", kind=messages.label(worst.kind)))
                out.append(textwrap.indent(messages.block(worst), "      ",
                                           lambda line: bool(line)))
                others = [o.case for o in bad if o is not worst]
                if others:
                    listed = "; ".join(others[:8]) + (" ..." if len(others) > 8 else "")
                    out.append(textwrap.fill(t("also failing: {cases}", cases=listed), WIDTH,
                                             initial_indent="      ",
                                             subsequent_indent="        "))
        out.append("")
    return "\n".join(out)


def tests_report(reports: list[RowReport]) -> str:
    """The learner's own tests (my_tests/), lab by lab: kinds of mistake caught / kinds
    (``minitorch_course.examplar``; cached by the files' hash, so an unchanged lab is free)."""
    from minitorch_course import examplar

    try:
        grades, which = examplar.learner_grades(list(examplar.LAB_FILES),
                                                examplar.passing_methods(reports))
    except Exception as err:  # noqa: BLE001 (the table above stands on its own)
        return t("your tests could not be graded: {error}: {message}",
                 error=type(err).__name__, message=str(err))
    return "\n".join(textwrap.fill(line, WIDTH, subsequent_indent="      ")
                     if len(line) > WIDTH else line
                     for line in examplar.learner_report(grades, which)) + "\n"


def main(argv: list[str] | None = None, stream=None, loaded: tuple | None = None) -> int:
    """The report; ``loaded`` is an already loaded ``(implementation, label)`` (a maintainer's
    tool showing the learner's view of a planted mistake), else ``--impl`` says which."""
    stream = stream or sys.stdout
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--op", action="append", help="one op or engine row (repeatable); "
                        "prints the full diagnosis")
    parser.add_argument("--impl", default="learner",
                        help="learner (default), reference, or a path to a tensor.py")
    parser.add_argument("--closing", action="store_true",
                        help="end with a sentence saying what the exit status means (the default from "
                        "the command line)")
    parser.add_argument("--examples", type=int, default=PROPERTY_EXAMPLES,
                        help=f"Hypothesis examples per op (default {PROPERTY_EXAMPLES})")
    parser.add_argument("--seed", type=int, default=0,
                        help="draw the inputs' values from this seed (the grading seed in your "
                        "feedback reproduces a graded case; default 0)")
    parser.add_argument("--no-tests", dest="tests", action="store_false",
                        help="leave out the grading of your own tests (my_tests/)")
    args = parser.parse_args(argv)
    if argv is None:  # the learner's command line: always end with the sentence
        args.closing = True
    style = Style(stream)

    def say(text: str = "") -> None:
        print(text, file=stream)

    start = time.perf_counter()
    try:
        impl, label = loaded or runner.load(args.impl)
    except Exception as err:  # a tensor.py that does not even import
        say(t("cannot load the implementation: {error}: {message}",
              error=type(err).__name__, message=str(err)))
        return _close(2, args.closing, say)
    names = None
    want_mlp = not args.op
    if args.op:
        names = [n for item in args.op for n in item.split(",") if n]
        want_mlp = "mlp" in names
        names = [n for n in names if n != "mlp"] or None
        if names is None:
            names = []
        bad = runner.unknown(names)
        if bad:
            say(t("unknown op(s) {names}; engine rows: {engine}",
                  names=str(sorted(bad)), engine=str(sorted(ENGINE_BY_NAME))))
            return _close(2, args.closing, say)
    say(t("Progress report · the minitorch implementation checked: {label}", label=label))
    say(textwrap.fill(t(
        "Columns: forward and backward vs torch (float64, 1e-7), gradcheck (central "
        "differences), broadcasting pairs, property ({examples} Hypothesis examples per op here; "
        "pytest runs 100). Points count {graded}: the suites the graded notebook cells run.",
        examples=args.examples, graded=", ".join(messages.word(s) for s in GRADED)), WIDTH))
    say()
    if args.seed:
        say(t("seed {seed} (the values of the graded inputs; shapes and edge cases stay fixed)",
              seed=args.seed))
    with oracle_cache.remembered():  # torch's answers from earlier runs (never for a score)
        reports = runner.run(names, impl, COLUMNS, args.examples, seed=args.seed) \
            if names != [] else []
    mlp = None
    path = mlp_file(args.impl) if want_mlp and loaded is None else None
    if path is not None:
        from minitorch_course import mlp_checks

        seeds = tuple(range(args.seed, args.seed + 3)) if args.seed else mlp_checks.SEEDS
        mlp = run_mlp(path, impl, seeds)
    say(table(reports, style, whole=names is None, mlp=mlp))
    if names:
        say(full_report(reports, style))
    elif args.tests and loaded is None and args.impl == "learner":
        say(tests_report(reports))
    mlp_pairs = [(MLP_CELLS[f.check], f) for f in mlp or []]
    earned = sum(r.earned(GRADED) for r in reports) + sum(c.points for c, f in mlp_pairs
                                                           if f.passed)
    if names is None:  # the lab headers count the answer cells answered right: so does the Total
        earned += sum(answer_points(lab, reports=reports) for lab in LABS
                      if not (mlp is not None and any(c.lab == lab for c in MLP_CELLS.values())))
    possible = (sum(lab_points(lab) for lab in LABS) if names is None
                else sum(r.points for r in reports) + sum(c.points for c, _ in mlp_pairs))
    counts = {s: sum(r.status == s for r in reports) for s in (PASS, FAIL, NOT_STARTED)}
    for _cell, f in mlp_pairs:
        status = PASS if f.passed else (NOT_STARTED if "NotImplementedError" in f.detail
                                        else FAIL)
        counts[status] += 1
    elapsed = time.perf_counter() - start
    say(t("Total: {earned}/{possible} points · {passed} of {rows} rows pass · {failing} failing "
          "· {todo} not started · {seconds:.1f} s", earned=earned, possible=possible,
          passed=counts[PASS], rows=len(reports) + len(mlp_pairs), failing=counts[FAIL],
          todo=counts[NOT_STARTED], seconds=elapsed))
    if names is None:  # the whole report ends with mypy, the quiz and the definition of done
        tensor_file = getattr(impl, "__file__", None)
        if tensor_file and Path(tensor_file).is_file():  # not a mutant made from source
            say()
            for line in types_lines(Path(tensor_file), style):
                say(line)
        quiz_report = quiz.report()
        say()
        for line in quiz.lines(quiz_report):
            say(line)
        say()
        unknown = "·" if style.ok == "✓" else "."
        marks = {done.YES: style.ok, done.NO: style.bad, done.UNKNOWN: unknown}
        for line in done.lines(done.ticks(reports, quiz_report, mlp=mlp), marks):
            say(line)
    return _close(0 if counts[PASS] == len(reports) + len(mlp_pairs) else 1, args.closing, say)


def types_lines(tensor_file: Path, style: Style, shown: int = 5) -> list[str]:
    """The mypy row: ``mypy --strict`` (with the learner's two relaxations) on the file."""
    rep = typecheck.check(tensor_file)
    title = t("mypy --strict on {file} (closures may stay unannotated)",
              file=runner.shown(tensor_file))
    if rep.ok is None:
        return [f"{style.todo} {title}: " + t("not run: {why}", why=rep.problem)]
    when = _("cached") if rep.cached else t("{seconds:.1f} s", seconds=rep.seconds)
    if rep.ok:
        return [f"{style.ok} {title}: " + t("no errors ({when})", when=when)]
    out = [f"{style.bad} {title}: " + t("{count} error(s) ({when})", count=len(rep.errors),
                                        when=when)]
    out += [f"    line {line}" for line in rep.errors[:shown]]
    if len(rep.errors) > shown:
        out.append("    " + t("... and {more} more", more=len(rep.errors) - shown))
    return out


def _close(code: int, closing: bool, say) -> int:
    """With ``--closing`` (``make check``), a last sentence that says what ``code`` means."""
    if closing and code == 1:
        say()
        say(t("Not everything is there yet: the rows without ✓ are what you still have to write "
              "or fix, and `{command} --op <op>` gives the full diagnosis of one.",
              command=COMMAND))
    elif closing and code:
        say()
        say(_("The progress report could not check your work: the message above says why."))
    return code


if __name__ == "__main__":
    sys.exit(main())
