"""What the lab notebooks call: set-up, graded checks and friendly demos.

The graded cells, ``make check`` and pytest run the same checks (``minitorch_course.checks``), so
the notebook, the command line and nbgrader say the same thing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from minitorch_course import checks
from minitorch_course.catalog import resolve

GRADED_SUITES = ("forward", "backward", "gradcheck", "broadcast")
ROOT = Path(__file__).resolve().parents[2]


def _shown(path: Path) -> str:
    """A path relative to the repository (or the working directory), stable across machines."""
    for base in (Path.cwd().resolve(), ROOT):
        try:
            return str(path.relative_to(base))
        except ValueError:
            continue
    return path.name


def refuse_foreign_code() -> Path:
    """Under nbgrader's autograde, raise unless minitorch.tensor is the submission's own file.

    The file must lie below the working directory (the submission) and be the learner's
    implementation: never the reference, an installed copy, or something a PYTHONPATH points at.
    Checked by the set-up cell AND by every graded call, because a set-up cell that raised does
    not stop the later cells from running. Returns the imported file.
    """
    import minitorch

    origin = Path(minitorch.tensor.__spec__.origin or minitorch.tensor.__file__).resolve()
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":
        here = Path.cwd().resolve()
        if minitorch.IMPLEMENTATION != "learner" or not origin.is_relative_to(here):
            raise RuntimeError(
                f"refusing to grade: minitorch.tensor was imported from {origin} "
                f"(MINITORCH_IMPL={minitorch.IMPLEMENTATION}), not from this submission's "
                f"minitorch/tensor.py under {here}"
            )
    return origin


def setup_lab(lab: str) -> None:
    """First cell of every lab: say which tensor.py is in use; refuse to grade the wrong one."""
    import minitorch

    origin = refuse_foreign_code()
    print(f"{lab}: minitorch implementation '{minitorch.IMPLEMENTATION}' ({_shown(origin)})")


def check_ops(*names: str, suites: tuple[str, ...] = GRADED_SUITES,
              max_examples: int = 25) -> None:
    """Run the course checks for these catalog ops; raise with the diagnosis if any fails.

    Prints one line per op that passes. A failure raises ``checks.CheckFailure`` whose message
    names the op, the case (shapes), the worst element and the likely mistake.
    """
    refuse_foreign_code()
    problems = []
    for op in resolve(list(names)):
        report = checks.check_op(op, suites=suites, max_examples=max_examples)
        outcomes = [o for outs in report.values() for o in outs]
        pending_ = [o for o in outcomes if o.status == checks.NOT_STARTED]
        first = pending_[0] if pending_ else checks.first_failure(report)
        if first is not None:  # the one to fix first, the same one `make check` shows
            problems.append(first)
        else:
            ran = sum(o.status == checks.PASS for o in outcomes)
            print(f"✓ {op.name}: {ran} checks passed ({', '.join(report)})")
    if problems:
        raise checks.CheckFailure("\n\n".join(str(o) for o in problems))


@contextmanager
def pending() -> Iterator[None]:
    """For demo cells: an op you have not written yet prints a note instead of a traceback."""
    try:
        yield
    except NotImplementedError as err:
        print(f"(pendiente) {err}")
