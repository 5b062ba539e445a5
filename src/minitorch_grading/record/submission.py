"""The record of one submission: its snapshot scanned, run in the worker, judged cell by cell."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from minitorch_course import i18n
from minitorch_course.catalog import BY_NAME, ENGINE_BY_NAME
from minitorch_course.messages import N_
from minitorch_course.outcomes import FAIL, NOT_STARTED, PASS, Diagnosis, Outcome, RowReport
from minitorch_course.quiz import read_literals as literal_answers
from minitorch_grading import course, derivatives, learner_tests
from minitorch_grading.record.answers import judge_answer
from minitorch_grading.record.judging import judge_engine, judge_mlp, judge_task
from minitorch_grading.record.planning import Plan
from minitorch_grading.record.scan import scan, scan_notebooks
from minitorch_grading.record.worker_run import WALL, WORKER_BUDGET, WorkerRun, run_worker

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
                     budget: float = WORKER_BUDGET, unsafe: bool = False) -> Record:
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

