"""The definition of done has one source (minitorch_course.done): both theory READMEs show it,
and lab 06's extension is ticked only with its test and note written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from minitorch_authoring.repository import ROOT
from minitorch_course import done


@pytest.mark.parametrize("lang", sorted(done.README))
def test_the_theory_readme_shows_the_list(lang, monkeypatch):
    monkeypatch.setenv("MINITORCH_LANG", lang)
    text = (ROOT / done.README[lang]).read_text(encoding="utf-8")
    block = text.split(done.BEGIN, 1)[1].split(done.END, 1)[0].strip()
    assert block == done.markdown(), (
        f"{done.README[lang]} is out of date: python -m minitorch_course.done --write")
    assert len(block.splitlines()) == len(done.ITEMS)
    if lang == "es":
        assert "cuestionario" in block  # translated, not the English ids


def test_the_list_names_every_artefact():
    assert [item.key for item in done.ITEMS] == [
        "ops", "torch", "property", "broadcast", "lab_tests", "mlp", "extension", "quiz"]


def _lab06(source: Path) -> list[dict]:
    return json.loads(source.read_text(encoding="utf-8"))["cells"]


NOTEBOOKS = {"es": Path("notebooks"), "en": Path("notebooks") / "en"}  # student, per language
WORDS = {"es": "una frase con bastantes palabras para contar como texto de verdad",
         "en": "a sentence with enough words in it to count as real text"}


def _note_cell(cells: list[dict]) -> dict:
    [cell] = [c for c in cells if c["metadata"].get("nbgrader", {}).get("grade_id") == done.NOTE_ID]
    return cell


@pytest.mark.parametrize("lang", sorted(NOTEBOOKS))
def test_the_note_labels_are_the_notebooks(lang):
    """done.NOTE_PARTS holds the bold labels of each language's lab 06 note cell, in order."""
    student = ROOT / NOTEBOOKS[lang] / f"{done.EXTENSION_LAB}.ipynb"
    text = "".join(_note_cell(_lab06(student))["source"])
    assert tuple(re.findall(r"\*\*([^*]+):\*\*", text)) == done.NOTE_PARTS[lang]


@pytest.mark.parametrize("lang", sorted(NOTEBOOKS))
def test_the_extension_parts_are_read_from_the_notebook(lang, tmp_path):
    instructor = ROOT / "solutions" / NOTEBOOKS[lang] / f"{done.EXTENSION_LAB}.ipynb"
    student = ROOT / NOTEBOOKS[lang] / f"{done.EXTENSION_LAB}.ipynb"
    assert done.extension_parts(instructor) == {"test": True, "note": True}
    assert done.extension_parts(student) == {"test": False, "note": False}
    assert done.extension_parts(None) == {"test": False, "note": False}
    # a note with its last part left nearly empty, and a test with no check in it
    cells = _lab06(instructor)
    note, last = _note_cell(cells), done.NOTE_PARTS[lang][-1]
    text = "".join(note["source"])
    assert f"**{last}:**" in text
    note["source"] = text.split(f"**{last}:**")[0] + f"**{last}:** {last.split()[0]}."
    for cell in cells:
        if cell["metadata"].get("nbgrader", {}).get("grade_id") == "test_silu_code":
            cell["source"] = "def test_silu():\n    pass\n"
    half = tmp_path / "06.ipynb"
    half.write_text(json.dumps({"cells": cells}), encoding="utf-8")
    assert done.extension_parts(half) == {"test": False, "note": False}


@pytest.mark.parametrize("lang", sorted(done.NOTE_PARTS))
def test_note_structure(lang):
    parts = done.NOTE_PARTS[lang]
    full = "\n\n".join(f"**{part}:** {WORDS[lang]}" for part in parts)
    assert done.note_complete(full)
    assert not done.note_complete(full.replace(f"**{parts[0]}:**", "**Otro:**"))
    assert not done.note_complete("\n".join(f"**{p}:**\nYOUR ANSWER HERE" for p in parts))


def test_the_extension_is_ticked_with_the_method_test_and_note():
    """The reference's lab 06 rows with the instructor notebook tick it; the student
    notebook (no test, no note) does not, though the method passes."""
    from minitorch_course import quiz, runner
    from minitorch_course.catalog import ops_for_lab

    impl, _label = runner.load("reference")
    reports = runner.run([op.name for op in ops_for_lab(done.EXTENSION_LAB)], impl,
                         ("forward", "backward"), 1)
    unavailable = quiz.QuizReport({}, "no key")
    solved = ROOT / "solutions" / "notebooks" / "06-extension-silu.ipynb"
    blank = ROOT / "notebooks" / "06-extension-silu.ipynb"
    assert done.ticks(reports, unavailable, solved)["extension"] == done.YES
    assert done.ticks(reports, unavailable, blank)["extension"] == done.NO
    assert done.ticks(reports, unavailable, solved)["quiz"] == done.UNKNOWN


@pytest.mark.parametrize("lang", ["es", "en"])
def test_the_list_names_the_readme_of_the_learners_language(lang, monkeypatch):
    monkeypatch.setenv("MINITORCH_LANG", lang)
    state = {item.key: done.NO for item in done.ITEMS}
    first = done.lines(state, {done.NO: "✗"})[0]
    assert f"({done.README[lang].as_posix()})" in first
    other = done.README["en" if lang == "es" else "es"].as_posix()
    assert f"({other})" not in first
