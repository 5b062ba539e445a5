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
from minitorch_grading.record.cells import GradedCell
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
    submitted/<student>/<assignment>/ before any of its code ran (or that folder itself).

    Four steps: the snapshot is read, never run (flags, and the ops whose backward is finite
    differences); its code runs in the sandboxed jobs (the worker, the learner's tests), which
    answer with data; each row is judged here from those answers; each graded cell is scored
    from its rows, the MLP's findings, the tests' grade or its literal answers."""
    rec = Record(student, plan_.seed)
    tensor_file = folder / course.GRADED_FILE
    source = tensor_file.read_text(encoding="utf-8", errors="replace") \
        if tensor_file.is_file() else ""
    faked = read_unrun(folder, source, rec)
    run = WorkerRun(problem=f"no {course.GRADED_FILE}") if not source \
        else run_worker(tensor_file, plan_, wall, budget, unsafe, folder / course.MLP_FILE)
    answers = Answers.read(run, rec)
    tests = learner_tests.TestsRecord()
    if plan_.test_labs:  # the learner's tests: their own sandboxed job
        tests = learner_tests.grade_tests(folder, plan_.impls, plan_.test_labs, unsafe)
        rec.seconds = round(rec.seconds + tests.seconds, 1)
        rec.tests_seconds = round(tests.seconds, 1)
        rec.flags += tests.flags + ([tests.problem] if tests.problem else [])
    rows = RowJudge(plan_, answers, rec.flags)
    for notebook, cells in plan_.cells.items():
        path = folder / f"{notebook}.ipynb"
        present = path.is_file()
        values, unreadable = literal_answers(path) if present else ({}, {})
        scores = rec.cells.setdefault(notebook, {})
        for cell in cells:
            if not present:
                earned, why = 0.0, "notebook not handed in"
            elif cell.my_tests:
                earned, why = _tests_cell(cell, tests)
            elif cell.mlp:
                earned, why = _mlp_cell(cell, plan_, answers, bool(source))
            elif cell.checks:
                earned, why = _ops_cell(cell, rows, answers, faked)
            else:
                ok = judge_answer(cell, values, plan_.solutions.get(notebook, {}))
                why = "" if ok else ("; ".join(f"{k}: {v}" for k, v in unreadable.items())
                                     or "wrong or unanswered")
                earned = cell.points if ok else 0.0
            scores[cell.grade_id] = [earned, cell.points]
            if why:
                rec.failures[f"{notebook}/{cell.grade_id}"] = why
    return rec


# ---------------------------------------------------------------- step 1: read, not run
def read_unrun(folder: Path, source: str, rec: Record) -> dict[str, str]:
    """The snapshot read as text: flags for what tensor.py and the notebooks reach for, and
    ``{op: how}`` for the ops whose backward is finite differences (their derivative suites
    score nothing)."""
    rec.flags += scan(source) if source else []
    rec.flags += scan_notebooks(folder)
    faked = {op: how for op, how in derivatives.finite_differences(source).items()
             if op in BY_NAME}
    rec.flags += [f"{op}: its backward {how} (finite differences)" for op, how in faked.items()]
    return faked


# ---------------------------------------------------------------- step 2: what the worker said
@dataclass
class Answers:
    """The worker's run, read defensively (its answer is data the learner's code may have
    shaped): the op tasks' answers by task id, the engine rows', the MLP checks'."""

    run: WorkerRun
    ops: dict = field(default_factory=dict)
    engine: dict = field(default_factory=dict)
    mlp: dict = field(default_factory=dict)

    @property
    def none(self) -> bool:
        """The worker failed and nothing came back for the ops or the engine."""
        return bool(self.run.problem) and not self.ops and not self.engine

    @classmethod
    def read(cls, run: WorkerRun, rec: Record) -> Answers:
        """The answers of ``run``; its time, problem, stderr and flags go to ``rec``."""
        rec.seconds, rec.problem = run.seconds, run.problem
        results = run.results if isinstance(run.results, dict) else {}
        rec.flags += worker_flags(run, results)
        rec.log = run.stderr[-2000:]
        if results.get("import_error"):
            e = results["import_error"]
            rec.problem = rec.problem or f"tensor.py does not import: {e.get('type')}: " \
                                         f"{str(e.get('message'))[:200]}"
        return cls(run,
                   {a.get("id"): a for a in results.get("tasks") or [] if isinstance(a, dict)},
                   results.get("engine") if isinstance(results.get("engine"), dict) else {},
                   results.get("mlp") if isinstance(results.get("mlp"), dict) else {})


def worker_flags(run: WorkerRun, results: dict) -> list[str]:
    """What the worker's guard refused (its own lists, and what it wrote on stderr as it
    happened: a refusal missing from the lists was erased by the learner's code), and the rows
    it ran out of time in."""
    flags = []
    refused = results.get("refused") or []
    if isinstance(refused, list) and refused:
        flags.append("tried to use " + ", ".join(sorted({str(r) for r in refused}))
                     + " while grading (refused)")
    denied = results.get("denied") or []
    if isinstance(denied, list) and denied:
        flags.append("the grading sandbox refused: " + "; ".join(map(str, denied[:6])))
    elif "grading sandbox" in run.stderr:
        flags.append("the grading sandbox refused something (see the worker's stderr)")
    said = {str(r).replace("\n", " ")[:300] for r in denied} | {f"import {r}" for r in refused} \
        if isinstance(denied, list) and isinstance(refused, list) else set()
    erased = [r for r in run.streamed if r not in said]
    if erased:  # written on stderr when refused, missing from the worker's answer
        flags.append("refused while grading, then erased from the worker's record: "
                     + "; ".join(erased[:6]))
    if results.get("timed_out"):
        flags.append("ran out of time in " + ", ".join(map(str, results["timed_out"])))
    return flags


# ---------------------------------------------------------------- step 3: each row, judged here
class RowJudge:
    """Each row's report for a set of suites, judged once from the worker's answers (the
    notebook's ``runner.run_row`` gives the same report in a kernel)."""

    def __init__(self, plan_: Plan, answers: Answers, flags: list[str]) -> None:
        self.plan, self.answers, self.flags = plan_, answers, flags
        self.reports: dict[str, RowReport] = {}

    def report(self, row: str, suites: tuple[str, ...]) -> RowReport:
        key = row + "|" + ",".join(suites)
        if key not in self.reports:
            try:
                self.reports[key] = self._judged(row, suites)
            except Exception as err:  # noqa: BLE001 - an answer no honest worker sends
                self.flags.append(f"{row}: malformed answer from the worker "
                                  f"({type(err).__name__})")
                row_ = ENGINE_BY_NAME.get(row) or BY_NAME[row]
                self.reports[key] = RowReport(row, row_.lab, row_.points, row in ENGINE_BY_NAME, {
                    suites[0]: [Outcome(row, suites[0], FAIL, "", None, Diagnosis("crash"))]})
        return self.reports[key]

    def _judged(self, row: str, suites: tuple[str, ...]) -> RowReport:
        if row in ENGINE_BY_NAME:
            outcome = judge_engine(row, self.plan.engine[row], self.answers.engine.get(row))
            e = ENGINE_BY_NAME[row]
            return RowReport(row, e.lab, e.points, True, {"engine": [outcome]})
        op = BY_NAME[row]
        report = RowReport(row, op.lab, op.points, False, {})
        for suite in suites:
            report.suites[suite] = [self._property(row)] if suite == "property" \
                else self._cases(row, suite)
        return report

    def _cases(self, row: str, suite: str) -> list[Outcome]:
        """The suite's outcome on each of the row's fixed (or broadcasting) cases, up to the
        first one not started (as the notebook's checks stop)."""
        group = "broadcast" if suite == "broadcast" else "fixed"
        outs: list[Outcome] = []
        for i in self.plan.by_suite.get((row, group), []):
            outs.append(judge_task(self.plan.tasks[i], self.answers.ops.get(i), (suite,))[suite])
            if outs[-1].status == NOT_STARTED:
                break
        return outs

    def _property(self, row: str) -> Outcome:
        """The property suite: the first failure among the random examples' backward and
        gradcheck outcomes, or a pass."""
        ids = self.plan.by_suite.get((row, "property"), [])
        per = [judge_task(self.plan.tasks[i], self.answers.ops.get(i), ("backward", "gradcheck"))
               for i in ids]
        bad = [o for d in per for o in d.values() if not o.passed]
        return Outcome(row, "property", bad[0].status if bad else PASS,
                       f"{len(ids)} random examples", bad[0].fact if bad else None,
                       bad[0].diagnosis if bad else None)


# ---------------------------------------------------------------- step 4: each cell, scored
def _tests_cell(cell: GradedCell, tests: learner_tests.TestsRecord) -> tuple[float, str]:
    """Labs 00-04's tests cells: the fraction of chaff kinds the learner's tests caught."""
    fraction = 0.0 if tests.problem else tests.score(cell.my_tests)
    earned = round(cell.points * fraction, 2)
    return earned, tests.problem or ("" if earned == cell.points
                                     else tests.feedback(cell.my_tests))


def _mlp_cell(cell: GradedCell, plan_: Plan, answers: Answers,
              handed_in: bool) -> tuple[float, str]:
    """Lab 05's cells: every MLP check the cell names passes, or nothing."""
    findings = [judge_mlp(check, plan_, answers.mlp.get(check)) for check in cell.mlp]
    why = "; ".join(f.message() for f in findings if not f.passed) if handed_in \
        else f"no {course.GRADED_FILE}"
    return (0.0 if why else cell.points), why


def _ops_cell(cell: GradedCell, rows: RowJudge, answers: Answers,
              faked: dict[str, str]) -> tuple[float, str]:
    """An op or engine cell: all or nothing, as nbgrader scores the notebook's cell; a row
    whose backward is finite differences earns nothing on its derivative suites."""
    problems = []
    for check in cell.checks:
        for row in check.rows:
            first = rows.report(row, check.suites).first_problem
            if row in faked and set(check.suites) & set(DERIVATIVE_SUITES):
                problems.append(say("record-finite-differences", row=row))
            elif first is not None:
                problems.append(f"{row}: {first.status} ({first.case})")
    if answers.none:
        problems.insert(0, answers.run.problem)
    return (0.0 if problems else cell.points), "; ".join(problems)
