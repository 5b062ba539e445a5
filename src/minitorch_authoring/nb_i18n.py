"""The labs in English: one Spanish source per notebook, one translation catalog per notebook.

The instructor notebooks ``solutions/notebooks/NN-*.ipynb`` stay the one source (Spanish, with
outputs; anybody edits them as before). Their English lives in one gettext catalog per notebook,
``solutions/notebooks/i18n/en/NN-*.po``: one entry per cell, ``msgctxt`` the cell id, ``msgid``
the cell's Spanish source, ``msgstr`` its English source (Markdown translated; in code cells only
comments and prose strings, the code itself identical). A Spanish edit never touches a catalog,
so parallel edits merge cleanly; the edited cell's entry no longer matches (its ``msgid`` is the
old Spanish) and is reported stale, like gettext's fuzzy entries.

Generated from the two (never edited by hand):

- ``solutions/notebooks/en/NN-*.ipynb``: the English instructor notebooks (same cells, ids and
  metadata, English sources; outputs from ``course render --lang en``, kept across ``build`` for
  every cell whose English source did not change);
- ``notebooks/en/NN-*.ipynb``: the English student notebooks (``course generate --lang en``).

Commands (``make translations`` runs ``status``):

    python -m minitorch_authoring.nb_i18n status      # untranslated / stale cells; exit 1 if any
    python -m minitorch_authoring.nb_i18n update      # new cells into the catalogs, stale ones
                                                      # marked fuzzy (old Spanish kept as #| msgid)
    python -m minitorch_authoring.nb_i18n build       # the English instructor notebooks' sources
    python -m minitorch_authoring.nb_i18n build --check   # exit 1 if they are not up to date

A code cell whose comments and strings hold no Spanish (``spanish_words``) needs no
translation: ``update`` fills its entry with the Spanish source itself.
"""

from __future__ import annotations

import argparse
import ast
import copy
import difflib
import io
import json
import re
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

from minitorch_authoring import repository
from minitorch_authoring.cell_catalog import Entry, read_catalog, write_catalog

LANG = "en"
CATALOGS = repository.NOTEBOOK_CATALOGS
EN_SOURCE = repository.SOURCE_NOTEBOOKS_EN  # English instructor notebooks (generated)
EN_STUDENT = repository.STUDENT_NOTEBOOKS_EN  # English student notebooks (generated)
MARKER = ".minitorch-lang"  # minitorch_course.i18n reads it from the working directory
# Relative links of the English notebooks: one folder deeper, to the English theory.
LINKS = (("](../theory/", "](../../theory/en/"),)

# Words that are Spanish and not English (nor Python), and Spanish-only letters: the scan of the
# English route. An identifier is one word (code) for this scan; the names a code cell assigns
# are scanned by their parts (``spanish_identifiers``).
SPANISH = frozenset("""
    el la los las una unos unas que para con por como cada pero también cuando donde esta este
    estos estas es está están hace hay tu tus sobre entre celda celdas cuaderno cuadernos
    ejecuta gradiente gradientes forma formas pregunta respuesta puntos comprobación
    implementación ejemplo suma resta producto se lo al su sus más menos qué cuál
    solo sólo debe tiene hacia desde hasta ahora aquí esto eso nada todo todos
    verbo verbos personas tiempo tiempos eje ejes fila filas falla casilla casillas inversa
    vuelta rasgo rasgos pendiente correcto esperado
    pendientes orden cero signo ingenua finita perdida fusionada optimo silenciosa
    prediccion predicción curva nota
""".split())
_SPANISH_LETTERS = re.compile(r"[áéíóúñ¿¡ÁÉÍÓÚÑ]")
_WORD = re.compile(r"\w+")  # identifiers (grad_x_shape) are one word, and are code


def spanish_words(text: str) -> list[str]:
    """The Spanish-only words and letters in ``text`` (prose, a comment, an output)."""
    found = [w for w in _WORD.findall(text) if not re.search(r"[\d_]", w)
             and (w.lower() in SPANISH or _SPANISH_LETTERS.search(w))]
    return sorted(set(found))


def assigned_names(source: str) -> list[str]:
    """The names a code cell assigns (``slopes = (2, -1)``): what the learner writes and reads
    back, the answer cells' variables among them. A cell that does not parse gives none."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return sorted({node.id for node in ast.walk(tree)
                   if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)})


def spanish_identifiers(source: str) -> list[str]:
    """The names a code cell assigns that are Spanish: one of their parts is a Spanish word
    (``forma`` in ``forma_grad_x``), or the name is an answer variable's old Spanish name
    (``minitorch_course.renames``). Code is English in both routes."""
    from minitorch_course.renames import old_variables

    old = old_variables()
    return [name for name in assigned_names(source)
            if name in old or spanish_words(name.replace("_", " "))]


# The reverse scan, of the Spanish route: English function words that are not Spanish words
# ("has", "he", "no", "come", "a" are). The English terms the glossary keeps in Spanish prose
# (forward, backward, broadcasting, test, lab) are content words and never in this list
# (tests/repo/test_spanish_route.py checks it against theory/GLOSARIO.md).
ENGLISH = frozenset("""
    the of and is are with which this that from for when what your you it its be have will
    should must does an by at on in into not only each every these those there here than then
    how why were was been being would could can cannot just also but or if while because to
""".split())


def english_words(text: str) -> list[str]:
    """The English-only words in ``text`` (Spanish prose, a comment, an output)."""
    return sorted({w for w in _WORD.findall(text) if not re.search(r"[\d_]", w)
                   and w.lower() in ENGLISH})


# ---------------------------------------------------------------- code: what may differ
_FENCE = re.compile(r"#+\s*(BEGIN|END) (SOLUTION|HIDDEN TESTS)|#\s*NBVAL|#\s*noqa|#\s*type:")


def _prose_string(token: str) -> bool:
    """A string literal that is prose (a space or a non-ASCII letter): translatable. Others
    (``"add"``, ``"07-quiz"``) are data and stay identical."""
    body = re.sub(r"^[rbuRBUfF]*('''|\"\"\"|'|\")|('''|\"\"\"|'|\")$", "", token)
    return " " in body or bool(re.search(r"[^\x00-\x7f]", body))


def code_skeleton(source: str, strict: bool = True) -> list[str]:
    """The code of a cell with its translatable parts blanked: comments (nbgrader's fences
    kept) and strings. Two cells with equal skeletons differ only in language.

    ``strict`` (graded, locked, solution and set-up cells, which nbval's run of the reference
    cannot vouch for): only prose strings (a space or a non-ASCII letter) are blanked, and
    data strings (``"add"``, ``"07-quiz"``, a quiz answer) must be identical. In a demo cell
    every string may be translated (``"paso"`` -> ``"step"``): nbval executes the English
    notebook, so a key translated in one place and not in another fails there."""
    lines = []
    for line in source.splitlines():
        stripped = line.lstrip()
        lines.append("pass  # magic " + stripped if stripped[:1] in "%!" else line)
    text = "\n".join(lines) + "\n"
    out: list[str] = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return [text]  # not Python: compared whole
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            if tok.string.startswith("# magic "):
                out.append(tok.string)
            elif _FENCE.match(tok.string):
                out.append(tok.string.strip())
            continue
        if tok.type in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                        tokenize.ENDMARKER):
            continue
        if tok.type == tokenize.STRING and (not strict or _prose_string(tok.string)):
            out.append("<prose>")
            continue
        if tok.type in (getattr(tokenize, "FSTRING_MIDDLE", -1),):
            out.append("<fstring>")
            continue
        out.append(tok.string)
    return out


def translatable_text(source: str, prose_only: bool = False) -> str:
    """A code cell's comments and strings (what the English may change), joined; with
    ``prose_only``, data strings (``"have"``, ``"add"``) left out."""
    parts = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source + "\n").readline):
            if (tok.type == tokenize.COMMENT and not _FENCE.match(tok.string)) or \
                    (tok.type == tokenize.STRING
                     and (not prose_only or _prose_string(tok.string))) or \
                    tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
                parts.append(tok.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return source
    return "\n".join(parts)


# ---------------------------------------------------------------- catalogs
def notebooks() -> list[Path]:
    """The Spanish instructor notebooks, in lab order."""
    return sorted(repository.SOURCE_NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))


def catalog_path(stem: str, lang: str = LANG) -> Path:
    return CATALOGS / lang / f"{stem}.po"


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _src(cell: dict) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def needs_translation(cell: dict) -> bool:
    """Markdown always; a code cell when its comments or strings hold Spanish."""
    if cell["cell_type"] != "code":
        return bool(_src(cell).strip())
    return bool(spanish_words(translatable_text(_src(cell))))


# ---------------------------------------------------------------- status and update
@dataclass
class Problem:
    notebook: str
    cell_id: str
    kind: str  # "missing", "untranslated", "stale", "fuzzy"
    detail: str = ""

    def __str__(self) -> str:
        text = f"{self.notebook} cell {self.cell_id}: {self.kind}"
        return text + ("\n" + self.detail if self.detail else "")


def _diff(old: str, new: str) -> str:
    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), "Spanish translated",
                                 "Spanish now", lineterm="", n=1)
    return "\n".join("    " + x for x in lines)


def status(paths: list[Path] | None = None, diffs: bool = True) -> list[Problem]:
    """Every cell whose English is missing, empty, fuzzy, or older than its Spanish."""
    problems = []
    for path in paths or notebooks():
        entries = read_catalog(catalog_path(path.stem))
        for cell in _load(path)["cells"]:
            cid, source = cell.get("id", ""), _src(cell)
            entry = entries.get(cid)
            if entry is None:
                if source.strip() and (needs_translation(cell) or cell["cell_type"] == "code"):
                    problems.append(Problem(path.stem, cid, "missing"))
            elif entry.source != source:
                problems.append(Problem(path.stem, cid, "stale",
                                        _diff(entry.source, source) if diffs else ""))
            elif entry.fuzzy:
                problems.append(Problem(path.stem, cid, "fuzzy",
                                        _diff(entry.previous or "", source) if diffs else ""))
            elif not entry.translation and source.strip():
                problems.append(Problem(path.stem, cid, "untranslated"))
    return problems


def update(paths: list[Path] | None = None) -> int:
    """Bring each catalog to its notebook's cells: new cells added (code without Spanish
    filled with itself), stale entries fuzzy with the old Spanish kept, gone cells dropped."""
    changed = 0
    for path in paths or notebooks():
        cpath = catalog_path(path.stem)
        old = read_catalog(cpath)
        entries = []
        for cell in _load(path)["cells"]:
            cid, source = cell.get("id", ""), _src(cell)
            if not source.strip():
                continue
            e = old.get(cid)
            if e is None:
                english = "" if needs_translation(cell) else source
                e = Entry(cid, source, english)
            elif e.source != source:
                if not needs_translation(cell) and cell["cell_type"] == "code":
                    e = Entry(cid, source, source)
                else:
                    e = Entry(cid, source, e.translation, fuzzy=True,
                              previous=e.previous if e.fuzzy and e.previous else e.source)
            entries.append(e)
        before = cpath.read_text(encoding="utf-8") if cpath.exists() else None
        write_catalog(cpath, path.stem, entries)
        if cpath.read_text(encoding="utf-8") != before:
            changed += 1
            shown = cpath.relative_to(repository.ROOT) if cpath.is_relative_to(
                repository.ROOT) else cpath
            print(f"updated {shown}")
    return changed


# ---------------------------------------------------------------- the English notebooks
def english_notebook(path: Path, previous: dict | None = None) -> tuple[dict, list[str]]:
    """The English instructor notebook of the Spanish ``path``, and the ids of cells left in
    Spanish (no current translation). Outputs come from ``previous`` (the committed English
    notebook) for every cell whose English source is unchanged, else none (render it)."""
    nb = copy.deepcopy(_load(path))
    entries = read_catalog(catalog_path(path.stem))
    old = {c.get("id"): c for c in (previous or {}).get("cells", [])}
    left = []
    for cell in nb["cells"]:
        source = _src(cell)
        e = entries.get(cell.get("id"))
        if e is not None and e.source == source and e.translation and not e.fuzzy:
            english = e.translation
        else:
            english = source
            if source.strip():
                left.append(cell.get("id"))
        if cell["cell_type"] == "markdown":
            for a, b in LINKS:
                english = english.replace(a, b)
        cell["source"] = english
        if cell["cell_type"] == "code":
            before = old.get(cell.get("id"))
            if before is not None and _src(before) == english:
                cell["outputs"] = before.get("outputs", [])
                cell["execution_count"] = before.get("execution_count")
            else:
                cell["outputs"], cell["execution_count"] = [], None
    return nb, left


def english_path(path: Path) -> Path:
    return EN_SOURCE / path.name


def _dumps(nb: dict) -> str:
    import nbformat

    return nbformat.writes(nbformat.from_dict(nb)) + "\n"


def build(check: bool = False, paths: list[Path] | None = None) -> int:
    """Write (or ``check``) the English instructor notebooks from the Spanish and the catalogs."""
    status_ = 0
    for path in paths or notebooks():
        target = english_path(path)
        previous = _load(target) if target.exists() else None
        nb, left = english_notebook(path, previous)
        text = _dumps(nb)
        current = target.read_text(encoding="utf-8") if target.exists() else None
        if left:
            print(f"{path.stem}: {len(left)} cell(s) without a current English translation, "
                  f"left in Spanish: {', '.join(left)}", file=sys.stderr)
        if current != text:
            if check:
                print(f"{target.relative_to(repository.ROOT)} is stale: run `python -m "
                      "minitorch_authoring.nb_i18n build`", file=sys.stderr)
                status_ = 1
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            unrendered = [c.get("id") for c in nb["cells"]
                          if c["cell_type"] == "code" and c.get("execution_count") is None]
            print(f"wrote {target.relative_to(repository.ROOT)}"
                  + (f" ({len(unrendered)} cells to render: `make render NB={path.stem[:2]} "
                     "EN=1`)" if unrendered else ""))
    for folder in (EN_SOURCE, EN_STUDENT):
        marker = folder / MARKER
        if not check and (not marker.exists() or marker.read_text().strip() != LANG):
            folder.mkdir(parents=True, exist_ok=True)
            marker.write_text(LANG + "\n", encoding="utf-8")
    return status_


# ---------------------------------------------------------------- sameness of the two
def differences(spanish: dict, english: dict) -> list[str]:
    """What differs between a Spanish notebook and its English one beyond translated prose:
    cell ids, types, order, metadata (nbgrader's grade ids, points, locks), code."""
    problems = []
    sc, ec = spanish["cells"], english["cells"]
    if [c.get("id") for c in sc] != [c.get("id") for c in ec]:
        return [f"cell ids differ: {[c.get('id') for c in sc]} vs {[c.get('id') for c in ec]}"]
    for s, e in zip(sc, ec):
        cid = s.get("id")
        if s["cell_type"] != e["cell_type"]:
            problems.append(f"{cid}: cell type {s['cell_type']} vs {e['cell_type']}")
        if s.get("metadata", {}) != e.get("metadata", {}):
            problems.append(f"{cid}: metadata {s.get('metadata')} vs {e.get('metadata')}")
        if s["cell_type"] == "code":
            meta = s.get("metadata", {}).get("nbgrader", {})
            strict = any(meta.get(k) for k in ("grade", "solution", "locked"))
            a, b = code_skeleton(_src(s), strict), code_skeleton(_src(e), strict)
            if a != b:
                at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
                problems.append(f"{cid}: code differs at token {at}: "
                                f"{a[max(0, at - 3):at + 3]} vs {b[max(0, at - 3):at + 3]}")
    meta_s = {k: v for k, v in spanish.get("metadata", {}).items() if k != "language_info"}
    meta_e = {k: v for k, v in english.get("metadata", {}).items() if k != "language_info"}
    if meta_s != meta_e:
        problems.append(f"notebook metadata {meta_s} vs {meta_e}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minitorch_authoring.nb_i18n",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    st = sub.add_parser("status", help="list untranslated and stale cells (exit 1 if any)")
    st.add_argument("--brief", action="store_true", help="no diffs of the Spanish")
    sub.add_parser("update", help="new cells into the catalogs; stale ones marked fuzzy")
    bd = sub.add_parser("build", help="the English instructor notebooks from the catalogs")
    bd.add_argument("--check", action="store_true")
    for p in (st, bd):
        p.add_argument("names", nargs="*", help="notebook name prefixes (default: all)")
    args = parser.parse_args(argv)
    paths = notebooks()
    if getattr(args, "names", None):
        paths = [p for p in paths if any(p.name.startswith(n) for n in args.names)]
    if args.command == "update":
        update(paths)
        return 0
    if args.command == "build":
        return build(check=args.check, paths=paths)
    problems = status(paths, diffs=not args.brief)
    for p in problems:
        print(p)
    from minitorch_authoring import stubgen  # not imported by stubgen (no import circle)

    docs = stubgen.doc_problems()  # the stubs' docstrings: English source, Spanish catalog
    for line in docs:
        print(line)
    total = sum(len(_load(p)["cells"]) for p in paths)
    print(f"{len(problems)} of {total} cells need English (missing, untranslated, fuzzy or "
          "stale); fix the msgstr in solutions/notebooks/i18n/en/*.po, drop `#, fuzzy`, then "
          "`python -m minitorch_authoring.nb_i18n build`")
    if docs:
        print(f"{len(docs)} docstrings of the stubs need Spanish: fix solutions/i18n/es/*.po, "
              "then `make stubs`")
    return 1 if problems or docs else 0


if __name__ == "__main__":
    sys.exit(main())
