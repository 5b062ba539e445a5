"""Issue 26's notebook routes, through the documented class run (``classrun autograde``).

A class of three on lab 01 (the third hands in a notebook with a cell that is no JSON object:
x37's route 5, which stopped the serial run): the reference (answered) and the stub whose
notebook gains one code cell, run by nbgrader before the graded cells, that tries every route the kernel offers when
it runs as the instructor (each logs what it did into the cell's output, so a "blocked" is not
a cell that never ran):

1. it replaces the submission's ``tensor.py`` (its own copy and ``submitted/*/``) with the
   reference, before the scores of record read it;
2. it starts a detached process (its own session) that waits, then writes full manual scores
   into every gradebook it can reach;
3. it writes nbgrader's "Skipping existing assignment" line into its own output and into the
   output of every process above it;
4. (ours) it lists its classmates' submissions;
5. (ours) it rewrites the course's nbgrader configuration to turn autograding off.

The hostile learner must score exactly what the stub scores (0 on lab 01), be graded (not
"skipped"), and the in-kernel score (which the replaced file did raise) is flagged.
"""

from __future__ import annotations

import json
import time
import uuid

import psutil
import pytest
from conftest import Submissions, sandbox_only

from minitorch_authoring.repository import REFERENCE
from minitorch_grading import classrun, course

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("sandbox_required")]

ASSIGNMENT = course.ASSIGNMENT
LAB = "01-elementwise-ops"
TAG = f"hostile-detached-{uuid.uuid4().hex[:12]}"

HOSTILE_CELL = sandbox_only('''\
import glob, json, os, subprocess, sys
REFERENCE = {reference!r}
log = {{}}
here = os.getcwd()
# 1. replace tensor.py where nbgrader and the record read it
targets = [os.path.join(here, "minitorch", "tensor.py")]
targets += glob.glob(os.path.join(here, "../../../submitted/*/fase08/minitorch/tensor.py"))
for path in targets:
    try:
        open(path, "w").write(REFERENCE)
        log.setdefault("replaced", []).append(os.path.abspath(path))
    except OSError as err:
        log.setdefault("not replaced", []).append(str(err))
# 2. a detached writer of full manual scores into every gradebook it can reach
writer = """
import glob, os, sqlite3, sys, time
time.sleep(4)
for db in glob.glob(os.path.expanduser("~/minitorch-fase08-course/gradebook.db")) + \\\\
        glob.glob(sys.argv[2] + "/../../../gradebook.db") + [{course_db!r}]:
    try:
        con = sqlite3.connect(db)
        con.execute("UPDATE grade SET manual_score = 99")
        con.commit()
    except Exception:
        pass
"""
proc = subprocess.Popen([sys.executable, "-c", writer, {tag!r}, here],
                        start_new_session=True, stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
log["detached"] = proc.pid
# 3. a fake "already graded" line, in our output and in every ancestor's
line = "[AutogradeApp | WARNING] Skipping existing assignment: {student}\\n"
print(line)
pid, reached = os.getppid(), []
while pid > 1:
    for fd in (1, 2):
        try:
            with open(f"/proc/{{pid}}/fd/{{fd}}", "w") as out:
                out.write(line)
            reached.append(pid)
        except OSError:
            pass
    try:
        pid = int(open(f"/proc/{{pid}}/stat").read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        break
log["fake skipped"] = sorted(set(reached))
# 4. the classmates
log["classmates"] = sorted(os.listdir(os.path.join(here, "../../../submitted")))
# 5. the course's configuration
config = os.path.join(here, "../../../nbgrader_config.py")
try:
    open(config, "a").write("\\nc.Autograde.autograde_preprocessors = []\\n")
    log["config"] = "rewritten"
except OSError as err:
    log["config"] = str(err)
print("HOSTILE cell fired:", json.dumps(log))
''')  # its routes 1-3 attack processes and files: run in the sandbox only


@pytest.fixture(scope="module")
def hostile(tmp_path_factory, generated_course) -> dict:
    course_dir = tmp_path_factory.mktemp("hostile") / "course"
    release = generated_course(course_dir)
    stub = (release / course.GRADED_FILE).read_text("utf-8")
    Submissions().submit(course_dir, release, "honest", REFERENCE.read_text("utf-8"), answered=True,
            only=(LAB,))
    Submissions().submit(course_dir, release, "intruder", stub, answered=False, only=(LAB,))
    path = course_dir / "submitted" / "intruder" / ASSIGNMENT / f"{LAB}.ipynb"
    nb = json.loads(path.read_text("utf-8"))
    cell = HOSTILE_CELL.format(reference=REFERENCE.read_text("utf-8"), tag=TAG,
                               student="intruder",
                               course_db=str(course_dir / "gradebook.db"))
    nb["cells"].insert(0, {"cell_type": "code", "metadata": {}, "source": cell,
                           "outputs": [], "execution_count": None})
    path.write_text(json.dumps(nb, indent=1), "utf-8")
    # x37 route 5: a notebook with a cell that is not a JSON object stopped the serial run
    # before anyone's scores of record; it must cost its author only
    Submissions().submit(course_dir, release, "malformed", stub, answered=False, only=(LAB,))
    path = course_dir / "submitted" / "malformed" / ASSIGNMENT / f"{LAB}.ipynb"
    nb = json.loads(path.read_text("utf-8"))
    nb["cells"].append(1)
    path.write_text(json.dumps(nb, indent=1), "utf-8")
    start = time.monotonic()
    code = classrun.autograde_command(course_dir, budget=classrun.BUDGET, seed=7)
    seconds = time.monotonic() - start
    # The detached writer sleeps 4 s, then writes. Any that outlived the class run fails the test
    # below; it is given up to 10 s to finish, so that what it wrote is in the gradebook too
    # (none alive: no wait; this was an unconditional 6 s sleep).
    survivors = _detached()
    deadline = time.monotonic() + 10
    while _detached() and time.monotonic() < deadline:
        time.sleep(0.2)
    report = json.loads(max((course_dir / "reports").glob("autograde-*.json")).read_text())
    return {"course": course_dir, "code": code, "seconds": seconds, "stub": stub,
            "survivors": survivors,
            "outcomes": {o["student"]: o for o in report["submissions"]}}


def _detached() -> list[dict]:
    """The hostile cell's detached writers still alive (their command line carries TAG)."""
    return [p.info for p in psutil.process_iter(["pid", "cmdline"])
            if TAG in " ".join(p.info["cmdline"] or [])]


def _fired(course_dir) -> dict:
    nb = json.loads((course_dir / "autograded" / "intruder" / ASSIGNMENT / f"{LAB}.ipynb")
                    .read_text("utf-8"))
    text = "".join("".join(o.get("text", "")) for c in nb["cells"]
                   for o in c.get("outputs", []))
    assert "HOSTILE cell fired:" in text, text  # the cell ran: every route below engaged
    return json.loads(text.split("HOSTILE cell fired:", 1)[1].strip().splitlines()[0])


def test_the_honest_learner_gets_full_marks(hostile):
    grades = Submissions.grades(hostile["course"], "honest")
    lab = [v for (nb, cell), v in grades.items()  # its tests are skeletons: 0 (the record's)
           if nb == LAB and (nb, cell) not in Submissions.record_cells()]
    assert lab and all(score == points > 0 for score, points in lab), lab


def test_the_intruder_scores_what_the_stub_scores(hostile):
    grades = Submissions.grades(hostile["course"], "intruder")
    assert grades and all(score == 0 for score, _ in grades.values()), grades


def test_the_replaced_file_was_the_jobs_copy(hostile):
    log = _fired(hostile["course"])
    assert log["replaced"] and all(p.startswith("/job/") for p in log["replaced"]), log
    handed_in = hostile["course"] / "submitted" / "intruder" / ASSIGNMENT / course.GRADED_FILE
    assert handed_in.read_text("utf-8") == hostile["stub"]
    flags = " ".join(hostile["outcomes"]["intruder"]["problems"])
    assert "the kernel scored" in flags, flags  # the kernel ran the replaced file: flagged


def test_no_detached_process_and_no_foreign_grade(hostile):
    from nbgrader.api import Gradebook

    assert _fired(hostile["course"])["detached"]
    assert not hostile["survivors"], hostile["survivors"]  # alive when the class run was done
    assert not _detached(), _detached()
    with Gradebook(f"sqlite:///{hostile['course'] / 'gradebook.db'}") as gb:
        manual = [(g.notebook.name, g.name) for s in gb.students
                  for g in gb.find_submission(ASSIGNMENT, s.id).notebooks[0].grades
                  if g.manual_score is not None]
    assert not manual, manual


def test_a_notebook_that_is_no_notebook_costs_its_author_only(hostile):
    """The serial run goes on past it (the classmates above got their scores of record)."""
    got = hostile["outcomes"]["malformed"]
    assert got["status"] == "failed" and "not a readable notebook" in got["manual"][LAB], got
    assert hostile["outcomes"]["honest"]["status"] == "graded"


def test_printed_text_cannot_mark_it_skipped(hostile):
    assert "fake skipped" in _fired(hostile["course"])
    assert hostile["outcomes"]["intruder"]["status"] == "graded"


def test_no_classmate_and_no_course_configuration_in_reach(hostile):
    log = _fired(hostile["course"])
    assert log["classmates"] == ["intruder"], log
    assert log["config"] != "rewritten", log
    assert "autograde_preprocessors = []" not in (hostile["course"] / "nbgrader_config.py") \
        .read_text("utf-8")


def test_the_class_run_time(hostile):
    print(f"class run of 3 learners (lab 01) in the sandbox: {hostile['seconds']:.0f} s")
    failed = [s for s, o in hostile["outcomes"].items() if o["status"] == "failed"]
    assert failed == ["malformed"] and hostile["code"] == 1  # 1: someone could not be graded
    assert hostile["seconds"] < 240


def test_a_score_the_class_run_did_not_write_is_flagged_at_export(hostile):
    from nbgrader.api import Gradebook

    assert classrun.foreign_scores(hostile["course"]) == []
    with Gradebook(f"sqlite:///{hostile['course'] / 'gradebook.db'}") as gb:
        grade = gb.find_grade("check_add", LAB, ASSIGNMENT, "intruder")
        grade.auto_score, was = grade.max_score, grade.auto_score  # as a writer from outside
        most = grade.max_score
        gb.db.commit()
    try:
        flags = classrun.foreign_scores(hostile["course"])
        assert flags == [f"intruder {LAB}/check_add: auto score {most} in the gradebook, "
                         f"the class run wrote {was}"], flags
    finally:
        with Gradebook(f"sqlite:///{hostile['course'] / 'gradebook.db'}") as gb:
            gb.find_grade("check_add", LAB, ASSIGNMENT, "intruder").auto_score = was
            gb.db.commit()

