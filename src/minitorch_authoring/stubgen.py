"""Generate the learner's files from the references: ``src/minitorch/tensor.py`` from
``solutions/tensor.py`` and ``src/minitorch/mlp.py`` from ``solutions/mlp.py`` (lab 05).

Every region between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` (nbgrader's fences) is
replaced by ``raise NotImplementedError(...)`` naming the function and the lab notebook of the
section it sits in: the nearest ``# @lab NN-name`` line above it.

    python -m minitorch_authoring.stubgen            # write the stubs (refuses to overwrite edits)
    python -m minitorch_authoring.stubgen --check    # exit 1 if a committed stub is stale
    python -m minitorch_authoring.stubgen --force    # overwrite edited files, keeping backups
    python -m minitorch_authoring.stubgen --file mlp --target PATH   # one stub, elsewhere

It also writes the learner's test skeletons, ``my_tests/test_*.py``, from the model set of
``solutions/learner_tests/model/`` (each fenced region becomes one comment; the Spanish
docstrings, which say what each file must cover, stay), with the same protection, recorded in
``my_tests/.skeletons.sha256``.

The stubs speak the learner's language (the course's rule: Spanish by default, English available):
the reference's docstrings are English, and their Spanish lives in one catalog per file,
``solutions/i18n/es/tensor.po`` and ``mlp.po`` (``msgctxt`` the function's qualified name,
``msgid`` the English docstring, ``msgstr`` the Spanish one). ``MINITORCH_LANG=en make stubs``
(or ``--lang en``) writes the English stubs; plain ``make stubs`` the Spanish ones, which are the
committed ones. Every ``make stubs`` also writes the English stubs and skeletons that ship for the
English route, ``src/minitorch_course/stubs_en/`` (``make english``, ``minitorch_course.stubfiles``,
copies them over the learner's unedited files, without ``solutions/``); ``--check --lang en``
checks those copies, ``--check`` (Spanish) the committed stubs in place. A docstring whose English changed since it was translated stays English in the
Spanish stub and is listed by ``python -m minitorch_authoring.nb_i18n status``, with the
notebooks' cells.

A learner's edited file is never overwritten silently: the tool compares the target with the
stub it would write and with the marker beside it (``.stub.sha256`` for tensor.py,
``.stub.mlp.sha256`` for mlp.py: the hash of the last stub it wrote); anything else is the
learner's work, and ``--force`` copies it to ``<name>.py.bak-<time>`` first.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from minitorch_authoring import repository
from minitorch_course import stubfiles
from minitorch_course.stubfiles import read_marks as _read_marks
from minitorch_course.stubfiles import sha as _sha
from minitorch_course.stubfiles import write_marks, write_protected

ROOT = repository.ROOT
REFERENCE = repository.REFERENCE
TARGET = repository.STUB
MLP_REFERENCE = repository.MLP_REFERENCE
MLP_TARGET = repository.MLP_STUB

BEGIN, END = repository.SOLUTION
_LAB = re.compile(r"^\s*#\s*@lab\s+(\S+)")
_DEF = re.compile(r"^\s*def\s+(\w+)\s*\(")
_CLASS = re.compile(r"^class\s+(\w+)")

HEADER = '''"""minitorch.tensor: reverse-mode autodiff on NumPy arrays. YOUR implementation.

This is the file you fill in during Fase 08. Every ``raise NotImplementedError`` names the lab
notebook that asks for it; replace it with your code. Run ``make check`` to see your progress.
(Generated from the reference by ``make stubs``; the docstrings below are your specification.)
'''
MLP_HEADER = '''"""minitorch.mlp: the chapter's closing MLP, trained by hand with YOUR minitorch.

This is the file you fill in in lab 05 (notebooks/en/05-mlp-grammar.ipynb): the initial weights,
the forward pass and the training loop, with nothing but your Tensor (no optimizer classes: they
come in the next chapter). The course grades this interface: keep the names HIDDEN, LR, STEPS,
init_params, forward and train, and their arguments. Run ``make check`` to see your progress.
(Generated from the reference by ``make stubs``; the docstrings below are your specification.)
'''


HEADER_ES = '''"""minitorch.tensor: diferenciación automática en modo inverso sobre arrays de NumPy. TU código.

Este es el fichero que completas en la Fase 08. Cada ``raise NotImplementedError`` nombra el
cuaderno del laboratorio que lo pide; sustitúyelo por tu código. Ejecuta ``make check`` para ver
tu progreso. (Generado a partir de la referencia por ``make stubs``; los docstrings de abajo son
tu especificación.)
'''
MLP_HEADER_ES = '''"""minitorch.mlp: el MLP que cierra el capítulo, entrenado a mano con TU minitorch.

Este es el fichero que completas en el lab 05 (notebooks/05-mlp-grammar.ipynb): los pesos
iniciales, el forward y el bucle de entrenamiento, solo con tu Tensor (sin clases de optimizador:
llegan en el capítulo siguiente). El curso califica esta interfaz: conserva los nombres HIDDEN,
LR, STEPS, init_params, forward y train, y sus argumentos. Ejecuta ``make check`` para ver tu
progreso. (Generado a partir de la referencia por ``make stubs``; los docstrings de abajo son tu
especificación.)
'''
LANGS = ("es", "en")  # the first is the default (minitorch_course.i18n.LANGUAGES)
DOC_CATALOGS = repository.SOLUTIONS / "i18n"  # <lang>/<stub>.po: the docstrings, translated


@dataclass(frozen=True)
class Stub:
    """One learner file: its reference, where the stub goes, the marker and the stub's docstring."""

    name: str
    reference: Path
    target: Path
    marker: str  # file name, beside the target
    header: str  # the stub's module docstring, English
    header_es: str = ""  # ... and Spanish


STUBS: dict[str, Stub] = {
    "tensor": Stub("tensor", REFERENCE, TARGET, stubfiles.STUB_MARKERS["tensor.py"], HEADER,
                   HEADER_ES),
    "mlp": Stub("mlp", MLP_REFERENCE, MLP_TARGET, stubfiles.STUB_MARKERS["mlp.py"], MLP_HEADER,
                MLP_HEADER_ES),
}


def generate(source: str, header: str = HEADER, name: str = "tensor.py",
             not_written: str | None = None, notebooks: str | None = None) -> str:
    """The stub text for the reference text ``source`` (``header``: the stub's docstring;
    ``not_written``: the stub's words for what is not written yet, default ``NOT_WRITTEN``;
    ``notebooks``: the folder of the labs it names, ``NOTEBOOKS`` by default, ``NOTEBOOKS_EN``
    in English)."""
    not_written, notebooks = not_written or NOT_WRITTEN, notebooks or NOTEBOOKS
    out: list[str] = []
    lab, cls, func = None, None, None
    inside = False
    lines = source.splitlines()
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if inside:
            if stripped == END:
                inside = False
            continue
        if m := _LAB.match(line):
            lab = m.group(1)
        if m := _CLASS.match(line):
            cls = m.group(1)
        if m := _DEF.match(line):
            indented = line.startswith((" ", "\t"))
            func = f"{cls}.{m.group(1)}" if indented and cls else m.group(1)
            if not indented:
                cls = None
        if stripped == BEGIN:
            if lab is None or func is None:
                raise ValueError(f"{name}:{number}: solution fence outside a # @lab section")
            indent = line[: len(line) - len(line.lstrip())]
            out.append(
                f'{indent}raise NotImplementedError("{func}: {not_written} '
                f'({notebooks}/{lab}.ipynb)")'
            )
            inside = True
            continue
        if stripped == END:
            raise ValueError(f"{name}:{number}: {END} without {BEGIN}")
        out.append(line)
    if inside:
        raise ValueError(f"{name}: unterminated {BEGIN}")
    text = "\n".join(out) + "\n"
    # the reference's module docstring is for maintainers; the learner gets their own
    return _replace_docstring(text, header)


def stub_text(stub: Stub, lang: str = LANGS[0]) -> str:
    """The stub of one learner file in ``lang``, generated from its reference."""
    source = stub.reference.read_text(encoding="utf-8")
    if lang == "en":
        return generate(source, stub.header, stub.reference.name, NOT_WRITTEN_EN, NOTEBOOKS_EN)
    text = generate(source, stub.header_es or stub.header, stub.reference.name)
    return translate_docstrings(text, doc_catalog(stub.name, lang))


# ---------------------------------------------------------------- the docstrings' languages
def docstrings(text: str) -> list[tuple[str, int, int, str]]:
    """(qualified name, first line, last line (1-based), docstring as written) of every class
    and function docstring of ``text``."""
    import ast

    lines = text.splitlines()
    found: list[tuple[str, int, int, str]] = []

    def walk(node, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                doc = ast.get_docstring(child, clean=False)
                if doc is not None:
                    first = child.body[0]
                    assert lines[first.lineno - 1].lstrip().startswith('"""'), name
                    found.append((name, first.lineno, first.end_lineno, doc))
                walk(child, name + ".")

    walk(ast.parse(text), "")
    return found


def doc_catalog_path(name: str, lang: str = "es") -> Path:
    return DOC_CATALOGS / lang / f"{name}.po"


def doc_catalog(name: str, lang: str = "es") -> dict:
    """{qualified name: Entry} of a stub's docstring catalog (cell_catalog's format)."""
    from minitorch_authoring import cell_catalog

    return cell_catalog.read_catalog(doc_catalog_path(name, lang))


def translate_docstrings(text: str, catalog: dict) -> str:
    """``text`` with every docstring that has a current translation in ``catalog`` replaced."""
    lines = text.splitlines(keepends=True)
    for name, first, last, doc in reversed(docstrings(text)):
        entry = catalog.get(name)
        if entry is None or entry.fuzzy or not entry.translation or entry.source != doc:
            continue  # stays English; doc_problems() names it
        assert '"""' not in entry.translation and "\\" not in entry.translation, name
        indent = lines[first - 1][: len(lines[first - 1]) - len(lines[first - 1].lstrip())]
        lines[first - 1:last] = [f'{indent}"""{entry.translation}"""\n']
    return "".join(lines)


def doc_problems(lang: str = "es") -> list[str]:
    """Every docstring of the references whose ``lang`` translation is missing or stale."""
    problems = []
    for stub in STUBS.values():
        catalog = doc_catalog(stub.name, lang)
        for name, _first, _last, doc in docstrings(stub.reference.read_text(encoding="utf-8")):
            entry = catalog.get(name)
            if entry is None or not entry.translation:
                problems.append(f"{stub.reference.name} {name}: docstring untranslated ({lang})")
            elif entry.source != doc or entry.fuzzy:
                problems.append(f"{stub.reference.name} {name}: docstring changed since it was "
                                f"translated ({doc_catalog_path(stub.name, lang).name})")
    catalog = doc_catalog("skeletons", "en")  # the learner's test skeletons: Spanish -> English
    for name, text in skeletons().items():
        entry, doc = catalog.get(name), _module_docstring(text)
        if entry is None or not entry.translation:
            problems.append(f"skeleton {name}: docstring untranslated (en)")
        elif entry.source != doc or entry.fuzzy:
            problems.append(f"skeleton {name}: docstring changed since it was translated "
                            "(skeletons.po)")
    return problems


def learner_lines(source: str) -> int:
    """How many lines of code the learner writes: the fenced lines of the reference ``source``
    that are neither blank nor only a comment (the figure README.md and the theory state)."""
    count, inside = 0, False
    for line in source.splitlines():
        stripped = line.strip()
        if stripped in (BEGIN, END):
            inside = stripped == BEGIN
        elif inside and stripped and not stripped.startswith("#"):
            count += 1
    return count


# The stub's words when a learner calls what they have not written yet: in both of the course's
# languages, since a file's text cannot follow MINITORCH_LANG.
NOT_WRITTEN = "aún sin escribir / not written yet"  # the Spanish stub's (the default)
NOT_WRITTEN_EN = "not written yet"  # the English stub's
# ... and the folder of the lab notebook it names: each route's (the English stubs ship for
# `make english`, so the English route's learner reads notebooks/en/NN-...)
NOTEBOOKS, NOTEBOOKS_EN = "notebooks", "notebooks/en"


def _replace_docstring(text: str, header: str = HEADER) -> str:
    end = text.index('"""', 3) + 3  # the closing quotes of the module docstring
    return header + '"""' + text[end:]


# ---------------------------------------------------------------- the learner's test skeletons
SKELETON_SOURCE = repository.MODEL_TESTS  # the model set, fenced
SKELETON_TARGET = repository.LEARNER_TESTS  # the learner's test folder (examplar.FOLDER)
SKELETON_MARKER = stubfiles.SKELETON_MARKER  # "hash  name" per skeleton this tool wrote
SKELETON_BODY = "# TU CÓDIGO AQUÍ: tus tests, lo que pide el docstring de arriba"
SKELETON_HEADER = ("# Tus tests (generado por `make stubs` como esqueleto; desde ahora es tuyo).\n"
                   "# Ejecútalos con `python -m pytest my_tests`; `make check` dice qué tipos de\n"
                   "# error atrapan.\n")
# The English skeletons: these two, and each model file's (Spanish) docstring translated in
# solutions/i18n/en/skeletons.po (msgctxt: the file's name).
SKELETON_BODY_EN = "# YOUR CODE HERE: your tests, what the docstring above asks for"
SKELETON_HEADER_EN = ("# Your tests (written by `make stubs` as a skeleton; from now on it is yours).\n"
                      "# Run them with `python -m pytest my_tests`; `make check` says which kinds of\n"
                      "# mistake they catch.\n")


def skeleton(source: str, lang: str = "es") -> str:
    """The learner's skeleton of a model test file: each fenced region becomes one comment."""
    body = SKELETON_BODY_EN if lang == "en" else SKELETON_BODY
    header = SKELETON_HEADER_EN if lang == "en" else SKELETON_HEADER
    out: list[str] = []
    inside = False
    for number, line in enumerate(source.splitlines(), 1):
        stripped = line.strip()
        if stripped == BEGIN:
            if inside:
                raise ValueError(f"line {number}: nested {BEGIN}")
            inside = True
            out.append(line[: len(line) - len(line.lstrip())] + body)
        elif stripped == END:
            if not inside:
                raise ValueError(f"line {number}: {END} without {BEGIN}")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError(f"unterminated {BEGIN}")
    return header + "\n".join(_with_pytest(out)) + "\n"


def _with_pytest(lines: list[str]) -> list[str]:
    """Every skeleton imports pytest, which the learner's tests use (``@pytest.mark.parametrize``,
    ``pytest.raises``) even where the model file does not: it goes into the third-party block,
    in isort's order, after ``import numpy as np``."""
    if "import pytest" in lines:
        return lines
    at = lines.index("import numpy as np") + 1
    while at < len(lines) and lines[at].startswith("import ") and lines[at] < "import pytest":
        at += 1
    return lines[:at] + ["import pytest"] + lines[at:]


def skeletons(lang: str = "es") -> dict[str, str]:
    """File name -> skeleton text, for every learner test file (examplar.ALL_FILES), in
    ``lang`` (English: each docstring from solutions/i18n/en/skeletons.po when current)."""
    from minitorch_course.examplar import ALL_FILES

    out = {name: skeleton((SKELETON_SOURCE / name).read_text(encoding="utf-8"), lang)
           for name in ALL_FILES}
    if lang == "en":
        catalog = doc_catalog("skeletons", "en")
        for name, text in out.items():
            entry = catalog.get(name)
            doc = _module_docstring(text)
            if entry and entry.source == doc and entry.translation and not entry.fuzzy:
                out[name] = text.replace(f'"""{doc}"""', f'"""{entry.translation}"""', 1)
    return out


def _module_docstring(text: str) -> str:
    import ast

    return ast.get_docstring(ast.parse(text), clean=False) or ""


def write_skeletons(folder: Path, force: bool = False, check: bool = False,
                    lang: str = "es") -> int:
    """The learner's test skeletons in ``folder``: written (never over an edited test without
    ``force``, which keeps a backup), or with ``check`` 1 if any is stale."""
    marker = folder / SKELETON_MARKER
    marks = _read_marks(marker)
    status = 0
    for name, text in skeletons(lang).items():
        target = folder / name
        if check:
            current = target.read_text(encoding="utf-8") if target.exists() else None
            if current != text or marks.get(name) != _sha(text):
                print(f"{target} is not the current skeleton; run `make stubs`")
                status = 1
            continue
        code = write_protected(target, text, marks.get(name), force)
        if code == 0:
            marks[name] = _sha(text)
        status = max(status, code)
    if not check:
        write_marks(marker, marks)
    return status


def write(stub: Stub, target: Path, check: bool, force: bool, lang: str = LANGS[0]) -> int:
    """Write (or ``check``) one stub at ``target``; 0 done, 1 stale (check), 2 refused."""
    text = stub_text(stub, lang)
    current = target.read_text(encoding="utf-8") if target.exists() else None
    marker = target.with_name(stub.marker)
    if check:
        if current != text:
            print(f"{target} differs from the stub generated from {stub.reference}; run "
                  "`make stubs`")
            return 1
        if not marker.exists() or marker.read_text().strip() != _sha(text):
            print(f"{marker} does not record the current stub; run `make stubs`")
            return 1
        print(f"{target} is up to date")
        return 0
    if current == text:
        marker.write_text(_sha(text) + "\n")
        print(f"{target} is already up to date")
        return 0
    last = marker.read_text().strip() if marker.exists() else None
    code = write_protected(target, text, last, force)
    if code == 0:
        marker.write_text(_sha(text) + "\n")
    return code


# ---------------------------------------------------------------- the English copies, shipped
ENGLISH = stubfiles.ENGLISH  # what `make english` copies over the learner's unedited files


def english_copies() -> dict[Path, str]:
    """Path -> text of every English file that ships for the English route (the stubs and the
    test skeletons), generated like the Spanish ones, and the hashes of the Spanish ones
    (``stubfiles.SPANISH``: what `make english` may replace where no marker says so)."""
    out = {ENGLISH / stub.target.name: stub_text(stub, "en") for stub in STUBS.values()}
    for name, text in skeletons("en").items():
        out[ENGLISH / stubfiles.SKELETONS / name] = text
    spanish = {stub.target.name: stubfiles.sha(stub_text(stub, "es")) for stub in STUBS.values()}
    for name, text in skeletons("es").items():
        spanish[f"{stubfiles.SKELETONS}/{name}"] = stubfiles.sha(text)
    out[ENGLISH / stubfiles.SPANISH.name] = "".join(
        f"{digest}  {name}\n" for name, digest in sorted(spanish.items()))
    return out


def write_english(check: bool = False) -> int:
    """Write the shipped English copies, or with ``check`` 1 if any is stale or extra."""
    wanted = english_copies()
    present = {p for p in ENGLISH.rglob("*") if p.is_file() and "__pycache__" not in p.parts} \
        if ENGLISH.is_dir() else set()
    status = 0
    for path in sorted(present - set(wanted)):
        if check:
            print(f"{path} is not generated; run `make stubs`")
            status = 1
        else:
            path.unlink()
    for path, text in wanted.items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        if check:
            print(f"{path} is not the current English stub; run `make stubs`")
            status = 1
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    if check and not status:
        print(f"{ENGLISH} is up to date")
    return status


def _env_language() -> str:
    """The learner's choice at generation: MINITORCH_LANG (``en``), else Spanish."""
    import os

    value = os.environ.get("MINITORCH_LANG", "").strip().lower()[:2]
    return value if value in LANGS else LANGS[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a target is stale")
    parser.add_argument("--force", action="store_true", help="overwrite learner edits (backed up)")
    parser.add_argument("--file", choices=sorted(STUBS), default=None,
                        help="only this learner file (default: all of them)")
    parser.add_argument("--target", type=Path, default=None,
                        help="where to write the stub (with --file; default tensor's)")
    parser.add_argument("--tests-target", type=Path, default=None,
                        help="the learner's test folder (default my_tests/, unless --target "
                        "names another file)")
    parser.add_argument("--lang", choices=LANGS, default=None,
                        help="the docstrings' language (default: MINITORCH_LANG, else Spanish)")
    args = parser.parse_args(argv)
    lang = args.lang or _env_language()
    tests_target = args.tests_target or (SKELETON_TARGET if args.target is None else None)

    names = [args.file] if args.file else (["tensor"] if args.target else list(STUBS))
    whole = args.file is None and args.target is None and args.tests_target is None
    if args.check and lang == "en" and whole:  # the committed English stubs: the shipped copies
        return write_english(check=True)
    status = 0
    if whole and not args.check:
        status = write_english()
    for name in names:
        stub = STUBS[name]
        status = max(status, write(stub, args.target or stub.target, args.check, args.force,
                                   lang))
    if tests_target is not None and status != 1:
        status = max(status, write_skeletons(tests_target, args.force, args.check, lang))
    return status


if __name__ == "__main__":
    sys.exit(main())
