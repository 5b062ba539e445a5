"""The sandboxed worker run: the submission's tensor.py (and mlp.py) on every task of the plan,
in a job of its own; its answers come back as data."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from minitorch_course import runner
from minitorch_course.worker import main as worker
from minitorch_grading import sandbox
from minitorch_grading.job import Job
from minitorch_grading.record.planning import MLP_SECONDS, Plan

SRC = Path(__file__).resolve().parents[2]  # src/: the course-provided packages
WALL = 180.0  # seconds a worker may take for a whole submission (the reference takes a few)
WORKER_BUDGET = 60.0  # seconds of the worker's own clock for all its tasks; then the rest is not run
TASK_SECONDS = 10.0  # one case (one engine row): an endless loop costs this once per row


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
               budget: float = WORKER_BUDGET, unsafe: bool = False,
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

