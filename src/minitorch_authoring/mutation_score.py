"""``make mutation-score``: how strong the graded checks are, measured with Cosmic Ray.

Cosmic Ray (https://github.com/sixty-north/cosmic-ray, a maintained mutation-testing tool on
PyPI) generates every mutant of a COPY of ``solutions/tensor.py`` (the reference is never
touched); the mutants outside the fenced solution regions (``### BEGIN SOLUTION`` ... ``### END
SOLUTION``, what a learner writes) are marked skipped before any runs. Each mutant is then
judged by ``judge_source``: it finds the function the mutation sits in and runs the checks the
graded notebook cells run (``runner.run`` with ``runner.GRADED_SUITES``, as
``grading.check_ops`` does) on that op's rows plus the engine rows (a mutant of the engine
itself, which every graded cell runs, that survives those meets every op's rows too). Killed =
some row fails. The judge runs in a process forked from one that has imported torch and the
course (about 1 s a mutant instead of 5 for a fresh interpreter; ``judge FILE`` is the same
judge as a command); Cosmic Ray generates the mutants, keeps the session and makes the diffs.

A survivor is equivalent when it agrees with the reference (rtol = atol = 1e-7, the fuzzer's
tolerance) on at least EQUIVALENCE_PROGRAMS random programs of ``minitorch_authoring.fuzz`` that
each contain the mutated op (any op for the engine's own functions).

    python -m minitorch_authoring.mutation_score run        # init (once), filter, judge (resumes)
    python -m minitorch_authoring.mutation_score report     # kill rates; fuzzes the survivors
    python -m minitorch_authoring.mutation_score judge FILE # one mutant, in its own interpreter
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from minitorch_authoring import repository
from minitorch_course import runner
from minitorch_course.catalog import BY_NAME, ENGINE_ROWS, OPS

WORKDIR = runner.ROOT / "build" / "mutation-score"
SESSION = "session.sqlite"
CONFIG = "cosmic-ray.toml"
MUTANT_FILE = "tensor.py"
TIMEOUT = 120.0  # seconds per mutant (a judge takes 1-5 s); one that hangs counts as killed
EQUIVALENCE_PROGRAMS = 10_000
EQUIVALENCE_CACHE = "equivalence.json"  # survivor job id -> fuzzed programs, differences
BEGIN, END = repository.SOLUTION


# ---------------------------------------------------------------- where a mutation sits
def fenced_lines(source: str) -> set[int]:
    """1-based numbers of the lines inside the fenced solution regions."""
    inside, lines = False, set()
    for number, line in enumerate(source.splitlines(), start=1):
        if line.strip() == BEGIN:
            inside = True
        elif line.strip() == END:
            inside = False
        elif inside:
            lines.add(number)
    return lines


def functions(source: str) -> list[tuple[int, int, str]]:
    """(first line, last line, qualified name) of every top-level function and method."""
    found = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            found.append((node.lineno, node.end_lineno, node.name))
        elif isinstance(node, ast.ClassDef):
            found += [(f.lineno, f.end_lineno, f"{node.name}.{f.name}") for f in node.body
                      if isinstance(f, ast.FunctionDef)]
    return found


def function_at(source: str, line: int) -> str:
    return next((name for first, last, name in functions(source) if first <= line <= last), "")


def rows_for(function: str) -> list[str]:
    """The rows judging a mutant of ``function``: its op's rows, then the engine rows."""
    method = function.rsplit(".", 1)[-1]
    return [op.name for op in OPS if op.method == method] + [row.name for row in ENGINE_ROWS]


def is_engine(function: str) -> bool:
    """True for the engine's own functions (backward, the topological order, unbroadcast):
    every op's graded cell runs them, so all the rows judge their mutants."""
    return not any(op.method == function.rsplit(".", 1)[-1] for op in OPS)


def changed_line(original: str, mutant: str) -> int:
    """The first line of ``original`` the mutant changes (1-based)."""
    matcher = difflib.SequenceMatcher(None, original.splitlines(), mutant.splitlines(),
                                      autojunk=False)
    for tag, i1, _, _, _ in matcher.get_opcodes():
        if tag != "equal":
            return i1 + 1
    raise ValueError("the mutant does not differ from the reference")


# ---------------------------------------------------------------- judging one mutant
def judge(path: Path) -> int:
    """Exit status for Cosmic Ray: 1 when a graded check fails on the mutant, else 0."""
    return judge_source(path.read_text(encoding="utf-8"))


def judge_source(source: str) -> int:
    """1 when a graded check fails on the mutant ``source``, else 0 (what ``judge`` prints)."""
    original = runner.REFERENCE_FILE.read_text(encoding="utf-8")
    function = function_at(original, changed_line(original, source))
    names = rows_for(function)
    try:
        impl = runner.load_impl(source=source, name="cosmic_ray_mutant")
    except Exception as err:  # the mutant does not even import: caught at the first cell
        print(f"{function}: the mutant does not load: {err!r}")
        return 1
    failing = []
    batches = [names]
    if is_engine(function):  # the engine rows first; only a survivor of those meets the rest
        batches.append([op.name for op in OPS])
    for batch in batches:
        for report in runner.run(batch, impl, runner.GRADED_SUITES):
            if report.status != runner.PASS:
                first = report.first_failure
                failing.append(f"{report.row}: "
                               f"{first.kind or first.status if first else 'pending'}")
        print(f"{function}: rows {', '.join(batch)}")
        if failing:
            break
    print(f"failing: {'; '.join(failing) or 'none'}")
    return 1 if failing else 0


# ---------------------------------------------------------------- a session
def _cosmic_ray(*args: str, cwd: Path) -> None:
    """Run Cosmic Ray's command line in ``cwd``."""
    cli = Path(sys.executable).with_name("cosmic-ray")
    subprocess.run([str(cli), *args], cwd=cwd, check=True)


def init(workdir: Path, timeout: float) -> None:
    """A fresh session: the copy, the configuration, every mutant, the unfenced ones skipped."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    workdir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(runner.REFERENCE_FILE, workdir / MUTANT_FILE)
    src = runner.ROOT / "src"
    command = (f"env PYTHONPATH={src} MINITORCH_IMPL=reference {sys.executable} "
               f"-m minitorch_authoring.mutation_score judge {MUTANT_FILE}")
    (workdir / CONFIG).write_text(
        "[cosmic-ray]\n"
        f'module-path = "{MUTANT_FILE}"\n'
        f"timeout = {timeout}\n"
        "excluded-modules = []\n"
        f"test-command = {json.dumps(command)}\n\n"
        '[cosmic-ray.distributor]\nname = "local"\n', encoding="utf-8")
    (workdir / SESSION).unlink(missing_ok=True)
    _cosmic_ray("init", CONFIG, SESSION, cwd=workdir)
    fenced = fenced_lines(runner.REFERENCE_FILE.read_text(encoding="utf-8"))
    with use_db(str(workdir / SESSION), WorkDB.Mode.open) as db:
        for item in db.work_items:
            first, last = item.mutations[0].start_pos[0], item.mutations[0].end_pos[0]
            if not set(range(first, last + 1)) <= fenced:
                db.set_result(item.job_id, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))


def _judge_in_child(source: str, conn) -> None:
    """The forked child: judge ``source``, send (exit status, printed text), exit."""
    import contextlib
    import io

    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            status = judge_source(source)
    except BaseException as err:  # noqa: BLE001 - a crash while judging kills the mutant
        status, out = 1, io.StringIO(f"the judge raised {err!r}")
    conn.send((status, out.getvalue()[-4000:]))
    conn.close()


def mutate_and_judge(original: str, item, timeout: float):
    """Cosmic Ray's ``mutate_and_test`` for one mutation, with the judge run in a process
    FORKED from this one (which has imported numpy, torch and the course already, without
    running an op) instead of a fresh interpreter per mutant: same checks, same isolation of
    the mutant's state, about a second instead of five. A judge still running after
    ``timeout`` seconds is killed, and the mutant counts as killed, as in Cosmic Ray."""
    import multiprocessing

    from cosmic_ray.mutating import _make_diff
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    (m,) = item.mutations
    try:
        mutated = mutant_source(m.operator_name, m.occurrence, dict(m.operator_args or {}))
    except Exception:  # noqa: BLE001 - as Cosmic Ray: the mutation machinery failed
        import traceback
        return WorkResult(output=traceback.format_exc(), test_outcome=TestOutcome.INCOMPETENT,
                          worker_outcome=WorkerOutcome.EXCEPTION)
    if mutated is None:
        return WorkResult(worker_outcome=WorkerOutcome.NO_TEST)
    receive, send = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(target=_judge_in_child,
                                                        args=(mutated, send), daemon=True)
    child.start()
    send.close()
    if receive.poll(timeout):
        try:
            status, output = receive.recv()
        except EOFError:  # the child died without a word (a crash in C code): killed
            status, output = 1, f"the judge process died (exit code {child.exitcode})"
    else:
        child.kill()
        status, output = 1, "timeout"
    child.join()
    receive.close()
    outcome = TestOutcome.KILLED if status else TestOutcome.SURVIVED
    diff = "\n".join(_make_diff(original, mutated, Path(MUTANT_FILE)))
    return WorkResult(output=output, diff=diff, test_outcome=outcome,
                      worker_outcome=WorkerOutcome.NORMAL)


def run(workdir: Path, timeout: float, fresh: bool, seed: int = 0, limit: int | None = None,
        survivors: bool = False) -> None:
    """Judge the pending mutants in a seeded random order, one at a time (see
    ``mutate_and_judge``): stopped early, the mutants judged so far are a uniform sample of all
    of them, and a later ``run`` resumes where it stopped. ``survivors``: judge the survivors
    again instead (after checks were added: the session was made from the same reference)."""
    import random

    import torch  # noqa: F401 - imported once here, inherited by every forked judge
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome

    if fresh or not (workdir / SESSION).exists():
        init(workdir, timeout)
    original = runner.REFERENCE_FILE.read_text(encoding="utf-8")
    if (workdir / MUTANT_FILE).read_text(encoding="utf-8") != original:
        raise SystemExit(f"{workdir / SESSION} was made from another solutions/tensor.py: "
                         "start a new session with `mutation_score run --fresh`")
    start = time.perf_counter()
    with use_db(str(workdir / SESSION), WorkDB.Mode.open) as db:
        if survivors:
            pending = [item for item, result in db.completed_work_items
                       if result.test_outcome == TestOutcome.SURVIVED]
        else:
            pending = list(db.pending_work_items)
        random.Random(seed).shuffle(pending)
        for done, item in enumerate(pending[:limit], start=1):
            result = mutate_and_judge(original, item, timeout)
            db.set_result(item.job_id, result)
            m = item.mutations[0]
            print(f"{done}/{len(pending)} {time.perf_counter() - start:7.0f}s line "
                  f"{m.start_pos[0]} {m.operator_name} #{m.occurrence}: "
                  f"{result.test_outcome}", flush=True)


# ---------------------------------------------------------------- figures
def results(workdir: Path) -> tuple[list[dict], int]:
    """One dict per judged mutant (skipped ones left out), and how many are still pending."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome

    judged = []
    with use_db(str(workdir / SESSION), WorkDB.Mode.open) as db:
        pending = sum(1 for _ in db.pending_work_items)
        for item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            m = item.mutations[0]
            judged.append({"job": item.job_id, "operator": m.operator_name,
                           "occurrence": m.occurrence, "line": m.start_pos[0],
                           "args": dict(m.operator_args or {}),
                           "killed": result.is_killed, "outcome": str(result.test_outcome),
                           "diff": result.diff or "", "output": result.output or ""})
    return judged, pending


def focus_of(function: str) -> list:
    """The rows a survivor's fuzzed programs must contain (none: any program)."""
    return [op for op in OPS if op.method == function.rsplit(".", 1)[-1]]


def mutant_source(operator: str, occurrence: int, args: dict) -> str:
    from cosmic_ray.mutating import mutate_code
    from cosmic_ray.plugins import get_operator

    source = runner.REFERENCE_FILE.read_text(encoding="utf-8")
    return mutate_code(source, get_operator(operator)(**args), occurrence)


def fuzz_survivors(sources: dict[str, str], programs: int, focus: list | None
                   ) -> dict[str, dict]:
    """Run ``programs`` random programs (each containing one of ``focus``, if given) on the
    reference and on every survivor's source in ``sources``; per survivor (key): programs run, how many give
    a value or gradient that differs from the reference's (rtol = atol = 1e-7, the fuzzer's
    tolerance), and the first such program. A program the reference itself raises on is not
    counted. One program serves every survivor of the group, so the cost is one Hypothesis draw
    and one reference run per program, plus one run per survivor."""
    from hypothesis import given, settings

    from minitorch_authoring import fuzz

    reference = runner.load("reference")[0]
    impls = {key: runner.load_impl(source=source, name=f"cosmic_ray_survivor_{i}")
             for i, (key, source) in enumerate(sources.items())}
    seen = {job: {"programs": 0, "differ": 0, "first": ""} for job in impls}

    @settings(settings.get_profile("fuzz"), max_examples=programs)
    @given(fuzz.programs(OPS, focus))
    def one(program: fuzz.Program) -> None:
        try:
            want_values, want_grads = fuzz.run_minitorch(reference, program)
        except Exception:  # noqa: BLE001 - outside the reference's domain: not a witness
            return
        for job, impl in impls.items():
            seen[job]["programs"] += 1
            try:
                values, grads = fuzz.run_minitorch(impl, program)
                detail = next((d for mine, want in zip(values + grads, want_values + want_grads)
                               if (d := fuzz._differs(mine, want))), "")
            except Exception as err:  # noqa: BLE001 - a crash where the reference runs
                detail = f"raised {type(err).__name__}: {err}"
            if detail:
                seen[job]["differ"] += 1
                seen[job]["first"] = seen[job]["first"] or f"{detail}\n{program}"

    one()
    return seen


def report(workdir: Path, programs: int, fuzz_new: bool = True) -> int:
    """The kill rates; each survivor not yet fuzzed on ``programs`` programs is fuzzed (unless
    ``fuzz_new`` is False: then it counts as not equivalent, and is listed as unresolved)."""

    judged, pending = results(workdir)
    killed = [j for j in judged if j["killed"]]
    survivors = [j for j in judged if not j["killed"]]
    original = runner.REFERENCE_FILE.read_text(encoding="utf-8")
    cache_file = workdir / EQUIVALENCE_CACHE
    cache = json.loads(cache_file.read_text(encoding="utf-8")) if cache_file.exists() else {}
    equivalent, distinguished, unresolved = [], [], []
    todo = [s for s in survivors if cache.get(s["job"], {}).get("programs", 0) < programs]
    if fuzz_new:
        groups: dict[tuple[str, ...], list[dict]] = {}  # by the op the programs must contain
        for s in todo:
            focus = focus_of(function_at(original, s["line"]))
            groups.setdefault(tuple(op.name for op in focus), []).append(s)
        for names, group in groups.items():
            sources = {s["job"]: mutant_source(s["operator"], s["occurrence"], s["args"])
                       for s in group}
            print(f"fuzzing {len(group)} survivor(s) on {programs} programs containing "
                  f"{' or '.join(names) or 'any op'}", flush=True)
            cache.update(fuzz_survivors(sources, programs,
                                        [BY_NAME[n] for n in names] or None))
            cache_file.write_text(json.dumps(cache, indent=1), encoding="utf-8")
    for s in survivors:
        function = function_at(original, s["line"])
        if cache.get(s["job"], {}).get("programs", 0) < programs:
            unresolved.append(f"line {s['line']} ({function}) {s['operator']}")
            print(f"? line {s['line']} ({function}) {s['operator']} #{s['occurrence']}: "
                  f"not fuzzed yet\n{s['diff']}")
            continue
        seen = cache[s["job"]]
        line = (f"line {s['line']} ({function}) {s['operator']} #{s['occurrence']}: "
                f"{seen['programs']} programs{' with that op' if focus_of(function) else ''}, "
                f"{seen['differ']} differ")
        (distinguished if seen["differ"] else equivalent).append(line)
        print(("≠ " if seen["differ"] else "≡ ") + line + "\n" + s["diff"], flush=True)
    total = len(judged)
    raw = len(killed) / total if total else 0.0
    non_equivalent = total - len(equivalent)
    net = len(killed) / non_equivalent if non_equivalent else 0.0
    print(f"\nmutants judged {total} (pending {pending}); killed {len(killed)}; "
          f"survived {len(survivors)}, of which equivalent {len(equivalent)} "
          f"(≥ {programs} fuzzed programs agree) and {len(distinguished)} told apart by "
          f"the fuzzer but not by the graded checks"
          + (f", {len(unresolved)} not fuzzed yet" if unresolved else ""))
    print(f"raw kill rate {raw:.1%}; without the equivalent mutants {net:.1%}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    j = sub.add_parser("judge")
    j.add_argument("file", type=Path)
    r = sub.add_parser("run")
    r.add_argument("--fresh", action="store_true", help="start a new session")
    r.add_argument("--timeout", type=float, default=TIMEOUT)
    r.add_argument("--limit", type=int, help="judge at most this many pending mutants")
    r.add_argument("--survivors", action="store_true",
                   help="judge the survivors again (after adding checks)")
    p = sub.add_parser("report")
    p.add_argument("--programs", type=int, default=EQUIVALENCE_PROGRAMS)
    p.add_argument("--no-fuzz", action="store_true", help="use only the cached fuzzing results")
    for s in (r, p):
        s.add_argument("--workdir", type=Path, default=WORKDIR)
    args = parser.parse_args(argv)
    if args.command == "judge":
        os.environ.setdefault("MINITORCH_IMPL", "reference")
        return judge(args.file)
    if args.command == "run":
        run(args.workdir, args.timeout, args.fresh, limit=args.limit,
            survivors=args.survivors)
        return 0
    return report(args.workdir, args.programs, fuzz_new=not args.no_fuzz)


if __name__ == "__main__":
    sys.exit(main())
