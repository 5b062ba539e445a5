"""nbgrader's execution of ONE learner's notebooks, inside that learner's job (the OS sandbox).

Instructor tooling (never ships). ``nbgrader autograde`` runs the submission's notebooks with the
permissions of whoever starts it, so it never runs in the course directory: each learner gets a
private course of their own in a :class:`~minitorch_grading.job.Job`:

    /job/course/nbgrader_config.py    the course's configuration          (read-only)
    /job/course/source/fase08/        the course's source                 (read-only)
    /job/course/gradebook.db          the course's gradebook with no learner in it (a copy)
    /job/course/submitted/ID/fase08/  a copy of the snapshot (minus the notebooks nbgrader
                                      cannot grade)
    /grader/src/minitorch_grading/    nbgrader_ext.py only                (read-only)

and nothing else of the machine is visible. What comes back is data the instructor's process
checks before using it (:func:`import_results`): the autograded notebooks (read without
following links, parsed as notebooks, their scores recomputed here with nbgrader's own rule and
capped at the points the course's gradebook gives each cell). The course's gradebook is written
here only; the job's own gradebook is thrown away unread. The scores of record replace these
in-kernel scores afterwards (``minitorch_grading.record``).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import warnings
from pathlib import Path

from minitorch_course import i18n
from minitorch_grading import course, sandbox
from minitorch_grading.job import Job

GRADER_SRC = "/grader/src"  # where nbgrader_ext is seen inside the job
NOTEBOOK_BYTES = 32 * 2**20  # an autograded notebook larger than this is not imported
EXCHANGE_FILES = ("timestamp.txt", "submission_secret.txt")  # nbgrader submit's, kept


def template_gradebook(course_dir: Path, dest: Path) -> Path:
    """A copy of the course's gradebook without any learner (nor their grades): what every
    job's nbgrader starts from."""
    from nbgrader.api import Gradebook
    from sqlalchemy.exc import SAWarning

    path = dest / "gradebook.db"
    shutil.copy(course_dir / "gradebook.db", path)
    with Gradebook(f"sqlite:///{path}", course_id=course.COURSE_ID) as gb, \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)
        for student in list(gb.students):
            gb.remove_student(student.id)
    return path


def grader_src(dest: Path) -> Path:
    """The instructor code nbgrader needs inside a job: ``minitorch_grading.nbgrader_ext``, and
    the course's ``i18n`` with its catalogs (the time-budget message is the course's, in the
    course's language). Only these: the checkout's ``src`` is not bound in the job (an
    editable install points there), and nbgrader's process must never import the learner's
    copies of the course packages in the submission."""
    pkg = dest / "minitorch_grading"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    shutil.copy(Path(__file__).with_name("nbgrader_ext.py"), pkg / "nbgrader_ext.py")
    course_pkg = dest / "minitorch_course"
    course_pkg.mkdir()
    (course_pkg / "__init__.py").write_text("", encoding="utf-8")
    shutil.copy(i18n.__file__, course_pkg / "i18n.py")
    shutil.copytree(i18n.LOCALE_DIR, course_pkg / "locale")
    for path in (dest, *dest.rglob("*")):  # readable by the sandbox's user
        path.chmod(0o755 if path.is_dir() else 0o644)
    return dest


class Setup:
    """What every learner's nbgrader job shares, made once per class run: the template
    gradebook, the configuration and nbgrader_ext, in a folder only the instructor reads."""

    def __init__(self, course_dir: Path):
        self.course_dir = course_dir
        self.folder = Path(tempfile.mkdtemp(prefix="minitorch-classrun-"))
        self.gradebook = template_gradebook(course_dir, self.folder)
        self.src = grader_src(self.folder / "src")
        self.config = self.folder / "nbgrader_config.py"
        text = course.config_text().replace(repr(str(course.ROOT / "src")), repr(GRADER_SRC))
        self.config.write_text(text, encoding="utf-8")
        for path in (self.folder, self.src):  # readable by the sandbox's user (binds)
            path.chmod(0o755)

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def new_job(setup: Setup, snap: Path, student: str, leave_out: list[str],
            unsafe: bool = False) -> Job:
    """A job holding a private course for ``student``: the template gradebook and a copy of
    the snapshot (without the notebooks in ``leave_out``)."""
    box = Job.new(unsafe)
    root = box.folder / "course"
    dest = root / "submitted" / student / course.ASSIGNMENT
    shutil.copytree(snap, dest, ignore=lambda folder, names: [
        n for n in names if Path(folder) == snap and n in {f"{m}.ipynb" for m in leave_out}])
    shutil.copy(setup.gradebook, root / "gradebook.db")
    (box.folder / "home").mkdir()
    if unsafe:  # no binds: the real files in place
        shutil.copy(setup.config, root / "nbgrader_config.py")
        (root / "nbgrader_config.py").write_text(setup.config.read_text("utf-8").replace(
            repr(GRADER_SRC), repr(str(setup.src))), encoding="utf-8")
        shutil.copytree(setup.course_dir / "source", root / "source")
    else:  # mount points for the read-only binds
        (root / "nbgrader_config.py").touch()
        (root / "source" / course.ASSIGNMENT).mkdir(parents=True)
    return box


def run_autograde(setup: Setup, box: Job, student: str, args: list[str],
                  wall: float) -> sandbox.Result:
    """``nbgrader autograde fase08 --student ID ARGS`` in the job, killed (with every kernel)
    after ``wall`` seconds."""
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": box.path("home"),
           "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1",
           "LANG": "C.UTF-8"}
    if i18n.ENV in os.environ:  # the feedback's language, as the instructor runs it
        env[i18n.ENV] = os.environ[i18n.ENV]
    elif (marker := setup.course_dir / course.LANG_MARKER).is_file():  # else the course's: the
        # job's course folder has no marker (nbgrader runs there), the release's is in source/
        env[i18n.ENV] = marker.read_text(encoding="utf-8").strip()
    binds = [] if box.unsafe else [
        (setup.config, box.path("course/nbgrader_config.py")),
        (setup.course_dir / "source" / course.ASSIGNMENT,
         box.path(f"course/source/{course.ASSIGNMENT}")),
        (setup.src, GRADER_SRC)]
    argv = [sys.executable, "-m", "nbgrader", "autograde", course.ASSIGNMENT,
            "--student", student, "--force", *args]
    return box.run(argv, env=env, cwd="course", read_only=binds,
                   limits=sandbox.Limits(wall=max(wall, 1.0)))


def autograded_path(student: str, notebook: str) -> str:
    return f"course/autograded/{student}/{course.ASSIGNMENT}/{notebook}.ipynb"


def import_results(course_dir: Path, box: Job, student: str, notebooks: list[str],
                   snap: Path) -> dict[str, str]:
    """Bring the job's autograded notebooks into the course (``autograded/ID/fase08/``) and
    their in-kernel scores into the course's gradebook, checked here. Returns {notebook: why}
    for the notebooks that came back unusable (missing, not a notebook, too large)."""
    import nbformat
    from nbgrader.api import Gradebook, MissingEntry
    from nbgrader.utils import determine_grade, is_grade
    from sqlalchemy.exc import SAWarning

    problems: dict[str, str] = {}
    dest = course_dir / "autograded" / student / course.ASSIGNMENT
    kernel: dict[str, dict[str, float | None]] = {}
    for name in notebooks:
        data = box.read(autograded_path(student, name), NOTEBOOK_BYTES)
        if data is None:
            problems[name] = "nbgrader left no autograded notebook"
            continue
        try:
            nb = nbformat.reads(data.decode("utf-8"), as_version=4)
            scores = {}
            for cell in nb.cells:
                if is_grade(cell):
                    grade_id = str(cell.metadata["nbgrader"]["grade_id"])
                    scores[grade_id] = determine_grade(cell)[0]
        except Exception as err:  # noqa: BLE001 - whatever the job left there
            problems[name] = f"the autograded notebook is unreadable ({type(err).__name__})"
            continue
        dest.mkdir(parents=True, exist_ok=True)
        (dest / f"{name}.ipynb").write_text(nbformat.writes(nb), encoding="utf-8")
        kernel[name] = scores
    for name in EXCHANGE_FILES:  # generate_feedback and release_feedback need them
        path = snap / name
        if path.is_file() and not path.is_symlink() and kernel:
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, dest / name)
    graded_file = snap / course.GRADED_FILE
    if graded_file.is_file() and not graded_file.is_symlink():  # the file that was graded
        (dest / course.GRADED_FILE).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(graded_file, dest / course.GRADED_FILE)
    url = f"sqlite:///{course_dir / 'gradebook.db'}"
    with Gradebook(url, course_id=course.COURSE_ID) as gb, warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)
        gb.update_or_create_student(student)
        gb.update_or_create_submission(course.ASSIGNMENT, student,
                                       timestamp=submitted_at(snap))
        for name, scores in kernel.items():
            try:
                nb = gb.find_submission_notebook(name, course.ASSIGNMENT, student)
            except MissingEntry:
                continue
            for grade in nb.grades:
                score = scores.get(grade.name)
                grade.auto_score = None if score is None else \
                    max(0.0, min(float(score), grade.max_score))
                grade.needs_manual_grade = score is None and grade.manual_score is None
        gb.db.commit()
    return problems


def submitted_at(snap: Path):
    """The submission's ``timestamp.txt`` (nbgrader's submit writes it), or None."""
    from nbgrader.utils import parse_utc

    path = snap / "timestamp.txt"
    try:
        return parse_utc(path.read_text("utf-8").strip()) if path.is_file() else None
    except (OSError, ValueError):
        return None


def graded_before(course_dir: Path, student: str, snap_or_folder: Path) -> bool:
    """Whether the course's gradebook already holds this submission, graded by a class run
    (only the class run creates submissions there), and it was not submitted again since.
    Decided from the gradebook, never from anything a job printed."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{course_dir / 'gradebook.db'}",
                   course_id=course.COURSE_ID) as gb:
        try:
            submission = gb.find_submission(course.ASSIGNMENT, student)
        except MissingEntry:
            return False
        when = submitted_at(snap_or_folder)
        return not (when and submission.timestamp and when > submission.timestamp)

