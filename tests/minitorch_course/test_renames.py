"""The one table of renamed names (``minitorch_course.renames``) against today's notebooks, and
how a notebook saved from an older release is given today's names (``minitorch_grading.course``:
``upgrade_notebook``, ``upgrade_submission``). The class run and the scores of record on such a
submission, through nbgrader: tests/minitorch_grading/test_old_release.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import old_release_notebook

from minitorch_authoring import nb_i18n, repository
from minitorch_course import quiz, renames
from minitorch_grading import classrun, course

FOLDERS = (repository.SOURCE_NOTEBOOKS, repository.SOURCE_NOTEBOOKS_EN,
           repository.STUDENT_NOTEBOOKS, repository.STUDENT_NOTEBOOKS_EN)


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _grade_ids(nb: dict) -> list[str]:
    return [c["metadata"]["nbgrader"]["grade_id"] for c in nb["cells"]
            if c["metadata"].get("nbgrader", {}).get("grade_id")]


def _src(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_grade_ids_are_english_and_the_same_in_both_languages():
    """A grade id is an identifier: English in both routes (nbgrader shows it in its screens,
    the feedback and the record's lines), and no old name survives in any notebook."""
    old = {o for r in renames.RENAMED.values() for o in r.grade_ids}
    assert {"pregunta_01", "respuesta_13", "prediccion_curva_u", "check_prediccion_sum",
            "silu_prima", "check_silu_prima", "nota_silu"} <= old  # the ids of issue 24
    for folder in FOLDERS:
        paths = sorted(folder.glob("[0-9][0-9]-*.ipynb"))
        assert len(paths) == 8, folder
        for path in paths:
            ids = _grade_ids(_load(path))
            spanish = {i: nb_i18n.spanish_words(i.replace("_", " ").replace("-", " "))
                       for i in ids}
            assert not {i: w for i, w in spanish.items() if w}, path
            assert not set(ids) & old, path
    for spanish in sorted(repository.SOURCE_NOTEBOOKS.glob("[0-9][0-9]-*.ipynb")):
        english = repository.SOURCE_NOTEBOOKS_EN / spanish.name
        assert _grade_ids(_load(spanish)) == _grade_ids(_load(english))


@pytest.mark.parametrize("notebook", sorted(renames.RENAMED))
def test_every_rename_leads_to_a_cell_or_variable_of_today(notebook):
    """The table's new names are the instructor notebook's (so the class run and the gradebook
    renaming lead somewhere), its old ones are gone from it."""
    nb = _load(repository.SOURCE_NOTEBOOKS / f"{notebook}.ipynb")
    ids = set(_grade_ids(nb))
    assigned = {n for c in nb["cells"] if c["cell_type"] == "code"
                for n in nb_i18n.assigned_names(_src(c))}
    table = renames.RENAMED[notebook]
    assert set(table.grade_ids.values()) <= ids and not set(table.grade_ids) & ids
    assert set(table.variables.values()) <= assigned and not set(table.variables) & assigned
    assert course.renames_toward(nb, notebook) == (table.grade_ids, table.variables)


def test_renaming_code_touches_names_only():
    source = ("respuesta_01 = 'b'  # respuesta_01\n"
              "x.respuesta_01 = f(respuesta_01, 'respuesta_01', respuesta_010)\n")
    assert course.rename_code(source, {"respuesta_01": "answer_01"}) == (
        "answer_01 = 'b'  # respuesta_01\n"
        "x.respuesta_01 = f(answer_01, 'respuesta_01', respuesta_010)\n")
    assert course.rename_code("respuesta_01 = (", {"respuesta_01": "answer_01"}) == \
        "respuesta_01 = ("  # does not tokenize: left as it is


@pytest.mark.parametrize("notebook", sorted(renames.RENAMED))
def test_a_notebook_of_the_old_release_is_given_todays_names(tmp_path, monkeypatch, notebook):
    """Renamed, a notebook saved from the old release (answered) is today's, byte for byte in
    its cells, and the class run's check finds nothing missing; without the table it still
    holds the old names, the class run would send it to manual grading and the record would
    read its renamed answers as unanswered."""
    source = tmp_path / "source"
    source.mkdir()
    instructor = repository.SOURCE_NOTEBOOKS / f"{notebook}.ipynb"
    (source / instructor.name).write_text(instructor.read_text("utf-8"), encoding="utf-8")
    today = _load(instructor)  # answered: the instructor's answers
    before = old_release_notebook(today, notebook)
    assert before != today
    folder = tmp_path / "snapshot"
    folder.mkdir()
    path = folder / f"{notebook}.ipynb"
    expected = {i: {"cell_type": c["cell_type"], "grade": bool(m.get("grade")),
                    "solution": bool(m.get("solution")), "locked": bool(m.get("locked"))}
                for c in today["cells"] if (i := (m := c["metadata"].get("nbgrader", {}))
                                            .get("grade_id"))}

    def upgraded(table: dict) -> tuple[dict, dict]:
        monkeypatch.setattr(renames, "RENAMED", table)
        path.write_text(json.dumps(before), encoding="utf-8")
        return course.upgrade_submission(folder, source), _load(path)

    def learners(nb: dict) -> list[str]:  # nbgrader restores the locked cells itself
        return [_src(c) for c in nb["cells"] if not c["metadata"].get("nbgrader", {}).get(
            "locked")]

    done, nb = upgraded(renames.RENAMED)
    assert done[notebook] and learners(nb) == learners(today) != learners(before)
    assert _grade_ids(nb) == _grade_ids(today)
    assert classrun.malformed(path, expected) is None
    assert quiz.read_literals(path) == quiz.read_literals(instructor)

    done, nb = upgraded({})  # without the table
    assert done == {} and _grade_ids(nb) == _grade_ids(before)
    if renames.grade_ids(notebook):
        assert "is missing" in (classrun.malformed(path, expected) or "")
    new_names = set(renames.variables(notebook).values())
    assert not new_names & set(quiz.read_literals(path)[0])  # unanswered for the record


def test_an_untouched_answer_cell_stays_untouched_for_nbgrader(tmp_path):
    """The release's unanswered cells keep a checksum nbgrader recognises once renamed, so an
    unanswered old cell scores as an unanswered new one ("No response"), not as changed."""
    for path in sorted(repository.STUDENT_NOTEBOOKS.glob("[0-9][0-9]-*.ipynb")):
        if path.stem not in renames.RENAMED:
            continue
        nb = old_release_notebook(_load(path), path.stem)
        for cell in nb["cells"]:  # the old release's own checksums
            meta = cell["metadata"].get("nbgrader", {})
            if meta.get("checksum"):
                meta["checksum"] = course._checksum(cell)
        ids, names = course.renames_toward(_load(repository.SOURCE_NOTEBOOKS / path.name),
                                           path.stem)
        assert course.upgrade_notebook(nb, ids, names)
        for cell in nb["cells"]:
            meta = cell["metadata"].get("nbgrader", {})
            if meta.get("checksum"):
                assert meta["checksum"] == course._checksum(cell), (path.stem, meta["grade_id"])
