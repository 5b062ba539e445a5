"""The learner's tests in the score of record's job (``minitorch_grading.learner_tests``):
a hostile test that forges the job's answer gets nothing, and says so in its log."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from minitorch_authoring.repository import ROOT
from minitorch_course import examplar
from minitorch_grading import learner_tests

pytestmark = pytest.mark.slow

LAB = "01-elementwise-ops"

# Writes a full-marks answer into every descriptor of ANOTHER process it can open under /proc
# (the job's answer pipe among them, were it reachable). Only ever run inside the sandbox (its
# own PID namespace): unsandboxed it would write into every process of the machine's user.
# Its own outcome is its log: it passes when nothing outside its own process was writable.
FORGER = '''
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
'''


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


def test_a_forged_answer_earns_nothing(tmp_path):
    """In the sandbox: the forger tried the job's other processes (its test ran and passed on
    the wheat: nothing was writable, the answer pipe is closed in every forked run and the main
    process is not dumpable), the job's own answer came back intact, and it earns nothing."""
    impls = _small_set()
    folder = _submission(tmp_path, textwrap.dedent(FORGER.format(
        lab=LAB, kinds=impls.kinds_for(LAB))))
    got = learner_tests.grade_tests(folder, impls, (LAB,))  # the sandbox, never unsafe here
    assert not got.problem, got.problem  # nothing was appended to the answer
    grade = got.grades[LAB]
    assert grade.valid == ["test_elementwise.py::test_forge"], grade  # it fired, wrote nothing
    assert got.score((LAB,)) == 0, grade.kinds


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
