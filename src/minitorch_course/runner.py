"""The one runner: loads an implementation, runs catalog rows against it, returns plain data.

``run(names, impl)`` gives one ``RowReport`` per row (ops and engine rows), in lab order; every
outcome in it is JSON-serialisable (``RowReport.to_dict``), so a check can run in a separate
worker process. The graded notebook cells (``minitorch_course.grading``) and ``make check``
(``minitorch_course.check``) are thin front ends over it: they only format.
"""

from __future__ import annotations

import gc
import linecache
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from minitorch_course import engine_checks, messages, op_checks
from minitorch_course.catalog import BY_NAME, ENGINE_BY_NAME, ENGINE_ROWS, LABS, OPS
from minitorch_course.i18n import t
from minitorch_course.outcomes import (
    FAIL,
    NOT_STARTED,
    PASS,
    SKIP,
    SUITES,
    Fact,
    Outcome,
    RowReport,
)
from minitorch_course.worker import engine

ROOT = Path(__file__).resolve().parents[2]
LEARNER_FILE = ROOT / "src" / "minitorch" / "tensor.py"
REFERENCE_FILE = ROOT / "solutions" / "tensor.py"
GRADED_SUITES = ("forward", "backward", "gradcheck", "broadcast")  # what a graded cell runs


# ---------------------------------------------------------------- implementations
def load_impl(path: str | Path | None = None, *, source: str | None = None,
              name: str = "minitorch_impl") -> ModuleType:
    """A tensor module from a file (the stub, a learner's copy) or from source text (a mutant).

    It is not registered as ``minitorch.tensor``; wrap its use in ``using(module)``.
    """
    if source is None:
        if path is None:
            raise ValueError("load_impl needs a path or source")
        source = Path(path).read_text(encoding="utf-8")
    module = ModuleType(name)
    module.__file__ = str(path) if path is not None else f"<{name}>"
    if path is None:  # tracebacks and diagnoses can then quote the offending line
        lines = source.splitlines(keepends=True)
        linecache.cache[module.__file__] = (len(source), None, lines, module.__file__)
    sys.modules[name] = module  # dataclasses and typing look their module up here
    try:
        exec(compile(source, module.__file__, "exec"), module.__dict__)
    finally:
        sys.modules.pop(name, None)
    return module


def shown(path: Path) -> str:
    """A path relative to the repository (or the working directory), stable across machines."""
    for base in (Path.cwd().resolve(), ROOT):
        try:
            return str(Path(path).resolve().relative_to(base))
        except ValueError:
            continue
    return str(path)


def load(which: str = "learner") -> tuple[ModuleType, str]:
    """The implementation to check and how to name it: ``learner`` (the imported one if
    MINITORCH_IMPL selects it, else src/minitorch/tensor.py), ``reference``, or a path."""
    if which == "learner":
        import minitorch

        if minitorch.IMPLEMENTATION == "learner":
            return minitorch.tensor, t("yours ({path})", path=shown(minitorch.TENSOR_FILE))
        return (load_impl(LEARNER_FILE, name="learner_tensor"),
                t("yours ({path})", path=shown(LEARNER_FILE)))
    path = REFERENCE_FILE if which == "reference" else Path(which)
    if not path.is_file():
        raise FileNotFoundError(f"no tensor implementation at {path}")
    named = t("the reference ({path})", path=shown(path)) if which == "reference" else shown(path)
    return load_impl(path, name="checked_tensor"), named


@contextmanager
def using(impl: ModuleType) -> Iterator[ModuleType]:
    """Make ``impl`` THE ``minitorch.tensor``, temporarily: the module gradcheck imports, and the
    one behind ``minitorch.Tensor``, ``minitorch.unbroadcast``... (looked up at each use)."""
    import minitorch

    previous_module = sys.modules.get("minitorch.tensor")
    previous_attr = minitorch.tensor
    sys.modules["minitorch.tensor"] = impl
    minitorch.tensor = impl
    try:
        yield impl
    finally:
        if previous_module is not None:
            sys.modules["minitorch.tensor"] = previous_module
        minitorch.tensor = previous_attr


@contextmanager
def _no_gc() -> Iterator[None]:
    """Cyclic GC off while a check builds 100,000 nodes: it would rescan them every few hundred
    allocations (seconds of overhead). Nothing is lost: collection resumes afterwards."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


# ---------------------------------------------------------------- rows
def observe_here(cases: list[engine_checks.EngineCase], impl: ModuleType
                 ) -> Iterator[engine_checks.Seen]:
    """What each case's program observes of ``impl`` in this process, one case at a time (a
    case runs only once the one before it passed): the learner's exception, if any, is kept
    in ``Seen.error`` for the judge to re-raise where the case reads what it never reached."""
    for case in cases:
        seen = engine_checks.Seen()
        try:
            engine.run(case.program, impl, seen)
        except Exception as err:  # noqa: BLE001 - the learner's code raised: the judge says
            seen.error = err
        yield seen


def judge_engine_row(name: str, cases: list[engine_checks.EngineCase],
                     observed: Iterable[engine_checks.Seen]) -> Outcome:
    """One engine row's outcome from what its cases observed (here, or in the grading worker,
    whose exceptions come back as stand-ins): the first failure, through the one guard."""
    for case, seen in zip(cases, observed, strict=False):
        outcome = op_checks.guard(name, "engine", messages.engine_case(case.name),
                                  lambda case=case, seen=seen: case.judge(seen), ranked=False)
        if outcome.status != PASS:
            return outcome
    return Outcome(name, "engine", PASS, "", Fact("engine-passed", {"count": len(cases)}))


def run_engine_row(name: str, impl: ModuleType, seed: int = 0) -> Outcome:
    """One engine row: every case of ``engine_checks.cases(name, seed)``; the first failure."""
    cases = engine_checks.cases(name, seed)
    with using(impl), op_checks.quiet(), _no_gc():
        return judge_engine_row(name, cases, observe_here(cases, impl))


def run_row(name: str, impl: ModuleType, suites: tuple[str, ...] = SUITES,
            max_examples: int = 25, gradcheck_max_size: int | None = None,
            seed: int = 0) -> RowReport:
    """Every suite of one row (an op or an engine row) against ``impl``; ``seed`` draws the
    input values (0: the notebooks' own; a grading seed reproduces a graded case)."""
    if name in ENGINE_BY_NAME:
        row = ENGINE_BY_NAME[name]
        outcome = run_engine_row(name, impl, seed)
        return RowReport(name, row.lab, row.points, True, {"engine": [outcome]})
    op = BY_NAME[name]
    fixed = tuple(s for s in suites if s != "property")
    with using(impl):
        report = op_checks.check_op(op, impl, fixed, max_examples, gradcheck_max_size, seed)
        if "property" in suites:
            started = all(o.status != NOT_STARTED for o in report.get("forward", []))
            report["property"] = [op_checks.check_property(op, impl, max_examples) if started
                                  else Outcome(op.name, "property", NOT_STARTED)]
    return RowReport(name, op.lab, op.points, False, report)


def rows(names: list[str] | None = None) -> list[str]:
    """Row names in lab order (engine rows first in each lab), all of them or the named ones
    (an op's method name stands for all its rows: 'gelu' is gelu and gelu_tanh)."""
    wanted = set(names or [])
    return [row.name for lab in LABS for row in ENGINE_ROWS + OPS
            if row.lab == lab and (not names or row.name in wanted
                                   or getattr(row, "method", None) in wanted)]


def unknown(names: list[str]) -> list[str]:
    """The names that are neither a row nor an op's method."""
    methods = {op.method for op in OPS}
    return [n for n in names if n not in BY_NAME and n not in ENGINE_BY_NAME
            and n not in methods]


def run(names: list[str] | None, impl: ModuleType, suites: tuple[str, ...] = SUITES,
        max_examples: int = 25, gradcheck_max_size: int | None = None,
        seed: int = 0) -> list[RowReport]:
    """Run every row (or the named ones) against ``impl``, in lab order."""
    return [run_row(name, impl, suites, max_examples, gradcheck_max_size, seed)
            for name in rows(names)]


__all__ = ["FAIL", "GRADED_SUITES", "NOT_STARTED", "PASS", "SKIP", "load", "run", "using"]
