"""Scores of record: graded outside the learner's kernel, written into nbgrader's gradebook.

    python -m minitorch_grading.record [--course-dir DIR] [--seed N] [--student GLOB]

Instructor tooling (never ships). The graded notebook cells run inside the learner's kernel,
which the learner controls entirely (what it imports, what it patches, how a cell ends): their
results are feedback. The scores of record come from here:

- each submission's ``minitorch/tensor.py`` runs in a worker process (``minitorch_course.worker.main``:
  a fresh interpreter in a temporary folder, guarded by an audit hook: it can read nothing but
  its own folder, the standard library and NumPy, write nothing, start nothing, import no
  autograd library) that returns the learner's outputs and gradients as data;
- the expected values (torch float64, and the engine cases' own: lab 00's hand-built graphs go
  to the worker as programs, ``minitorch_course.engine_checks``) and every comparison are
  computed here, in the instructor's process, with the suites' own comparisons and diagnoses
  (``op_checks.compare_forward`` / ``compare_backward``, the engine cases' judges);
- quiz and exercise answers are read from the submitted notebook's source with
  ``ast.literal_eval`` (never executed) and judged by the instructor's own test cells (hidden
  tests included), run here on those plain values;
- graded inputs keep their shapes and edge cases, but their values are drawn from a seed chosen
  at grading time (recorded in the report and the feedback; ``python -m minitorch_course.check --seed N`` reproduces);
- what a graded cell checks is read from the instructor's notebook (``check_ops(...)`` /
  ``check_engine(...)`` calls, parsed, not run), so the record grades exactly those rows and
  suites, all-or-nothing per cell as nbgrader does.

The scores are written into the gradebook (``Grade.auto_score``), so formgrader, feedback and
export show them; a human's ``manual_score`` is kept. Flags for the instructor (an autograd
import, a refused file access, an in-kernel score above the record's) go to ``reports/record-<time>.{txt,json}``.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import copy
import io
import json
import os
import re
import secrets
import shutil
import sys
import tempfile
import time
import warnings
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from minitorch.gradcheck import DEFAULT_ATOL, DEFAULT_EPS, default_upstream, tolerance
from minitorch_authoring import mlp_curve
from minitorch_course import (
    diagnosis,
    engine_checks,
    examplar,
    i18n,
    mlp_checks,
    op_checks,
    quiz,
    runner,
)
from minitorch_course.catalog import BY_NAME, ENGINE_BY_NAME, Case, resolve
from minitorch_course.check import COMMAND as CHECK_COMMAND
from minitorch_course.messages import N_
from minitorch_course.outcomes import (
    FAIL,
    NOT_STARTED,
    PASS,
    SKIP,
    CheckFailed,
    Diagnosis,
    Fact,
    Outcome,
    RowReport,
    StandIn,
)
from minitorch_course.quiz import read_literals as literal_answers
from minitorch_course.worker import main as worker
from minitorch_grading import calls, course, derivatives, learner_tests, sandbox
from minitorch_grading.job import Job

SRC = Path(__file__).resolve().parents[1]  # src/: the course-provided packages
REPORTS = "reports"
WALL = 180.0  # seconds a worker may take for a whole submission (the reference takes a few)
BUDGET = 60.0  # seconds of the worker's own clock for all tasks; then the rest is not run
TASK_SECONDS = 10.0  # one case (one engine row): an endless loop costs this once per row
SUSPICIOUS = {  # names a tensor.py has no business using (flagged, not scored)
    "minitorch_course": "the course checker", "__main__": "the grader's main module",
    "modules": "the module table (sys.modules)", "_getframe": "the caller's frames",
    "inspect": "frame inspection", "gc": "the garbage collector's object lists",
    "builtins": "the builtins", "ctypes": "foreign functions", "subprocess": "processes",
    "solutions": "the reference's folder", "direct_url": "an install's metadata",
    "importlib": "loading modules by path", "__import__": "dynamic imports",
    "NBGRADER_EXECUTION": "nbgrader's environment", "MINITORCH_IMPL": "the implementation switch",
    "__globals__": "another module's globals", "f_globals": "a frame's globals",
    "f_back": "the caller's frame", "tb_frame": "a traceback's frames",
    "__closure__": "a closure's cells", "cell_contents": "a closure's cells",
    "__code__": "a function's code", "settrace": "a tracer", "setprofile": "a profiler",
}
TEXT = {  # learner-facing feedback: English ids, shown in the course's language (i18n)
    "record-header": N_("Score of record (computed outside your kernel, seed {seed}; "
                        "`{command} --seed {seed}` repeats these cases)"),
    "record-cell": N_("- {cell}: {score:g}/{points:g}"),
    "record-finite-differences": N_("{row}: its backward evaluates the forward at shifted "
                                    "inputs (finite differences) instead of computing the "
                                    "derivative: write the derivative"),
}
DERIVATIVE_SUITES = ("backward", "broadcast", "gradcheck", "property")  # what FD would fake


def say(key: str, **params) -> str:
    """A learner-facing sentence in the course's language (``MINITORCH_LANG``)."""
    return i18n.t(TEXT[key], **params)


# ---------------------------------------------------------------- what each graded cell checks
@dataclass
class Check:
    """One ``check_ops`` / ``check_engine`` call of a graded cell."""

    rows: tuple[str, ...]
    suites: tuple[str, ...]
    max_examples: int = 25


@dataclass
class GradedCell:
    notebook: str
    grade_id: str
    points: float
    checks: list[Check] = field(default_factory=list)  # empty: an answer cell
    source: str = ""  # the instructor's test source (hidden tests included)
    mlp: tuple[str, ...] = ()  # lab 05: the ``check_mlp(...)`` checks of the learner's MLP
    my_tests: tuple[str, ...] = ()  # labs 00-04: ``check_my_tests(lab)``, the learner's tests


def _literal_args(call: ast.Call) -> tuple[list[str], dict]:
    args = [ast.literal_eval(a) for a in call.args]
    kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords if k.arg}
    return args, kwargs


def graded_cells(source_dir: Path) -> dict[str, list[GradedCell]]:
    """{notebook: its graded cells} from the instructor's notebooks (the course's source)."""
    found: dict[str, list[GradedCell]] = {}
    for path in sorted(source_dir.glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        cells = []
        for cell in nb["cells"]:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if not meta.get("grade") or cell.get("cell_type") != "code":
                continue
            source = "".join(cell["source"]) if isinstance(cell["source"], list) \
                else cell["source"]
            graded = GradedCell(path.stem, meta["grade_id"], float(meta.get("points", 0)),
                                source=source)
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                        and node.func.id in ("check_ops", "check_engine"):
                    args, kwargs = _literal_args(node)
                    if node.func.id == "check_ops":
                        rows = tuple(op.name for op in resolve(list(args)))
                        suites = tuple(kwargs.get("suites", runner.GRADED_SUITES))
                    else:
                        rows, suites = tuple(args), ("engine",)
                    graded.checks.append(Check(rows, suites, int(kwargs.get("max_examples",
                                                                             25))))
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                        and node.func.id == "check_mlp":
                    args, _ = _literal_args(node)
                    if args[0] not in MLP_CHECKS:
                        raise ValueError(f"{path.name}/{graded.grade_id}: unknown MLP check "
                                         f"{args[0]!r}")
                    graded.mlp += (args[0],)
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                        and node.func.id == "check_my_tests":
                    args, _ = _literal_args(node)
                    unknown = [lab for lab in args if lab not in examplar.LAB_FILES]
                    if unknown or not args:
                        raise ValueError(f"{path.name}/{graded.grade_id}: check_my_tests of "
                                         f"unknown labs {unknown}")
                    graded.my_tests += tuple(args)
            cells.append(graded)
        found[path.stem] = cells
    return found


# ---------------------------------------------------------------- the tasks and their answers
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


MLP_CHECKS = ("loss_curve", "accuracy")  # mlp_checks' graded properties (check_mlp's argument)
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


def judge_mlp(check: str, plan_: Plan, answer) -> mlp_checks.Finding:
    """One MLP check's verdict, here: the worker's answer (data) against PyTorch's curves for
    the record's inputs, or the held-out targets drawn here from the record's seeds and
    relabelled by its permutation."""
    if not isinstance(answer, dict):
        return mlp_checks.Finding(check=check, kind="error",
                                  detail="the worker gave no answer for the MLP")
    try:
        if check == "loss_curve":
            return mlp_checks.judge_curve(answer, plan_.curves)
        task = plan_.mlp[check]
        return mlp_checks.judge_accuracy(answer, tuple(task["seeds"]), int(task["n_val"]),
                                         mlp_relabel(plan_.seed))
    except Exception as err:  # noqa: BLE001 - an answer no honest worker sends
        return mlp_checks.Finding(check=check, kind="error",
                                  detail=f"malformed answer ({type(err).__name__})")


# ---------------------------------------------------------------- the worker
def _numpy_roots() -> list[str]:
    folder = Path(np.__file__).resolve().parent
    return [str(p) for p in (folder, folder.parent / "numpy.libs") if p.exists()]


def worker_folder(tensor_file: Path, folder: Path | None = None,
                  mlp_file: Path | None = None) -> Path:
    """A folder (``folder``, or a fresh one) holding the submission's tensor.py and mlp.py
    (``mlp_file``; none when absent), the course-provided modules (from this checkout, never
    from the submission; without the stored MLP curves) and links to NumPy; nothing else."""
    folder = (folder or Path(tempfile.mkdtemp(prefix="minitorch-grade-"))).resolve()
    if folder.is_relative_to(runner.ROOT):
        raise RuntimeError(f"the grading folder {folder} lies inside the repository")
    pkg = folder / "minitorch"
    pkg.mkdir()
    for path in (SRC / "minitorch").glob("*.py"):
        if path.name not in ("tensor.py", "mlp.py"):  # the learner's files: theirs
            shutil.copy(path, pkg / path.name)
    shutil.copy(tensor_file, pkg / "tensor.py")
    if mlp_file is not None and mlp_file.is_file():
        shutil.copy(mlp_file, pkg / "mlp.py")
    # the course's worker package, whole, and nothing else of the course: no module that
    # computes an expected value (tests/repo/test_layout.py keeps its imports to the standard
    # library, NumPy, minitorch and itself)
    (folder / "minitorch_course").mkdir()
    shutil.copy(SRC / "minitorch_course" / "__init__.py", folder / "minitorch_course")
    shutil.copytree(SRC / "minitorch_course" / "worker", folder / "minitorch_course" / "worker",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    lib = folder / "lib"
    lib.mkdir()
    for root in _numpy_roots():
        (lib / Path(root).name).symlink_to(root)
    return folder


ANSWER_BYTES = 64 * 2**20  # a whole class's answer is a few MB
FILE_BYTES = 128 * 2**20  # what the worker may write to its stdout/stderr files at most


def _stdlib() -> list[str]:
    stdlib = Path(os.__file__).resolve().parent  # the base interpreter's, never a venv's
    found = [str(stdlib), str(stdlib / "lib-dynload")]
    return list(dict.fromkeys(p for p in found if Path(p).exists()))


@dataclass
class WorkerRun:
    results: dict = field(default_factory=dict)
    seconds: float = 0.0
    problem: str = ""  # the worker failed: timed out, crashed, answered garbage
    stderr: str = ""
    streamed: list[str] = field(default_factory=list)  # refusals, as written on stderr


DIED = "the worker gave no answer"


def run_worker(tensor_file: Path, plan_: Plan, wall: float = WALL,
               budget: float = BUDGET, unsafe: bool = False,
               mlp_file: Path | None = None) -> WorkerRun:
    """Run the submission's tensor.py on every task in a guarded worker; its raw answers.

    A worker that dies without answering (``os._exit``, a crash in C code) is run again one
    row at a time, within what is left of ``budget``: the row it died in scores nothing, the
    others are graded (one bad op must not cost the whole record)."""
    tasks = [{"kind": "engine", "row": row, "cases": [
        {"name": case.name, "program": case.program} for case in cases]}
        for row, cases in plan_.engine.items()]  # lab 00 first
    tasks += [t.job() for t in plan_.tasks if not t.error]
    tasks += list(plan_.mlp.values())  # lab 05, last: the longest
    if plan_.mlp:
        budget += MLP_SECONDS * len(plan_.mlp)  # the MLP's own allowance (mlp_checks.MAX_CPU)
        wall += MLP_SECONDS * len(plan_.mlp)
    out = _run_tasks(tensor_file, tasks, plan_.seed, wall, budget, unsafe, mlp_file)
    if not out.problem.startswith(DIED):
        return out
    rows: dict[str, list[dict]] = {}
    for task in tasks:
        rows.setdefault(task["row"], []).append(task)
    merged: dict = {"tasks": [], "engine": {}, "mlp": {}, "refused": [], "denied": [],
                    "timed_out": []}
    died, spent, detail, streamed = [], out.seconds, "", list(out.streamed)
    for row, group in rows.items():
        left = budget - spent
        if left <= 0:
            merged["timed_out"].append(row)
            continue
        part = _run_tasks(tensor_file, group, plan_.seed, min(wall, left + 30), left, unsafe,
                          mlp_file)
        spent += part.seconds
        streamed += part.streamed
        if part.problem:
            died.append(row)
            detail = detail or part.problem
            continue
        got = part.results
        if got.get("import_error"):
            merged["import_error"] = got["import_error"]
            break
        merged["tasks"] += got.get("tasks") or []
        merged["engine"].update(got.get("engine") or {})
        merged["mlp"].update(got.get("mlp") or {})
        for key in ("refused", "denied", "timed_out"):
            merged[key] += got.get(key) or []
    return WorkerRun(results=merged, seconds=round(spent, 1),
                     problem=(f"the worker died in {', '.join(died)} ({detail})"
                              if 0 < len(died) < len(rows) else
                              f"the worker died in every row ({detail}): at import?"
                              if died else ""),
                     stderr=out.stderr, streamed=list(dict.fromkeys(streamed)))


def _run_tasks(tensor_file: Path, tasks: list[dict], seed: int, wall: float,
               budget: float, unsafe: bool = False, mlp_file: Path | None = None) -> WorkerRun:
    """One worker process over ``tasks``, in its own job: the OS sandbox
    (``minitorch_grading.sandbox``: another user, no network, only its folder, NumPy and the
    standard library visible; the audit hook is a second layer), unless ``unsafe``."""
    start = time.monotonic()
    out = WorkerRun()
    with Job.new(unsafe) as box:
        worker_folder(tensor_file, box.folder, mlp_file)
        job = {"folder": box.root, "stdlib": _stdlib(), "numpy": _numpy_roots(),
               "tasks": worker.encode(tasks), "budget": budget,
               "task_seconds": min(TASK_SECONDS, budget)}
        env = {"PATH": "/usr/bin:/bin", "HOME": box.root, "LANG": "C.UTF-8",
               "MINITORCH_LANG": "en",  # the worker answers with data; no catalog to read
               "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        limit = max(wall, budget + 30)
        # the worker sees NumPy and the standard library, no other installed package (torch,
        # mygrad...): the environment's site-packages are an empty folder but for NumPy
        result = box.run([sys.executable, "-I", "-S", "-B",
                          box.path("minitorch_course/worker/main.py")],
                         env=env, stdin=json.dumps(job).encode(),
                         limits=sandbox.Limits(wall=limit, cpu=limit, file_bytes=FILE_BYTES),
                         read_only=[Path(r) for r in _numpy_roots()],
                         hide=[] if unsafe else _site_packages())
    out.stderr = result.stderr[-4000:].decode("utf-8", "replace")
    out.streamed = refusals_in(result.stderr)
    answer = result.stdout
    try:
        if result.timed_out:
            out.problem = f"timed out after {limit:g} s"
        elif len(answer) > ANSWER_BYTES:
            out.problem = f"the worker's answer is too large ({len(answer)} bytes)"
        elif not answer.strip():
            out.problem = f"{DIED} (exit {result.returncode})"
        else:
            out.results = worker.decode(json.loads(answer))
    except Exception as err:  # noqa: BLE001 - whatever the learner's code made of the answer
        out.problem = f"unreadable answer from the worker ({type(err).__name__})"
    out.seconds = round(time.monotonic() - start, 1)
    return out


def refusals_in(stderr: bytes) -> list[str]:
    """The refusals the worker's guard wrote on stderr as they happened (the learner's code
    may empty the worker's own lists, not what was already written)."""
    mark = worker.REFUSED_LINE.encode()
    found = [line[len(mark):].decode("utf-8", "replace").strip()
             for line in stderr.splitlines() if line.startswith(mark)]
    return list(dict.fromkeys(found))[:20]


def _site_packages() -> list[Path]:
    """Every site-packages folder of this environment and its base interpreter."""
    import site

    found = [*site.getsitepackages(), Path(sys.base_prefix) / "lib" /
             f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"]
    return list(dict.fromkeys(Path(p).resolve() for p in found if Path(p).is_dir()))


# ---------------------------------------------------------------- judging, in this process
class _Raised(Exception):
    """Stands for the learner's exception (only its name, message, fields and frames came
    back), so the diagnosis can classify a crash as it does in the notebook."""


def _surrogate(error: dict) -> tuple[BaseException, list]:
    import traceback as tb

    bases = set(error.get("bases", []))
    base = next((b for b in (RecursionError, NotImplementedError, IndexError, KeyError,
                             ValueError, TypeError, AttributeError, ZeroDivisionError)
                 if b.__name__ in bases), _Raised)
    cls = type(str(error.get("type", "Error")), (base, StandIn), {})
    err = cls(error.get("message", ""))
    for name, value in (error.get("fields") or {}).items():
        try:
            setattr(err, name, value)
        except AttributeError:
            continue
    frames = [tb.FrameSummary(str(f["file"]), int(f["line"] or 0), str(f["function"]),
                              line=str(f["code"])) for f in error.get("frames", [])]
    err.frames, err.function = frames, str(error.get("function") or "")
    return err, frames


def _crashed(op, task: Task, suite: str, error: dict) -> Outcome:
    if error.get("not_started"):
        return Outcome(op.name, suite, NOT_STARTED, task.case.label,
                       Fact("not-started", {"message": error.get("message", "")}))
    err, frames = _surrogate(error)
    try:
        d = diagnosis.explain_crash(op, err, frames, case=task.case, inputs=task.arrays,
                                    stage=error.get("stage", ""))
    except Exception:  # noqa: BLE001 - the surrogate lacks something: a plain crash
        d = Diagnosis("crash", "", {"error": error.get("type"), "message": error.get("message")})
    return Outcome(op.name, suite, FAIL, task.case.label, Fact("crashed", {
        "row": op.name, "stage": error.get("stage", ""), "case": task.case.label,
        "error": error.get("type", ""), "shapes": [np.shape(a) for a in task.arrays]}), d,
        op_checks._size(task.arrays))


def _judge(body, op, task: Task, suite: str) -> Outcome:
    size = op_checks._size(task.arrays)
    try:
        with op_checks.quiet():
            body()
    except CheckFailed as err:
        return Outcome(op.name, suite, FAIL, task.case.label, err.fact, err.diagnosis, size,
                       op_checks._rank(err.diagnosis, task.arrays))
    except Exception as err:  # noqa: BLE001 - an answer of the wrong kind (a forged one)
        return Outcome(op.name, suite, FAIL, task.case.label,
                       Fact("crashed", {"row": op.name, "stage": suite, "case": task.case.label,
                                        "error": type(err).__name__, "shapes": []}),
                       Diagnosis("crash"), size)
    return Outcome(op.name, suite, PASS, task.case.label, size=size)


def _as_array(value, name: str):
    if value is None:
        return None
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{name} is not an array")
    return value


def judge_task(task: Task, answer: dict | None, suites: tuple[str, ...]) -> dict[str, Outcome]:
    """The outcome of each suite for one task, from the learner's answer (or its absence)."""
    op = BY_NAME[task.row]
    found: dict[str, Outcome] = {}
    if task.error:  # torch could not run it: nobody is marked down for it
        return {s: Outcome(op.name, s, SKIP, task.case.label) for s in suites}
    if answer is None:
        missing = {"type": "NoAnswer", "message": "the worker gave no answer for this case",
                   "stage": "forward", "frames": []}
        return {s: _crashed(op, task, s, missing) for s in suites}
    error = answer.get("error")
    stage_order = {"forward": 0, "backward": 1, "gradcheck": 2}
    failed_at = stage_order.get(error.get("stage"), 0) if error else 99
    for suite in suites:
        need = {"forward": 0, "backward": 1, "broadcast": 1, "gradcheck": 2}[suite]
        if suite == "gradcheck" and not task.gradcheck:
            found[suite] = Outcome(op.name, suite, SKIP, task.case.label,
                                   Fact("gradcheck-skipped", {"case": task.case.label}))
            continue
        if error and failed_at <= need:
            found[suite] = _crashed(op, task, suite, error)
            continue
        if suite == "forward":
            def body():
                got = _as_array(answer.get("out"), "the output")
                if got is None:
                    raise TypeError("no output")
                op_checks.compare_forward(op, task.case, task.arrays, got, task.want_out)
        elif suite in ("backward", "broadcast"):
            def body():
                got = _as_array(answer.get("out"), "the output")
                if got is None:
                    raise TypeError("no output")
                op_checks.compare_forward(op, task.case, task.arrays, got, task.want_out)
                grads = answer.get("grads")
                if not isinstance(grads, list) or len(grads) != len(task.arrays):
                    raise TypeError("gradients missing")
                grads = [_as_array(g, "a gradient") for g in grads]
                op_checks.compare_backward(op, task.case, task.arrays, grads,
                                           task.want_grads, task.upstream, task.want_out)
        else:
            def body():
                _judge_gradcheck(op, task, answer.get("gradcheck"))
        found[suite] = _judge(body, op, task, suite)
    return found


def _judge_gradcheck(op, task: Task, data) -> None:
    """minitorch.gradcheck's rule (|analytical - numerical| <= atol + rtol|numerical|), and the
    analytical gradient against torch's for the same upstream, both here."""
    if not isinstance(data, dict):
        raise TypeError("no gradcheck data")
    analytical, numerical = data.get("analytical"), data.get("numerical")
    if not isinstance(analytical, list) or not isinstance(numerical, list) \
            or len(analytical) != len(task.arrays) or len(numerical) != len(task.arrays):
        raise TypeError("gradcheck data of the wrong form")
    for i, (x, a, n, t) in enumerate(zip(task.arrays, analytical, numerical, task.gc_want)):
        n = _as_array(n, "a numerical gradient")
        a = _as_array(a, "an analytical gradient")
        if n is None or n.shape != x.shape:
            raise TypeError("numerical gradient of the wrong shape")
        if a is None:
            if np.all(np.abs(n) <= DEFAULT_ATOL) and (t is None or np.all(np.abs(t) <= DEFAULT_ATOL)):
                continue
        ok = a is not None and a.shape == x.shape
        if ok:
            ok = bool(np.all(np.abs(a - n) <= tolerance(n)))
        if ok and t is not None:
            ok = bool(np.all(np.abs(a - t) <= tolerance(t)))
        if not ok:
            d = diagnosis.explain_gradient(op, task.case, i, x, a, n, inputs=task.arrays,
                                           upstream=task.gc_upstream, rtol=1e-4, atol=1e-6,
                                           wants=list(numerical),
                                           oracle=op_checks.oracle(op, task.case))
            raise CheckFailed(Fact("gradcheck-failed", {
                "row": op.name, "case": task.case.label, "index": i}), d)


def judge_engine(row: str, cases: list[engine_checks.EngineCase], answer) -> Outcome:
    """An engine row, judged here: what the worker's run of each case's program observed
    (data), handed to the case's own judge, as the notebook does (``runner.judge_engine_row``:
    the same facts and diagnoses); the learner's exception comes back as a stand-in."""
    if not isinstance(answer, list) or not answer:
        return Outcome(row, "engine", FAIL, "", Fact("crashed", {"error": "NoAnswer"}),
                       Diagnosis("crash"))
    seen = []
    for case, got in zip(cases, answer + [None] * len(cases), strict=False):
        got = got if isinstance(got, dict) and got.get("name") == case.name else {
            "error": {"type": "NoAnswer", "message": "the worker gave no answer for this case",
                      "stage": "engine", "frames": []}}
        observed = engine_checks.Seen(got.get("observed") or {})
        if got.get("error"):
            observed.error, _ = _surrogate(got["error"])
        seen.append(observed)
    return runner.judge_engine_row(row, cases, seen)


# ---------------------------------------------------------------- answers read as data
def _free_names(source: str) -> set[str]:
    """Names a cell reads that it does not assign (the kernel state it relies on)."""
    tree = ast.parse(source)
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Load)}
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)
              and isinstance(n.ctx, ast.Store)}
    imported = {(a.asname or a.name).split(".")[0] for n in ast.walk(tree)
                if isinstance(n, ast.Import | ast.ImportFrom) for a in n.names}
    return loaded - stored - imported - set(vars(builtins))


def judge_answer(cell: GradedCell, values: dict, solution: dict | None = None) -> bool:
    """The instructor's test cell (hidden tests included), run HERE on literal values only.

    A test that also reads what earlier cells computed (``x.shape``) cannot run outside the
    notebook: then the answers it reads are compared with the instructor's solution values."""
    free = _free_names(cell.source) - {"np"}
    if free - set(solution or {}) - set(values):
        used = free & set(solution or {})
        return bool(used) and all(
            k in values and type(values[k]) is type(solution[k]) and values[k] == solution[k]
            for k in used)
    namespace = {"np": np, "__builtins__": __builtins__, **copy.deepcopy(values)}
    try:
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            exec(compile(cell.source, f"<{cell.grade_id}>", "exec"), namespace)  # noqa: S102
    except Exception:  # noqa: BLE001 - an assert, NotImplementedError (unanswered)...
        return False
    return True


# ---------------------------------------------------------------- a tensor.py read, not run
def scan(source: str) -> list[str]:
    """What a tensor.py imports or names that it should not (flags for the instructor).

    Read, never run: imports of an autograd library, and names (identifiers, attributes,
    strings other than docstrings) that reach for the grader, the reference or the switch."""
    try:
        tree = ast.parse(source)
    except SyntaxError as err:
        return [f"tensor.py does not parse ({err.msg}, line {err.lineno})"]
    imported, words = set(), set()
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                                | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
            words |= {part for a in node.names for part in a.name.split(".")}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
            words |= set(node.module.split(".")) | {a.name for a in node.names}
        elif isinstance(node, ast.Name):
            words.add(node.id)
        elif isinstance(node, ast.Attribute):
            words.add(node.attr)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docstrings:
            words |= {w for w in SUSPICIOUS if w in node.value}
    flags = [f"imports {name} (an autograd library)"
             for name in sorted(imported & set(worker.AUTOGRAD))]
    flags += [f"uses {word!r} ({what})" for word, what in SUSPICIOUS.items() if word in words]
    return flags


NOTEBOOK_TRICKS = re.compile(  # in a notebook's code: switches off or replaces the graders
    r"NBGRADER_EXECUTION|MINITORCH_IMPL|sys\.path|__eq__|refuse_foreign_code"
    r"|\bcheck_(ops|engine)\s*=(?!=)|\.\s*check_(ops|engine)\s*=(?!=)")


def scan_notebooks(folder: Path) -> list[str]:
    """Code cells of the submitted notebooks that reach for the graders (flags: the record
    runs none of them, but the in-kernel feedback may have been fooled), and answer cells or
    notebooks too large for the grader to parse (``quiz.MAX_CELL_BYTES``, ``MAX_NOTEBOOK_BYTES``:
    scored as unreadable)."""
    flags = []
    for path in sorted(folder.glob("*.ipynb")):
        try:
            size = path.stat().st_size
            if size > quiz.MAX_NOTEBOOK_BYTES:
                flags.append(f"{path.stem}: {quiz.too_large(size, quiz.MAX_NOTEBOOK_BYTES, 'notebook')}")
                continue
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        for index, cell in enumerate(cells if isinstance(cells, list) else []):
            if not isinstance(cell, dict) or cell.get("cell_type") != "code":
                continue
            source = quiz.cell_source(cell)
            meta = cell.get("metadata")
            meta = meta.get("nbgrader") if isinstance(meta, dict) else None
            meta = meta if isinstance(meta, dict) else {}
            grade_id = meta.get("grade_id", f"cell {index}")
            size = len(source.encode("utf-8", errors="replace"))
            if meta.get("solution") and size > quiz.MAX_CELL_BYTES:
                flags.append(f"{path.stem}/{grade_id}: "
                             + quiz.too_large(size, quiz.MAX_CELL_BYTES, "answer cell"))
            found = NOTEBOOK_TRICKS.search(source)
            if found:
                flags.append(f"{path.stem}/{grade_id}: uses {found.group(0)!r}")
    return flags[:10]


# ---------------------------------------------------------------- one submission
@dataclass
class Record:
    """The record of one learner: scores per notebook and cell, and flags."""

    student: str
    seed: int
    cells: dict[str, dict[str, list[float]]] = field(default_factory=dict)  # nb -> id -> [s, max]
    failures: dict[str, str] = field(default_factory=dict)  # "nb/grade_id" -> why
    flags: list[str] = field(default_factory=list)
    seconds: float = 0.0
    tests_seconds: float = 0.0  # of ``seconds``: the learner's tests (learner_tests)
    problem: str = ""
    log: str = ""  # the end of the worker's stderr (what the learner's code printed)

    @property
    def total(self) -> tuple[float, float]:
        got = sum(s for nb in self.cells.values() for s, _ in nb.values())
        most = sum(m for nb in self.cells.values() for _, m in nb.values())
        return got, most


def grade_submission(folder: Path, student: str, plan_: Plan, wall: float = WALL,
                     budget: float = BUDGET, unsafe: bool = False) -> Record:
    """The record of one submission folder: the snapshot the class run took of
    submitted/<student>/<assignment>/ before any of its code ran (or that folder itself)."""
    rec = Record(student, plan_.seed)
    solutions = plan_.solutions
    tensor_file = folder / course.GRADED_FILE
    source = tensor_file.read_text(encoding="utf-8", errors="replace") \
        if tensor_file.is_file() else ""
    rec.flags += scan(source) if source else []
    rec.flags += scan_notebooks(folder)
    faked = {op: how for op, how in derivatives.finite_differences(source).items()
             if op in BY_NAME}  # their derivative suites score nothing
    rec.flags += [f"{op}: its backward {how} (finite differences)" for op, how in faked.items()]
    run = WorkerRun(problem=f"no {course.GRADED_FILE}") if not source \
        else run_worker(tensor_file, plan_, wall, budget, unsafe, folder / course.MLP_FILE)
    rec.seconds, rec.problem = run.seconds, run.problem
    results = run.results if isinstance(run.results, dict) else {}
    refused = results.get("refused") or []
    if isinstance(refused, list) and refused:
        rec.flags.append("tried to use " + ", ".join(sorted({str(r) for r in refused}))
                         + " while grading (refused)")
    denied = results.get("denied") or []
    if isinstance(denied, list) and denied:
        rec.flags.append("the grading sandbox refused: " + "; ".join(map(str, denied[:6])))
    elif "grading sandbox" in run.stderr:
        rec.flags.append("the grading sandbox refused something (see the worker's stderr)")
    said = {str(r).replace("\n", " ")[:300] for r in denied} | {f"import {r}" for r in refused} \
        if isinstance(denied, list) and isinstance(refused, list) else set()
    erased = [r for r in run.streamed if r not in said]
    if erased:  # written on stderr when refused, missing from the worker's answer
        rec.flags.append("refused while grading, then erased from the worker's record: "
                         + "; ".join(erased[:6]))
    rec.log = run.stderr[-2000:]
    if results.get("timed_out"):
        rec.flags.append("ran out of time in " + ", ".join(map(str, results["timed_out"])))
    if results.get("import_error"):
        e = results["import_error"]
        rec.problem = rec.problem or f"tensor.py does not import: {e.get('type')}: " \
                                     f"{str(e.get('message'))[:200]}"
    answers = {a.get("id"): a for a in results.get("tasks") or [] if isinstance(a, dict)}
    engine = results.get("engine") if isinstance(results.get("engine"), dict) else {}
    mlp_answers = results.get("mlp") if isinstance(results.get("mlp"), dict) else {}
    tests = learner_tests.TestsRecord()
    if plan_.test_labs:  # the learner's tests: their own sandboxed job
        tests = learner_tests.grade_tests(folder, plan_.impls, plan_.test_labs, unsafe)
        rec.seconds = round(rec.seconds + tests.seconds, 1)
        rec.tests_seconds = round(tests.seconds, 1)
        rec.flags += tests.flags + ([tests.problem] if tests.problem else [])

    reports: dict[str, RowReport] = {}

    def row_report(row: str, suites: tuple[str, ...]) -> RowReport:
        key = row + "|" + ",".join(suites)
        if key not in reports:
            try:
                reports[key] = judged(row, suites)
            except Exception as err:  # noqa: BLE001 - an answer no honest worker sends
                rec.flags.append(f"{row}: malformed answer from the worker "
                                 f"({type(err).__name__})")
                row_ = ENGINE_BY_NAME.get(row) or BY_NAME[row]
                reports[key] = RowReport(row, row_.lab, row_.points, row in ENGINE_BY_NAME, {
                    suites[0]: [Outcome(row, suites[0], FAIL, "", None, Diagnosis("crash"))]})
        return reports[key]

    def judged(row: str, suites: tuple[str, ...]) -> RowReport:
        if row in ENGINE_BY_NAME:
            outcome = judge_engine(row, plan_.engine[row], engine.get(row))
            e = ENGINE_BY_NAME[row]
            report = RowReport(row, e.lab, e.points, True, {"engine": [outcome]})
        else:
            op = BY_NAME[row]
            report = RowReport(row, op.lab, op.points, False, {})
            for suite in suites:
                if suite == "property":
                    ids = plan_.by_suite.get((row, "property"), [])
                    per = [judge_task(plan_.tasks[i], answers.get(i),
                                      ("backward", "gradcheck")) for i in ids]
                    outs = [o for d in per for o in d.values()]
                    bad = [o for o in outs if not o.passed]
                    report.suites["property"] = [Outcome(
                        row, "property", bad[0].status if bad else PASS,
                        f"{len(ids)} random examples", bad[0].fact if bad else None,
                        bad[0].diagnosis if bad else None)]
                    continue
                group = "broadcast" if suite == "broadcast" else "fixed"
                outs = []
                for i in plan_.by_suite.get((row, group), []):
                    outs.append(judge_task(plan_.tasks[i], answers.get(i), (suite,))[suite])
                    if outs[-1].status == NOT_STARTED:
                        break
                report.suites[suite] = outs
        return report

    for notebook, cells in plan_.cells.items():
        path = folder / f"{notebook}.ipynb"
        present = path.is_file()
        values, unreadable = literal_answers(path) if present else ({}, {})
        scores = rec.cells.setdefault(notebook, {})
        for cell in cells:
            earned = 0.0
            if not present:
                why = "notebook not handed in"
            elif cell.my_tests:
                fraction = 0.0 if tests.problem else tests.score(cell.my_tests)
                earned = round(cell.points * fraction, 2)
                why = tests.problem or ("" if earned == cell.points
                                        else tests.feedback(cell.my_tests))
            elif cell.mlp:
                findings = [judge_mlp(check, plan_, mlp_answers.get(check))
                            for check in cell.mlp]
                if not source:
                    why = f"no {course.GRADED_FILE}"
                else:
                    why = "; ".join(f.message() for f in findings if not f.passed)
                earned = 0.0 if why else cell.points
            elif cell.checks:
                problems = []
                for check in cell.checks:
                    for row in check.rows:
                        report = row_report(row, check.suites)
                        first = report.first_problem
                        if row in faked and set(check.suites) & set(DERIVATIVE_SUITES):
                            problems.append(say("record-finite-differences", row=row))
                        elif first is not None:
                            problems.append(f"{row}: {first.status} ({first.case})")
                if run.problem and not answers and not engine:
                    problems.insert(0, run.problem)
                why = "; ".join(problems)
                earned = 0.0 if problems else cell.points
            else:
                ok = judge_answer(cell, values, solutions.get(notebook, {}))
                why = "" if ok else ("; ".join(f"{k}: {v}" for k, v in unreadable.items())
                                     or "wrong or unanswered")
                earned = cell.points if ok else 0.0
            scores[cell.grade_id] = [earned, cell.points]
            if why:
                rec.failures[f"{notebook}/{cell.grade_id}"] = why
    return rec


# ---------------------------------------------------------------- the gradebook
def write_gradebook(course_dir: Path, rec: Record) -> list[str]:
    """Write the record's scores as nbgrader auto scores; returns flags: in-kernel scores
    above the record's (what a notebook hack would show)."""
    from nbgrader.api import Gradebook, MissingEntry
    from sqlalchemy.exc import SAWarning

    flags = []
    url = f"sqlite:///{course_dir / 'gradebook.db'}"
    with Gradebook(url, course_id=course.COURSE_ID) as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)
        gb.update_or_create_student(rec.student)
        try:
            gb.find_submission(course.ASSIGNMENT, rec.student)
        except MissingEntry:
            gb.update_or_create_submission(course.ASSIGNMENT, rec.student)
        for notebook, cells in rec.cells.items():
            for grade_id, (score, _) in cells.items():
                try:
                    grade = gb.find_grade(grade_id, notebook, course.ASSIGNMENT, rec.student)
                except MissingEntry:
                    continue
                if grade.auto_score is not None and grade.auto_score > score:
                    flags.append(f"{notebook}/{grade_id}: the kernel scored "
                                 f"{grade.auto_score:g}, the record {score:g}")
                grade.auto_score = score
                if grade.manual_score is None:
                    grade.needs_manual_grade = False
        gb.db.commit()
    return flags


def feedback_cell(rec: Record, notebook: str) -> dict:
    """The Markdown cell put at the top of an autograded notebook (its feedback page)."""
    lines = [f"**{say('record-header', seed=rec.seed, command=CHECK_COMMAND)}**", ""]
    for grade_id, (score, points) in rec.cells.get(notebook, {}).items():
        why = rec.failures.get(f"{notebook}/{grade_id}", "")
        lines.append(say("record-cell", cell=grade_id, score=score, points=points)
                     + (f" — {why}" if why and score < points else ""))
    return {"cell_type": "markdown", "metadata": {"minitorch_record": True},
            "source": "\n".join(lines)}


def annotate_feedback(course_dir: Path, rec: Record) -> None:
    """Put the record (seed and scores) at the top of each autograded notebook, which nbgrader's
    generate_feedback turns into the learner's feedback page."""
    folder = course_dir / "autograded" / rec.student / course.ASSIGNMENT
    for notebook in rec.cells:
        path = folder / f"{notebook}.ipynb"
        if not path.is_file():
            continue
        nb = json.loads(path.read_text(encoding="utf-8"))
        nb["cells"] = [c for c in nb["cells"]
                       if not c.get("metadata", {}).get("minitorch_record")]
        nb["cells"].insert(0, feedback_cell(rec, notebook))
        path.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")


# ---------------------------------------------------------------- the class
def new_seed() -> int:
    """A grading seed chosen now (nobody can know it when writing tensor.py)."""
    return secrets.randbelow(2**31 - 1) + 1


def record_class(course_dir: Path, students: list[str] | None = None, seed: int | None = None,
                 budget: float = BUDGET, skip: dict[str, set[str]] | None = None,
                 log=print, snapshots: dict[str, Path] | None = None,
                 unsafe: bool = False) -> tuple[int, list[Record], Path]:
    """Grade every learner of ``submitted/`` (or ``students``) for the record, in one call;
    writes the gradebook, the feedback cells and ``reports/record-<time>.{txt,json}``.
    ``skip``: {student: notebooks} left alone (flagged for manual grading by the class run).
    ``budget``: seconds of each worker's clock for all its cases. ``snapshots``: {student:
    the folder the class run copied before running anything} graded instead of submitted/.
    Each worker runs in the OS sandbox (``minitorch_grading.sandbox``); ``unsafe``: without."""
    course_dir = course_dir.expanduser().resolve()
    if not unsafe:
        sandbox.check()  # before planning: a missing sandbox is said at once
    seed = new_seed() if seed is None else int(seed)
    cells = graded_cells(course_dir / "source" / course.ASSIGNMENT)
    start = time.monotonic()
    plan_ = plan(cells, seed, course_dir / "source" / course.ASSIGNMENT)
    log(f"record: seed {seed}, {len(plan_.tasks)} cases planned in "
        f"{time.monotonic() - start:.0f} s")
    submitted = course_dir / "submitted"
    names = students if students is not None else sorted(
        p.name for p in submitted.iterdir() if p.is_dir()) if submitted.is_dir() else []
    records = []
    with tempfile.TemporaryDirectory(prefix="minitorch-record-") as taken:
        for i, student in enumerate(names, 1):
            folder = (snapshots or {}).get(student) or _snapshot(
                submitted / student / course.ASSIGNMENT, Path(taken) / student)
            rec = grade_submission(folder, student, plan_, WALL, budget, unsafe)
            write_record(course_dir, rec, (skip or {}).get(student, ()))
            got, most = rec.total
            log(f"[{i}/{len(names)}] {student}: record {got:g}/{most:g} in {rec.seconds:.0f} s"
                + (f" (the tests' job {rec.tests_seconds:.0f} s)" if rec.tests_seconds else "")
                + (f"; FLAGGED: {'; '.join(rec.flags)}" if rec.flags else ""))
            records.append(rec)
    path = write_report(course_dir, seed, records, time.monotonic() - start)
    return seed, records, path


def _snapshot(folder: Path, dest: Path) -> Path:
    """A copy of a submission folder without links (``job.snapshot``); an unreadable one
    grades as missing."""
    from minitorch_grading.job import snapshot

    try:
        snapshot(folder, dest)
    except (OSError, RuntimeError):
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True, exist_ok=True)
    return dest


def write_record(course_dir: Path, rec: Record, manual: Iterable[str] = ()) -> None:
    """One learner's scores of record written into ``course_dir``: its gradebook's cells and
    the feedback cells of its autograded notebooks. The notebooks in ``manual`` (flagged for
    a human by the class run) are left alone; a course without a gradebook gets nothing."""
    for notebook in manual:
        rec.cells.pop(notebook, None)
    if (course_dir / "gradebook.db").is_file():
        rec.flags += write_gradebook(course_dir, rec)
        annotate_feedback(course_dir, rec)


def report_text(seed: int, records: list[Record], seconds: float) -> str:
    lines = [f"Scores of record of {course.ASSIGNMENT}: {len(records)} submissions in "
             f"{seconds:.0f} s, seed {seed} ({CHECK_COMMAND} --seed {seed} reproduces a case)", ""]
    for rec in records:
        got, most = rec.total
        lines.append(f"{rec.student}: {got:g}/{most:g}"
                     + (f"  [worker: {rec.problem}]" if rec.problem else ""))
        for flag in rec.flags:
            lines.append(f"  FLAG {flag}")
    flagged = [r.student for r in records if r.flags]
    lines += ["", f"Flagged for the instructor ({len(flagged)}): {', '.join(flagged) or '-'}"]
    return "\n".join(lines) + "\n"


def write_report(course_dir: Path, seed: int, records: list[Record], seconds: float) -> Path:
    folder = course_dir / REPORTS
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = folder / f"record-{stamp}.txt"
    path.write_text(report_text(seed, records, seconds), encoding="utf-8")
    path.with_suffix(".json").write_text(json.dumps(
        {"seed": seed, "seconds": round(seconds, 1),
         "submissions": [asdict(r) for r in records]}, indent=1), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    """``python -m minitorch_grading.record``: the record of every submission."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m minitorch_grading.record",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--course-dir", type=Path, default=course.COURSE_DIR)
    parser.add_argument("--seed", type=int, default=None, help="default: chosen now")
    parser.add_argument("--student", action="append", help="only these learners")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="run learner code without the OS sandbox (never for a real class)")
    args = parser.parse_args(argv)
    try:
        seed, records, path = record_class(args.course_dir, args.student, args.seed,
                                           unsafe=args.unsafe_no_sandbox)
    except sandbox.SandboxUnavailable as err:
        raise SystemExit(f"refusing to grade: {err}") from None
    print(report_text(seed, records, 0.0), end="")
    print(f"report: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
