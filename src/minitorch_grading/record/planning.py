"""The plan: every task the graded cells need and what the instructor expects back (torch's
values, the engine cases, the MLP's inputs), built once per class run from one seed."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from minitorch.gradcheck import DEFAULT_EPS, default_upstream
from minitorch_authoring import mlp_curve
from minitorch_course import engine_checks, examplar, mlp_checks, op_checks
from minitorch_course.catalog import BY_NAME, ENGINE_BY_NAME, Case
from minitorch_course.quiz import read_literals as literal_answers
from minitorch_grading import calls, course
from minitorch_grading.record.cells import GradedCell


@dataclass
class Task:
    """One call of the learner's code: inputs, and what the instructor expects back."""

    id: int
    row: str
    case: Case
    arrays: list
    upstream: np.ndarray | None
    gradcheck: bool
    want_out: np.ndarray | None = None
    want_grads: list | None = None
    gc_upstream: np.ndarray | None = None
    gc_want: list | None = None  # torch's gradients for gradcheck's upstream
    error: str = ""  # torch itself could not run the case

    def job(self) -> dict:
        spec = None
        if self.gradcheck and self.gc_upstream is not None:
            spec = {"upstream": self.gc_upstream, "eps": DEFAULT_EPS}
        call = calls.program(BY_NAME[self.row].fn, len(self.arrays), self.case.kwargs)
        return {"kind": "op", "id": self.id, "row": self.row, "program": call,
                "inputs": self.arrays, "upstream": self.upstream, "gradcheck": spec,
                "constant": list(self.case.constant)}


def _expect(task: Task, seed: int) -> None:
    """torch's output and gradients for the task (float64), in this process."""
    op = BY_NAME[task.row]
    try:
        with op_checks.quiet():
            task.want_out, _ = op_checks.run_torch(op, task.case, task.arrays, None)
            if task.upstream is None:
                task.upstream = op_checks.upstream_for(task.want_out.shape, seed + 1)
            _, task.want_grads = op_checks.run_torch(op, task.case, task.arrays, task.upstream)
            if task.gradcheck:
                task.gc_upstream = default_upstream(task.want_out.shape, seed)
                _, task.gc_want = op_checks.run_torch(op, task.case, task.arrays,
                                                      task.gc_upstream)
    except Exception as err:  # noqa: BLE001 - a catalog case torch rejects: say so
        task.error = f"{type(err).__name__}: {err}"


def property_examples(op_name: str, count: int, seed: int) -> list[tuple[Case, list]]:
    """``count`` Hypothesis draws (cases and inputs) for a row, from ``seed``."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    from minitorch_course.strategies import cases_with_inputs

    drawn: list = []

    @hseed(seed)
    @settings(max_examples=count, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    @given(cases_with_inputs(BY_NAME[op_name]))
    def collect(example):
        drawn.append(example)

    collect()
    return drawn[:count]


@dataclass
class Plan:
    """Everything the instructor expects, built once per class run (one seed)."""

    seed: int
    cells: dict[str, list[GradedCell]]
    tasks: list[Task] = field(default_factory=list)
    # (row, suite) -> task ids; property: row -> task ids
    by_suite: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    # engine row -> its cases: the programs the worker runs, the judges that stay here
    engine: dict[str, list[engine_checks.EngineCase]] = field(default_factory=dict)
    solutions: dict[str, dict] = field(default_factory=dict)  # notebook -> solution values
    # lab 05: the worker's MLP tasks (check -> task) and PyTorch's curves for them (never sent)
    mlp: dict[str, dict] = field(default_factory=dict)
    curves: dict = field(default_factory=dict)
    # labs 00-04: the labs whose learner tests a cell grades, and the wheats and chaffs
    test_labs: tuple[str, ...] = ()
    impls: examplar.ImplSet | None = None

    def add(self, row: str, suite: str, case: Case, arrays, gradcheck: bool) -> None:
        task = Task(len(self.tasks), row, case, arrays, None, gradcheck)
        _expect(task, self.seed)
        self.tasks.append(task)
        self.by_suite.setdefault((row, suite), []).append(task.id)


def plan(cells: dict[str, list[GradedCell]], seed: int,
         source_dir: Path | None = None) -> Plan:
    """The tasks every graded cell needs, and their expected values (torch, the reference)."""
    out = Plan(seed, cells)
    source_dir = source_dir or course.SOURCE_NOTEBOOKS
    out.solutions = {nb: literal_answers(source_dir / f"{nb}.ipynb")[0] for nb in cells}
    wanted: dict[str, set[str]] = {}
    examples: dict[str, int] = {}
    for nb_cells in cells.values():
        for cell in nb_cells:
            for check in cell.checks:
                for row in check.rows:
                    wanted.setdefault(row, set()).update(check.suites)
                    if "property" in check.suites:
                        examples[row] = max(examples.get(row, 0), check.max_examples)
    for row, suites in wanted.items():
        if row in ENGINE_BY_NAME:
            continue
        op = BY_NAME[row]
        fixed = [s for s in ("forward", "backward", "gradcheck") if s in suites]
        if fixed:
            for case in op.all_cases:
                arrays = op.inputs(case, seed)
                task_gc = "gradcheck" in suites and case.gradcheck
                out.add(row, "fixed", case, arrays, task_gc)
        if "broadcast" in suites:
            for case in op.broadcast_cases:
                out.add(row, "broadcast", case, op.inputs(case, seed), False)
        if "property" in suites:
            for case, arrays in property_examples(row, examples[row], seed):
                out.add(row, "property", case, [np.asarray(a, dtype=np.float64)
                                                for a in arrays], not case.constant)
    checks_mlp = {c for nb_cells in cells.values() for cell in nb_cells for c in cell.mlp}
    test_labs = [lab for nb_cells in cells.values() for cell in nb_cells
                 for lab in cell.my_tests]
    if test_labs:
        out.test_labs = tuple(dict.fromkeys(test_labs))
        out.impls = examplar.course_set()  # MINITORCH_CHAFFS, else solutions/examplar_set.py
    if checks_mlp:
        out.curves = mlp_curve.curves(mlp_curve_seed(seed))  # PyTorch, now: never the stored
        out.mlp = {check: mlp_task(check, seed, out.curves) for check in sorted(checks_mlp)}
    out.engine = {row: engine_checks.cases(row, seed) for row in wanted if row in ENGINE_BY_NAME}
    return out


MLP_SECONDS = 5.0 + len(mlp_checks.SEEDS) * mlp_checks.MAX_CPU  # one MLP task in the worker


def mlp_seeds(seed: int) -> tuple[int, ...]:
    """The record's held-out seeds for the MLP's accuracy: drawn from the grading seed, so
    they are not the notebook's (``mlp_checks.SEEDS``) and nobody knows them in advance."""
    rng = np.random.default_rng(seed)
    return tuple(int(s) for s in rng.integers(1000, 2**31 - 1, len(mlp_checks.SEEDS)))


def mlp_curve_seed(seed: int) -> int:
    """The record's seed for the loss curve's weights, examples and batches: drawn from the
    grading seed, so the curve shipped for the notebook's check (``mlp_checks.COURSE_SEED``)
    is not this one."""
    return int(np.random.default_rng([seed, 1]).integers(1000, 2**31 - 1))


def mlp_relabel(seed: int) -> np.ndarray:
    """The record's permutation of the classes for the accuracy (``mlp_checks.relabelling``):
    the grammar's label table does not give its targets."""
    return mlp_checks.relabelling(int(np.random.default_rng([seed, 2]).integers(2**31 - 1)))


def mlp_task(check: str, seed: int, curves: dict) -> dict:
    """The worker's task for one MLP check: the inputs of the learner's side as data, no
    expected value (the curve's weights, examples, batches and learning rate, for the seed
    ``curves`` were computed with; the accuracy's training examples, relabelled, and held-out
    inputs, never their targets, which stay here)."""
    task = {"kind": "mlp", "row": f"mlp:{check}", "check": check, "seconds": MLP_SECONDS}
    if check == "loss_curve":
        return {**task, "data": mlp_checks.curve_data(mlp_checks.curve_setting(curves))}
    return {**task, "seeds": list(mlp_seeds(seed)), "n_val": mlp_checks.N_VAL,
            "data": mlp_checks.accuracy_data(mlp_seeds(seed), mlp_checks.N_VAL,
                                             mlp_relabel(seed))}

