"""The course directory keeps its grading data: `course build` and `make clean` (no nbgrader run).

The round trip (tests/minitorch_grading/test_nbgrader_roundtrip.py) does the same with a real gradebook and
autograded submissions.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from minitorch_authoring.repository import ROOT
from minitorch_grading import course


def _grading_data(course_dir: Path) -> dict[str, str]:
    """A course directory's grading data, as nbgrader lays it out, plus an instructor's note."""
    files = {
        "gradebook.db": "SQLite format 3\0 (a stand-in)",
        "submitted/ana/fase08/07-quiz.ipynb": '{"cells": []}',
        "submitted/ana/fase08/minitorch/tensor.py": "# ana's work\n",
        "autograded/ana/fase08/07-quiz.ipynb": '{"cells": [1]}',
        "feedback/ana/fase08/07-quiz.html": "<html>feedback</html>",
        "exchange/minitorch-fase08/inbound/ana+fase08+2026/07-quiz.ipynb": "{}",
        "notas-del-profesor.txt": "no borrar",
    }
    for name, text in files.items():
        (course_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (course_dir / name).write_text(text, encoding="utf-8")
    return _hashes(course_dir, files)


def _hashes(course_dir: Path, names) -> dict[str, str]:
    return {n: hashlib.sha256((course_dir / n).read_bytes()).hexdigest() for n in names}


def test_build_rewrites_only_what_it_generates(tmp_path, capsys):
    course_dir = tmp_path / "course"
    course.build(course_dir)
    stale = course_dir / "source" / course.ASSIGNMENT / "old-lab.ipynb"
    stale.write_text("{}", encoding="utf-8")
    before = _grading_data(course_dir)
    assert course.build_command(course_dir) == 0
    assert _hashes(course_dir, before) == before
    assert not stale.exists()  # source/fase08/ is generated: rebuilt from scratch
    assert (course_dir / "source" / course.ASSIGNMENT / course.GRADED_FILE).is_file()
    out = capsys.readouterr().out
    assert "kept as they were: gradebook.db, submitted, autograded, feedback, exchange" in out


def test_build_refuses_a_directory_with_a_foreign_nbgrader_config(tmp_path):
    other = tmp_path / "other-course"
    other.mkdir()
    (other / "nbgrader_config.py").write_text("c = get_config()\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="was not written by"):
        course.build(other)
    assert (other / "nbgrader_config.py").read_text(encoding="utf-8") == "c = get_config()\n"
    assert not (other / "source").exists()


def test_build_refuses_a_file(tmp_path):
    not_a_dir = tmp_path / "course"
    not_a_dir.write_text("mis notas", encoding="utf-8")
    with pytest.raises(SystemExit, match="it is a file"):
        course.build(not_a_dir)
    assert not_a_dir.read_text(encoding="utf-8") == "mis notas"


def test_build_warns_about_a_course_directory_inside_the_repository(capsys):
    (ROOT / "build").mkdir(exist_ok=True)  # git-ignored
    with tempfile.TemporaryDirectory(dir=ROOT / "build", prefix="test-course-") as tmp:
        assert course.build_command(Path(tmp) / "course") == 0
    assert "is inside the repository" in capsys.readouterr().err


def test_build_source_ships_the_shipping_packages_whole_and_nothing_else(tmp_path):
    source = course.build(tmp_path / "course")
    for package in course.PACKAGES:
        here = {p.relative_to(ROOT / "src").as_posix() for p in (ROOT / "src" / package).rglob("*")
                if p.is_file() and "__pycache__" not in p.parts and not p.name.endswith(".pyc")
                and ".stub." not in p.name and ".bak" not in p.name}
        there = {p.relative_to(source).as_posix() for p in (source / package).rglob("*")
                 if p.is_file()}
        assert here == there, (here ^ there)
    assert not (source / "minitorch_grading").exists()
    assert not (source / "minitorch_authoring").exists()
    assert (source / "theory" / "README.md").is_file()
    assert (source / "theory" / "en" / "README.md").is_file()


def test_build_for_the_repository_keeps_the_notebooks_as_they_are(tmp_path):
    source = course.build(tmp_path / "course", for_class=False)
    for nb in course.lab_notebooks():
        assert (source / nb.name).read_bytes() == nb.read_bytes()
    assert not (source / "theory").exists()


def _make_clean(workdir: Path) -> subprocess.CompletedProcess:
    shutil.copy2(ROOT / "Makefile", workdir / "Makefile")
    (workdir / ".venv").mkdir()
    (workdir / ".venv" / "marker").write_text("x", encoding="utf-8")
    return subprocess.run(["make", "--no-print-directory", "clean"], cwd=workdir,
                          capture_output=True, text=True)


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_clean_refuses_to_delete_grading_data(tmp_path):
    before = _grading_data(tmp_path / "build" / "course")
    proc = _make_clean(tmp_path)
    assert proc.returncode != 0
    assert "refusing to delete build/" in proc.stderr and "build/course/gradebook.db" in proc.stderr
    assert _hashes(tmp_path / "build" / "course", before) == before
    assert (tmp_path / ".venv" / "marker").exists()  # refused before deleting anything


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_clean_deletes_build_without_grading_data(tmp_path):
    course.build(tmp_path / "build" / "course")
    proc = _make_clean(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "build").exists() and not (tmp_path / ".venv").exists()


# ---------------------------------------------------------------- a submission's HTML (x37 route 4)
def _render_as_nbgrader(config, template: str, nb) -> str:
    """``nb`` as formgrader (template formgrade) or generate_feedback (feedback) render it."""
    import nbformat
    from nbconvert.exporters import HTMLExporter
    from nbgrader.server_extensions.formgrader import handlers
    from traitlets.config import Config

    bootstrap = Path(handlers.__file__).parent / "static/node_modules/bootstrap/dist/css"
    config = Config(config)
    config.merge(Config({"HTMLExporter": {"template_name": template,
                                          "extra_template_basedirs": [handlers.template_path],
                                          "extra_template_paths": [str(bootstrap)]}}))
    resources = {"assignment_id": course.ASSIGNMENT, "notebook_id": "00", "submission_id": "x",
                 "index": 0, "total": 1, "base_url": "", "student": "s", "last_name": None,
                 "first_name": None, "notebook_path": "00.ipynb",
                 "nbgrader": {"notebook": "00", "score": 0, "max_score": 1, "late_penalty": 0}}
    html, _ = HTMLExporter(config=config).from_notebook_node(nbformat.from_dict(nb),
                                                             resources=resources)
    return html


def _live_markers(html: str) -> set[str]:
    import re

    # a tag, not its escaped text: "<" opens it and no ">" comes before the handler
    live = re.findall(r"<script[^>]*>[^<]*(x-[a-z]+)|<[a-z]+[^<>]*\son[a-z]+=\"[^\"]*(x-[a-z]+)",
                      html)
    return {m for pair in live for m in pair if m}


@pytest.mark.parametrize("template", ["formgrade", "feedback"])
def test_a_submissions_html_is_not_live_in_formgrader_or_feedback(tmp_path, template):
    import nbformat
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    v4 = nbformat.v4
    nb = v4.new_notebook(cells=[
        v4.new_markdown_cell("Notas <script>console.log('x-md')</script>\n"
                             "<img src=\"data:,\" onerror=\"console.log('x-img')\">\n"),
        v4.new_code_cell("display(HTML(...))", outputs=[v4.new_output("display_data", data={
            "text/html": "<script>console.log('x-html')</script><b>x</b>",
            "application/javascript": "console.log('x-js')", "text/plain": "x"})]),
        v4.new_code_cell("display(HTML(...))", outputs=[v4.new_output("display_data", data={
            "text/html": "<img src=\"data:,\" onerror=\"console.log('x-out')\">"})]),
    ])
    # the detector bites: nbgrader's defaults leave every marker live
    assert _live_markers(_render_as_nbgrader(Config(), template, nb)) == {
        "x-md", "x-img", "x-js", "x-out"}
    (tmp_path / "nbgrader_config.py").write_text(course.config_text(), encoding="utf-8")
    config = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path)).load_config()
    html = _render_as_nbgrader(config, template, nb)
    assert _live_markers(html) == set()
    assert "x-md" in html  # the learner's text is still shown, as text
