"""The nbgrader round trip, asserted through nbgrader's gradebook API.

generate_assignment, then autograde submissions that differ in ``minitorch/tensor.py``: the
reference (full marks on every autograded cell), the stub (zero), and the reference with one
planted mistake (``tanh``'s backward without the square: partial marks, and the failing cell
names the op); then generate_feedback. A fourth run grades the stub in a hostile environment
(an instructor's PYTHONPATH and MINITORCH_IMPL=reference pointing at the solution) and must still
give zero: the locked set-up cell refuses to grade a tensor.py from outside the submission.
A fifth learner answers the quiz wrong and edits one locked test cell.

Then what must not leak: the release (what a class receives) holds no solution line and no
answer, the feedback shows no hidden test; honest submissions log no checksum warning; and
rebuilding the course directory keeps its gradebook and submissions.
"""

from __future__ import annotations

import ast
import hashlib
import html
import json
import re
from pathlib import Path

import pytest
from conftest import Submissions

from minitorch_authoring.repository import ROOT
from minitorch_course.quiz import QUESTIONS
from minitorch_grading import course

pytestmark = pytest.mark.slow

REFERENCE = ROOT / "solutions" / "tensor.py"
ASSIGNMENT = course.ASSIGNMENT
MUTANT_OP = "tanh"
LAB = "01-elementwise-ops"
ENGINE_LAB = "00-tensor-skeleton"
CORRECT = "return (g * (1.0 - t * t),)"
PLANTED = "return (g * (1.0 - t),)"  # forgot the square: d tanh / da = 1 - tanh²
QUIZ = "07-quiz"
TAMPERED = "test_01"  # the locked quiz cell the "wrong" learner edits
HONEST = ("ref", "stub", "mutant", "hostile")
LOGS: dict[str, str] = {}  # autograde's log of each run, filled by the fixture


def _wrong(value):
    """A wrong answer of the right form (it passes the visible checks, fails the hidden ones)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, str):
        return "a" if value != "a" else "b"
    if isinstance(value, (int, float)):
        return value + 7
    return tuple(_wrong(v) for v in value)


def _answered_wrong(student_nb: Path) -> str:
    """The quiz with every question answered wrong and the locked cell TAMPERED edited."""
    nb = json.loads(student_nb.read_text(encoding="utf-8"))
    instructor = json.loads((course.SOURCE_NOTEBOOKS / student_nb.name).read_text("utf-8"))
    answers = {}
    for cell in instructor["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("solution"):
            name, value = _fenced("".join(cell["source"]).splitlines(), *SOLUTION)[0].split("=", 1)
            answers[meta["grade_id"]] = f"{name.strip()} = {_wrong(ast.literal_eval(value))!r}"
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("solution"):
            cell["source"] = answers[meta["grade_id"]]
        elif meta.get("grade_id") == TAMPERED:
            cell["source"] = "pass  # tampered"
    return json.dumps(nb, indent=1, ensure_ascii=False)


def _total(course_dir: Path, student: str) -> tuple[float, float]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
        submission = gb.find_submission(ASSIGNMENT, student)
        return submission.score, submission.max_score


def _cell_error(course_dir: Path, student: str, notebook: str, grade_id: str) -> str:
    path = course_dir / "autograded" / student / ASSIGNMENT / f"{notebook}.ipynb"
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == grade_id:
            return "\n".join(f"{o['ename']}: {o['evalue']}" for o in cell.get("outputs", [])
                             if o["output_type"] == "error")
    raise KeyError(grade_id)


@pytest.fixture(scope="module")
def graded(tmp_path_factory, submissions, generated_course) -> Path:
    course_dir = tmp_path_factory.mktemp("roundtrip") / "course"
    release = generated_course(course_dir)
    reference = REFERENCE.read_text(encoding="utf-8")
    assert reference.count(CORRECT) == 1, "the planted mistake no longer applies: update it"
    stub = (release / course.GRADED_FILE).read_text("utf-8")
    submit = submissions.submit
    submit(course_dir, release, "ref", reference, answered=True)
    submit(course_dir, release, "stub", stub, answered=False)
    # these two only need the lab the mistake and the guard show up in (keeps the suite fast)
    submit(course_dir, release, "mutant", reference.replace(CORRECT, PLANTED), answered=True,
           only=(LAB,))
    # unanswered: its in-notebook exercises (no tensor.py involved) could only add honest points
    submit(course_dir, release, "hostile", stub, answered=False, only=(ENGINE_LAB, LAB))
    # the quiz answered wrong (hidden tests run and fail), one locked test cell edited
    submit(course_dir, release, "wrong", stub, answered=False, only=(QUIZ,))
    quiz = course_dir / "submitted" / "wrong" / ASSIGNMENT / f"{QUIZ}.ipynb"
    quiz.write_text(_answered_wrong(quiz), encoding="utf-8")
    run = course.nbgrader(["autograde", ASSIGNMENT, "--student", "[rsmw]*"], course_dir)
    LOGS["autograde"] = run.stdout + run.stderr
    hostile_env = course.grading_env(MINITORCH_IMPL="reference", PYTHONPATH=str(ROOT / "src"))
    run = course.nbgrader(["autograde", ASSIGNMENT, "--student", "hostile"], course_dir,
                          env=hostile_env)
    LOGS["hostile"] = run.stdout + run.stderr
    course.nbgrader(["generate_feedback", ASSIGNMENT], course_dir)
    return course_dir


def _graded_notebooks(course_dir: Path) -> set[str]:
    """The source notebooks that have at least one graded cell."""
    names = set()
    for path in (course_dir / "source" / ASSIGNMENT).glob("*.ipynb"):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        if any(c["metadata"].get("nbgrader", {}).get("grade") for c in cells):
            names.add(path.stem)
    return names


def test_every_graded_notebook_is_in_the_gradebook(graded, submissions):
    notebooks = {nb for nb, _ in submissions.grades(graded, "ref")}
    assert notebooks == _graded_notebooks(graded)
    assert {"00-tensor-skeleton", LAB} <= notebooks


def test_reference_gets_full_marks_on_every_cell(graded, submissions):
    """Every autograded cell; the cells a human grades (lab 06's note) wait at 0, and so do
    the learner's tests in the kernel (the score of record grades them: tests/minitorch_grading/test_record.py)."""
    grades = submissions.grades(graded, "ref")
    manual, record_only = submissions.manual_cells(), submissions.record_cells()
    assert manual and set(manual) <= set(grades)
    assert record_only and set(record_only) <= set(grades)
    assert all(grades[k][0] == 0 for k in record_only)
    short = {k: v for k, v in grades.items()
             if v[0] != v[1] and k not in manual and k not in record_only}
    assert not short, f"the reference lost marks: {short}"
    score, max_score = _total(graded, "ref")
    assert score == max_score - sum(manual.values()) - sum(record_only.values()) > 0


def test_stub_gets_zero(graded, submissions):
    grades = submissions.grades(graded, "stub")
    scored = {k: v for k, v in grades.items() if v[0]}
    assert not scored, f"the stub scored: {scored}"
    assert _total(graded, "stub")[0] == 0


def test_planted_mistake_gets_partial_marks_and_names_the_op(graded, submissions):
    grades = {k: v for k, v in submissions.grades(graded, "mutant").items() if k[0] == LAB}
    score = sum(s for s, _ in grades.values())
    max_score = sum(m for _, m in grades.values())
    assert 0 < score < max_score, (score, max_score)
    failing = {k for k, (s, m) in grades.items() if s != m and k not in Submissions.record_cells()}
    cell = (LAB, f"check_{MUTANT_OP}")
    assert failing == {cell}, failing
    error = _cell_error(graded, "mutant", *cell)
    assert error.startswith("CheckFailure") and f"{MUTANT_OP} backward" in error, error
    assert 0 < _total(graded, "mutant")[0] < _total(graded, "mutant")[1]


def test_hostile_environment_cannot_grade_the_engine_checks(graded, submissions):
    """The engine checks re-check the origin of minitorch.tensor at every graded call."""
    grades = submissions.grades(graded, "hostile")
    engine = {k: v for k, v in grades.items()
              if k[0] == ENGINE_LAB and k[1] != "check_exercise_shapes"}
    assert engine and not any(s for s, _ in engine.values()), engine
    assert grades[(LAB, "check_unbroadcast")][0] == 0
    error = _cell_error(graded, "hostile", ENGINE_LAB, "check_backward")
    assert "refusing to grade" in error, error


def test_hostile_environment_cannot_grade_the_solution(graded):
    """PYTHONPATH and MINITORCH_IMPL pointing at the solution: the stub still scores zero."""
    assert _total(graded, "hostile")[0] == 0
    error = _cell_error(graded, "hostile", LAB, "setup")
    assert "refusing to grade" in error, error


def test_feedback_is_generated(graded):
    notebooks = sorted(p.stem for p in (graded / "source" / ASSIGNMENT).glob("*.ipynb"))
    for student in ("ref", "stub"):
        pages = sorted((graded / "feedback" / student / ASSIGNMENT).glob("*.html"))
        assert [p.stem for p in pages] == notebooks, pages
    page = (graded / "feedback" / "mutant" / ASSIGNMENT / f"{LAB}.html").read_text(
        encoding="utf-8")
    assert f"check_{MUTANT_OP}" in page and "CheckFailure" in page


# ---------------------------------------------------------------- nothing leaks
SOLUTION = ("### BEGIN SOLUTION", "### END SOLUTION")
HIDDEN = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")
# Solution lines found in the release on purpose: a constant, and generic graph iteration.
SHOWN = {
    "k = math.sqrt(2.0 / math.pi)": "gelu's tanh constant, in the diagnosis of gelu mistakes",
    "for parent in node._prev:": "generic: viz draws an edge per parent",
    "for node in order:": "generic: viz draws a box per node",
}


def _fenced(lines: list[str], begin: str, end: str, outside: bool = False) -> list[str]:
    """The lines strictly inside every ``begin``/``end`` fence (fences match whole lines), or
    with ``outside`` every other line but the fences."""
    inside, found = False, []
    for line in lines:
        if line.strip() == begin:
            inside = True
        elif line.strip() == end:
            inside = False
        elif inside != outside:
            found.append(line)
    return found


def _norm(text: str) -> str:
    return " ".join(text.split())


def _cells_text(nb: dict) -> str:
    return "\n".join("".join(c["source"]) for c in nb["cells"])


def _secret_lines() -> dict[str, str]:
    """{line (whitespace collapsed): where from} of every solution line and quiz answer.

    Every non-comment line of 12 characters or more inside the solution fences of
    solutions/tensor.py and of solutions/notebooks/*.ipynb, and inside their hidden tests, that
    does not also appear outside the fences of the same file (provided scaffolding).
    """
    sources = {"solutions/tensor.py": (ROOT / "solutions" / "tensor.py").read_text("utf-8")}
    for nb in sorted(course.SOURCE_NOTEBOOKS.glob("*.ipynb")):
        sources[f"solutions/notebooks/{nb.name}"] = _cells_text(json.loads(nb.read_text("utf-8")))
    secrets = {}
    for where, text in sources.items():
        lines = text.splitlines()
        hidden = _fenced(lines, *SOLUTION) + _fenced(lines, *HIDDEN)
        outside = _fenced(_fenced(lines, *SOLUTION, outside=True), *HIDDEN, outside=True)
        scaffolding = {_norm(line) for line in outside}
        for line in map(_norm, hidden):
            if len(line) >= 12 and not line.startswith("#") and line not in scaffolding:
                secrets.setdefault(line, where)
    return secrets


def _provided_text() -> str:
    """What the chapter gives every learner on purpose, whitespace collapsed: the instructor
    notebooks outside their fences (lab 02's hints spell out max's backward), the theory
    (theory 05 walks through silu) and the package's course-provided modules (all but
    tensor.py: ``raise BackwardError(`` is as much theirs as the solution's)."""
    texts = [p.read_text("utf-8") for p in sorted((ROOT / "theory").rglob("*.md"))]
    texts += [p.read_text("utf-8") for p in sorted((ROOT / "src" / "minitorch").glob("*.py"))
              if p.name != "tensor.py"]
    for nb in sorted(course.SOURCE_NOTEBOOKS.glob("*.ipynb")):
        lines = _cells_text(json.loads(nb.read_text("utf-8"))).splitlines()
        texts += _fenced(_fenced(lines, *SOLUTION, outside=True), *HIDDEN, outside=True)
    return _norm("\n".join(texts))


def _leakable() -> dict[str, str]:
    """The secret lines the chapter does not give away: no release or feedback may show one."""
    provided = _provided_text()
    return {line: where for line, where in _secret_lines().items()
            if line not in SHOWN and line not in provided}


def _quiz_secrets() -> dict[str, str]:
    nb = json.loads((course.SOURCE_NOTEBOOKS / f"{QUIZ}.ipynb").read_text("utf-8"))
    lines = _cells_text(nb).splitlines()
    return {"solution": {_norm(x) for x in _fenced(lines, *SOLUTION)},
            "hidden": {_norm(x) for x in _fenced(lines, *HIDDEN)}}


def _tree_texts(tree: Path) -> dict[str, str]:
    """{file: its text, whitespace collapsed} of every text file under ``tree`` (a notebook's
    cell sources and outputs)."""
    found = {}
    for path in sorted(p for p in tree.rglob("*") if p.is_file()):
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if path.suffix == ".ipynb":
            nb = json.loads(text)
            text = _cells_text(nb) + "\n" + json.dumps(
                [c.get("outputs", []) for c in nb["cells"]], ensure_ascii=False)
        found[str(path.relative_to(tree))] = _norm(text)
    return found


def test_the_secret_lines_cover_the_solutions():
    """The leak tests below search for something: every op and every quiz answer."""
    quiz = _quiz_secrets()
    assert len(quiz["solution"]) == len(quiz["hidden"]) == len(QUESTIONS)
    leakable = _leakable()
    assert quiz["solution"] | quiz["hidden"] <= set(leakable)
    assert "return (g * (1.0 - t * t),)" in leakable
    assert sum(w == "solutions/tensor.py" for w in leakable.values()) > 100


def test_release_is_what_a_learner_receives(graded):
    """The notebooks, the stub package, the course checker and the theory: nothing else."""
    release = graded / "release" / ASSIGNMENT
    notebooks = {p.name for p in course.lab_notebooks()}
    assert {p.name for p in release.iterdir()} == notebooks | {"minitorch", "minitorch_course",
                                                               "theory", "my_tests"}
    assert {f"my_tests/{p.name}" for p in (release / "my_tests").iterdir()} == set(
        course.LEARNER_TESTS)  # the learner's test skeletons, nothing else
    shipped = {str(p.relative_to(release)) for p in release.rglob("*") if p.is_file()}
    assert not any(name.startswith(("minitorch_grading", "minitorch_authoring"))
                   for name in shipped), shipped
    assert "minitorch_course/check.py" in shipped and "minitorch_course/grading.py" in shipped
    theory = {str(p.relative_to(ROOT)) for p in (ROOT / "theory").rglob("*.md")}
    assert theory <= shipped
    assert not any("answers" in name or "solution" in name for name in shipped), shipped
    assert (release / course.GRADED_FILE).read_text("utf-8") != REFERENCE.read_text("utf-8")


def test_release_links_resolve(graded):
    """Notebooks at the top, theory in theory/: every relative link lands on a shipped file."""
    release = graded / "release" / ASSIGNMENT
    texts = {p: p.read_text("utf-8") for p in release.rglob("*.md")}
    for nb in release.glob("*.ipynb"):
        texts[nb] = _cells_text(json.loads(nb.read_text("utf-8")))
    links = 0
    for path, text in texts.items():
        for target in re.findall(r"\]\(([^)\s#]+)", text):
            if "://" in target or target.startswith("mailto:"):
                continue
            links += 1
            assert (path.parent / target).resolve().is_file(), f"{path.name}: {target}"
    assert links > 20


def test_release_holds_no_solution_line_and_no_answer(graded):
    """grep the release for every solution line and answer the chapter does not give away."""
    release = graded / "release" / ASSIGNMENT
    secrets = _leakable()
    provided = _provided_text()
    for path in sorted((ROOT / "solutions" / "theory").rglob("*.md")):
        for line in map(_norm, path.read_text("utf-8").splitlines()):
            if len(line) >= 40 and line not in provided:  # an answer may quote the theory
                secrets.setdefault(line, str(path.relative_to(ROOT)))
    leaks = [f"{name}: {line!r} (from {where})"
             for name, text in _tree_texts(release).items()
             for line, where in sorted(secrets.items()) if line in text]
    assert not leaks, "\n".join(leaks)


def _page_text(page: Path) -> str:
    """A feedback page's visible text: tags removed, entities decoded, whitespace collapsed."""
    raw = page.read_text(encoding="utf-8")
    raw = re.sub(r"<(style|script)\b.*?</\1>", " ", raw, flags=re.S)
    return _norm(html.unescape(re.sub(r"<[^>]+>", "", raw)))


def test_the_page_text_finds_code_in_feedback(graded):
    """The searches below would see a line the page shows (Pygments splits it into spans)."""
    page = _page_text(graded / "feedback" / "ref" / ASSIGNMENT / f"{QUIZ}.html")
    assert "answer_01 = \"b\"" in page  # this learner's own (right) answer


def test_feedback_shows_no_hidden_test(graded):
    hidden = _quiz_secrets()["hidden"]
    pages = sorted((graded / "feedback").rglob("*.html"))
    assert {p.parts[-3] for p in pages} == {*HONEST, "wrong"}
    for page in pages:
        text = _page_text(page)
        shown = [line for line in hidden if line in text]
        assert not shown, f"{page.relative_to(graded)} shows hidden tests: {shown}"


def test_feedback_shows_no_answer_the_learner_did_not_give(graded):
    """The stub and the wrong quiz: no solution line and no answer anywhere in their feedback."""
    secrets = set(_leakable())
    for student in ("stub", "wrong"):
        for page in sorted((graded / "feedback" / student / ASSIGNMENT).glob("*.html")):
            text = _page_text(page)
            shown = sorted(line for line in secrets if line in text)
            assert not shown, f"feedback/{student}/{page.name} shows: {shown}"


def test_feedback_of_a_wrong_answer_says_a_hidden_test_failed(graded, submissions):
    text = _page_text(graded / "feedback" / "wrong" / ASSIGNMENT / f"{QUIZ}.html")
    # the quiz's hidden tests say which section to re-read, never the answer
    assert "AssertionError" in text and ("re-read theory" in text or "relee theory" in text)
    grades = submissions.grades(graded, "wrong")
    assert grades and not any(s for s, _ in grades.values()), grades


def _checksum_warnings(log: str) -> dict[str, list[str]]:
    """{student: cells} of every "checksum ... has changed" warning in an autograde log."""
    warnings: dict[str, list[str]] = {}
    student = None
    for line in log.splitlines():
        if m := re.search(r"(?:submitted|autograded)/([^/\s]+)/" + ASSIGNMENT, line):
            student = m.group(1)
        if m := re.search(r"Attribute 'checksum' for cell (\S+) has changed", line):
            warnings.setdefault(student, []).append(m.group(1))
    return warnings


def test_honest_submissions_log_no_checksum_warning(graded):
    warnings = _checksum_warnings(LOGS["autograde"] + LOGS["hostile"])
    assert not {s: w for s, w in warnings.items() if s in HONEST}, warnings


def test_an_edited_locked_cell_is_still_reported_and_restored(graded, submissions):
    assert _checksum_warnings(LOGS["autograde"]).get("wrong") == [TAMPERED]
    path = graded / "autograded" / "wrong" / ASSIGNMENT / f"{QUIZ}.ipynb"
    cells = json.loads(path.read_text("utf-8"))["cells"]
    cell = next(c for c in cells if c["metadata"].get("nbgrader", {}).get("grade_id") == TAMPERED)
    assert "tampered" not in "".join(cell["source"])
    assert submissions.grades(graded, "wrong")[(QUIZ, TAMPERED)][0] == 0


# ---------------------------------------------------------------- nothing is lost
def _snapshot(course_dir: Path) -> dict[str, str]:
    """{path: sha256} of every file of the grading data (the gradebook aside)."""
    return {str(p.relative_to(course_dir)): hashlib.sha256(p.read_bytes()).hexdigest()
            for name in ("submitted", "autograded", "feedback")
            for p in sorted((course_dir / name).rglob("*")) if p.is_file()}


def test_rebuilding_keeps_the_gradebook_and_submissions(graded, monkeypatch, capsys, submissions):
    """Last: `course build`, nbgrader's regeneration and `course generate` lose no grade."""
    students = (*HONEST, "wrong")
    before = _snapshot(graded), {s: submissions.grades(graded, s) for s in students}
    assert len(before[0]) > 20 and (graded / "gradebook.db").is_file()
    assert course.build_command(graded) == 0
    assert "kept as they were: gradebook.db, submitted, autograded, feedback" in (
        capsys.readouterr().out)
    course.nbgrader(["generate_assignment", ASSIGNMENT, "--force"], graded)
    # `make notebooks` works in a temporary course directory, never the instructor's
    monkeypatch.setattr(course, "COURSE_DIR", graded)
    monkeypatch.setattr(course, "write_students", lambda generated, force=False, **kw: 0)
    assert course.generate() == 0
    after = _snapshot(graded), {s: submissions.grades(graded, s) for s in students}
    assert after == before
