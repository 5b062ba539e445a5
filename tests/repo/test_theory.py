"""The chapter's theory (theory/*.md, theory/en/*.md): mirrored structure and runnable examples.

Every fenced ```python block of a theory file runs against the reference engine, in file
order, all blocks of one file sharing one namespace. Non-runnable sketches use ```text.
"""

import json
import os
import re
import sys

import pytest

from minitorch_authoring.repository import ROOT

THEORY_ES = ROOT / "theory"
THEORY_EN = THEORY_ES / "en"
ANSWERS_ES = ROOT / "solutions" / "theory"
ANSWERS_EN = ANSWERS_ES / "en"
THEORY_NUMBERS = ["00", "01", "02", "03", "04", "05"]

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+\S")
SELF_CHECK = {"es": "Autoevaluación", "en": "Self-check"}


# Files whose mirror has a translated name (theory/NAME -> theory/en/NAME); the rest keep theirs.
MIRROR_NAMES = {"GLOSARIO.md": "GLOSSARY.md"}
GLOSSARY = {"es": THEORY_ES / "GLOSARIO.md", "en": THEORY_EN / "GLOSSARY.md"}


def _md_files(folder):
    return sorted(p.name for p in folder.glob("*.md"))


def _en_name(name):
    return MIRROR_NAMES.get(name, name)


def _parse(path):
    """Return (headings, display_math_count, python_blocks) of a Markdown file.

    headings: list of (level, text) outside fenced code; display_math_count: number of `$$`
    delimiters outside fenced code; python_blocks: list of (first_code_line_number, source).
    """
    headings, math_delims, blocks = [], 0, []
    fence, lang, start, body = None, None, 0, []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = FENCE.match(line)
        if fence is None:
            if match:
                fence = match.group(1)
                lang = line.strip()[3:].strip().split(" ")[0].lower()
                start, body = number + 1, []
                continue
            heading = HEADING.match(line)
            if heading:
                headings.append((len(heading.group(1)), line[len(heading.group(1)):].strip()))
            math_delims += line.count("$$")
        elif match and line.strip() == fence:
            if lang == "python":
                blocks.append((start, "\n".join(body) + "\n"))
            fence = None
        else:
            body.append(line)
    assert fence is None, f"{path}: unclosed code fence"
    return headings, math_delims, blocks


def _theory_files():
    return [THEORY_ES / n for n in _md_files(THEORY_ES)] + [
        THEORY_EN / n for n in _md_files(THEORY_EN)
    ]


def _rel(path):
    return str(path.relative_to(ROOT))


def test_both_languages_have_the_same_files():
    es, en = [_en_name(n) for n in _md_files(THEORY_ES)], _md_files(THEORY_EN)
    assert es, "theory/ has no .md files"
    assert es == en, (
        f"only in theory/: {sorted(set(es) - set(en))}; only in theory/en/: {sorted(set(en) - set(es))}"
    )


@pytest.mark.parametrize("name", _md_files(THEORY_ES))
def test_mirror_has_the_same_structure(name):
    es_path, en_path = THEORY_ES / name, THEORY_EN / _en_name(name)
    if not en_path.exists():
        pytest.fail(f"theory/en/{_en_name(name)} is missing")
    es_head, es_math, _ = _parse(es_path)
    en_head, en_math, _ = _parse(en_path)
    es_levels = [level for level, _ in es_head]
    en_levels = [level for level, _ in en_head]
    assert es_levels == en_levels, (
        f"{name}: heading levels differ\n  es: {es_levels}\n  en: {en_levels}\n"
        f"  es headings: {[t for _, t in es_head]}\n  en headings: {[t for _, t in en_head]}"
    )
    assert es_math % 2 == 0, f"theory/{name}: odd number of $$ delimiters ({es_math})"
    assert en_math % 2 == 0, f"theory/en/{name}: odd number of $$ delimiters ({en_math})"
    assert es_math == en_math, (
        f"{name}: {es_math // 2} display-math blocks in Spanish, {en_math // 2} in English"
    )


@pytest.mark.parametrize("path", _theory_files(), ids=_rel)
def test_numbered_documents_end_with_self_check(path):
    if not re.match(r"\d\d-", path.name):
        pytest.skip("not a numbered theory document")
    lang = "en" if path.parent == THEORY_EN else "es"
    headings, _, _ = _parse(path)
    assert headings, f"{_rel(path)} has no headings"
    level, text = headings[-1]
    assert level == 2 and text == SELF_CHECK[lang], (
        f"{_rel(path)}: the last heading must be '## {SELF_CHECK[lang]}', got '{'#' * level} {text}'"
    )


@pytest.mark.parametrize("lang_dir", [ANSWERS_ES, ANSWERS_EN], ids=["es", "en"])
@pytest.mark.parametrize("number", THEORY_NUMBERS)
def test_answers_exist(lang_dir, number):
    path = lang_dir / f"answers-{number}.md"
    assert path.is_file(), f"missing {_rel(path)}"
    assert path.read_text(encoding="utf-8").strip(), f"{_rel(path)} is empty"


@pytest.fixture(scope="module")
def reference_minitorch():
    """Import minitorch with the reference engine, or skip with a clear message."""
    if "minitorch" not in sys.modules:
        os.environ.setdefault("MINITORCH_IMPL", "reference")
        src = str(ROOT / "src")
        if src not in sys.path:
            sys.path.insert(0, src)
    import minitorch

    if getattr(minitorch, "IMPLEMENTATION", None) != "reference":
        pytest.skip(
            "theory examples run against the reference engine, but minitorch was imported with "
            f"IMPLEMENTATION={getattr(minitorch, 'IMPLEMENTATION', None)!r}; "
            "run with MINITORCH_IMPL=reference (as `make test` does)"
        )
    return minitorch


@pytest.mark.parametrize("path", _theory_files(), ids=_rel)
def test_python_blocks_run(path, reference_minitorch):
    _, _, blocks = _parse(path)
    if not blocks:
        pytest.skip("no python blocks")
    namespace = {"__name__": f"theory_{path.stem.replace('-', '_')}"}
    for line, source in blocks:
        where = f"{_rel(path)}:{line}"
        padded = "\n" * (line - 1) + source  # tracebacks then show the .md file's line numbers
        try:
            exec(compile(padded, _rel(path), "exec"), namespace)  # noqa: S102 - our own docs
        except Exception as exc:  # re-raised with the block's location
            raise AssertionError(
                f"python block starting at {where} failed: {type(exc).__name__}: {exc}"
            ) from exc


# ----------------------------------------------------------------- one term per idea (glossary)
AVOID_COLUMN = {"es": "No uses", "en": "Avoid"}
QUOTED = {"es": re.compile(r"«([^»]+)»"), "en": re.compile(r'"([^"]+)"')}
INLINE_CODE = re.compile(r"`[^`]*`")
LINK_TARGET = re.compile(r"\]\([^)]*\)")
README = ROOT / "README.md"
README_LEARNER_END = "## For instructors"  # README.md: the learner's part ends here
README_ENGLISH = "## For learners (English)"  # ... its Spanish ends here, its English mirror begins
README_PART = {"es": ("", README_ENGLISH), "en": (README_ENGLISH, README_LEARNER_END)}
STUDENT_NOTEBOOKS = ROOT / "notebooks"


def _avoided(lang):
    """The phrases listed in the glossary's "avoid" column, one list per glossary row."""
    phrases, column = [], None
    for line in GLOSSARY[lang].read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            column = None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if AVOID_COLUMN[lang] in cells:
            column = cells.index(AVOID_COLUMN[lang])
        elif column is not None and not set(cells[0]) <= set("-: "):
            phrases += QUOTED[lang].findall(cells[column])
    return phrases


def _learner_prose(lang):
    """(file, line number, prose) for every line a learner reads in `lang`, code left out."""
    if lang == "es":
        files = [THEORY_ES / n for n in _md_files(THEORY_ES)] + sorted(ANSWERS_ES.glob("*.md"))
    else:
        files = [THEORY_EN / n for n in _md_files(THEORY_EN)] + sorted(ANSWERS_EN.glob("*.md"))
    files.append(README)  # its learner's part in this language (README_PART)
    begin, end = README_PART[lang]
    for path in files:
        if path == GLOSSARY[lang]:
            continue
        in_fence, inside = False, path != README or not begin
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if path == README and line.startswith(end):
                break
            if not inside:
                inside = line.startswith(begin)
                continue
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if not in_fence:
                yield path, number, LINK_TARGET.sub("](…)", INLINE_CODE.sub("`…`", line))


@pytest.mark.parametrize("lang", ["es", "en"])
def test_glossary_terms_are_used(lang):
    """No variant the glossary rejects appears in the theory, its answers or the README."""
    avoided = _avoided(lang)
    assert avoided, f"{_rel(GLOSSARY[lang])}: no phrases in its '{AVOID_COLUMN[lang]}' column"
    patterns = {p: re.compile(r"(?<!\w)" + re.escape(p), re.IGNORECASE) for p in avoided}
    hits = []
    for path, number, prose in _learner_prose(lang):
        found = [phrase for phrase, pattern in patterns.items() if pattern.search(prose)]
        if found:
            hits.append(f"{_rel(path)}:{number}: {', '.join(map(repr, found))}")
    assert not hits, (
        f"{len(hits)} variant(s) that {_rel(GLOSSARY[lang])} says to avoid; use its term instead:\n"
        + "\n".join(hits)
    )


def _notebook_prose():
    """(notebook, cell index, line) for every prose line of the student notebooks' markdown cells."""
    for path in sorted(STUDENT_NOTEBOOKS.glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for index, cell in enumerate(cells):
            if cell["cell_type"] != "markdown":
                continue
            in_fence = False
            for line in "".join(cell["source"]).splitlines():
                if FENCE.match(line):
                    in_fence = not in_fence
                    continue
                if not in_fence:
                    yield path, index, LINK_TARGET.sub("](…)", INLINE_CODE.sub("`…`", line))


def test_glossary_terms_are_used_in_notebooks():
    """No variant the Spanish glossary rejects appears in the student notebooks' markdown prose."""
    avoided = _avoided("es")
    assert avoided, f"{_rel(GLOSSARY['es'])}: no phrases in its '{AVOID_COLUMN['es']}' column"
    assert sorted(STUDENT_NOTEBOOKS.glob("*.ipynb")), f"no notebooks in {_rel(STUDENT_NOTEBOOKS)}"
    patterns = {p: re.compile(r"(?<!\w)" + re.escape(p), re.IGNORECASE) for p in avoided}
    hits = []
    for path, index, prose in _notebook_prose():
        found = [phrase for phrase, pattern in patterns.items() if pattern.search(prose)]
        if found:
            hits.append(f"{_rel(path)} cell [{index}]: {', '.join(map(repr, found))}: "
                        f"{prose.strip()[:160]}")
    assert not hits, (
        f"{len(hits)} line(s) of notebook prose use a variant that {_rel(GLOSSARY['es'])} says to "
        "avoid; use its term instead (fix solutions/notebooks/, then make notebooks):\n"
        + "\n".join(hits)
    )
