"""The grading sandbox (``minitorch_grading.sandbox``) and the per-learner job (``job``).

These tests FAIL, never skip, where the sandbox cannot run (no bubblewrap, no user namespaces):
``make system-deps`` installs what they need. Each probe prints what it tried, so a "blocked"
is never a probe that did not run.
"""

from __future__ import annotations

import os
import sys
import textwrap
import time
import uuid
from pathlib import Path

import psutil
import pytest

from minitorch_authoring.repository import ROOT
from minitorch_grading import classrun, record, sandbox
from minitorch_grading.job import Job, snapshot

REFERENCE = ROOT / "solutions" / "tensor.py"


def _python(job: Job, code: str, **kw) -> sandbox.Result:
    return job.run([sys.executable, "-I", "-c", textwrap.dedent(code)], **kw)


@pytest.fixture
def job():
    with Job.new() as box:
        yield box


def test_the_sandbox_runs_here():
    sandbox.check()  # raises SandboxUnavailable (why, how to fix) instead of skipping


def test_another_user_no_network_nothing_of_the_machine(job):
    result = _python(job, f"""
        import os, socket
        print("uid", os.getuid())
        for path in [{str(REFERENCE)!r}, {str(ROOT)!r} + "/src", "/root/.ssh", "/home",
                     {str(Path.home() / "minitorch-fase08-course")!r}]:
            print("exists", path, os.path.exists(path))
        try:
            socket.create_connection(("1.1.1.1", 80), timeout=2)
            print("network yes")
        except OSError as err:
            print("network no", err.errno)
        """)
    out = result.stdout.decode()
    assert result.returncode == 0, result.stderr.decode()
    if os.geteuid() == 0:
        assert int(out.split("uid ", 1)[1].split()[0]) in sandbox.UIDS, out
    assert "exists" in out and "True" not in out, out  # every probe ran, none found anything
    assert "network no" in out, out


def test_only_the_private_folder_is_writable(job):
    result = _python(job, f"""
        import os
        for path in ["/job/mine", "/tmp/scratch", {sys.prefix!r} + "/hacked",
                     {os.path.dirname(os.__file__)!r} + "/hacked.py", "/usr/hacked"]:
            try:
                open(path, "w").write("x")
                print("wrote", path)
            except OSError as err:
                print("refused", path, err.errno)
        """)
    out = result.stdout.decode()
    assert out.count("wrote") == 2 and out.count("refused") == 3, out
    assert (job.folder / "mine").read_text() == "x"
    assert not Path(sys.prefix, "hacked").exists()


def test_no_process_outlives_the_job(job):
    """A detached grandchild (new session, ignoring SIGHUP) dies with the job, on a normal end
    and on a timeout."""
    for wall, tail in ((30.0, "exit 0"), (2.0, "sleep 600")):
        tag = f"{time.time() % 1000:.6f}"
        script = f"setsid nohup sleep 7{tag} >/dev/null 2>&1 & echo started; {tail}"
        result = job.run(["/bin/sh", "-c", script], limits=sandbox.Limits(wall=wall))
        assert b"started" in result.stdout
        assert result.timed_out == (tail != "exit 0")
        time.sleep(0.5)
        alive = [p.info for p in psutil.process_iter(["pid", "cmdline"])
                 if f"7{tag}" in " ".join(p.info["cmdline"] or [])]
        assert not alive, alive


def test_limits_on_file_size_and_cpu(job):
    big = _python(job, """
        open("/job/big", "wb").write(b"x" * 3_000_000)
        """, limits=sandbox.Limits(wall=30, file_bytes=1_000_000))
    assert big.returncode != 0
    start = time.monotonic()
    spin = _python(job, "while True: pass", limits=sandbox.Limits(wall=60, cpu=0))
    assert spin.returncode != 0 and not spin.timed_out
    assert time.monotonic() - start < 30


@pytest.mark.parametrize("wall", [60.0, 6.0], ids=["ends", "killed"])
def test_the_jobs_cpu_time_is_measured_from_outside(job, wall):
    """``Result.cpu`` holds the CPU time of every process the job ran (here a parent and a
    child, each spinning and printing its own CPU time), whether it ends or is killed at its
    wall-clock limit: the namespace's processes are reaped where their time is counted
    (sandbox.REAPER), where getrusage(RUSAGE_CHILDREN) used to see 0 s of it."""
    result = _python(job, f"""
        import os, time
        child = os.fork()
        shown = 0.0
        while {wall > 10} and time.process_time() < 0.5 or {wall < 10}:  # killed: spins on
            if time.monotonic() > shown:
                print(os.getpid(), round(time.process_time(), 2), flush=True)
                shown = time.monotonic() + 0.1
        print(os.getpid(), round(time.process_time(), 2), flush=True)
        if child:
            os.waitpid(child, 0)
        """, limits=sandbox.Limits(wall=wall))
    spun: dict[str, float] = {}
    for line in result.stdout.decode().splitlines():
        pid, cpu = line.split()
        spun[pid] = float(cpu)  # the last line of each process: its CPU time by then
    assert len(spun) == 2 and result.timed_out == (wall < 10), (result, spun)
    if wall > 10:
        assert min(spun.values()) >= 0.5
    assert result.cpu >= sum(spun.values()) > 0, (result.cpu, spun)
    assert result.cpu < sum(spun.values()) + 5.0  # its own: no more than start-ups beside


def test_a_missing_sandbox_is_refused_loudly(monkeypatch, tmp_path):
    monkeypatch.setattr(sandbox, "bwrap", lambda: None)
    monkeypatch.setattr(sandbox, "_CHECKED", [])
    with pytest.raises(sandbox.SandboxUnavailable, match="make system-deps"):
        sandbox.check()
    with pytest.raises(SystemExit, match="refusing to grade.*bubblewrap"):
        classrun.autograde_command(tmp_path)
    with pytest.raises(SystemExit, match="refusing to grade"):
        record.main(["--course-dir", str(tmp_path)])


def test_what_a_job_leaves_is_read_without_following_links(job):
    secret = job.folder.parent / f"secret-{uuid.uuid4().hex}"
    secret.write_text("instructor only")
    try:
        (job.folder / "plain.ipynb").write_text("{}")
        (job.folder / "link.ipynb").symlink_to(secret)
        (job.folder / "dir").symlink_to(job.folder.parent)
        assert job.read("plain.ipynb") == b"{}"
        assert job.read("link.ipynb") is None
        assert job.read(f"dir/{secret.name}") is None
        assert job.read("../" + secret.name) is None
    finally:
        secret.unlink()


def test_the_snapshot_leaves_links_out(tmp_path):
    sub = tmp_path / "sub"
    (sub / "minitorch").mkdir(parents=True)
    (sub / "minitorch" / "tensor.py").symlink_to(REFERENCE)
    (sub / "lab.ipynb").write_text("{}")
    left_out = snapshot(sub, tmp_path / "snap")
    assert left_out == ["minitorch/tensor.py"]
    assert (tmp_path / "snap" / "lab.ipynb").is_file()
    assert not (tmp_path / "snap" / "minitorch" / "tensor.py").exists()


def test_the_workers_folder_holds_no_oracle(tmp_path):
    """The worker's folder holds the course's worker package and nothing else of the course:
    no engine check (their expected values and judges stay with the instructor, lab 00's
    graphs come as programs), no catalog, no stored curve."""
    (tmp_path / "w").mkdir()
    folder = record.worker_folder(REFERENCE, tmp_path / "w")
    course_files = sorted(str(p.relative_to(folder / "minitorch_course"))
                          for p in (folder / "minitorch_course").rglob("*") if p.is_file())
    worker = sorted(str(p.relative_to(ROOT / "src" / "minitorch_course"))
                    for p in (ROOT / "src" / "minitorch_course" / "worker").glob("*.py"))
    assert course_files == ["__init__.py", *worker], course_files
    assert "worker/engine.py" in worker
    every = "".join(p.read_text("utf-8") for p in (folder / "minitorch_course").rglob("*.py"))
    assert "np.add.at" in (ROOT / "src" / "minitorch_course" / "engine_checks.py").read_text()
    assert "np.add.at" not in every  # the reverse-broadcasting oracle (engine_checks._sum_to)


def test_hostile_code_that_attacks_processes_refuses_to_run_unsandboxed(job, tmp_path):
    """conftest.SANDBOX_ONLY, the guard of every hostile source that attacks processes: run
    here (no sandbox) it refuses loudly before its first line; in the job it runs. The probe
    body is harmless: it only prints."""
    import subprocess

    from conftest import sandbox_only

    probe = sandbox_only('print("ATTACK BODY RAN")\n')
    outside = subprocess.run([sys.executable, "-I", "-c", probe], capture_output=True,
                             timeout=60, cwd=tmp_path)
    assert outside.returncode != 0
    assert b"ATTACK BODY RAN" not in outside.stdout
    assert b"REFUSED: this hostile code attacks processes" in outside.stderr, outside.stderr
    inside = _python(job, probe)
    assert inside.stdout.decode().strip() == "ATTACK BODY RAN", inside.stderr.decode()


FILLER = """
import errno, os, sys
for where in ("/job", "/tmp"):
    total, err = 0, None
    chunk = b"x" * 2**20
    try:
        for i in range({most} // 2**20):  # never beyond this: a missing cap fails, bounded
            with open(f"{{where}}/fill-{{i}}", "wb") as out:
                out.write(chunk)
            total += len(chunk)
    except OSError as e:
        err = errno.errorcode.get(e.errno, e.errno)
    print("HOSTILE filler", where, total, err, flush=True)
"""


def test_a_job_that_fills_its_disk_stops_at_its_cap(tmp_path):
    """A job writing until it cannot: its folder and its /tmp end at their caps (ENOSPC, in
    files each below the file-size limit), the machine's disk is untouched, the folder goes
    with the job, and the next job runs."""
    if os.geteuid() != 0:
        pytest.fail("the job's folder is size-capped only when the grader is root (mount)")
    most = sandbox.JOB_BYTES + sandbox.TMP_BYTES + 64 * 2**20
    free = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize
    with Job.new() as box:
        folder = box.folder
        result = _python(box, FILLER.format(most=most))
        out = result.stdout.decode()
        print(out)
        lines = {ln.split()[2]: ln.split()[3:] for ln in out.splitlines()
                 if ln.startswith("HOSTILE filler")}
        assert set(lines) == {"/job", "/tmp"}, (out, result.stderr.decode())  # it fired
        for where, cap in (("/job", sandbox.JOB_BYTES), ("/tmp", sandbox.TMP_BYTES)):
            total, err = int(lines[where][0]), lines[where][1]
            assert err == "ENOSPC" and cap - 2 * 2**20 <= total <= cap, (where, total, err)
        after = os.statvfs(tmp_path).f_bavail * os.statvfs(tmp_path).f_frsize
        assert free - after < 64 * 2**20, "the job's writes reached the machine's disk"
    assert not folder.exists()
    with Job.new() as nxt:
        assert _python(nxt, "print('next')").stdout == b"next\n"


HOG = """
import threading, time, os
threading.stack_size(65536)
held = 0
try:
    for _ in range(100000):  # bounded by the job's RLIMIT_NPROC, never by this
        threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
        held += 1
except RuntimeError:
    pass
print("HOSTILE hog holds", held, "threads", flush=True)
open("/job/holding", "w").write(str(held))
deadline = time.time() + 60
while not os.path.exists("/job/release") and time.time() < deadline:
    time.sleep(0.1)
"""
CLASSMATE = """
import threading
threads = [threading.Thread(target=lambda: None) for _ in range(16)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("classmate started 16 threads", flush=True)
"""


def _beside_a_hog(processes: int = 64) -> tuple[sandbox.Result, sandbox.Result]:
    """A job holding every thread its RLIMIT_NPROC allows, and meanwhile a classmate's job."""
    import threading

    from conftest import sandbox_only

    limits = sandbox.Limits(wall=90, processes=processes)
    got: dict[str, sandbox.Result] = {}
    with Job.new() as hog, Job.new() as classmate:
        runner = threading.Thread(target=lambda: got.update(
            hog=_python(hog, sandbox_only(HOG), limits=limits)))
        runner.start()
        deadline = time.monotonic() + 60
        while not (hog.folder / "holding").exists() and runner.is_alive() \
                and time.monotonic() < deadline:
            time.sleep(0.1)
        try:
            assert (hog.folder / "holding").exists(), got  # the hog holds its threads now
            got["classmate"] = _python(classmate, CLASSMATE, limits=limits)
        finally:
            (hog.folder / "release").write_text("", "utf-8")
            runner.join()
    return got["hog"], got["classmate"]


def test_a_jobs_threads_do_not_starve_a_classmates_job(monkeypatch):
    """x37 route 3: RLIMIT_NPROC counts a real uid's processes and threads machine-wide, so
    each sandboxed command runs as a uid of its own (``sandbox.job_uid``)."""
    from contextlib import contextmanager

    if os.geteuid() != 0:
        pytest.fail("RLIMIT_NPROC is set for the sandbox's own uid only when the grader is root")
    hog, classmate = _beside_a_hog()
    assert b"HOSTILE hog holds" in hog.stdout, hog.stderr.decode()[-2000:]  # it fired
    assert classmate.returncode == 0, classmate.stderr.decode()[-2000:]
    assert b"classmate started 16 threads" in classmate.stdout

    @contextmanager
    def one_uid_for_all():  # the mistake x37 found: every job as the same user
        yield sandbox.UIDS[-1]

    monkeypatch.setattr(sandbox, "job_uid", one_uid_for_all)
    hog, classmate = _beside_a_hog()
    assert b"HOSTILE hog holds" in hog.stdout, hog.stderr.decode()[-2000:]
    assert classmate.returncode != 0 and b"classmate started" not in classmate.stdout
