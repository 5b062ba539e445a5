"""The nbgrader pipeline of the lab notebooks: course directory, student notebooks, rendering.

    python -m minitorch_grading.course build [--course-dir DIR] [--exchange DIR]  # course dir
    python -m minitorch_grading.classrun autograde [--course-dir DIR] [--budget 60]  # the class
    python -m minitorch_grading.classrun export [--course-dir DIR]  # grades-by-notebook.csv
    python -m minitorch_grading.course generate          # student notebooks -> notebooks/
    python -m minitorch_grading.course generate --check  # exit 1 if notebooks/ is stale
    python -m minitorch_grading.course generate --force  # overwrite edited ones (backup kept)
    python -m minitorch_grading.course render [NAME..]   # run solutions/notebooks in place
    python -m minitorch_grading.course cells             # graded cells and points from the catalog
    ... build|generate|render --lang en                  # the English labs (notebooks/en/, a
                                                         # course directory of its own)

The course directory (default ``~/minitorch-fase08-course``, outside the repository: graded code
runs inside it and must not find the reference next door) holds ``nbgrader_config.py`` and
``source/fase08/``, the class release before nbgrader strips it: the instructor notebooks of
``solutions/notebooks/``, the packages they import and the theory (``RELEASE`` below says exactly
what). ``minitorch/tensor.py`` there is the STUB, generated from the reference here, never the
reference itself: nbgrader copies package files verbatim. At autograde, every file of a
submission is restored from ``source/`` except the learner's files, ``minitorch/tensor.py``,
``minitorch/mlp.py`` and the learner's test files ``my_tests/test_*.py``
(``Autograde.exclude_overwriting``, ``LEARNER_FILES``): the learner's code is graded with the
course's own checks, which the learner cannot edit, and the learner's tests by the chaffs they
catch (``minitorch_course.examplar``).

``build`` rewrites only what it generates (``nbgrader_config.py`` and ``source/fase08/``) and never
touches grading data: ``gradebook.db``, ``submitted/``, ``autograded/``, ``feedback/``, an
exchange, or anything else in the directory. ``generate`` works in a temporary course directory.

nbgrader runs in a subprocess whose environment has neither ``MINITORCH_IMPL`` nor
``PYTHONPATH`` (either would let something other than the submission's tensor.py be graded),
and the notebooks' locked first cell refuses to grade a tensor.py from outside the submission.

``notebooks/.generated.json`` records the hash of each student notebook as generated; a
notebook whose content matches neither that hash nor the new generation is the learner's work
and is not overwritten without ``--force`` (which first copies it to ``NAME.<time>.ipynb.bak``).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from minitorch_authoring import repository
from minitorch_course import catalog, examplar, i18n, renames
from minitorch_course.i18n import t

ROOT = repository.ROOT
SOURCE_NOTEBOOKS = repository.SOURCE_NOTEBOOKS
STUDENT_NOTEBOOKS = repository.STUDENT_NOTEBOOKS
MANIFEST = STUDENT_NOTEBOOKS / ".generated.json"
COURSE_DIR = Path.home() / "minitorch-fase08-course"  # outside the repository (--course-dir)
ASSIGNMENT = "fase08"
COURSE_ID = "minitorch-fase08"  # nbgrader's course id: learners' exchange commands name it
# The English labs (minitorch_authoring.nb_i18n): a course directory of their own, with the same
# assignment name and its own course id, gradebook and exchange, so a learner is graded only in
# the language they took and every class tool (classrun, record, export) works unchanged.
LANGS = ("es", "en")
COURSE_IDS = {"es": COURSE_ID, "en": f"{COURSE_ID}-en"}
CODE_STUBS = {"es": "# TU RESPUESTA AQUÍ", "en": "# YOUR ANSWER HERE"}
TEXT_STUBS = {"es": "TU RESPUESTA AQUÍ", "en": "YOUR ANSWER HERE"}  # Markdown answer cells
LANG_MARKER = ".minitorch-lang"  # minitorch_course.i18n reads it in the working directory


def source_notebooks(lang: str = "es") -> Path:
    """The instructor notebooks of ``lang``: the Spanish source, or the English generated ones."""
    return SOURCE_NOTEBOOKS if lang == "es" else repository.SOURCE_NOTEBOOKS_EN


def student_notebooks(lang: str = "es") -> Path:
    return STUDENT_NOTEBOOKS if lang == "es" else repository.STUDENT_NOTEBOOKS_EN


def default_course_dir(lang: str = "es") -> Path:
    return COURSE_DIR if lang == "es" else COURSE_DIR.with_name(f"{COURSE_DIR.name}-{lang}")
GRADED_FILE = "minitorch/tensor.py"  # the learner's engine, taken from the submission
MLP_FILE = "minitorch/mlp.py"  # the learner's MLP (lab 05), taken from the submission
GRADED_FILES = (GRADED_FILE, MLP_FILE)  # the learner's code autograde takes from the submission
# ... and the learner's own tests (skeletons in the release), graded by the chaffs they catch
LEARNER_TESTS = tuple(f"{examplar.FOLDER}/{name}" for name in examplar.ALL_FILES)
LEARNER_FILES = (*GRADED_FILES, *LEARNER_TESTS)  # every exact path in exclude_overwriting
CELL_TIMEOUT = 600  # seconds per cell; the slowest graded cell takes a few seconds
# The notebooks' time budget per submission, all its notebooks (nbgrader_ext.BudgetedExecute:
# wall time to its deadline, then the kernels' CPU): the class run's --budget default and
# nbgrader_config.py's. Not the scores of record's worker (record.WORKER_BUDGET).
NOTEBOOK_BUDGET = 60.0

# What a learner receives in a class release (source/fase08/ -> release/fase08/): the lab
# notebooks (solutions and hidden tests stripped by nbgrader), the packages that ship, whole
# (minitorch with the STUB tensor.py; minitorch_course: the checks, the progress report
# `python -m minitorch_course.check`, the run-time messages) and the theory. What never ships
# lives elsewhere by construction: the reference, answers, planted and held-out mistakes and
# instructor notebooks in solutions/, the instructor's tools in minitorch_grading/, the
# maintainers' in minitorch_authoring/ (tests/repo/test_layout.py keeps the shipping packages from
# importing either).
PACKAGES = ("minitorch", "minitorch_course")
THEORY = "theory"  # theory/ and its English mirror theory/en/, copied as theory/
# In the release, notebooks sit at the top and the theory in theory/ (in the repository they are
# siblings notebooks/ and theory/): relative links between them are rewritten to match.
RELEASE_LINKS = {
    "notebook": (("](../theory/", "](theory/"), ("](../../theory/en/", "](theory/en/")),
    "theory": (("](../notebooks/en/", "](../"), ("](../notebooks/", "](../")),
    "theory/en": (("](../../notebooks/en/", "](../../"), ("](../../notebooks/", "](../../")),
}
# Everything a course directory may hold that build never deletes or rewrites.
GRADING_DATA = ("gradebook.db", "submitted", "autograded", "feedback", "exchange")

CONFIG = f'''\
# Generated by `python -m minitorch_grading.course build`; edit course.py, not this file.
import os

c = get_config()  # noqa: F821

c.CourseDirectory.course_id = __COURSE_ID__
c.CourseDirectory.root = "."
# Setting `ignore` replaces nbgrader's defaults: repeat them, and keep caches out of the release.
c.CourseDirectory.ignore = [
    ".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", ".hypothesis", ".pytest_cache",
    ".grades.json",
]
# The learner's tensor.py, mlp.py and test files are graded; every other file comes back from
# source/. EXACT paths: nbgrader silently ignores globs and "./" prefixes here.
c.Autograde.exclude_overwriting = {{"{ASSIGNMENT}": {json.dumps(list(LEARNER_FILES))}}}
c.Execute.timeout = {CELL_TIMEOUT}
# The exchange (release_assignment, collect, release_feedback): `course build --exchange DIR`,
# by default exchange/ in this directory. Unset, nbgrader creates a world-writable system one.
c.Exchange.root = __EXCHANGE_ROOT__
# An exercise's placeholder must not crash the student notebook: only graded cells may fail.
c.ClearSolutions.code_stub = {{"python": __CODE_STUB__}}
c.ClearSolutions.text_stub = __TEXT_STUB__

# Hidden tests (the quiz's answers): nbgrader releases them stripped, so without this every
# honest submission logs "checksum ... has changed" for each cell that has some; and nbgrader's
# feedback shows them, answers included. See minitorch_course/nbgrader_ext.py.
# The instructor's packages come from the checkout that built this directory, whatever
# checkout an environment's editable install points at (nbgrader runs without PYTHONPATH; its
# kernels never see this path: it is set in nbgrader's own process only).
import sys  # noqa: E402

if __SRC__ not in sys.path:
    sys.path.insert(0, __SRC__)
from minitorch_grading import nbgrader_ext  # noqa: E402

c.Autograde.sanitize_preprocessors = nbgrader_ext.autograde_sanitize_preprocessors()
# One time budget per submission, all its notebooks together (`classrun autograde --budget`):
# Execute.timeout alone is per cell, and a looping op would cost it once per graded cell.
c.Autograde.autograde_preprocessors = nbgrader_ext.autograde_preprocessors()
c.BudgetedExecute.budget = {NOTEBOOK_BUDGET:g}  # wall seconds to the deadline, then CPU seconds of the kernels
c.BudgetedExecute.wall_factor = 3  # and at most 3 x budget of wall time
c.GenerateFeedback.preprocessors = nbgrader_ext.feedback_preprocessors()
# A submission's HTML is the learner's: formgrader shows it on its own origin (its grade API a
# script could call) and generate_feedback in the learner's page. Outputs are cleaned by the
# templates when sanitize_html is set; nbgrader's formgrade and feedback templates render
# Markdown cells themselves, unsanitised, so SanitizeHTML also cleans the cells before rendering.
c.HTMLExporter.sanitize_html = True
c.HTMLExporter.preprocessors = ["nbconvert.preprocessors.sanitize.SanitizeHTML"]
'''
CONFIG_HEADER = CONFIG.splitlines()[0]
DEFAULT_EXCHANGE = 'os.path.join(os.path.dirname(os.path.abspath(__file__)), "exchange")'


def config_text(exchange: Path | None = None, lang: str = "es") -> str:
    """``nbgrader_config.py``: the exchange is ``exchange`` or exchange/ in the course dir."""
    root = repr(str(exchange.expanduser().resolve())) if exchange else DEFAULT_EXCHANGE
    return (CONFIG.replace("__EXCHANGE_ROOT__", root).replace("__SRC__", repr(str(ROOT / "src")))
            .replace("__COURSE_ID__", json.dumps(COURSE_IDS[lang]))
            .replace("__CODE_STUB__", json.dumps(CODE_STUBS[lang], ensure_ascii=False))
            .replace("__TEXT_STUB__", json.dumps(TEXT_STUBS[lang], ensure_ascii=False)))


# ---------------------------------------------------------------- environment
def grading_env(**extra: str) -> dict[str, str]:
    """The environment for nbgrader and its kernels: nothing that could swap the graded code."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("MINITORCH_IMPL", "PYTHONPATH", "NBGRADER_EXECUTION")}
    env.update(PYTHONHASHSEED="0", MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1", **extra)
    # nbgrader runs `alembic` (its gradebook migrations) from PATH: this interpreter's bin/ first,
    # so an un-activated .venv works
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join([bindir, env.get("PATH", "")]) if env.get("PATH") else bindir
    return env


def reference_env(lang: str = "es") -> dict[str, str]:
    """The environment for rendering and nbval: the reference engine, seeded."""
    env = grading_env(MINITORCH_IMPL="reference")
    env["PYTHONPATH"] = str(ROOT / "src")  # the repository's packages, reference switch on
    env[i18n.ENV] = lang  # the committed outputs speak the notebook's language
    return env


def nbgrader(args: list[str], course_dir: Path, *, check: bool = True,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``nbgrader ARGS`` from the course root (its config is read from the cwd)."""
    proc = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course_dir,
                          env=env or grading_env(), capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed ({proc.returncode}):\n"
                           f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


# ---------------------------------------------------------------- the course directory
def lab_notebooks(lang: str = "es") -> list[Path]:
    """The instructor notebooks, in lab order."""
    return sorted(source_notebooks(lang).glob("[0-9][0-9]-*.ipynb"))


def _copy_package(name: str, dest: Path) -> None:
    junk = shutil.ignore_patterns("__pycache__", "*.pyc", "*.bak*", ".stub.*")
    shutil.copytree(ROOT / "src" / name, dest / name, ignore=junk)


def _rewrite(text: str, pairs: tuple[tuple[str, str], ...]) -> str:
    for old, new in pairs:
        text = text.replace(old, new)
    return text


def _copy_notebook(src: Path, dest: Path, for_class: bool) -> None:
    if not for_class:  # the repository's layout: notebooks/ next to theory/, links unchanged
        shutil.copy2(src, dest)
        return
    nb = _load(src)
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            text = _rewrite(_text(cell["source"]), RELEASE_LINKS["notebook"])
            cell["source"] = text.splitlines(keepends=True)
    dest.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _copy_theory(dest: Path) -> None:
    for path in sorted(p for p in (ROOT / THEORY).rglob("*") if p.is_file()):
        rel = path.relative_to(ROOT)
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".md":
            text = path.read_text(encoding="utf-8")
            text = _rewrite(text, RELEASE_LINKS.get(rel.parent.as_posix(), ()))
            (dest / rel).write_text(text, encoding="utf-8")
        else:
            shutil.copy2(path, dest / rel)


def grading_data(course_dir: Path) -> list[str]:
    """What in ``course_dir`` is grading data (never deleted by the course's commands)."""
    return [name for name in GRADING_DATA if (course_dir / name).exists()]


def check_course_dir(course_dir: Path) -> None:
    """Refuse a file, or a directory whose ``nbgrader_config.py`` was not written by ``build``."""
    if course_dir.exists() and not course_dir.is_dir():
        raise SystemExit(f"refusing to build the course in {course_dir}: it is a file, not a "
                         "directory. Choose another one with --course-dir.")
    config = course_dir / "nbgrader_config.py"
    if config.exists() and not config.read_text(encoding="utf-8").startswith(CONFIG_HEADER):
        raise SystemExit(
            f"refusing to build the course in {course_dir}: its nbgrader_config.py was not "
            "written by `python -m minitorch_grading.course build` (another course?). "
            "Choose another directory with --course-dir."
        )


def build(course_dir: Path = COURSE_DIR, for_class: bool = True,
          exchange: Path | None = None, lang: str = "es") -> Path:
    """Write (or rewrite) the generated part of a course directory; returns ``source/fase08``.

    Only ``nbgrader_config.py`` and ``source/fase08/`` are (re)written; grading data
    (``GRADING_DATA``) and anything else in ``course_dir`` are left as they are. ``for_class``
    (the default) is the class release: theory included, links rewritten for its layout;
    ``generate`` builds with ``for_class=False``, the repository's layout. ``exchange``: the
    nbgrader exchange's root (default: ``exchange/`` in ``course_dir``). ``lang="en"``: the
    English labs (``solutions/notebooks/en/``), with a language marker that makes the kernels,
    ``python -m minitorch_course.check`` and nbgrader's commands run from the course directory
    speak English.
    """
    from minitorch_authoring import stubgen

    check_course_dir(course_dir)
    source = course_dir / "source" / ASSIGNMENT
    if source.exists():  # generated, from solutions/, src/ and theory/
        shutil.rmtree(source)
    source.mkdir(parents=True)
    (course_dir / "nbgrader_config.py").write_text(config_text(exchange, lang), encoding="utf-8")
    for nb in lab_notebooks(lang):
        _copy_notebook(nb, source / nb.name, for_class)
    for folder in (course_dir, source):
        marker = folder / LANG_MARKER
        if lang != "es":
            marker.write_text(lang + "\n", encoding="utf-8")
        elif folder == course_dir and marker.exists():
            marker.unlink()
    for name in PACKAGES:
        _copy_package(name, source)
    if for_class:
        _copy_theory(source)
    # Whatever sits in source/ ships verbatim (nbgrader strips no fences from .py files):
    # always the stubs, generated here, whatever state the learner's files are in.
    for stub in stubgen.STUBS.values():
        rel = stub.target.relative_to(ROOT / "src").as_posix()
        assert rel in GRADED_FILES, f"{rel} is a learner's file autograde would overwrite"
        (source / rel).write_text(stubgen.stub_text(stub, lang), encoding="utf-8")
    (source / examplar.FOLDER).mkdir()
    for name, text in stubgen.skeletons(lang).items():  # the learner's test files start as these
        (source / examplar.FOLDER / name).write_text(text, encoding="utf-8")
    return source


def generate_assignment(course_dir: Path = COURSE_DIR, for_class: bool = True,
                        exchange: Path | None = None, lang: str = "es") -> Path:
    """Build the course directory and run ``nbgrader generate_assignment``; returns release/."""
    build(course_dir, for_class=for_class, exchange=exchange, lang=lang)
    rename_graded_cells(course_dir)  # a class in progress: cells renamed since its release
    nbgrader(["generate_assignment", ASSIGNMENT, "--force"], course_dir)
    return course_dir / "release" / ASSIGNMENT


# ---------------------------------------------------------------- a class in progress: names
# Grade ids and answer variables renamed since a release (minitorch_course.renames.RENAMED): a
# submission saved from that release is graded under today's names, and a gradebook created
# with the old grade ids is renamed in place (nbgrader's generate_assignment refuses to add or
# remove cells of a notebook that has submissions).
def _code_names(nb: dict) -> set[str]:
    """The Python names a notebook's code cells use (assign or read)."""
    import ast

    names: set[str] = set()
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            try:
                tree = ast.parse(_text(cell.get("source", "")))
            except (SyntaxError, ValueError):
                continue
            names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    return names


def _grade_ids(nb: dict) -> set[str]:
    return {str(meta["grade_id"]) for cell in nb.get("cells", [])
            if isinstance(meta := (cell.get("metadata") or {}).get("nbgrader"), dict)
            and meta.get("grade_id")}


def renames_toward(source_nb: dict, notebook: str) -> tuple[dict[str, str], dict[str, str]]:
    """The renames (grade ids, answer variables: old -> new) that lead to ``source_nb``, the
    course's own notebook ``notebook``: only those whose new name it has and old name it has
    not (a course still built with the old names keeps them)."""
    ids, names = _grade_ids(source_nb), _code_names(source_nb)
    return ({old: new for old, new in renames.grade_ids(notebook).items()
             if new in ids and old not in ids},
            {old: new for old, new in renames.variables(notebook).items()
             if new in names and old not in names})


def rename_code(source: str, names: dict[str, str]) -> str:
    """``source`` with each Python name in ``names`` replaced (strings, comments and attributes
    ``x.name`` left alone); a cell that does not tokenize is returned as it is."""
    import io
    import tokenize

    if not names or not any(old in source for old in names):
        return source
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return source
    lines = source.splitlines(keepends=True)
    edits = [tok for k, tok in enumerate(tokens) if tok.type == tokenize.NAME
             and tok.string in names and not (k and tokens[k - 1].string == ".")]
    for tok in reversed(edits):  # right to left: earlier columns stay valid
        row, col = tok.start[0] - 1, tok.start[1]
        line = lines[row]
        lines[row] = line[:col] + names[tok.string] + line[col + len(tok.string):]
    return "".join(lines)


def _checksum(cell: dict) -> str | None:
    import nbformat
    from nbgrader.utils import compute_checksum

    cell = {**copy.deepcopy(cell), "source": _text(cell.get("source", ""))}  # as nbformat reads it
    try:
        return compute_checksum(nbformat.from_dict(cell))
    except Exception:  # noqa: BLE001 - a learner's malformed metadata: no checksum to keep
        return None


def upgrade_notebook(nb: dict, ids: dict[str, str], names: dict[str, str]) -> list[str]:
    """Rename, in place, a notebook's grade ids (``ids``) and the answer variables of its code
    cells (``names``); returns what it renamed ("respuesta_01 -> answer_01"). A cell whose
    stored checksum matched the cell (left as released) gets the renamed cell's, so nbgrader
    still sees an untouched answer cell as untouched ("No response", not a changed cell)."""
    done: list[str] = []
    for cell in nb.get("cells", []):
        meta = (cell.get("metadata") or {}).get("nbgrader")
        meta = meta if isinstance(meta, dict) else {}
        before = copy.deepcopy(cell)
        changed = []
        if cell.get("cell_type") == "code" and names:
            source = _text(cell.get("source", ""))
            renamed = rename_code(source, names)
            if renamed != source:
                cell["source"] = renamed
                changed += [f"{old} -> {new}" for old, new in names.items()
                            if old in source and new in renamed]
        if meta.get("grade_id") in ids:
            changed.append(f"{meta['grade_id']} -> {ids[meta['grade_id']]}")
            meta["grade_id"] = ids[meta["grade_id"]]
        if changed and meta.get("checksum") and meta["checksum"] == _checksum(before):
            meta["checksum"] = _checksum(cell) or meta["checksum"]
        done += changed
    return list(dict.fromkeys(done))


def upgrade_submission(folder: Path, source: Path) -> dict[str, list[str]]:
    """Give the notebooks of a submission copy (a snapshot, never ``submitted/``) the names of
    the course's ``source/fase08/`` notebooks, where an older release had others; returns
    {notebook: what was renamed}. The class run and the scores of record call it on each
    snapshot, before nbgrader or the record read it."""
    done: dict[str, list[str]] = {}
    for path in sorted(folder.glob("*.ipynb")):
        own = source / path.name
        if path.stem not in renames.RENAMED or not own.is_file() or path.is_symlink():
            continue
        try:
            nb = json.loads(path.read_text(encoding="utf-8"))
            ids, names = renames_toward(_load(own), path.stem)
            renamed = upgrade_notebook(nb, ids, names) if isinstance(nb, dict) else []
        except (OSError, UnicodeDecodeError, ValueError, TypeError, AttributeError):
            continue  # not a notebook: the class run says so when it checks it
        if renamed:
            path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n",
                            encoding="utf-8")
            done[path.stem] = renamed
    return done


def rename_graded_cells(course_dir: Path) -> list[str]:
    """Give a class in progress the grade ids of the course's source (``renames_toward``):
    in the gradebook, the cells are renamed, keeping every grade and comment (they point at
    the cell, not at its name), so that ``nbgrader generate_assignment --force`` finds the
    cells it expects (without it: "Cannot add or remove cells ... because there are
    submissions"); in ``autograded/``, the notebooks' grade ids, so that ``generate_feedback``
    finds their grades (without it: "MissingEntry: No such taskcomment"). ``submitted/`` is
    never touched. Returns "notebook/old -> new" for each renamed cell."""
    done = _rename_gradebook_cells(course_dir)
    for path in sorted((course_dir / "autograded").glob(f"*/{ASSIGNMENT}/*.ipynb")):
        own = course_dir / "source" / ASSIGNMENT / path.name
        if path.is_symlink() or not own.is_file() or path.stem not in renames.RENAMED:
            continue
        try:
            nb = json.loads(path.read_text(encoding="utf-8"))
            if upgrade_notebook(nb, renames_toward(_load(own), path.stem)[0], {}):
                path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n",
                                encoding="utf-8")
        except (OSError, UnicodeDecodeError, ValueError, TypeError, AttributeError):
            continue  # not a notebook: nbgrader's feedback says so
    return done


def _rename_gradebook_cells(course_dir: Path) -> list[str]:
    import contextlib
    import sqlite3

    db = course_dir / "gradebook.db"
    old = {o for r in renames.RENAMED.values() for o in r.grade_ids}
    try:  # read-only first: a gradebook with no old name is not opened for writing at all
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as con:
            names = {row[0] for table in ("base_cell", "source_cell")
                     for row in con.execute(f"SELECT name FROM {table}")}  # noqa: S608
    except sqlite3.Error:  # none, or not nbgrader's
        return []
    if not names & old:
        return []
    from nbgrader.api import Gradebook, MissingEntry

    done = []
    with Gradebook(f"sqlite:///{db}", course_id=COURSE_ID) as gb:
        try:
            assignment = gb.find_assignment(ASSIGNMENT)
        except MissingEntry:
            return []
        for notebook in assignment.notebooks:
            own = course_dir / "source" / ASSIGNMENT / f"{notebook.name}.ipynb"
            if not own.is_file():
                continue
            ids = renames_toward(_load(own), notebook.name)[0]
            for cells in (notebook.grade_cells, notebook.solution_cells, notebook.task_cells,
                          notebook.source_cells):
                taken = {c.name for c in cells}
                for cell in cells:
                    if cell.name in ids and ids[cell.name] not in taken:
                        done.append(f"{notebook.name}/{cell.name} -> {ids[cell.name]}")
                        cell.name = ids[cell.name]
        gb.db.commit()
    return list(dict.fromkeys(done))


# ---------------------------------------------------------------- student notebooks
def canonical(nb: dict) -> dict:
    """A notebook without what varies between runs and machines (ids kept: they are fixed)."""
    nb = copy.deepcopy(nb)
    kernelspec = nb.get("metadata", {}).get("kernelspec")
    nb["metadata"] = {"kernelspec": kernelspec} if kernelspec else {}
    nb["metadata"]["language_info"] = {"name": "python"}
    for cell in nb.get("cells", []):
        cell.get("metadata", {}).pop("execution", None)
        if cell.get("cell_type") == "code":
            cell["execution_count"] = None
    return nb


def dumps(nb: dict) -> str:
    """The notebook as written to disk (nbformat's own layout, stable key order)."""
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _hash_of(text: str) -> str:
    """The hash of a notebook's canonical form (what the manifest records)."""
    return digest(dumps(canonical(json.loads(text))))


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def with_demo_outputs(student: dict, instructor: dict) -> dict:
    """Give the student notebook the rendered outputs of its demo cells (plots included).

    nbgrader clears every output; a learner browsing notebooks/ on the forge should still see
    what the demos produce. Only cells that are neither graded nor solutions nor the set-up
    cell, and whose source is the instructor's, get their outputs back: no answer and no grade
    leaks. A demo that runs the learner's ops (``with pending():``) keeps none either: its
    output is the reference's, which the learner should predict and then produce.
    """
    rendered = {c.get("id"): c for c in instructor.get("cells", []) if c.get("id")}
    for cell in student.get("cells", []):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        source = rendered.get(cell.get("id"))
        if (cell.get("cell_type") == "code" and source is not None
                and not meta.get("grade") and not meta.get("solution")
                and meta.get("grade_id") != "setup"  # it would name the reference
                and "pending(" not in "".join(cell.get("source", ""))
                and source.get("source") == cell.get("source")):
            cell["outputs"] = copy.deepcopy(source.get("outputs", []))
    return student


def student_versions(release: Path, lang: str = "es") -> dict[str, str]:
    """{file name: text} of every generated student notebook, canonical, with demo outputs."""
    source = source_notebooks(lang)
    return {p.name: dumps(canonical(with_demo_outputs(_load(p), _load(source / p.name))))
            for p in sorted(release.glob("*.ipynb"))}


def _read_manifest(path: Path = MANIFEST) -> dict[str, str]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, json.JSONDecodeError):
        return {}


def stale(generated: dict[str, str], target: Path = STUDENT_NOTEBOOKS) -> list[str]:
    """Names whose committed student notebook differs from the generation (or is missing/extra),
    or whose entry in ``.generated.json`` is not the generated text's hash (a stale manifest
    makes every later command read the notebook as the learner's edit)."""
    problems = []
    manifest = _read_manifest(target / MANIFEST.name)
    for name, text in generated.items():
        path = target / name
        if not path.exists():
            problems.append(f"{name}: missing")
        elif dumps(canonical(_load(path))) != text:
            problems.append(f"{name}: differs from what generation produces")
        elif manifest.get(name) != _hash_of(text):
            problems.append(f"{name}: {MANIFEST.name} records another version")
    for path in sorted(target.glob("[0-9][0-9]-*.ipynb")):
        if path.name not in generated:
            problems.append(f"{path.name}: has no instructor notebook in solutions/notebooks/")
    return problems


def write_students(generated: dict[str, str], force: bool = False,
                   target: Path = STUDENT_NOTEBOOKS) -> int:
    """Write the student notebooks; refuse to overwrite a learner's edits unless ``force``."""
    manifest_path = target / MANIFEST.name
    manifest = _read_manifest(manifest_path)
    edited = []
    for name, text in generated.items():
        path = target / name
        if not path.exists():
            continue
        current_hash = _hash_of(path.read_text(encoding="utf-8"))
        if current_hash not in (_hash_of(text), manifest.get(name)):
            edited.append(path)
    if edited and not force:
        names = ", ".join(p.name for p in edited)
        print(t("refusing to overwrite {names}: edited since generated (your work?). To "
                "overwrite them anyway, run `make notebooks FORCE=1` (a backup "
                "NAME.<time>.ipynb.bak is kept).", names=names), file=sys.stderr)
        return 1
    target.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for path in edited:
        backup = path.with_name(f"{path.stem}.{stamp}.ipynb.bak")
        shutil.copy2(path, backup)
        print(t("backed up {name} -> {backup}", name=path.name, backup=backup.name))
    for name, text in generated.items():
        path = target / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            print(f"wrote {shown.as_posix()}")
        manifest[name] = _hash_of(text)
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n",
                             encoding="utf-8")
    return 0


def generate(check: bool = False, force: bool = False, lang: str = "es") -> int:
    """``generate`` / ``generate --check``: the student notebooks from the instructor ones.

    Works in a temporary course directory: never the instructor's (its gradebook and
    submissions stay untouched). ``--check`` writes nothing at all.
    """
    with tempfile.TemporaryDirectory(prefix="course-generate-") as tmp:
        generated = student_versions(generate_assignment(Path(tmp) / "course", for_class=False,
                                                         lang=lang), lang)
    target = student_notebooks(lang)
    where = target.relative_to(ROOT).as_posix()
    if check:
        problems = stale(generated, target)
        for p in problems:
            print(f"{where}/{p}", file=sys.stderr)
        if problems:
            print("the student notebooks are stale: run `python -m minitorch_grading.course "
                  f"generate{'' if lang == 'es' else ' --lang ' + lang}` and commit {where}/",
                  file=sys.stderr)
            return 1
        print(f"{where}/: {len(generated)} student notebooks up to date")
        return 0
    return write_students(generated, force=force, target=target)


# ---------------------------------------------------------------- graded cells
_POINTS = re.compile(r"\((\d+) puntos?\)")


def _points_text(points: int) -> str:
    return f"({points} punto{'' if points == 1 else 's'})"


def graded_cell_sources(cell: catalog.Cell) -> tuple[str, str]:
    """The heading and the code of a catalog cell's graded notebook cell."""
    engine = [name for name in cell.rows if name in catalog.ENGINE_BY_NAME]
    methods = list(dict.fromkeys(catalog.BY_NAME[name].method for name in cell.rows
                                 if name not in catalog.ENGINE_BY_NAME))
    call = "check_engine" if engine and not methods else "check_ops"
    names = engine if call == "check_engine" else methods
    code = f"{call}({', '.join(repr(n).replace(chr(39), chr(34)) for n in names)})"
    if call == "check_engine":
        code = "from minitorch_course.grading import check_engine\n\n" + code
    title = ", ".join(f"`{n}`" for n in names)
    return f"### Comprobación: {title} {_points_text(cell.points)}", code


def _locked(grade_id: str, graded: bool, points: int = 0) -> dict:
    meta = {"grade": graded, "grade_id": grade_id, "locked": True, "schema_version": 3,
            "solution": False, "task": False}
    if graded:
        meta["points"] = points
    return {"nbgrader": meta}


def sync_graded_cells(nb: dict, lab: str) -> list[str]:
    """Make ``nb``'s graded cells the catalog's (``catalog.CELLS``) for ``lab``, in place.

    A catalog cell the notebook lacks (a new op's row) gets a heading and a locked graded cell
    after the lab's last graded cell; a graded cell's points, and the "(N puntos)" of its
    heading (the markdown cell ``md-<grade_id>``), become the catalog's. Returns the grade_ids
    added or changed: adding an op is a method and a catalog row, and the notebook follows.
    """
    changed: list[str] = []
    cells = nb["cells"]
    by_id = {c.get("id"): c for c in cells}
    graded_at = [i for i, c in enumerate(cells)
                 if c["cell_type"] == "code" and c.get("metadata", {}).get("nbgrader", {})
                 .get("grade")]
    for cell in (c for c in catalog.CELLS if c.lab == lab):
        code = next((c for c in cells if c.get("metadata", {}).get("nbgrader", {})
                     .get("grade_id") == cell.grade_id), None)
        if code is None:
            if not cell.rows:  # a notebook-only cell (an exercise) is the notebook's to write
                continue
            heading, source = graded_cell_sources(cell)
            at = graded_at[-1] + 1 if graded_at else len(cells)
            cells[at:at] = [
                {"cell_type": "markdown", "id": f"md-{cell.grade_id}",
                 "metadata": _locked(f"md-{cell.grade_id}", False), "source": heading},
                {"cell_type": "code", "execution_count": None, "id": cell.grade_id,
                 "metadata": _locked(cell.grade_id, True, cell.points), "outputs": [],
                 "source": source},
            ]
            graded_at.append(at + 1)
            changed.append(cell.grade_id)
            continue
        meta = code["metadata"]["nbgrader"]
        heading = by_id.get(f"md-{cell.grade_id}")
        old = _text(heading["source"]) if heading else ""
        new = _POINTS.sub(_points_text(cell.points), old, count=1)
        if meta.get("points") != cell.points or new != old:
            meta["points"] = cell.points
            if heading:
                heading["source"] = new
            changed.append(cell.grade_id)
    return changed


def sync_notebooks() -> int:
    """``sync_graded_cells`` on every instructor lab notebook, written back if it changed."""
    import nbformat

    for path in lab_notebooks():
        if path.stem not in catalog.LABS:
            continue
        nb = nbformat.read(path, as_version=4)
        changed = sync_graded_cells(nb, path.stem)
        if changed:
            nbformat.write(nbformat.from_dict(nb), path)
            print(f"{path.relative_to(ROOT)}: graded cells {', '.join(changed)} follow the "
                  f"catalog; run `make render NB={path.stem[:2]}`")
    return 0


# ---------------------------------------------------------------- rendering
def render(names: list[str] | None = None, timeout: int = CELL_TIMEOUT, lang: str = "es") -> int:
    """Execute instructor notebooks in place against the reference, so outputs are committed.

    ``lang="en"``: the English ones, first rebuilt from the Spanish and their catalogs
    (``minitorch_authoring.nb_i18n build``), run with ``MINITORCH_LANG=en``."""
    import nbformat
    from nbclient import NotebookClient

    if lang != "es":
        from minitorch_authoring import nb_i18n

        nb_i18n.build(paths=[p for p in nb_i18n.notebooks()
                             if not names or any(p.name.startswith(n) for n in names)])
    paths = lab_notebooks(lang)
    if names:
        paths = [p for p in paths if any(p.name.startswith(n) for n in names)]
        if not paths:
            print(f"no instructor notebook matches {names}", file=sys.stderr)
            return 1
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(reference_env(lang))  # the kernel inherits this process's environment
    try:
        for path in paths:
            start = time.perf_counter()
            nb = nbformat.read(path, as_version=4)
            if path.stem in catalog.LABS and lang == "es":  # English: from the Spanish
                for grade_id in sync_graded_cells(nb, path.stem):
                    print(f"{path.name}: graded cell {grade_id} follows the catalog")
                nb = nbformat.from_dict(nb)
            client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                                    record_timing=False,
                                    resources={"metadata": {"path": str(path.parent)}})
            client.execute()
            nb = nbformat.from_dict(canonical_rendered(nb))
            nbformat.write(nb, path)
            print(f"rendered {path.relative_to(ROOT)} in {time.perf_counter() - start:.1f} s")
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return 0


def canonical_rendered(nb: dict) -> dict:
    """A rendered notebook without machine-specific metadata (outputs and counts kept)."""
    nb = copy.deepcopy(nb)
    course_meta = nb.get("metadata", {}).get("minitorch")  # e.g. needs_finished_engine
    kernelspec = nb.get("metadata", {}).get("kernelspec")
    nb["metadata"] = {"kernelspec": kernelspec} if kernelspec else {}
    nb["metadata"]["language_info"] = {"name": "python"}
    if course_meta:
        nb["metadata"]["minitorch"] = course_meta
    for cell in nb.get("cells", []):
        cell.get("metadata", {}).pop("execution", None)
        merged: list = []
        for out in cell.get("outputs", []):  # one stream output per name, as nbval compares
            if (out.get("output_type") == "stream" and merged
                    and merged[-1].get("output_type") == "stream"
                    and merged[-1]["name"] == out["name"]):
                merged[-1]["text"] = _text(merged[-1]["text"]) + _text(out["text"])
            else:
                merged.append(out)
        if "outputs" in cell:
            cell["outputs"] = merged
    return nb


def _text(text) -> str:
    return "".join(text) if isinstance(text, list) else text


# ---------------------------------------------------------------- command line
def build_command(course_dir: Path, exchange: Path | None = None, lang: str = "es") -> int:
    """``build``: write the course directory and say what was kept and where to go next."""
    course_dir = course_dir.expanduser().resolve()
    if course_dir.is_relative_to(ROOT):
        print(f"warning: {course_dir} is inside the repository: graded code runs in "
              "autograded/ there and can read solutions/ (see docs/INSTRUCTOR.md); "
              "prefer a directory outside it (--course-dir)", file=sys.stderr)
    source = build(course_dir, exchange=exchange, lang=lang)
    print(f"course directory: {course_dir} ({COURSE_IDS[lang]}, notebooks in {lang})")
    print(f"  rewrote nbgrader_config.py and {source.relative_to(course_dir)}/")
    print(f"  exchange: {(exchange or course_dir / 'exchange').expanduser().resolve()}")
    kept = grading_data(course_dir)
    if kept:
        print(f"  kept as they were: {', '.join(kept)}")
    renamed = rename_graded_cells(course_dir)
    if renamed:  # a class in progress: its grades stay with the renamed cells
        print(f"  renamed in gradebook.db and autograded/, grades kept: {', '.join(renamed)}")
    print(f"next: cd {course_dir} && nbgrader generate_assignment {ASSIGNMENT} --force")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m minitorch_grading.course",
                                     description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    bld = sub.add_parser("build", help="write (or update) the nbgrader course directory; "
                         "never deletes grading data")
    bld.add_argument("--course-dir", type=Path, default=None,
                     help=f"the course directory (default: {COURSE_DIR}, with --lang en "
                     f"{default_course_dir('en')})")
    bld.add_argument("--exchange", type=Path, default=None,
                     help="the nbgrader exchange's root (default: exchange/ in the course "
                     "directory; on a JupyterHub a shared one, e.g. /srv/nbgrader/exchange)")
    gen = sub.add_parser("generate", help="student notebooks -> notebooks/ (nbgrader)")
    gen.add_argument("--check", action="store_true",
                     help="exit 1 if the committed student notebooks are stale")
    gen.add_argument("--force", action="store_true",
                     help="overwrite student notebooks edited since generation (backup kept)")
    ren = sub.add_parser("render", help="execute solutions/notebooks in place (reference)")
    ren.add_argument("names", nargs="*", help="notebook name prefixes (default: all)")
    sub.add_parser("cells", help="give solutions/notebooks the catalog's graded cells and "
                   "points, without running them (render does it too)")
    for command in (bld, gen, ren):
        command.add_argument("--lang", choices=LANGS, default="es",
                             help="the notebooks' language (en: solutions/notebooks/en/ -> "
                             "notebooks/en/, English course directory)")
    args = parser.parse_args(argv)
    if args.command == "cells":
        return sync_notebooks()
    if args.command == "build":
        return build_command(args.course_dir or default_course_dir(args.lang), args.exchange,
                             args.lang)
    if args.command == "generate":
        return generate(check=args.check, force=args.force, lang=args.lang)
    return render(args.names, lang=args.lang)


if __name__ == "__main__":
    sys.exit(main())
