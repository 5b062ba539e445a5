"""The learner's tests in the score of record's job (``minitorch_grading.learner_tests``):
a hostile test that forges the job's answer gets nothing, and says so in its log."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from conftest import sandbox_only

from minitorch_authoring.repository import ROOT
from minitorch_course import examplar
from minitorch_grading import learner_tests

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("sandbox_required")]

LAB = "01-elementwise-ops"

# Writes a full-marks answer into every descriptor of ANOTHER process it can open under /proc
# (the job's answer pipe among them, were it reachable). Only ever run inside the sandbox (its
# own PID namespace): unsandboxed it would write into every process of the machine's user.
# Its own outcome is its log: it passes when nothing outside its own process was writable.
# Guarded by conftest.SANDBOX_ONLY: anywhere else it refuses before touching anything.
FORGER = sandbox_only('''
import glob, json, os

def test_forge():
    forged = json.dumps({{{lab!r}: {{"tests": ["t"], "valid": ["t"], "dropped": {{}},
                         "kinds": {{k: [99, 99] for k in {kinds!r}}}, "problems": [],
                         "seconds": 0}}}})
    me = str(os.getpid())
    tried, wrote = 0, []
    for proc in glob.glob("/proc/[0-9]*"):
        if proc.split("/")[2] == me:
            continue
        tried += 1  # another process of the job (its main process, bubblewrap)
        try:
            names = os.listdir(proc + "/fd")
        except OSError:
            continue
        for name in names:
            try:
                fd = os.open(proc + "/fd/" + name, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)
            except OSError:
                continue
            try:
                os.write(fd, forged.encode())
                wrote.append(proc + "/fd/" + name)
            except OSError:
                pass
            finally:
                os.close(fd)
    assert tried > 0, "HOSTILE forger: no other process to write to"
    assert not wrote, "HOSTILE forger wrote into " + ", ".join(wrote)
''')


def _submission(tmp_path: Path, test_source: str) -> Path:
    folder = tmp_path / "sub"
    (folder / examplar.FOLDER).mkdir(parents=True)
    (folder / examplar.FOLDER / "test_elementwise.py").write_text(test_source, "utf-8")
    return folder


def _small_set() -> examplar.ImplSet:
    full = examplar.course_set()
    assert full is not None
    chaffs = full.chaffs_for(LAB)
    return examplar.ImplSet("small", full.wheats[:1], chaffs[:2])


def test_a_model_file_scores_in_the_sandbox(tmp_path):
    """The same path, sandboxed, with the model lab 01 file: every kind of the set caught."""
    impls = _small_set()
    model = ROOT / "solutions" / "learner_tests" / "model" / "test_elementwise.py"
    folder = _submission(tmp_path, model.read_text("utf-8"))
    shutil.copy(ROOT / "solutions" / "learner_tests" / "model" / "test_broadcast_reverse.py",
                folder / examplar.FOLDER)
    got = learner_tests.grade_tests(folder, impls, (LAB,))
    assert not got.problem, got.problem
    assert got.score((LAB,)) == 1.0, got.grades[LAB]


# Tests that try to tell a chaff run from a wheat run: each FAILS when it believes it runs on a
# chaff (so, were any channel open, it would catch every chaff and pass every wheat: full marks
# for a test that tests nothing). Each channel is its own test, and each passes only after its
# probe ran (a blocked channel is one that was tried). Channels: the arguments (--maxfail=1,
# node ids), marks left by earlier runs in /tmp and in the job's folder, and the memory of the
# process (the Impl being run, found through a traceback's frames).
DETECTOR = """
import os, sys

def _mark(where):
    # a mark for the runs after this one; True when an earlier run left one (not the first run)
    earlier = os.path.exists(os.path.join(where, "hostile-run-mark"))
    try:
        with open(os.path.join(where, "hostile-run-mark"), "a") as fh:
            fh.write("x")
    except OSError:
        pass  # read-only here: the channel is closed
    return earlier

def test_arguments(pytestconfig):
    assert pytestconfig.option.maxfail in (0, None) or pytestconfig.option.maxfail > 1
    assert not any("::" in str(a) for a in pytestconfig.args)

def test_a_mark_in_tmp():
    assert not _mark("/tmp")

def test_a_mark_in_the_job():
    assert not _mark("/job")

def test_the_memory():
    try:
        raise RuntimeError
    except RuntimeError:
        frame = sys.exc_info()[2].tb_frame
    looked = 0
    while frame is not None:
        impl = frame.f_locals.get("impl")
        looked += 1
        assert getattr(impl, "role", "") != "chaff"
        for name in ("impls", "order", "chaffs"):  # the lists a grader may hold
            items = frame.f_locals.get(name)
            for item in items if isinstance(items, (list, tuple)) else ():
                assert not (getattr(item, "role", "") == "chaff" and item is impl)
        frame = frame.f_back
    assert looked > 3
"""


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> dict:
    """ONE sandboxed job for both hostile files of lab 01 (the forger and the detectors):
    each job costs about 15 s of make test."""
    impls = _small_set()
    folder = _submission(tmp_path_factory.mktemp("hostile"), textwrap.dedent(FORGER.format(
        lab=LAB, kinds=impls.kinds_for(LAB))))
    (folder / examplar.FOLDER / "test_broadcast_reverse.py").write_text(DETECTOR, "utf-8")
    got = learner_tests.grade_tests(folder, impls, (LAB,))  # the sandbox, never unsafe here
    return {"got": got, "grade": got.grades[LAB]}


def test_a_forged_answer_earns_nothing(hostile):
    """In the sandbox: the forger tried the job's other processes (its test ran and passed on
    the wheat: nothing was writable, the answer pipe is closed in every forked run and the main
    process is not dumpable), the job's own answer came back intact, and it earns nothing."""
    got, grade = hostile["got"], hostile["grade"]
    assert not got.problem, got.problem  # nothing was appended to the answer
    assert "test_elementwise.py::test_forge" in grade.valid, grade  # it fired, wrote nothing
    assert got.score((LAB,)) == 0, grade.kinds


def test_a_test_cannot_tell_a_chaff_run(hostile):
    """In the sandbox every run gets the same arguments, a private /tmp, the job read-only,
    an order drawn at random and a memory that names no role: the detectors pass on the wheat
    and on every chaff (valid, each probe ran) and catch nothing."""
    got, grade = hostile["got"], hostile["grade"]
    assert not got.problem, got.problem
    assert not grade.dropped, grade.dropped
    assert sorted(n.split("::")[1] for n in grade.valid
                  if n.startswith("test_broadcast_reverse.py")) == [
        "test_a_mark_in_the_job", "test_a_mark_in_tmp", "test_arguments", "test_the_memory"], grade
    assert got.score((LAB,)) == 0, grade.kinds
    assert not grade.problems, grade.problems
