"""Shared test set-up.

The suites prove the REFERENCE implementation (``make test`` exports MINITORCH_IMPL=reference;
a bare ``pytest`` gets the same default here). The learner's progress report is ``make check``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# the held-out mistakes (solutions/heldout/, hidden with the rest of solutions/ by the README's
# sparse-checkout step) are imported as the package ``heldout``
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solutions"))

os.environ.setdefault("MINITORCH_IMPL", "reference")
os.environ.setdefault("PYTHONHASHSEED", "0")
# The suites read the run-time messages' English ids; the Spanish run (the default for a
# learner) is tested by tests/minitorch_course/test_i18n.py and by the notebooks, rendered and checked in Spanish
# (course.reference_env).
os.environ.setdefault("MINITORCH_LANG", "en")
# The progress report keeps torch's answers on disk (minitorch_course.oracle_cache); the suites
# ask torch every time, whatever a maintainer's ~/.cache holds (tests/minitorch_course/test_oracle_cache.py
# turns it on where it tests it).
os.environ.setdefault("MINITORCH_CACHE", "off")
# Every tensor the suites give torch (and NumPy's BLAS) is tiny: one thread, here and in every
# subprocess (nbgrader's kernels, nbval, the learner's tests). A thread pool on a shared machine
# multiplies torch's CPU time by up to 50 (its threads wait for each other).
os.environ.setdefault("OMP_NUM_THREADS", "1")

from hypothesis import HealthCheck, settings  # noqa: E402

# Deterministic in CI and locally: the same 100 examples every run, no example database.
settings.register_profile(
    "course", max_examples=100, derandomize=True, database=None, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("course")
# ... and the same examples whatever other test modules ran before on this worker
from minitorch_course.strategies import pin_local_constants  # noqa: E402

pin_local_constants()


import io  # noqa: E402
import re  # noqa: E402

import pytest  # noqa: E402


class Terminal(io.StringIO):
    """A stream that can print ✓ and ✗ (the progress report falls back to ok/X otherwise)."""

    encoding = "utf-8"


def run_report(*args: str, mutant: str | None = None) -> tuple[int, str]:
    """``python -m minitorch_course.check ARGS`` in process: (exit status, text). With
    ``mutant``, on the reference with that planted mistake (a maintainer's view)."""
    from minitorch_course import check

    loaded = None
    if mutant:
        from minitorch_authoring import mutants

        loaded = mutants.load_labelled(mutant)
    stream = Terminal()
    code = check.main(list(args), stream=stream, loaded=loaded)
    return code, stream.getvalue()


@pytest.fixture
def report():
    """The progress report, in process: ``report("--op", "add", mutant=NAME) -> (code, text)``."""
    return run_report


# ---------------------------------------------------------------- English left in Spanish text
# English words that no Spanish sentence of the course uses (no "a", "no", "me", "has", ...):
# what betrays an untranslated sentence in a Spanish report (test_i18n) or page (test_site).
ENGLISH = frozenset("""
the is are was were of and with must should your you this that not only every which when where
then than but for to be by an its it from into got expected missing wrong wrote written cannot
does did do there their they them here what why how more most less each other some any all
in on at or as if
""".split())


def english_words(text: str) -> list[str]:
    """The English words of ``ENGLISH`` in ``text``, whole words only: ``broadcast_to``,
    ``np.add.at`` and ``x.grad`` are code, ``así`` is one word."""
    words = {w.lower() for w in re.findall(r"(?<![\w.])[^\W\d_]+(?![\w.(])", text)}
    return sorted(words & ENGLISH)


# ---------------------------------------------------------------- both cores (pytest-xdist)
# The modules' CPU seconds in `make test`: everything a module started (a cgroup's cpuacct, which
# also counts the sandboxed workers), both workers, 6 Dec 2026 at load 7-19; only their order
# matters. The round trip's reference was cut short by its 60 s time budget at that load (it
# costs more). test_runner and test_record_tests_job: not measured that day, their 2 Dec figures
# at that day's ratio (1/6). test_classrun_parallel: /usr/bin/time of the module alone, 6 Dec
# 2026 at load 13-15 (benchmarks/README.md, "The test's cost"); test_old_release: user + sys of
# its own run (nbgrader, the class run's sandboxes), the same day at load 12-18. Re-measured the
# same day at load 9-17 after their cuts (user+sys of the module's pytest process and its reaped
# children, one module at a time): test_notebooks_nbval 67 -> 39 (one nbval process),
# test_notebooks_en 35 -> 26, test_fuzz 52, test_learner_tests (the hanging-test case: about
# 56 -> 10). A module not listed comes after them, the ones with slow tests first.
COST = {
    "test_classrun": 108, "test_record": 91, "test_nbgrader_roundtrip": 83,
    "test_classrun_parallel": 65, "test_site": 73, "test_heldout_scores": 69,
    "test_old_release": 60, "test_fuzz": 52, "test_notebooks_nbval": 39, "test_mutants": 38,
    "test_learner_tests": 30,
    "test_notebooks_en": 26, "test_notebooks": 25, "test_hostile_class": 22, "test_i18n": 9,
    "test_runner": 8, "test_record_tests_job": 8, "test_memory": 8, "test_mutation_score": 4,
    "test_release_kit": 3,
}


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):  # the order below, not by number of tests
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``make test`` runs on every core, a test module whole on one worker (``-n auto --dist
    loadfile``: a module's fixtures are built once, and the modules that keep results at module
    level, the fuzzer's coverage or the mutants' verdicts, are not recomputed on a second
    worker). The costliest modules are handed out first (longest first, so that the workers
    end together; ``--dist loadgroup`` would split modules finer, but pytest-xdist 3.8 cannot
    name groups under pytest 9)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):  # every worker sorts alike; a serial run keeps
        slow = {item.path for item in items if item.get_closest_marker("slow")}
        items.sort(key=lambda item: (-COST.get(item.path.stem, 0), item.path not in slow))


# ---------------------------------------------------------------- strict nbval, one process
def nbval(paths: list[Path], env: dict[str, str], folder: Path) -> dict[Path | None, list]:
    """Strict nbval (every output compared, sanitized by ``tests/nbval_sanitize.cfg``) of the
    notebooks ``paths`` in ONE pytest process, each notebook in its own kernel as nbval does:
    a pytest process with nbval costs 3.7 s of CPU to start (nbformat's schema validation
    alone 1.4 s), once per module instead of once per notebook. Returns each notebook's cells,
    ``(cell, outcome, text)``, read from the run's JUnit XML (``folder``); what belongs to no
    notebook (a collection error) is under ``None``, with the run's output."""
    import subprocess
    import xml.etree.ElementTree as ET

    from minitorch_authoring.repository import ROOT

    junit = folder / "nbval.xml"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env",
         "--nbval-sanitize-with", str(ROOT / "tests" / "nbval_sanitize.cfg"),
         "--nbval-cell-timeout", "600", "-p", "no:cacheprovider", "-q", "--no-header",
         "--junitxml", str(junit), *(str(p.relative_to(ROOT)) for p in paths)],
        cwd=ROOT, env=env, capture_output=True, text=True)
    output = proc.stdout[-6000:] + proc.stderr[-2000:]
    owner = {str(p.relative_to(ROOT)).replace("/", "."): p for p in paths}  # JUnit's classname
    cells: dict[Path | None, list] = {p: [] for p in paths}
    cells[None] = []
    if not junit.is_file():
        cells[None].append(("pytest", f"exit {proc.returncode}", output))
        return cells
    for case in ET.parse(junit).iter("testcase"):
        problem = next((c for c in case if c.tag in ("failure", "error", "skipped")), None)
        outcome = "passed" if problem is None else problem.tag
        text = "" if problem is None else re.sub(  # nbval's colours, as JUnit writes them
            r"#x1B\[[0-9;]*m", "", problem.text or problem.get("message") or "")
        cells[owner.get(case.get("classname", ""))].append((case.get("name"), outcome, text))
    if cells[None] or not any(cells.values()):
        cells[None].append(("pytest", f"exit {proc.returncode}", output))
    return cells


def nbval_problems(cells: dict[Path | None, list], path: Path) -> str:
    """What failed in notebook ``path`` of an :func:`nbval` run ("" when every cell passed);
    a notebook of which no cell ran fails with what the run said."""
    mine = cells.get(path, [])
    if not mine:
        return f"{path.name}: no cell ran\n" + "\n".join(t for *_, t in cells.get(None, []))
    failed = [f"{name}: {outcome}\n{text}" for name, outcome, text in mine
              if outcome in ("failure", "error")]
    return "\n".join(failed)[-6000:]


# ---------------------------------------------------------------- attacks run sandboxed only
# Prepended to every hostile source that attacks processes (writes into /proc/<pid>/fd, signals,
# ptrace): it refuses, loudly, to run anywhere but inside the grading sandbox, whose PID
# namespace starts with bubblewrap as process 1 and whose host name is "grading" (a past forger
# run unsandboxed as root wrote into every process of the machine). Nothing of the attack runs
# before this check.
SANDBOX_ONLY = """\
def _minitorch_sandbox_only():
    import socket
    try:
        with open("/proc/1/comm") as fh:
            init = fh.read().strip()
    except OSError:
        init = "?"
    if socket.gethostname() != "grading" or init != "bwrap":
        raise RuntimeError("REFUSED: this hostile code attacks processes and runs only inside "
                           "the grading sandbox (bubblewrap); here process 1 is " + repr(init))
_minitorch_sandbox_only()
del _minitorch_sandbox_only
"""


def sandbox_only(source: str) -> str:
    """``source`` (a hostile test file or notebook cell) guarded by :data:`SANDBOX_ONLY`."""
    return SANDBOX_ONLY + source


@pytest.fixture(scope="module")
def sandbox_required() -> None:
    """The grading sandbox must work here: FAIL (never skip) with the reason and the fix."""
    from minitorch_grading import sandbox

    try:
        sandbox.check()
    except sandbox.SandboxUnavailable as err:
        pytest.fail(f"the hostile tests run only in the grading sandbox: {err}", pytrace=False)


# ---------------------------------------------------------------- a generated course
@pytest.fixture(scope="session")
def generated_course(tmp_path_factory):
    """``generated_course(course_dir, for_class=True, lang="es") -> release folder``: a course
    directory as ``course.generate_assignment(course_dir, ...)`` leaves it, in ``course_dir``.
    nbgrader generates each kind once per test run (about 9 s of CPU: seven modules grade a
    class), and ``course_dir`` gets a copy (a course directory is relocatable: its exchange and
    paths are relative to it). Both xdist workers share the copies through this run's temporary
    folder, under a lock."""
    import fcntl
    import shutil
    import tempfile

    from minitorch_grading import course

    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "generated"
    shared.mkdir(exist_ok=True)

    def generated(course_dir: Path, for_class: bool = True, lang: str = "es") -> Path:
        built = shared / f"{'class' if for_class else 'repo'}-{lang}"
        with open(shared / "lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # the other worker waits for this kind's build
            if not built.is_dir():
                staging = Path(tempfile.mkdtemp(dir=shared)) / "course"
                course.generate_assignment(staging, for_class=for_class, lang=lang)
                staging.rename(built)
        shutil.copytree(built, course_dir, symlinks=True, dirs_exist_ok=True)
        return course_dir / "release" / course.ASSIGNMENT

    return generated


# ---------------------------------------------------------------- a class handing in its work
class Submissions:
    """Hand in a class release as learners do, and read the gradebook (the nbgrader suites:
    test_nbgrader_roundtrip, test_classrun, test_record)."""

    @staticmethod
    def answered(student_nb: Path, instructor_nb: Path) -> str:
        """The student notebook with every exercise answered as in the instructor's version."""
        import json

        student = json.loads(student_nb.read_text(encoding="utf-8"))
        answers = {c["metadata"]["nbgrader"]["grade_id"]: c["source"]
                   for c in json.loads(instructor_nb.read_text(encoding="utf-8"))["cells"]
                   if c["metadata"].get("nbgrader", {}).get("solution")}
        for cell in student["cells"]:
            meta = cell["metadata"].get("nbgrader", {})
            if meta.get("solution"):
                cell["source"] = answers[meta["grade_id"]]
        return json.dumps(student, indent=1, ensure_ascii=False)

    def submit(self, course_dir: Path, release: Path, student: str, tensor_source: str,
               answered: bool, only: tuple[str, ...] = ()) -> None:
        """Submit the release folder with this tensor.py (``only``: just these notebooks)."""
        import shutil

        from minitorch_authoring.repository import MLP_REFERENCE, REFERENCE
        from minitorch_grading import course

        dest = course_dir / "submitted" / student / course.ASSIGNMENT
        shutil.copytree(release, dest)
        if only:
            for nb in dest.glob("*.ipynb"):
                if nb.stem not in only:
                    nb.unlink()
        (dest / "minitorch" / "tensor.py").write_text(tensor_source, encoding="utf-8")
        if tensor_source == REFERENCE.read_text(encoding="utf-8"):  # the whole answer: mlp.py too
            shutil.copy(MLP_REFERENCE, dest / "minitorch" / "mlp.py")
        if answered:
            for nb in dest.glob("*.ipynb"):
                nb.write_text(self.answered(nb, course.SOURCE_NOTEBOOKS / nb.name),
                              encoding="utf-8")

    @staticmethod
    def manual_cells() -> dict[tuple[str, str], float]:
        """{(notebook, grade_id): points} of the cells a human grades (Markdown answer cells)."""
        import json

        from minitorch_grading import course

        found = {}
        for path in sorted(course.SOURCE_NOTEBOOKS.glob("*.ipynb")):
            for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
                meta = cell["metadata"].get("nbgrader", {})
                if meta.get("grade") and meta.get("solution") and cell["cell_type"] == "markdown":
                    found[(path.stem, meta["grade_id"])] = float(meta["points"])
        return found

    @staticmethod
    def record_cells() -> dict[tuple[str, str], float]:
        """{(notebook, grade_id): points} of the cells only the score of record grades: the
        learner's tests (in the kernel, under autograde, check_my_tests is feedback and 0)."""
        from minitorch_course.catalog import MY_TESTS_CELLS

        return {(c.lab, c.grade_id): float(c.points) for c in MY_TESTS_CELLS.values()}

    @classmethod
    def record_points(cls, notebook: str) -> float:
        """The points of ``notebook``'s record-only cells."""
        return sum(p for (nb, _), p in cls.record_cells().items() if nb == notebook)

    @staticmethod
    def grades(course_dir: Path, student: str) -> dict[tuple[str, str], tuple[float, float]]:
        """{(notebook, grade_id): (score, max_score)} of the autograded cells, from the
        gradebook."""
        from nbgrader.api import Gradebook

        from minitorch_grading import course

        with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}") as gb:
            submission = gb.find_submission(course.ASSIGNMENT, student)
            return {(nb.name, grade.name): (grade.score, grade.max_score)
                    for nb in submission.notebooks for grade in nb.grades
                    if grade.auto_score is not None or grade.max_score}


@pytest.fixture(scope="session")
def submissions() -> Submissions:
    """Hand in and read back a class's work: ``submissions.submit(...)``, ``.grades(...)``."""
    return Submissions()


# ---------------------------------------------------------------- a release from before a rename
def old_release_notebook(nb: dict, notebook: str) -> dict:
    """``nb`` (a notebook of today's release) as an older release saved it: the grade ids and
    answer variables of ``minitorch_course.renames`` back to their old names, by plain text
    substitution (not the code under test). Checksums are left as they are."""
    import json
    import re

    from minitorch_course import renames

    nb = json.loads(json.dumps(nb))
    old_id = {new: old for old, new in renames.grade_ids(notebook).items()}
    old_var = {new: old for old, new in renames.variables(notebook).items()}
    for cell in nb["cells"]:
        meta = cell["metadata"].get("nbgrader", {})
        if meta.get("grade_id") in old_id:
            meta["grade_id"] = old_id[meta["grade_id"]]
        if cell["cell_type"] == "code":
            source = cell["source"]
            source = "".join(source) if isinstance(source, list) else source
            for new, old in old_var.items():
                source = re.sub(rf"(?<![\w.]){new}\b", old, source)
            cell["source"] = source
    return nb
