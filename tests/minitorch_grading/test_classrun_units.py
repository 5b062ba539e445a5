"""Fast checks of the class run's parts: the exchange in the generated config, the detection of
submitted notebooks nbgrader cannot grade (tests/minitorch_grading/test_classrun.py runs whole classes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from traitlets.config.loader import PyFileConfigLoader

from minitorch_grading import classrun, course


def _config(course_dir: Path):
    return PyFileConfigLoader("nbgrader_config.py", path=str(course_dir)).load_config()


def test_the_exchange_defaults_to_the_course_directory(tmp_path):
    course.build(tmp_path / "course")
    config = _config(tmp_path / "course")
    assert config.Exchange.root == str(tmp_path / "course" / "exchange")
    assert config.CourseDirectory.course_id == course.COURSE_ID
    assert config.BudgetedExecute.budget == course.NOTEBOOK_BUDGET


def test_the_exchange_can_be_given(tmp_path, capsys):
    assert course.build_command(tmp_path / "course", tmp_path / "shared" / "exchange") == 0
    assert _config(tmp_path / "course").Exchange.root == str(tmp_path / "shared" / "exchange")
    assert f"exchange: {tmp_path / 'shared' / 'exchange'}" in capsys.readouterr().out


def test_autograde_executes_within_the_budget(tmp_path):
    from minitorch_grading import nbgrader_ext

    course.build(tmp_path / "course")
    assert nbgrader_ext.BudgetedExecute in _config(tmp_path / "course").Autograde \
        .autograde_preprocessors


EXPECTED = {
    "setup": {"cell_type": "code", "grade": False, "solution": False, "locked": True},
    "ex_1": {"cell_type": "code", "grade": False, "solution": True, "locked": False},
    "check_add": {"cell_type": "code", "grade": True, "solution": False, "locked": True},
}


def _notebook(tmp_path: Path, edit=None) -> Path:
    cells = [{"cell_type": want["cell_type"], "source": "", "outputs": [], "metadata": {
        "nbgrader": {"grade_id": name, "grade": want["grade"], "solution": want["solution"],
                     "locked": want["locked"]}}} for name, want in EXPECTED.items()]
    if edit:
        edit(cells)
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"cells": cells}), encoding="utf-8")
    return path


def _meta(cells, name):
    return next(c for c in cells if c["metadata"]["nbgrader"]["grade_id"] == name)["metadata"][
        "nbgrader"]


def test_an_intact_notebook_is_gradable(tmp_path):
    assert classrun.malformed(_notebook(tmp_path), EXPECTED) is None


@pytest.mark.parametrize("edit, why", [
    (lambda cells: _meta(cells, "check_add").update(grade_id="check_mine"),
     "cell check_add is missing (grade_id renamed or cell deleted); unknown grade_id check_mine"),
    (lambda cells: cells.pop(), "cell check_add is missing"),
    (lambda cells: cells[2].update(cell_type="markdown"), "cell check_add became markdown"),
    (lambda cells: _meta(cells, "ex_1").update(solution=False),
     "cell ex_1: metadata 'solution' changed to False"),
    (lambda cells: _meta(cells, "setup").update(grade=True),
     "cell setup: metadata 'grade' changed to True"),
])
def test_a_changed_graded_cell_is_named(tmp_path, edit, why):
    assert why in classrun.malformed(_notebook(tmp_path, edit), EXPECTED)


def test_a_broken_file_is_named(tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text('{"cells": [', encoding="utf-8")
    assert classrun.malformed(path, EXPECTED).startswith("not a readable notebook")


NOT_NOTEBOOKS = [  # any JSON a learner can hand in as .ipynb (x37 route 5: `"cells": [..., 1]`)
    [], 1, "x", None, {"cells": 1}, {"cells": {"a": 1}}, {"cells": [1]}, {"cells": [[]]},
    {"cells": [{"metadata": []}]}, {"cells": [{"metadata": {"nbgrader": 1}}]},
    {"cells": [{"metadata": {"nbgrader": {"grade_id": [1], "solution": True}}}]},
    {"cells": [{"cell_type": 1, "metadata": {}}]},
    {"cells": [{"cell_type": "code", "source": [1], "metadata": {"nbgrader": {
        "grade_id": "ex_1", "solution": True}}}]},
]


@pytest.mark.parametrize("shape", NOT_NOTEBOOKS, ids=[json.dumps(s) for s in NOT_NOTEBOOKS])
def test_any_json_is_read_without_raising(tmp_path, shape):
    """The class run's check and the record's reader of answers both say "no notebook"."""
    from minitorch_course import quiz

    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(shape), encoding="utf-8")
    assert classrun.malformed(path, EXPECTED).startswith("not a readable notebook")
    assert quiz.read_literals(path) == ({}, {})


def test_a_crash_on_one_learner_stops_only_that_learner(tmp_path, monkeypatch):
    """The serial loop (``classrun autograde --serial``) goes on, as the parallel one does."""
    (tmp_path / "gradebook.db").write_text("", "utf-8")
    for name in "abc":
        (tmp_path / "submitted" / name).mkdir(parents=True)

    def grade_job(ctx, student, expected, budget, force, plan):
        if student == "b":
            raise AttributeError("'int' object has no attribute 'get'")
        return classrun.LearnerResult(student), None

    class Bar:  # a progress display that shows nothing
        def running(self, n): pass
        def finished(self, student, result): pass
        def close(self): pass

    monkeypatch.setattr(classrun, "grade_job", grade_job)
    monkeypatch.setattr(classrun, "expected_cells", lambda course_dir: {})
    ctx = type("Ctx", (), {"course_dir": tmp_path})()
    run = classrun.class_run(tmp_path, ctx=ctx, seed=1, bar=Bar())
    got = {o.student: o for o in run.results}
    assert [got[s].status for s in "abc"] == ["graded", "failed", "graded"]
    assert got["b"].problems == ["the grading job died: AttributeError: 'int' object has no "
                                 "attribute 'get'"]


def test_a_learner_is_skipped_only_with_the_scores_a_class_run_finished(tmp_path, monkeypatch):
    """x37 route 5: nbgrader wrote the in-kernel scores, then the run stopped before the
    scores of record and the ledger; the next run must grade that learner again."""
    from nbgrader.api import Gradebook

    monkeypatch.setenv("PATH", course.grading_env()["PATH"])  # nbgrader runs `alembic`

    folder = tmp_path / "submitted" / "ana" / course.ASSIGNMENT
    folder.mkdir(parents=True)
    with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}", course_id=course.COURSE_ID) as gb:
        gb.add_assignment(course.ASSIGNMENT)
        gb.add_notebook("00", course.ASSIGNMENT)
        gb.add_grade_cell("check_a", "00", course.ASSIGNMENT, max_score=2, cell_type="code")
        gb.add_student("ana")
        gb.add_submission(course.ASSIGNMENT, "ana")

    def score(points: float) -> None:
        with Gradebook(f"sqlite:///{tmp_path / 'gradebook.db'}",
                       course_id=course.COURSE_ID) as gb:
            gb.find_grade("check_a", "00", course.ASSIGNMENT, "ana").auto_score = points
            gb.db.commit()

    score(2.0)  # the in-kernel score: the run stopped here
    assert not classrun.graded_before(tmp_path, "ana", folder)
    score(0.0)  # the score of record, and the run finished: the ledger holds it
    classrun.write_ledger(tmp_path, ["ana"])
    assert classrun.graded_before(tmp_path, "ana", folder)
    score(2.0)  # a later run (--force) stopped after nbgrader again
    assert not classrun.graded_before(tmp_path, "ana", folder)


def _cell_timeout(monkeypatch, student: str, **config) -> object:
    """The timeout ``BudgetedExecute`` gives a cell (nothing runs: ``Execute`` is stubbed), or
    the ename it marks the cell with instead."""
    from nbformat.v4 import new_code_cell

    from minitorch_grading import nbgrader_ext

    given = []
    monkeypatch.setattr(nbgrader_ext.Execute, "preprocess_cell",
                        lambda self, cell, resources, index: (given.append(self.timeout),
                                                              (cell, resources))[1])
    execute = nbgrader_ext.BudgetedExecute(**config)
    execute.resources = {"nbgrader": {"student": student}}
    cell = new_code_cell("1")
    execute.preprocess_cell(cell, {}, 0)
    return given[0] if given else cell.outputs[0]["ename"]


def test_a_cell_runs_until_the_deadline_then_for_the_stall_timeout(monkeypatch):
    import time

    now = time.time()
    assert _cell_timeout(monkeypatch, "a", budget=60, timeout=600, deadline=now + 45) in (44, 45)
    assert _cell_timeout(monkeypatch, "b", budget=60, timeout=600, deadline=now - 5,
                         stall_timeout=10) == 10  # a busy machine: cells that finish go on
    assert _cell_timeout(monkeypatch, "c", budget=60, timeout=20, deadline=now + 45) == 20
    assert _cell_timeout(monkeypatch, "d", budget=0, timeout=600) == 600  # no budget
    assert _cell_timeout(monkeypatch, "e", budget=0, timeout=None) is None


def test_after_a_stopped_cell_nothing_more_runs(monkeypatch):
    from minitorch_grading import nbgrader_ext

    monkeypatch.setattr(nbgrader_ext, "_STOPPED", {"looper"})
    assert _cell_timeout(monkeypatch, "looper", budget=60, timeout=600) == nbgrader_ext.TIMED_OUT
    assert _cell_timeout(monkeypatch, "other", budget=60, timeout=600) == 60


# ---------------------------------------------------------------- the parallel class run's pieces
def test_a_packed_folder_unpacks_the_same_and_nothing_leaves_it(tmp_path):
    from minitorch_grading import parallel

    src = tmp_path / "src"
    (src / "minitorch" / "__pycache__").mkdir(parents=True)
    (src / "minitorch" / "tensor.py").write_text("x = 1\n", "utf-8")
    (src / "minitorch" / "__pycache__" / "t.pyc").write_bytes(b"\0")
    (src / "link.py").symlink_to(src / "minitorch" / "tensor.py")
    files = parallel.pack(src)
    assert files == {"minitorch/tensor.py": b"x = 1\n"}  # no cache, no link
    parallel.unpack(files, tmp_path / "dest")
    assert (tmp_path / "dest" / "minitorch" / "tensor.py").read_text("utf-8") == "x = 1\n"
    for bad in ("../escape.py", "/etc/x", "a/../../b"):
        with pytest.raises(ValueError, match="outside"):
            parallel.unpack({bad: b""}, tmp_path / "dest")
    assert not (tmp_path / "escape.py").exists()


ANA = classrun.LearnerResult("ana", spent=30.0, wall={"nbgrader": 20.0, "record": 6.0, "tests": 3.0},
                             cpu={"nbgrader": 18.0, "record": 2.0, "tests": 3.0})


def test_progress_lines_say_done_running_failed_elapsed_eta_and_parts():
    import io

    from minitorch_grading.progress import Progress

    out = io.StringIO()
    bar = Progress(3, 2, stream=out, tty=False)
    bar.running(2)
    bar.finished("ana", ANA)
    bar.finished("bea", classrun.LearnerResult("bea", status="failed"))
    lines = out.getvalue().splitlines()
    assert lines[0] == "autograde: 3 learners, 2 at a time"
    assert lines[1].startswith("[1/3] ana: graded in 29 s, 23 s CPU (79%): nbgrader 20 s / 18 s "
                               "CPU, record 6 s / 2 s CPU, tests 3 s / 3 s CPU;"), lines[1]
    assert "running 2, failed 0, elapsed 0:00, ETA " in lines[1]
    assert lines[2].startswith("[2/3] bea: failed; running 2, failed 1")


def test_the_report_gives_time_by_part_and_the_cpu_share():
    """The report's lines and the progress lines give a learner's time alike (the same parts,
    wall and CPU), and the class's CPU is every part of every job."""
    results = [ANA, classrun.LearnerResult("bea", spent=10.0, wall={"nbgrader": 9.0},
                                           cpu={"nbgrader": 7.0})]
    text = classrun.report_text(results, 60.0, 40.0, cores=2)
    assert "2 at a time, CPU 30 s = 38% of 2 x the wall time)" in text, text
    assert ("The learners' jobs: 38 s, 30 s CPU (79%): nbgrader 29 s / 25 s CPU, record 6 s / "
            "2 s CPU, tests 3 s / 3 s CPU; the kernels' 40 s of CPU on the budget") in text, text
    assert ("ana: no score in 29 s, 23 s CPU (79%): nbgrader 20 s / 18 s CPU, record 6 s / 2 s "
            "CPU, tests 3 s / 3 s CPU; 30 s of the budget") in text, text


def test_a_learners_time_is_counted_once_by_part(monkeypatch):
    """``job.Meter``: the learner's tests, run inside the scores of record, count as tests
    only; each command's CPU (``Result.cpu``) counts in the part that ran it, never twice."""
    from minitorch_grading import job, sandbox

    clock = {"wall": 0.0, "cpu": 0.0}
    monkeypatch.setattr(job.time, "monotonic", lambda: clock["wall"])
    monkeypatch.setattr(job.time, "thread_time", lambda: clock["cpu"])
    monkeypatch.setattr(job.Job, "_run", lambda self, argv, **kw: sandbox.Result(
        0, b"", b"", 0.0, False, argv, float(argv[0])))
    box = job.Job(Path("/nonexistent"), unsafe=True)

    def spend(wall: float, own: float, command: float = 0.0) -> None:
        clock["wall"] += wall
        clock["cpu"] += own
        if command:
            box.run([str(command)])

    with job.Meter() as meter:
        with meter, job.part("nbgrader"):  # entered again (a worker's job and grade_job)
            spend(10.0, 1.0, command=8.0)
        with job.part("record"):
            spend(2.0, 0.5, command=1.0)
            with job.part("tests"):
                spend(5.0, 0.25, command=4.0)
            spend(1.0, 0.3)
    box.run(["100"])  # outside any meter: counted nowhere
    wall, cpu = meter.rounded()
    assert wall == {"nbgrader": 10.0, "record": 3.0, "tests": 5.0}
    assert cpu == {"nbgrader": 9.0, "record": 1.8, "tests": 4.2}
    assert sum(wall.values()) == clock["wall"]


def test_the_stopped_cell_and_its_time_are_read_from_nbgrader_log():
    """``nbgrader_ext.STOPPED_LOG`` as nbgrader prints it: a cell named by grade_id or by
    index ("cell 15": a space), and the wall seconds it was given."""
    from minitorch_grading import nbgrader_ext

    for where in ("cell 15", "01-elementwise-ops/check_add"):
        out = classrun.LearnerResult("x")
        line = nbgrader_ext.STOPPED_LOG % ("x", where, 28)
        classrun._stopped(f"[AutogradeApp | INFO] {line}\n[AutogradeApp | INFO] next\n", out)
        assert out.stopped and out.stopped_after == 28, (line, out)


def test_the_benchmarks_table_gives_the_reports_parts(tmp_path):
    """``make class-bench``'s per-kind table reads the report's parts, wall and CPU, and its
    total is the whole job, as in the report's line and the progress line (not one part)."""
    import importlib.util

    from minitorch_authoring.repository import ROOT

    spec = importlib.util.spec_from_file_location("class_bench", ROOT / "benchmarks" / "class_run.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bea = classrun.LearnerResult("bea", wall={"nbgrader": 41.0, "record": 2.0, "tests": 30.0},
                                 cpu={"nbgrader": 38.0, "record": 1.0, "tests": 27.0})
    classrun.write_report(tmp_path, [ANA, bea], 60.0, 80.0)
    table = bench.per_kind(tmp_path, {"ana": "honest/ref", "bea": "honest/ref"})
    row = next(line for line in table.splitlines() if line.startswith("honest/ref"))
    assert row.split()[2:] == ["20-41", "/", "18-38", "2-6", "/", "1-2", "3-30", "/", "3-27",
                               "29-73", "/", "23-66", "graded"], table
    assert bench.job_seconds(tmp_path) == [29.0, 73.0]


# ---------------------------------------------------------------- the course's language in a job
_TIMED_OUT = """
import sys
sys.path.insert(0, {src!r})  # as the job's nbgrader_config.py does
from nbformat.v4 import new_code_cell
from minitorch_grading.nbgrader_ext import BudgetedExecute
cell = new_code_cell("pass")
BudgetedExecute(budget=3)._mark_timed_out(cell)
print(cell.outputs[0]["evalue"])
"""


@pytest.mark.slow  # two sandboxed interpreters importing nbgrader: about 10 s under load
@pytest.mark.parametrize("lang, words, other", [("es", "se agotó el tiempo", "timed out"),
                                                ("en", "time budget (3 s) was used up",
                                                 "sin ejecutar")])
def test_the_time_budget_message_is_the_courses_inside_the_sandboxed_job(
        tmp_path, sandbox_required, lang, words, other):
    """Inside the job only the grader's copy of the instructor code is importable (the
    checkout's src is not bound): it holds the course's i18n and catalogs, so the message is
    the course's, in one language, not nbgrader_ext's two-language fallback (the root cause
    of that fallback was a grader copy without minitorch_course: ModuleNotFoundError)."""
    import sys

    from minitorch_grading import nbgrader_job, sandbox

    src = nbgrader_job.grader_src(tmp_path / "src")
    private = sandbox.private_folder()
    try:
        result = sandbox.run([sys.executable, "-c", _TIMED_OUT.format(
            src=nbgrader_job.GRADER_SRC)], private, read_only=[(src, nbgrader_job.GRADER_SRC)],
            env={"MINITORCH_LANG": lang})
    finally:
        sandbox.release(private)
    out = result.stdout.decode()
    assert result.returncode == 0 and words in out and other not in out, (
        out + result.stderr.decode()[-2000:])


def test_a_job_speaks_the_language_of_its_course_directory(tmp_path, monkeypatch):
    """The job's own course folder has no .minitorch-lang (nbgrader runs there): the course
    directory's is passed as MINITORCH_LANG, unless the instructor set one."""
    from types import SimpleNamespace

    from minitorch_grading import nbgrader_job

    seen = {}
    box = SimpleNamespace(unsafe=True, path=lambda p: str(tmp_path / p),
                          run=lambda argv, env, **kw: seen.update(env))
    setup = SimpleNamespace(course_dir=tmp_path)
    monkeypatch.delenv("MINITORCH_LANG", raising=False)
    nbgrader_job.run_autograde(setup, box, "x", [], 1.0)
    assert "MINITORCH_LANG" not in seen  # no marker: the default
    (tmp_path / course.LANG_MARKER).write_text("en\n", encoding="utf-8")
    nbgrader_job.run_autograde(setup, box, "x", [], 1.0)
    assert seen["MINITORCH_LANG"] == "en"
    monkeypatch.setenv("MINITORCH_LANG", "es")
    nbgrader_job.run_autograde(setup, box, "x", [], 1.0)
    assert seen["MINITORCH_LANG"] == "es"


def test_the_class_run_grades_the_course_directory_it_is_run_from(tmp_path, monkeypatch):
    """docs/INSTRUCTOR.md runs `classrun autograde` from the course directory: an English
    class's (built with --lang en, anywhere) must not be left for the Spanish default."""
    from minitorch_grading import classrun_cli

    course.build(tmp_path / "course-en", lang="en")
    monkeypatch.delenv("MINITORCH_LANG", raising=False)
    monkeypatch.chdir(tmp_path / "course-en")
    assert classrun_cli.default_course_dir() == tmp_path / "course-en"
    monkeypatch.chdir(tmp_path)  # not a course directory: the default of the language
    assert classrun_cli.default_course_dir() == course.default_course_dir("es")
    monkeypatch.setenv("MINITORCH_LANG", "en")
    assert classrun_cli.default_course_dir() == course.default_course_dir("en")



def test_without_dask_the_parallel_run_says_what_to_install(monkeypatch, tmp_path):
    """Dask is the instructor's `grading` extra, not in a learner's installation: the class
    run stops with the install command and the serial alternative, before anything runs."""
    import sys

    from minitorch_grading import parallel

    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed: ImportError
    for call in (lambda: parallel.autograde(tmp_path, 60.0, "*", False, 1, False, None, 2),
                 lambda: parallel.class_run(tmp_path)):
        with pytest.raises(SystemExit) as stop:
            call()
        text = str(stop.value)
        assert "'.[course,grading]'" in text and "--serial" in text, text


def test_the_budget_reaches_the_scores_of_record(monkeypatch, tmp_path):
    """INSTRUCTOR.md tells instructors to regrade a slow learner with `--budget 180`: the
    record's worker gets the same factor (its clock and its wall limit), never less than its
    defaults; --budget 0 (no notebook budget) keeps them."""
    from minitorch_grading import record

    seen = []

    def grade_one(ctx, student, expected, budget, force):
        return classrun.LearnerResult(student, status="graded")

    def grade_submission(folder, student, plan_, wall, budget, unsafe):
        seen.append((wall, budget))
        return type("Rec", (), {"flags": []})()

    monkeypatch.setattr(classrun, "grade_one", grade_one)
    monkeypatch.setattr(record, "grade_submission", grade_submission)
    monkeypatch.setattr(record, "write_record", lambda *a: None)
    monkeypatch.setattr(classrun, "notebook_scores", lambda *a: {})
    ctx = type("Ctx", (), {"course_dir": tmp_path, "taken": {"a": tmp_path}, "unsafe": False})()
    for budget in (course.NOTEBOOK_BUDGET, 180, 30, 0):
        classrun.grade_job(ctx, "a", {}, budget, plan=lambda: None)
    assert seen == [(record.WALL, record.WORKER_BUDGET),
                    (record.WALL * 3, record.WORKER_BUDGET * 3),
                    (record.WALL, record.WORKER_BUDGET), (record.WALL, record.WORKER_BUDGET)]
