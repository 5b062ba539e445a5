"""No English in the Spanish route (the reverse of test_notebooks_en.py's scan).

What a Spanish learner reads: the Spanish instructor and student notebooks (Markdown, comments,
prose strings and rendered outputs), the Spanish stubs' docstrings, and the Spanish theory
(theory/*.md). Allowed: the library's own exceptions (English by the project's rule, like
NumPy's and PyTorch's), the grammatical grid's English verbs (data), the terms the glossary
keeps in English (forward, backward, broadcasting, test, lab: content words, never in the
scan's list), and by Spanish typography, foreign words in italics and quotations in «…».
"""

from __future__ import annotations

import configparser
import copy
import json
import re

import pytest

from minitorch_authoring import nb_i18n, repository, stubgen

ROOT = repository.ROOT
SPANISH = nb_i18n.notebooks()
STUDENT = sorted(repository.STUDENT_NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))
THEORY = sorted(repository.THEORY.glob("*.md"))
GLOSSARY = repository.THEORY / "GLOSARIO.md"

# Outputs that show English on purpose, with the reason (each must still show some: a stale
# entry fails).
ENGLISH_OUTPUTS = {
    ("01-elementwise-ops", "grid"): "the grid's persons (data)",
    ("01-elementwise-ops", "shape-error"): "minitorch's ShapeError, the library's own exception",
    ("02-reductions-and-shapes", "02-05"): "NumPy's broadcasting error",
    ("04-gradcheck-and-properties", "04-08"): "minitorch's GradcheckError",
    ("04-gradcheck-and-properties", "04-10"): "minitorch's GradcheckError",
    ("04-gradcheck-and-properties", "04-14"): "Hypothesis' report of a falsifying example",
    ("05-mlp-grammar", "grid"): "the grid's English verbs (data)",
    ("05-mlp-grammar", "label"): "the grid's English verbs (data)",
    ("05-mlp-grammar", "missed"): "the grid's English verbs (data)",
}


def _nb(path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _src(cell: dict) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def _sanitizers() -> list[tuple[str, str]]:
    cfg = configparser.ConfigParser(interpolation=None)
    cfg.read(ROOT / "tests" / "nbval_sanitize.cfg", encoding="utf-8")
    return [(cfg[s]["regex"], cfg[s]["replace"]) for s in cfg.sections()]


def _prose(text: str) -> str:
    """``text`` without what is not Spanish prose: code, math, link targets, HTML comments,
    foreign words in italics, quotations in «…», file names, dotted and hyphenated names."""
    text = re.sub(r"^\s*(```|~~~).*?^\s*\1", "", text, flags=re.S | re.M)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$|\$[^$\n]*\$", "", text, flags=re.S)
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    text = re.sub(r"(?<![*\w])\*(?!\*)[^*\n]+\*(?!\*)", "", text)
    text = re.sub(r"«[^»]*»|\bin situ\b", "", text)  # a quotation; a Latin phrase Spanish uses
    return _names(text)


def _names(text: str) -> str:
    """``text`` without file names, dotted names and hyphenated compounds (``np.add.at``,
    ``04-gradcheck-and-properties``, ``in-place``)."""
    return re.sub(r"\w+(?:[./-]\w+)+", "", text)


def _code_prose(source: str) -> str:
    """A code cell's or module's comments and prose strings, f-string fields taken out."""
    return re.sub(r"\{[^{}]*\}", "", _prose(nb_i18n.translatable_text(source, prose_only=True)))


def english_in_notebook(nb: dict, stem: str) -> list[str]:
    found = []
    for cell in nb["cells"]:
        where = f"{stem} {cell.get('id')}"
        text = _src(cell)
        text = _code_prose(text) if cell["cell_type"] == "code" else _prose(text)
        for line in text.splitlines():
            if words := nb_i18n.english_words(line):
                found.append(f"{where}: {words}: {line.strip()[:120]}")
        if (stem, cell.get("id")) in ENGLISH_OUTPUTS:
            continue
        for out in cell.get("outputs", []):
            data = out.get("text") or out.get("data", {}).get("text/plain") or ""
            data = "".join(data) if isinstance(data, list) else data
            for regex, replace in _sanitizers():
                data = re.sub(regex, replace, data)
            for line in _names(data).splitlines():
                if words := nb_i18n.english_words(line):
                    found.append(f"{where} output: {words}: {line.strip()[:120]}")
    return found


@pytest.mark.parametrize("path", SPANISH + STUDENT,
                         ids=[f"instructor-{p.stem[:2]}" for p in SPANISH]
                         + [f"student-{p.stem[:2]}" for p in STUDENT])
def test_no_english_in_the_spanish_notebook(path):
    found = english_in_notebook(_nb(path), path.stem)
    assert not found, ("English in a Spanish notebook (fix solutions/notebooks/, then `make "
                       "notebooks`):\n" + "\n".join(found))


def test_the_allowed_english_outputs_still_show_english():
    stale = []
    for (stem, cid), _why in ENGLISH_OUTPUTS.items():
        cell = next(c for c in _nb(repository.SOURCE_NOTEBOOKS / f"{stem}.ipynb")["cells"]
                    if c.get("id") == cid)
        text = "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))
        if not nb_i18n.english_words(text):
            stale.append(f"{stem} {cid}")
    assert not stale, f"ENGLISH_OUTPUTS lists cells that no longer show English: {stale}"


@pytest.mark.parametrize("name", list(stubgen.STUBS))
def test_no_english_in_the_spanish_stub_docstrings(name):
    text = stubgen.stub_text(stubgen.STUBS[name], "es")
    found = [f"{qualname}: {words}" for qualname, _a, _b, doc in stubgen.docstrings(text)
             if (words := nb_i18n.english_words(_prose(doc)))]
    assert not found, ("English in the Spanish stub's docstrings (solutions/i18n/es/"
                       f"{name}.po):\n" + "\n".join(found))


def _theory_prose(path) -> str:
    text = path.read_text(encoding="utf-8")
    if path == GLOSSARY:  # its "Inglés" column names the English terms on purpose
        lines = []
        for line in text.splitlines():
            cells = line.split("|")
            lines.append("|".join(cells[:2] + cells[3:]) if len(cells) > 4 else line)
        text = "\n".join(lines)
    return _prose(text)


@pytest.mark.parametrize("path", THEORY, ids=[p.stem for p in THEORY])
def test_no_english_in_the_spanish_theory(path):
    found = [f"{line.strip()[:120]}: {words}" for line in _theory_prose(path).splitlines()
             if (words := nb_i18n.english_words(line))]
    assert not found, f"English in {path.relative_to(ROOT)}:\n" + "\n".join(found)


def test_the_kept_english_terms_are_not_scanned():
    """The terms the glossary keeps in English (its Spanish column equal to its English one)
    are allowed in Spanish prose: none is in the scan's list."""
    kept = set()
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and not set(cells[0]) <= set("-: "):
            spanish = set(re.findall(r"\w+", cells[0].lower()))
            kept |= spanish & set(re.findall(r"\w+", cells[1].lower()))
    assert {"forward", "backward", "broadcasting", "test"} <= kept
    assert not kept & nb_i18n.ENGLISH


PLANTED = "This cell checks that the gradient has the shape of its input."


def test_a_planted_english_sentence_fails():
    """The same sentence planted where a Spanish learner reads it is caught in each place."""
    nb = _nb(SPANISH[0])
    assert not english_in_notebook(nb, SPANISH[0].stem)
    markdown = next(c for c in nb["cells"] if c["cell_type"] == "markdown")
    code = next(c for c in nb["cells"] if c["cell_type"] == "code" and c.get("outputs")
                and c["outputs"][0].get("text"))
    plants = {
        "markdown": lambda n: _cell(n, markdown)["source"].append("\n\n" + PLANTED),
        "comment": lambda n: _cell(n, code).update(source=_src(code) + "\n# " + PLANTED),
        "string": lambda n: _cell(n, code).update(
            source=_src(code) + f"\nprint({PLANTED!r})"),
        "output": lambda n: _cell(n, code)["outputs"][0].update(
            text="".join(code["outputs"][0]["text"]) + PLANTED + "\n"),
    }
    for name, plant in plants.items():
        planted = copy.deepcopy(nb)
        plant(planted)
        assert english_in_notebook(planted, SPANISH[0].stem), name
    assert nb_i18n.english_words(_prose("Texto en español.\n" + PLANTED))
    assert not nb_i18n.english_words(_prose("El backward del test, *in-place*, «or any value»"))


def _cell(nb: dict, like: dict) -> dict:
    return next(c for c in nb["cells"] if c.get("id") == like.get("id"))
