"""The lab notebooks: structure, nbval against the reference, the student versions vs the stub.

- (tests/repo/test_notebooks_nbval.py: every instructor notebook under nbval, a module of its own so
  that make test's two workers share the executions)
- the committed student notebooks are exactly what nbgrader generates from the instructor ones;
- run against the stub, a student notebook fails only in graded cells, with a NotImplementedError
  (or a CheckFailure saying "not implemented") that names the lab: never in set-up or demo cells.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from minitorch_authoring.repository import ROOT
from minitorch_course import examplar
from minitorch_course.catalog import LABS
from minitorch_grading import course

INSTRUCTOR = course.lab_notebooks()
IDS = [p.stem for p in INSTRUCTOR]

SETUP_LINES = [
    "%load_ext autoreload",
    "%autoreload 2",
    "%matplotlib inline",
    "import numpy as np",
    "import minitorch as mt",
    "from minitorch_course.grading import setup_lab, check_ops, pending",
]


def _nb(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _grader(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def _code_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def test_every_catalog_lab_has_its_notebooks():
    """The parametrised tests below run over the notebooks found: a lab renamed or removed
    must fail here, not silently drop out of them."""
    for lab in LABS:
        assert (ROOT / "solutions" / "notebooks" / f"{lab}.ipynb").is_file(), lab
        assert (ROOT / "notebooks" / f"{lab}.ipynb").is_file(), lab


# ---------------------------------------------------------------- structure (fast)
@pytest.mark.parametrize("path", INSTRUCTOR, ids=IDS)
def test_setup_cell_is_first_locked_and_exact(path):
    first = _code_cells(_nb(path))[0]
    meta = _grader(first)
    assert meta.get("grade_id") == "setup" and meta.get("locked") is True, meta
    assert not meta.get("grade") and not meta.get("solution"), meta
    lines = _source(first).splitlines()
    assert lines == SETUP_LINES + [f'setup_lab("{path.stem}")'], lines


@pytest.mark.parametrize("path", INSTRUCTOR, ids=IDS)
def test_graded_cells_are_locked_with_points(path):
    graded = [c for c in _code_cells(_nb(path)) if _grader(c).get("grade")]
    if path.stem in LABS:  # a lab that asks for ops grades them
        assert graded, f"{path.name} has no graded cell"
    ids = [_grader(c)["grade_id"] for c in graded]
    assert len(ids) == len(set(ids)), f"duplicate grade_id in {path.name}: {ids}"
    for cell in graded:
        meta = _grader(cell)
        assert meta.get("locked") is True, f"{meta['grade_id']} is not locked"
        assert 0 < meta.get("points", 0) <= 5, f"{meta['grade_id']}: points {meta.get('points')}"


@pytest.mark.parametrize("path", INSTRUCTOR, ids=IDS)
def test_instructor_notebook_is_committed_rendered(path):
    """Outputs are committed (the forge shows them), and no cell errored when rendering."""
    for cell in _code_cells(_nb(path)):
        tags = cell.get("metadata", {}).get("tags", [])
        if "nbval-skip" in tags:
            continue
        assert cell.get("execution_count"), (
            f"{path.name}: a cell was never executed; run "
            "`python -m minitorch_grading.course render`:\n" + _source(cell)[:200])
        errors = [o for o in cell.get("outputs", []) if o["output_type"] == "error"]
        assert not errors or "raises-exception" in tags, (path.name, errors[0].get("evalue"))


@pytest.mark.parametrize("path", INSTRUCTOR + course.lab_notebooks("en"),
                         ids=IDS + [f"en-{i}" for i in IDS])
def test_the_my_tests_cells_show_the_report_and_no_bare_number(path):
    """check_my_tests once left a bare 0.0 or 1.0 as the cell's Out[] (issue 28): it prints its
    report and returns None outside autograde, as the rendered notebooks show."""
    from minitorch_course.catalog import MY_TESTS_CELLS

    ids = {c.grade_id for c in MY_TESTS_CELLS.values()}
    for cell in _code_cells(_nb(path)):
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") in ids:
            kinds = [o["output_type"] for o in cell.get("outputs", [])]
            assert "execute_result" not in kinds and "stream" in kinds, (path.name, kinds)


# ---------------------------------------------------------------- student notebooks (slow)
@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    """nbgrader's release directory, as `generate` makes it for notebooks/ (repository layout)."""
    return course.generate_assignment(tmp_path_factory.mktemp("course") / "course",
                                      for_class=False)


@pytest.mark.slow
def test_committed_student_notebooks_are_generated(release):
    problems = course.stale(course.student_versions(release))
    assert not problems, ("notebooks/ is stale (run `python -m minitorch_grading.course "
                          "generate`):\n" + "\n".join(problems))


def test_a_stale_manifest_is_reported(tmp_path):
    """A merge once kept an older notebooks/.generated.json beside the right notebooks:
    `generate --check` passed, and make test then read the notebooks as a learner's edits."""
    text = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'
    text = course.dumps(course.canonical(json.loads(text)))
    (tmp_path / "00-x.ipynb").write_text(text, encoding="utf-8")
    manifest = tmp_path / course.MANIFEST.name
    manifest.write_text(json.dumps({"00-x.ipynb": course._hash_of(text)}), encoding="utf-8")
    assert course.stale({"00-x.ipynb": text}, tmp_path) == []
    manifest.write_text(json.dumps({"00-x.ipynb": "0" * 64}), encoding="utf-8")
    assert course.stale({"00-x.ipynb": text}, tmp_path) == [
        "00-x.ipynb: .generated.json records another version"]


@pytest.mark.slow
def test_release_ships_the_stub_and_no_caches(release):
    from minitorch_authoring import stubgen

    for stub in stubgen.STUBS.values():  # tensor.py and mlp.py: the stubs, never the answers
        shipped = (release / "minitorch" / stub.target.name).read_text(encoding="utf-8")
        assert shipped == stubgen.stub_text(stub)
        assert "### BEGIN SOLUTION" not in shipped
    junk = [p for p in release.rglob("*")
            if p.name in ("__pycache__", ".hypothesis", ".pytest_cache", ".ipynb_checkpoints")]
    assert not junk, junk
    for nb in release.glob("*.ipynb"):
        text = nb.read_text(encoding="utf-8")
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text, nb.name


def _lab_of(name: str) -> str:
    return name.removesuffix(".ipynb")


@pytest.mark.slow
@pytest.mark.parametrize("name", [p.name for p in INSTRUCTOR], ids=IDS)
def test_student_notebook_against_stub_fails_only_in_graded_cells(name, release, tmp_path,
                                                                  monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    work = tmp_path / "release"
    shutil.copytree(release, work)  # the student's folder: notebooks, minitorch (stub), checks
    for var in ("PYTHONPATH", "MINITORCH_IMPL", "NBGRADER_EXECUTION"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(work / name, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(work)}}).execute()

    lab = _lab_of(name)
    setup = _code_cells(nb)[0]
    printed = "".join(o.get("text", "") for o in setup.outputs if o.output_type == "stream")
    assert f"{lab}: minitorch implementation 'learner' (" in printed, printed
    assert "minitorch/tensor.py)" in printed, printed
    # The MLP notebook asks for no op of its own: it runs the finished engine. Against the stub
    # its first failure must be the prerequisites check pointing at the missing lab; like "Run
    # All" in JupyterLab, what follows that first error is not looked at.
    capstone = _nb(course.SOURCE_NOTEBOOKS / name)["metadata"].get("minitorch", {}).get(
        "needs_finished_engine", False)  # nbgrader drops custom metadata from the release
    failed_graded = 0
    for cell in _code_cells(nb):
        errors = [o for o in cell.outputs if o.output_type == "error"]
        if not errors:
            continue
        meta = _grader(cell)
        err = errors[0]
        where = f"{name} cell {meta.get('grade_id') or cell.get('id')}"
        assert meta.get("grade") or (capstone and meta.get("grade_id") != "setup"), (
            f"{where} is not graded but raised {err.ename}: "
            f"{err.evalue[:500]}\n{_source(cell)[:300]}")
        assert err.ename in ("NotImplementedError", "CheckFailure"), (where, err.ename, err.evalue)
        assert any(phrase in err.evalue.lower()
                   for phrase in ("not implemented", "not written yet", "sin escribir", "not answered",
                                  "sin responder")), (
            where, err.evalue[:500])
        assert "notebooks/" in err.evalue and ".ipynb" in err.evalue, (where, err.evalue[:500])
        failed_graded += 1
        if capstone:
            assert "check_ops(" in _source(cell), f"{where}: the first failure is not the check"
            break
    graded = [c for c in _code_cells(nb) if _grader(c).get("grade")]
    assert failed_graded or not graded, f"{name}: no graded cell failed against the stub"


def test_grading_env_drops_what_could_swap_the_graded_code(monkeypatch):
    monkeypatch.setenv("MINITORCH_IMPL", "reference")
    monkeypatch.setenv("PYTHONPATH", str(ROOT / "src"))
    env = course.grading_env()
    assert "MINITORCH_IMPL" not in env and "PYTHONPATH" not in env
    assert env["PYTHONHASHSEED"] == "0"


def test_course_config_excludes_exactly_the_graded_files(tmp_path):
    course.build(tmp_path / "course")
    config = (tmp_path / "course" / "nbgrader_config.py").read_text(encoding="utf-8")
    namespace = {"get_config": lambda: None}
    line = next(x for x in config.splitlines() if x.startswith("c.Autograde.exclude_overwriting"))
    excluded = eval(line.split("=", 1)[1], namespace)["fase08"]  # noqa: S307 (our own config)
    assert excluded[:2] == ["minitorch/tensor.py", "minitorch/mlp.py"]
    assert sorted(excluded[2:]) == sorted(f"my_tests/{n}" for n in examplar.ALL_FILES)
    for path in excluded:  # exact relative paths of files the release ships: no glob, no "./"
        assert not any(ch in path for ch in "*?[") and not path.startswith("./"), path
        assert (tmp_path / "course" / "source" / "fase08" / path).is_file(), path
    for default in (".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".hypothesis",
                    ".pytest_cache"):
        assert f'"{default}"' in config
    source = tmp_path / "course" / "source" / "fase08"
    assert (source / "minitorch" / "tensor.py").is_file()
    assert (source / "minitorch_course" / "grading.py").is_file()
    assert not list(source.rglob("__pycache__"))


def test_generate_refuses_to_overwrite_an_edited_notebook(tmp_path, capsys):
    target = tmp_path / "notebooks"
    target.mkdir()
    nb = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    generated = {"00-x.ipynb": course.dumps(nb)}
    assert course.write_students(generated, target=target) == 0
    manifest = json.loads((target / ".generated.json").read_text(encoding="utf-8"))
    assert set(manifest) == {"00-x.ipynb"}
    # a stale generated notebook (unchanged since written) is replaced silently
    nb2 = dict(nb, cells=[{"cell_type": "markdown", "id": "a", "metadata": {}, "source": "v2"}])
    generated = {"00-x.ipynb": course.dumps(nb2)}
    assert course.write_students(generated, target=target) == 0
    # the learner edits it: refused, then --force keeps a backup
    edited = dict(nb2, cells=[dict(nb2["cells"][0], source="mis notas")])
    (target / "00-x.ipynb").write_text(course.dumps(edited), encoding="utf-8")
    nb3 = dict(nb, cells=[{"cell_type": "markdown", "id": "a", "metadata": {}, "source": "v3"}])
    generated = {"00-x.ipynb": course.dumps(nb3)}
    assert course.write_students(generated, target=target) == 1
    refusal = capsys.readouterr().err
    assert "refusing to overwrite 00-x.ipynb" in refusal
    assert "make notebooks FORCE=1" in refusal  # what the person types
    assert "mis notas" in (target / "00-x.ipynb").read_text(encoding="utf-8")
    assert course.write_students(generated, force=True, target=target) == 0
    backups = list(target.glob("00-x.*.ipynb.bak"))
    assert len(backups) == 1 and "mis notas" in backups[0].read_text(encoding="utf-8")
    assert (target / "00-x.ipynb").read_text(encoding="utf-8") == generated["00-x.ipynb"]


def test_self_study_needs_no_nbgrader():
    """The student notebooks import only the course packages: no nbgrader at run time."""
    for path in sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        text = "\n".join(_source(c) for c in _code_cells(_nb(path)))
        assert "import nbgrader" not in text and "from nbgrader" not in text, path.name



@pytest.mark.parametrize("name", [p.name for p in INSTRUCTOR], ids=IDS)
def test_student_notebook_shows_demo_outputs_and_nothing_else(name):
    """Rendered demo outputs (plots included) are visible on the forge; graded cells, solution
    cells, the set-up cell and the demos that run the learner's ops (``pending()``: their
    output is the reference's, to predict) carry no output, so no answer or grade leaks."""
    cells = _code_cells(_nb(ROOT / "notebooks" / name))
    for cell in cells:
        meta = _grader(cell)
        if meta.get("grade") or meta.get("solution") or meta.get("grade_id") == "setup" \
                or "pending(" in _source(cell):
            assert not cell.get("outputs"), (name, meta.get("grade_id"), _source(cell)[:60])
    demos = [c for c in cells if not _grader(c).get("grade") and not _grader(c).get("solution")
             and _grader(c).get("grade_id") != "setup"]
    if name != "07-quiz.ipynb":  # the quiz has no demo cells
        assert any(c.get("outputs") for c in demos), name
