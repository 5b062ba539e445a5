"""What the lab notebooks call: set-up, graded checks and friendly demos.

A thin front end over ``minitorch_course.runner``: the graded cells, ``make check`` and pytest
run the same checks and word them with the same formatter (``minitorch_course.messages``), so
the notebook, the command line and nbgrader say the same thing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from minitorch_course import messages, runner
from minitorch_course.catalog import ENGINE_BY_NAME, resolve
from minitorch_course.i18n import _, t
from minitorch_course.outcomes import Outcome, RowReport

GRADED_SUITES = runner.GRADED_SUITES


class CheckFailure(AssertionError):
    """A graded cell's checks failed. The message is the diagnosis; in a notebook it is shown
    first and alone (``_render_traceback_``), with only the learner's own frames: the course's
    plumbing is not the learner's business."""

    def __init__(self, problems: list[Outcome]) -> None:
        self.problems = problems
        super().__init__("\n\n".join(messages.block(o) for o in problems))

    def _render_traceback_(self) -> list[str]:
        """What IPython shows instead of a traceback (and nbgrader stores as the cell's error)."""
        lines = f"{type(self).__name__}: {self}".splitlines()  # like a traceback's last line
        own = [f for o in self.problems if o.diagnosis
               for f in o.diagnosis.params.get("raised", o.diagnosis.params).get("frames", [])]
        if own:
            lines += ["", _("Your code (most recent call last):")]
            lines += [f"  {f['file']}, line {f['line']}, in {f['function']}\n    {f['code']}"
                      for f in own]
        return lines


def refuse_foreign_code() -> Path:
    """Under nbgrader's autograde, raise unless minitorch.tensor is the submission's own file.

    The file must lie below the working directory (the submission) and be the learner's
    implementation: never the reference, an installed copy, or something a PYTHONPATH points at.
    Checked by the set-up cell AND by every graded call, because a set-up cell that raised does
    not stop the later cells from running. Returns the imported file.
    """
    import minitorch

    spec = getattr(minitorch.tensor, "__spec__", None)  # None for a module made from source
    where = spec.origin if spec and spec.origin else getattr(minitorch.tensor, "__file__", None)
    # a module made from source may have no file at all: then where the package loaded it from
    origin = Path(where if where else minitorch.TENSOR_FILE).resolve()
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":
        here = Path.cwd().resolve()
        if (minitorch.IMPLEMENTATION != "learner" or not where
                or not origin.is_relative_to(here)):
            source = str(origin) if where else t("source code with no file")
            raise RuntimeError(t(
                "refusing to grade: minitorch.tensor was imported from {origin} "
                "(MINITORCH_IMPL={impl}), not from this submission's minitorch/tensor.py under "
                "{here}", origin=source, impl=minitorch.IMPLEMENTATION, here=str(here)))
    return origin


def setup_lab(lab: str) -> None:
    """First cell of every lab: say which tensor.py is in use; refuse to grade the wrong one."""
    import minitorch

    origin = refuse_foreign_code()
    print(t("{lab}: minitorch implementation '{impl}' ({path})", lab=lab,
            impl=minitorch.IMPLEMENTATION, path=runner.shown(origin)))


def _grade(reports: list[RowReport]) -> None:
    """Print one line per passing row; raise with the block of every other row's first problem."""
    __tracebackhide__ = True
    problems = []
    for report in reports:
        first = report.first_problem
        if first is not None:  # the one to fix first, the same one `make check` shows
            problems.append(first)
        else:
            print(messages.passed(report))
    if problems:
        raise CheckFailure(problems) from None


def check_ops(*names: str, suites: tuple[str, ...] = GRADED_SUITES,
              max_examples: int = 25) -> None:
    """Run the course checks for these catalog ops; raise with the diagnosis if any fails.

    Prints one line per op that passes. A failure raises ``CheckFailure`` whose message
    names the op, the case (shapes), the worst element and the likely mistake.
    """
    __tracebackhide__ = True
    refuse_foreign_code()
    import minitorch

    impl = minitorch.tensor
    _grade([runner.run_row(op.name, impl, tuple(suites), max_examples)
            for op in resolve(list(names))])


def check_engine(*names: str) -> None:
    """Run these engine rows (lab 00's engine, unbroadcast); same contract as ``check_ops``."""
    __tracebackhide__ = True
    refuse_foreign_code()
    unknown = [n for n in names if n not in ENGINE_BY_NAME]
    if unknown:
        raise KeyError(f"unknown engine check(s) {unknown}; available: {sorted(ENGINE_BY_NAME)}")
    import minitorch

    impl = minitorch.tensor
    _grade([runner.run_row(name, impl) for name in names])


class MLPCheckFailure(AssertionError):
    """A graded cell of lab 05 failed: the message is the finding's sentence, shown alone."""

    def _render_traceback_(self) -> list[str]:
        return f"{type(self).__name__}: {self}".splitlines()


def learner_mlp():
    """``minitorch.mlp`` as imported (the switch's choice); under nbgrader's autograde it must be
    the submission's own ``minitorch/mlp.py``, below the working directory."""
    import importlib

    import minitorch

    module = importlib.import_module("minitorch.mlp")
    spec = getattr(module, "__spec__", None)
    where = spec.origin if spec and spec.origin else getattr(module, "__file__", None)
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":
        here = Path.cwd().resolve()
        if (minitorch.IMPLEMENTATION != "learner" or not where
                or not Path(where).resolve().is_relative_to(here)):
            raise RuntimeError(t(
                "refusing to grade: minitorch.mlp was imported from {origin} "
                "(MINITORCH_IMPL={impl}), not from this submission's minitorch/mlp.py under "
                "{here}", origin=str(where), impl=minitorch.IMPLEMENTATION, here=str(here)))
    return module


def check_mlp(check: str) -> None:
    """Lab 05's graded cells: ``"loss_curve"`` or ``"accuracy"`` (``mlp_checks``) on YOUR
    ``minitorch/mlp.py`` and YOUR engine. Prints the finding when it passes, raises with it
    otherwise."""
    __tracebackhide__ = True
    from minitorch_course import mlp_checks

    refuse_foreign_code()
    checks = {"loss_curve": mlp_checks.check_loss_curve, "accuracy": mlp_checks.check_accuracy}
    if check not in checks:
        raise KeyError(f"unknown MLP check {check!r}; available: {sorted(checks)}")
    finding = checks[check](learner_mlp())
    if not finding.passed:
        raise MLPCheckFailure(finding.message()) from None
    print("✓ " + finding.message())


@contextmanager
def pending() -> Iterator[None]:
    """For demo cells: an op you have not written yet prints a note instead of a traceback, and
    a bug of yours prints where it happened in your file and which graded cell explains it,
    instead of a raw NumPy traceback (the demo is not graded; the check below it is)."""
    try:
        yield
    except NotImplementedError as err:
        print(t("(not written yet) {error}", error=str(err)))
    except Exception as err:  # noqa: BLE001 - a demo cell never shows the course's plumbing
        print(demo_failure(err))


def demo_failure(err: BaseException) -> str:
    """What a demo cell says when the learner's code raised ``err``: the error, the lines of
    the learner's own file it went through, and where the explanation is."""
    import traceback

    import minitorch

    mine = Path(minitorch.TENSOR_FILE).resolve()
    frames = [f for f in traceback.extract_tb(err.__traceback__)
              if f.filename and Path(f.filename).resolve() == mine]
    # the whole message, the learner's own included (np.testing's starts with a blank line)
    message = [line.rstrip() for line in str(err).strip("\n").splitlines()]
    shown = message[:DEMO_MESSAGE_LINES] + (["..."] if len(message) > DEMO_MESSAGE_LINES else [])
    lines = [t("This demo stopped: your code raised {error}: {message}",
               error=type(err).__name__, message=shown[0] if shown else "")]
    lines += ["    " + line for line in shown[1:]]
    if frames:
        lines.append(_("Your code (most recent call last):"))
        lines += [f"  {runner.shown(Path(f.filename))}, line {f.lineno}, in {f.name}\n    {f.line}"
                  for f in frames]
    lines.append(_("The graded check of this op (its check_ops cell in this lab) runs the "
                   "course's cases and names the likely cause: run it."))
    return "\n".join(lines)


DEMO_MESSAGE_LINES = 12  # a demo's error message, shown whole up to this many lines


def check_my_tests(*labs: str) -> float | None:
    """The learner's own tests of these labs (``my_tests/``): which count, and the kinds of
    mistake they catch (``minitorch_course.examplar``). Prints the feedback and returns None,
    so the cell shows the report and no bare number (issue 28): here it is feedback, and the
    score of record runs the tests outside this kernel. Under nbgrader's autograde it returns
    0.0, so nbgrader's own grade of the cell is 0 (a cell without a value would get full
    points) until the score of record writes the real one."""
    from minitorch_course import examplar

    refuse_foreign_code()
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":  # graded outside the kernel
        print(_("Your tests are graded by the score of record, outside this notebook."))
        return 0.0
    unknown = [lab for lab in labs if lab not in examplar.LAB_FILES]
    if unknown or not labs:
        raise KeyError(f"unknown lab(s) {unknown}; the labs with tests: {list(examplar.LAB_FILES)}")
    passing: set[str] = set()
    if examplar.course_set() is None:  # faults go only into the ops the learner gets right
        import minitorch

        passing = examplar.passing_methods(runner.run(None, minitorch.tensor,
                                                      ("forward", "backward")))
    grades, which = examplar.learner_grades(labs, passing)
    print("\n".join(examplar.learner_report(grades, which)))
    return None
