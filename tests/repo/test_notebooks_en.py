"""The English labs: generated from the Spanish notebooks and one catalog per notebook.

- every cell has a current English translation (``nb_i18n status``: a Spanish edit names the
  cell), and the committed English instructor notebooks are what ``nb_i18n build`` makes;
- the English notebooks keep the Spanish ones' cell ids, order, types, metadata (grade ids,
  points, locks) and code: only Markdown, comments and prose strings differ; each kind of
  planted difference fails the comparison;
- no Spanish in the English route: Markdown, comments, strings and rendered outputs;
- the English instructor notebooks are rendered; their outputs are the Spanish ones (which
  strict nbval checks) with only the words changed; the three with the most run-time messages
  run under strict nbval in English too;
- the committed English student notebooks are what nbgrader generates from them.
"""

from __future__ import annotations

import copy
import json
import re

import pytest
from conftest import nbval, nbval_problems

from minitorch_authoring import nb_i18n, repository
from minitorch_grading import course

ROOT = repository.ROOT
SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"
SPANISH = nb_i18n.notebooks()
IDS = [p.stem for p in SPANISH]
# Outputs that show Spanish as data, by design: the grid's Spanish translations (lab 05).
SPANISH_DATA_OUTPUTS = {("05-mlp-grammar", "grid"), ("01-elementwise-ops", "grid")}


def _nb(path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _src(cell: dict) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


# ---------------------------------------------------------------- one source (fast)
def test_every_cell_has_a_current_translation():
    problems = nb_i18n.status(diffs=False)
    assert not problems, ("cells without a current English translation (run `python -m "
                          "minitorch_authoring.nb_i18n status`):\n"
                          + "\n".join(map(str, problems)))


def test_english_instructor_notebooks_are_built_from_the_source():
    assert nb_i18n.build(check=True) == 0, "run `python -m minitorch_authoring.nb_i18n build`"
    for path in SPANISH:
        assert nb_i18n.english_path(path).is_file(), path.name
    assert (nb_i18n.EN_SOURCE / nb_i18n.MARKER).read_text().strip() == "en"
    assert (nb_i18n.EN_STUDENT / nb_i18n.MARKER).read_text().strip() == "en"


@pytest.mark.parametrize("path", SPANISH, ids=IDS)
def test_english_differs_from_spanish_only_in_language(path):
    english = _nb(nb_i18n.english_path(path))
    assert nb_i18n.differences(_nb(path), english) == []
    graded = [c for c in english["cells"] if c["metadata"].get("nbgrader", {}).get("grade")]
    assert len(graded) == sum(1 for c in _nb(path)["cells"]
                              if c["metadata"].get("nbgrader", {}).get("grade"))


def _plants(nb: dict) -> dict[str, dict]:
    """One planted difference of each kind the comparison must catch."""
    out = {}
    cells = nb["cells"]
    graded = next(i for i, c in enumerate(cells) if c["metadata"].get("nbgrader", {}).get("grade"))
    code = next(i for i, c in enumerate(cells) if c["cell_type"] == "code" and i != graded
                and "=" in _src(c))

    def plant(name, change):
        copy_ = copy.deepcopy(nb)
        change(copy_["cells"])
        out[name] = copy_

    plant("points", lambda c: c[graded]["metadata"]["nbgrader"].update(
        points=c[graded]["metadata"]["nbgrader"]["points"] + 1))
    plant("grade_id", lambda c: c[graded]["metadata"]["nbgrader"].update(grade_id="renamed"))
    plant("unlocked", lambda c: c[graded]["metadata"]["nbgrader"].update(locked=False))
    plant("cell id", lambda c: c[code].update(id="another-id"))
    plant("order", lambda c: c.insert(0, c.pop(code)))
    plant("dropped cell", lambda c: c.pop(code))
    plant("code", lambda c: c[code].update(source=_src(c[code]).replace("=", "= 1 +", 1)))
    plant("graded code", lambda c: c[graded].update(source=_src(c[graded]) + "\nx = 0"))
    plant("type", lambda c: c[code].update(cell_type="markdown"))
    plant("tags", lambda c: c[code]["metadata"].update(tags=["nbval-skip"]))
    return out


@pytest.mark.parametrize("path", [SPANISH[0], SPANISH[-1]], ids=[IDS[0], IDS[-1]])
def test_a_planted_difference_fails_the_comparison(path):
    english = _nb(nb_i18n.english_path(path))
    for name, planted in _plants(english).items():
        assert nb_i18n.differences(_nb(path), planted), f"planted {name} not caught"


def test_a_data_string_of_a_graded_cell_must_stay_identical():
    spanish = _nb(SPANISH[-1])  # the quiz: answers and question numbers are data
    english = copy.deepcopy(_nb(nb_i18n.english_path(SPANISH[-1])))
    cell = next(c for c in english["cells"] if "quiz.grade(1" in _src(c))
    cell["source"] = _src(cell).replace('"b")', '"c")')
    assert any("code differs" in d for d in nb_i18n.differences(spanish, english))
    demo = "x = 1  # un comentario\nprint(\"paso\", x)\n"
    assert nb_i18n.code_skeleton(demo, strict=False) == nb_i18n.code_skeleton(
        "x = 1  # a comment\nprint(\"step\", x)\n", strict=False)
    assert nb_i18n.code_skeleton(demo) != nb_i18n.code_skeleton(
        "x = 1  # a comment\nprint(\"step\", x)\n")


def test_a_spanish_edit_names_the_stale_cell(tmp_path, monkeypatch):
    """The drift test: edit a Spanish cell (as a parallel engineer would) and the status names
    it, with the diff of the Spanish; ``update`` marks it fuzzy and keeps the old English."""
    src = SPANISH[-1]
    nb = _nb(src)
    target = next(c for c in nb["cells"] if c["cell_type"] == "markdown")
    target["source"] = _src(target) + "\n\nUna frase nueva."
    new_cell = {"cell_type": "markdown", "id": "brand-new", "metadata": {},
                "source": "Otra celda."}
    nb["cells"].append(new_cell)
    edited = tmp_path / src.name
    edited.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    catalogs = tmp_path / "i18n"
    (catalogs / "en").mkdir(parents=True)
    (catalogs / "en" / f"{src.stem}.po").write_bytes(nb_i18n.catalog_path(src.stem).read_bytes())
    monkeypatch.setattr(nb_i18n, "CATALOGS", catalogs)

    problems = {(p.cell_id, p.kind): p for p in nb_i18n.status([edited])}
    assert set(problems) == {(target["id"], "stale"), ("brand-new", "missing")}
    assert "+Una frase nueva." in problems[(target["id"], "stale")].detail
    english, left = nb_i18n.english_notebook(edited)
    assert set(left) == {target["id"], "brand-new"}  # left in Spanish, never a stale English

    nb_i18n.update([edited])
    problems = {(p.cell_id, p.kind) for p in nb_i18n.status([edited])}
    assert problems == {(target["id"], "fuzzy"), ("brand-new", "untranslated")}
    entry = nb_i18n.read_catalog(catalogs / "en" / f"{src.stem}.po")[target["id"]]
    assert entry.fuzzy and entry.translation and entry.previous == _src(
        next(c for c in _nb(src)["cells"] if c["id"] == target["id"]))  # the old Spanish, whole


# ---------------------------------------------------------------- no Spanish in English
def _spanish_in(path, with_outputs: bool = True) -> list[str]:
    found = []
    for cell in _nb(path)["cells"]:
        where = f"{path.name} {cell.get('id')}"
        text = _src(cell)
        if cell["cell_type"] == "code":
            names = nb_i18n.spanish_identifiers(text)  # what the learner assigns, answers too
            if names:
                found.append(f"{where} assigns: {names}")
            text = nb_i18n.translatable_text(text)
        words = nb_i18n.spanish_words(re.sub(r"`[^`]*`", "", text))  # code spans are code
        if words:
            found.append(f"{where}: {words}")
        if not with_outputs or (path.stem, cell.get("id")) in SPANISH_DATA_OUTPUTS:
            continue
        for out in cell.get("outputs", []):
            data = out.get("text") or out.get("data", {}).get("text/plain") or out.get("evalue", "")
            words = nb_i18n.spanish_words("".join(data) if isinstance(data, list) else data)
            if words:
                found.append(f"{where} output: {words}")
    return found


@pytest.mark.parametrize("path", SPANISH, ids=IDS)
def test_no_spanish_in_the_english_instructor_notebook(path):
    found = _spanish_in(nb_i18n.english_path(path))
    assert not found, "\n".join(found)


def test_the_scan_finds_spanish():
    assert {"la", "una"} <= set(nb_i18n.spanish_words("la semilla de una salida"))
    assert nb_i18n.spanish_words("Formato: una tupla") == ["una"]
    assert nb_i18n.spanish_words("the seed of a non-scalar output; 0.5, café") == ["café"]
    assert _spanish_in(SPANISH[0])  # the Spanish notebook is full of it


@pytest.mark.parametrize("planted", ["pendientes = (2, -1)\n", "forma_nueva = (3,)\n"])
def test_the_scan_finds_a_spanish_name_the_learner_assigns(tmp_path, planted):
    """An answer cell of the English route that assigns a Spanish name (an old answer
    variable, or a new one with a Spanish word) is found; the committed one is clean."""
    path = nb_i18n.english_path(next(p for p in SPANISH if p.stem.startswith("04-")))
    nb = _nb(path)
    cell = next(c for c in nb["cells"]
                if (c["metadata"].get("nbgrader") or {}).get("solution")
                and "slopes = " in _src(c))
    assert not _spanish_in(path, with_outputs=False)
    cell["source"] = _src(cell).replace("slopes = (2, -1)\n", planted)
    assert planted in cell["source"]
    planted_path = tmp_path / path.name
    planted_path.write_text(json.dumps(nb), encoding="utf-8")
    assert [line for line in _spanish_in(planted_path, with_outputs=False)
            if "assigns" in line and planted.split(" ")[0] in line]


def test_english_instructor_notebook_is_rendered():
    for path in SPANISH:
        for cell in _nb(nb_i18n.english_path(path))["cells"]:
            tags = cell.get("metadata", {}).get("tags", [])
            if cell["cell_type"] == "code" and "nbval-skip" not in tags:
                assert cell.get("execution_count"), (
                    f"{path.name} {cell.get('id')}: not rendered; run `make render "
                    f"NB={path.stem[:2]} EN=1`")


def _sanitizers() -> list[tuple[str, str]]:
    """nbval's sanitizer (tests/nbval_sanitize.cfg): what may differ between renders."""
    import configparser

    cfg = configparser.ConfigParser(interpolation=None)
    cfg.read(SANITIZE, encoding="utf-8")
    return [(cfg[s]["regex"], cfg[s]["replace"]) for s in cfg.sections()]


# What an output may change between the languages: its words. Everything else is the same
# computation and must be equal: numbers (as nbval compares them, sanitized), code names
# (identifiers with ``_`` or digits, dotted names: ``requires_grad``, ``x.grad.shape``), symbols
# (``✓ ✗ = [ ] -> |``), and each output's kind, stream and number of lines. Quotes and
# punctuation are the language's (``«…»`` in Spanish, backticks in English).
_NUMBER = r"(?<![\w.])-?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
_NEUTRAL = re.compile(_NUMBER + r"|\w*[_\d]\w*(?:\.\w+)*|\w+(?:\.\w+)+"
                      r"|[^\w\s.,;:'\"`«»()¿?¡!\-]")


def _output_text(out: dict) -> str:
    data = out.get("text") or out.get("data", {}).get("text/plain") or out.get("evalue", "")
    text = "".join(data) if isinstance(data, list) else data
    for regex, replace in _sanitizers():
        text = re.sub(regex, replace, text)
    return text


def _neutral(cell: dict) -> list[tuple]:
    """A code cell's outputs with their words taken out: what no translation may change."""
    return [(out["output_type"], out.get("name"),
             [tuple(_NEUTRAL.findall(line)) for line in _output_text(out).splitlines()])
            for out in cell.get("outputs", [])]


def _translation_problems(spanish_nb: dict, english_nb: dict) -> list[str]:
    spanish = {c.get("id"): c for c in spanish_nb["cells"]}
    problems = []
    for cell in english_nb["cells"]:
        if cell["cell_type"] != "code" or "nbval-ignore-output" in cell["metadata"].get("tags", []):
            continue
        es, en = _neutral(spanish[cell["id"]]), _neutral(cell)
        if es != en:
            where = next((f"output {i} {x[:2]}" for i, (x, y) in enumerate(zip(es, en))
                          if x != y), f"{len(es)} vs {len(en)} outputs")
            problems.append(f"{cell['id']}: {where}")
    return problems


@pytest.mark.parametrize("path", SPANISH, ids=IDS)
def test_english_outputs_are_the_spanish_ones_translated(path):
    """Same code (test_english_differs_from_spanish_only_in_language), so the same run: every
    rendered output of the English notebook is the Spanish one's (which strict nbval checks in
    test_notebooks_nbval.py) with only its words changed: the same outputs, streams, lines,
    numbers, code names and symbols (``✓``/``✗``), in order; and its words are English
    (test_no_spanish_in_the_english_instructor_notebook). This is what lets strict nbval run
    only the English notebooks with the most run-time messages (NBVAL below)."""
    problems = _translation_problems(_nb(path), _nb(nb_i18n.english_path(path)))
    assert not problems, ("English outputs that are not the Spanish ones translated (render "
                          f"both: `make render NB={path.stem[:2]}` and `... EN=1`):\n"
                          + "\n".join(problems))


def test_an_output_changed_beyond_its_words_fails():
    """Each kind of change a stale or wrong English render shows is caught; words are not."""
    path = SPANISH[0]
    spanish, english = _nb(path), _nb(nb_i18n.english_path(path))

    def cell(nb, cid):
        return next(c for c in nb["cells"] if c.get("id") == cid)

    def stream(nb):  # a check's one-line report: "✓ backward: all checks pass (9)"
        return next(c for c in nb["cells"] if c["cell_type"] == "code" and any(
            "✓" in _output_text(o) for o in c.get("outputs", [])))

    target = stream(english)["id"]
    plants = {
        "a number": lambda t: re.sub(r"\d+", lambda m: str(int(m.group()) + 1), t, count=1),
        "a verdict": lambda t: t.replace("✓", "✗", 1),
        "a code name": lambda t: t.replace(":", " grad_output:", 1),
        "a line": lambda t: t + "one more line\n",
        "rewording": lambda t: t.upper(),  # caught by nothing here: words may change
    }
    assert _translation_problems(spanish, english) == []
    for name, change in plants.items():
        planted = copy.deepcopy(english)
        out = cell(planted, target)["outputs"][0]
        out["text"] = change(_output_text(out))
        caught = bool(_translation_problems(spanish, planted))
        assert caught == (name != "rewording"), name
    planted = copy.deepcopy(english)
    cell(planted, target)["outputs"].append({"output_type": "stream", "name": "stderr",
                                              "text": "warning\n"})
    assert _translation_problems(spanish, planted)


# ---------------------------------------------------------------- nbval and students (slow)
NBVAL = [p for p in SPANISH if p.stem[:2] in ("00", "04", "07")]


@pytest.fixture(scope="module")
def nbval_cells(tmp_path_factory):
    return nbval([nb_i18n.english_path(p) for p in NBVAL], course.reference_env("en"),
                 tmp_path_factory.mktemp("nbval-en"))


@pytest.mark.slow
@pytest.mark.parametrize("path", NBVAL, ids=[p.stem for p in NBVAL])
def test_english_instructor_notebook_nbval(path, nbval_cells):
    """Strict nbval of the English notebooks with the most run-time messages (the engine's
    checks, gradcheck's and Hypothesis' reports, the quiz's feedback), in English. The others
    run the same code (test_english_differs_from_spanish_only_in_language) and their outputs
    are the Spanish ones with only the words changed
    (test_english_outputs_are_the_spanish_ones_translated), and the Spanish ones run under
    strict nbval in tests/repo/test_notebooks_nbval.py: nbval of all eight English notebooks
    would execute identical code a second time (measured in docs/INSTRUCTOR.md, "The labs in
    English")."""
    problems = nbval_problems(nbval_cells, nb_i18n.english_path(path))
    assert not problems, problems


@pytest.fixture(scope="module")
def release_en(tmp_path_factory):
    return course.generate_assignment(tmp_path_factory.mktemp("course-en") / "course",
                                      for_class=False, lang="en")


@pytest.mark.slow
def test_committed_english_student_notebooks_are_generated(release_en):
    problems = course.stale(course.student_versions(release_en, "en"),
                            course.student_notebooks("en"))
    assert not problems, ("notebooks/en/ is stale (run `python -m minitorch_grading.course "
                          "generate --lang en`):\n" + "\n".join(problems))
    assert (release_en / nb_i18n.MARKER).read_text().strip() == "en"  # the kernel's language
    from minitorch_authoring import stubgen

    for stub in stubgen.STUBS.values():  # the English stubs and test skeletons ship
        shipped = (release_en / "minitorch" / stub.target.name).read_text(encoding="utf-8")
        assert shipped == stubgen.stub_text(stub, "en")
        assert not nb_i18n.spanish_words(nb_i18n.translatable_text(shipped))
    for name, text in stubgen.skeletons("en").items():
        assert (release_en / "my_tests" / name).read_text(encoding="utf-8") == text
    for nb in sorted(release_en.glob("*.ipynb")):
        found = _spanish_in(nb)
        assert not found, "\n".join(found)
        assert "TU RESPUESTA" not in nb.read_text(encoding="utf-8"), nb.name


def _avoided_english() -> list[str]:
    """The phrases of theory/en/GLOSSARY.md's "Avoid" column."""
    phrases, column = [], None
    text = (repository.THEORY / "en" / "GLOSSARY.md").read_text(encoding="utf-8")
    for line in text.splitlines():
        if not line.startswith("|"):
            column = None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if "Avoid" in cells:
            column = cells.index("Avoid")
        elif column is not None and not set(cells[0]) <= set("-: "):
            phrases += re.findall(r'"([^"]+)"', cells[column])
    return phrases


def test_english_notebooks_use_the_glossary_terms():
    """No variant the English glossary rejects in the English labs' Markdown prose."""
    avoided = _avoided_english()
    assert avoided
    patterns = {p: re.compile(r"(?<!\w)" + re.escape(p), re.IGNORECASE) for p in avoided}
    hits = []
    for path in SPANISH:
        for cell in _nb(nb_i18n.english_path(path))["cells"]:
            if cell["cell_type"] != "markdown":
                continue
            prose = re.sub(r"`[^`]*`|\]\([^)]*\)", "", _src(cell))
            hits += [f"{path.stem} {cell['id']}: {p!r}" for p, pat in patterns.items()
                     if pat.search(prose)]
    assert not hits, "\n".join(hits)
