"""The class-run benchmark (``make class-bench``): 40 submissions graded by ``classrun autograde``.

Builds a course in a temporary directory (or ``--course-dir``), generates the release, writes
``--learners`` submissions of five kinds (honest, partial, hostile, looping, malformed; the mix
is ``KINDS`` below, scaled to the number asked), grades them all with the course's command
(``python -m minitorch_grading.classrun autograde``, the instructor's, in a subprocess) and prints
the wall time, the load average and the report, once serially (``--serial``) and once in
parallel (a local Dask cluster, one worker per core: ``minitorch_grading.parallel``) on two
copies of the same class, then the speed-up and a simulated scaling table: the measured
per-learner job times, repeated to 400 and 2,000 learners, handed out in learner order to N
workers (each job on the first worker free, as Dask does with one thread per worker). Not a
timed test: the goals (under 30 minutes for 40 learners on a 2-core machine; parallel at least
1.7 x the serial speed) are checked by reading its output; benchmarks/README.md records a run.

    python benchmarks/class_run.py                      # 40 learners, budget 60 s, both modes
    python benchmarks/class_run.py --learners 10 --budget 30 --keep /tmp/classrun
    python benchmarks/class_run.py --modes parallel --workers 4
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from minitorch_authoring.repository import MLP_REFERENCE, REFERENCE, ROOT
from minitorch_grading import course
from minitorch_grading.job import PARTS

sys.path.insert(0, str(ROOT / "tests"))  # the suites' submission helpers, not duplicated
from conftest import Submissions  # noqa: E402

ASSIGNMENT = course.ASSIGNMENT
PROOF_SETS = ROOT / "solutions" / "learner_tests"  # honest learners hand in the model tests
ADD = 'return Tensor._make(self.data + other.data, (self, other), "add", _backward)'
MUL = 'return Tensor._make(a * b, (self, other), "mul", _backward)'
# a topological sort that never ends: a visited node is pushed back instead of skipped (any
# graph where a node is reached twice, e.g. x * x, loops; the memory used stays the same)
TOPO = ("            if id(node) in visited:\n                continue\n",
        "            if id(node) in visited:\n                stack.append((node, parents_done))\n"
        "                continue\n")
TANH = ("return (g * (1.0 - t * t),)", "return (g * (1.0 - t),)")


def _loop_before(line: str) -> str:
    return f"while True:\n            pass\n        {line}"


# kind -> (share of the class, variants); each variant: (name, tensor.py, notebook edits and
# "tests": the proof set of learner tests handed in, graded by the score of record)
def kinds(reference: str, stub: str) -> dict[str, tuple[int, list[tuple[str, str, dict]]]]:
    """The mix of a class of 40: variants cycle within each kind."""
    return {
        "honest": (14, [("ref", reference, {"answered": True, "tests": "model"})]),
        "partial": (8, [
            ("tanh-mistake", reference.replace(*TANH), {"answered": True, "tests": "weak"}),
            ("labs-0-3", reference, {"answered": True,
                                     "only": ("00-", "01-", "02-", "03-")}),
            ("stub-quiz", stub, {"answered": True}),
        ]),
        "hostile": (6, [
            ("exit-kernel", reference.replace(MUL, "import os; os._exit(3)\n        " + MUL),
             {"answered": True}),
            ("stderr-spam", reference + "\nimport sys\n\nsys.stderr.write('x' * 100000)\n",
             {"answered": True}),
            ("syntax-error", reference.replace("def add(", "def add(((", 1),
             {"answered": True}),
        ]),
        "looping": (5, [
            ("loop-add", reference.replace(ADD, _loop_before(ADD)), {"answered": True}),
            ("loop-topo", reference.replace(*TOPO), {"answered": True}),
        ]),
        "malformed": (7, [
            ("renamed-grade-id", reference, {"answered": True,
                                             "edit": ("01-", "check_add", "rename")}),
            ("markdown-cell", reference, {"answered": True,
                                          "edit": ("02-", None, "markdown")}),
            ("flipped-grade", reference, {"answered": True,
                                          "edit": ("07-", "test_01", "flip")}),
            ("not-json", reference, {"answered": True, "edit": ("03-", None, "garbage")}),
            ("no-tensor-py", None, {"answered": True}),
        ]),
    }


def _edit(path: Path, grade_id: str | None, how: str) -> None:
    if how == "garbage":
        path.write_text('{"cells": [', encoding="utf-8")
        return
    nb = json.loads(path.read_text(encoding="utf-8"))
    graded = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade")]
    cell = next(c for c in graded if grade_id in (None, c["metadata"]["nbgrader"]["grade_id"]))
    meta = cell["metadata"]["nbgrader"]
    if how == "rename":
        meta["grade_id"] += "_mine"
    elif how == "flip":
        meta["grade"] = not meta["grade"]
    elif how == "markdown":
        cell["cell_type"] = "markdown"
        cell.pop("outputs", None)
        cell.pop("execution_count", None)
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False), encoding="utf-8")


def submit(course_dir: Path, release: Path, student: str, tensor: str | None, spec: dict) -> None:
    """One learner's folder in submitted/."""
    dest = course_dir / "submitted" / student / ASSIGNMENT
    shutil.copytree(release, dest)
    for nb in sorted(dest.glob("*.ipynb")):
        if "only" in spec and not nb.name.startswith(spec["only"]):
            nb.unlink()
        elif spec.get("answered"):
            nb.write_text(Submissions.answered(nb, course.SOURCE_NOTEBOOKS / nb.name), encoding="utf-8")
    if tensor is None:
        (dest / course.GRADED_FILE).unlink()
    else:
        (dest / course.GRADED_FILE).write_text(tensor, encoding="utf-8")
    if "tests" in spec:  # the learner's own tests (issue 29): a proof set of solutions/
        for path in sorted((PROOF_SETS / spec["tests"]).glob("test_*.py")):
            shutil.copyfile(path, dest / "my_tests" / path.name)
    if tensor == REFERENCE.read_text(encoding="utf-8"):  # the whole answer: mlp.py too
        shutil.copy(MLP_REFERENCE, dest / course.MLP_FILE)
    if "edit" in spec:
        prefix, grade_id, how = spec["edit"]
        _edit(next(dest.glob(f"{prefix}*.ipynb")), grade_id, how)


def make_class(course_dir: Path, learners: int) -> dict[str, str]:
    """Generate the release and ``learners`` submissions; returns {student: kind/variant}."""
    release = course.generate_assignment(course_dir)
    reference = REFERENCE.read_text(encoding="utf-8")
    stub = (release / course.GRADED_FILE).read_text(encoding="utf-8")
    mix = kinds(reference, stub)
    for old in (ADD, MUL, TOPO[0], TANH[0]):
        assert old in reference, f"the benchmark's edit no longer applies: {old!r}"
    total = sum(share for share, _ in mix.values())
    made: dict[str, str] = {}
    for kind, (share, variants) in mix.items():
        count = max(1, round(share * learners / total))
        for i in range(count):
            name, tensor, spec = variants[i % len(variants)]
            student = f"{kind}-{i + 1:02d}"
            submit(course_dir, release, student, tensor, spec)
            made[student] = f"{kind}/{name}"
    return made


LOAD_EVERY = 30  # seconds between load-average samples during the run


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _sample_load(into: list[float]) -> None:
    while True:
        into.append(os.getloadavg()[0])
        time.sleep(LOAD_EVERY)


COLUMNS = (*PARTS, "total")  # the report's and the progress lines' parts of a learner's job


def _seconds(result: dict, clock: str, part: str) -> float:
    """A learner's ``clock`` ("wall" or "cpu") seconds in ``part`` of their job (the report's
    JSON: ``classrun.LearnerResult``), or in all of it ("total")."""
    by_part = result.get(clock) or {}
    return sum(by_part.values()) if part == "total" else by_part.get(part, 0.0)


def per_kind(course_dir: Path, made: dict[str, str]) -> str:
    """Wall / CPU seconds per learner, by kind/variant and by part of the job (nbgrader, the
    scores of record, the learner's tests, the total: the same parts as the report and the
    progress lines), each a range over the variant's learners, from the JSON report."""
    reports = sorted((course_dir / "reports").glob("autograde-*.json"))
    if not reports:
        return "no report written"
    rows: dict[str, list[dict]] = {}
    for o in json.loads(reports[-1].read_text(encoding="utf-8"))["submissions"]:
        rows.setdefault(made.get(o["student"], "?"), []).append(o)

    def span(group: list[dict], clock: str, part: str) -> str:
        values = [_seconds(o, clock, part) for o in group]
        low, high = round(min(values)), round(max(values))
        return f"{low}" if low == high else f"{low}-{high}"

    lines = [f"{'kind/variant':22} {'n':>2} " + " ".join(f"{c + ' s':>15}" for c in COLUMNS)
             + "  status", f"{'':25} " + " ".join(f"{'wall / CPU':>15}" for _ in COLUMNS)]
    for name, group in sorted(rows.items()):
        cells = [f"{span(group, 'wall', c)} / {span(group, 'cpu', c)}" for c in COLUMNS]
        status = ", ".join(sorted({o["status"] for o in group}))
        lines.append(f"{name:22} {len(group):>2} " + " ".join(f"{c:>15}" for c in cells)
                     + f"  {status}")
    return "\n".join(lines)


def job_seconds(course_dir: Path) -> list[float]:
    """Each learner's whole job (nbgrader, record, tests: wall time), in learner order, from
    the report."""
    reports = sorted((course_dir / "reports").glob("autograde-*.json"))
    data = json.loads(reports[-1].read_text(encoding="utf-8"))["submissions"]
    return [_seconds(o, "wall", "total") for o in data]


def simulate(jobs: list[float], learners: int, workers: int) -> float:
    """Wall seconds for ``learners`` (the measured ``jobs`` repeated) on ``workers``: each job
    starts on the first worker free, in learner order."""
    free = [0.0] * workers
    for i in range(learners):
        heapq.heapreplace(free, free[0] + jobs[i % len(jobs)])
    return max(free)


def scaling_table(jobs: list[float], sizes=(40, 400, 2000),
                  workers=(1, 2, 4, 8, 16, 32, 64)) -> str:
    """Markdown: simulated wall time by class size and workers (one core each)."""
    def hm(seconds: float) -> str:
        minutes = round(seconds / 60)
        return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"

    lines = ["| learners | " + " | ".join(f"{w} worker{'s' * (w > 1)}" for w in workers) + " |",
             "|---:|" + "---:|" * len(workers)]
    for n in sizes:
        lines.append(f"| {n} | " + " | ".join(hm(simulate(jobs, n, w)) for w in workers) + " |")
    return "\n".join(lines)


def grade(course_dir: Path, budget: float, mode: str, workers: int | None) -> tuple[float, int]:
    """One class run of ``course_dir`` (``mode`` serial or parallel): wall seconds, exit code.
    This checkout's class run (``PYTHONPATH``), whatever checkout the environment installs."""
    how = ["--serial"] if mode == "serial" else (["--workers", str(workers)] if workers else [])
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "minitorch_grading.classrun", "autograde",
                           "--course-dir", str(course_dir), "--budget", f"{budget:g}", *how],
                          env={**course.grading_env(), "PYTHONPATH": str(ROOT / "src")})
    return time.monotonic() - start, proc.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=40)
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--keep", type=Path, help="course directory to build and keep")
    parser.add_argument("--modes", default="serial,parallel",
                        help="serial, parallel or both (default), each on its own copy")
    parser.add_argument("--workers", type=int, default=None,
                        help="the parallel run's local workers (default: every core)")
    args = parser.parse_args(argv)
    tmp = None
    if args.keep:
        course_dir = args.keep.resolve()
        if course_dir.exists():
            raise SystemExit(f"{course_dir} exists: choose a new directory for --keep")
    else:
        tmp = tempfile.TemporaryDirectory(prefix="class-bench-")
        course_dir = Path(tmp.name) / "course"
    try:
        start = time.monotonic()
        made = make_class(course_dir, args.learners)
        setup = time.monotonic() - start
        print(f"{len(made)} submissions written in {setup:.0f} s: "
              + ", ".join(f"{k}: {sum(v.startswith(k + '/') for v in made.values())}"
                          for k in ("honest", "partial", "hostile", "looping", "malformed")))
        modes = [m for m in args.modes.split(",") if m]
        copies = {}
        for mode in modes:  # the same class, once per mode
            copies[mode] = course_dir.with_name(f"{course_dir.name}-{mode}")
            shutil.copytree(course_dir, copies[mode])
        walls = {}
        for mode in modes:
            load = os.getloadavg()
            loads: list[float] = []
            sampler = threading.Thread(target=_sample_load, args=(loads,), daemon=True)
            cpu = _children_cpu()
            sampler.start()
            seconds, code = grade(copies[mode], args.budget, mode, args.workers)
            cpu = _children_cpu() - cpu
            walls[mode] = seconds
            load_after = os.getloadavg()
            loads.append(load_after[0])
            print(f"\n{mode} class run of {len(made)} learners: {seconds:.0f} s "
                  f"({seconds / 60:.1f} min) of wall time, {seconds / len(made):.0f} s per "
                  f"learner, budget {args.budget:g} s, exit {code}; {os.cpu_count()} cores, "
                  f"load average {load[0]:.1f} before, during {min(loads):.1f}-{max(loads):.1f} "
                  f"(mean {sum(loads) / len(loads):.1f}, 1-min samples every {LOAD_EVERY} s), "
                  f"{load_after[0]:.1f} / {load_after[1]:.1f} / {load_after[2]:.1f} after "
                  f"(1/5/15 min); CPU of waited children {cpu:.0f} s")
            print(per_kind(copies[mode], made))
        if "serial" in walls and "parallel" in walls:
            print(f"\nspeed-up, parallel over serial: {walls['serial'] / walls['parallel']:.2f} x")
        jobs = job_seconds(copies["serial" if "serial" in copies else modes[0]])
        print(f"\nsimulated scaling (the {len(jobs)} measured jobs, mean {sum(jobs) / len(jobs):.0f} "
              f"s, repeated; one core per worker):\n{scaling_table(jobs)}")
        print("kinds: " + json.dumps(made))
        return 0
    finally:
        if tmp is not None:
            for mode in ("serial", "parallel"):
                shutil.rmtree(course_dir.with_name(f"{course_dir.name}-{mode}"),
                              ignore_errors=True)
            tmp.cleanup()


if __name__ == "__main__":
    sys.exit(main())
