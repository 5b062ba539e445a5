"""An operating-system sandbox around one command: learner code never runs as the instructor.

Instructor tooling (never ships). Everything that executes a submission's code (nbgrader's
execution of its notebooks, the scores-of-record worker, later the learner's own tests) runs
through :func:`run`, which wraps the command in bubblewrap (``bwrap``, the Debian package
``bubblewrap``; the sandbox Flatpak is built on): a maintained, small, setuid-free tool that
only sets up Linux namespaces, so it needs no daemon and no image, unlike a container engine.

What the command gets:

- its own mount namespace: the root is empty; the system's ``/usr`` (with ``/lib``, ``/bin``
  links), the Python environment (``sys.prefix``) and the base interpreter
  (``sys.base_prefix``) and any extra folder the caller names are bound READ-ONLY; one private
  folder (the job's copy) is bound read-write at ``/job``; ``/tmp`` is an empty tmpfs;
  nothing else of the file system exists there (not the repository, the course directory,
  the gradebook, other learners, the instructor's home);
- no network (its own network namespace: only a loopback, which a Jupyter kernel needs to talk
  to its client), its own PID, IPC and UTS namespaces, a new session (no terminal);
- another user: when the grader runs as root, the command is started as a uid of its own
  (:func:`job_uid`: one of :data:`UIDS` that no other sandboxed command on the machine holds
  meanwhile) with every capability dropped (``setpriv``). RLIMIT_NPROC counts the processes
  and threads of a real uid over the whole machine: with one shared uid (``nobody``) a job that
  holds its 2048 threads made a classmate's concurrent nbgrader fail (x37, route 3). Run as an
  ordinary user, bubblewrap's user namespace keeps it in the instructor's uid (a uid mapped in a
  user namespace still counts as that real uid) but inside the mount namespace above;
- bounded writable space: ``/tmp`` is a tmpfs of :data:`TMP_BYTES`; the private folder is a
  tmpfs of :data:`JOB_BYTES` mounted on the host by :func:`private_folder` when the grader is
  root (an ordinary user cannot mount: then only the file-size limit bounds it);
- limits: a wall-clock deadline (the whole process tree is killed: bubblewrap is PID 1 of
  the namespace and dies with its parent, and the kernel kills every process of a PID
  namespace when its first process ends), CPU seconds, file size, open files, processes
  and, optionally, a data-segment size (``RLIMIT_AS`` breaks OpenBLAS's and torch's imports,
  which reserve address space they never touch: see :data:`DATA_BYTES`).

If bubblewrap is missing or cannot create namespaces, :func:`check` raises
:class:`SandboxUnavailable` with the reason and the fix; nothing is ever run unsandboxed unless
the caller asks for it by name (``classrun autograde --unsafe-no-sandbox``).
"""

from __future__ import annotations

import fcntl
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

JOB = "/job"  # where the private folder is seen from inside the sandbox
NOBODY = 65534  # the uid of prepare()/command() called without one (run() takes a job_uid)
# The uids (and gids) sandboxed commands run as when the grader is root: one per command running
# at the same time on this machine (class runs, Dask workers and tests alike), held through a
# lock file in UID_LOCKS (root's). Not in /etc/passwd: no file of the machine belongs to them.
UIDS = range(1_700_000_000, 1_700_000_000 + 1024)
UID_LOCKS = Path("/run/minitorch-sandbox")
FIX = ("install bubblewrap (`make system-deps`, or `sudo apt-get install bubblewrap`) and "
       "allow unprivileged user namespaces (`sudo sysctl kernel.unprivileged_userns_clone=1`; "
       "on Ubuntu 24.04 also `sudo sysctl kernel.apparmor_restrict_unprivileged_userns=0`); "
       "in a container, run it with --privileged or --security-opt seccomp=unconfined. "
       "Grading without a sandbox runs every learner's code as you "
       "(`--unsafe-no-sandbox`, never for a real class)")
# Bytes of data segment (heap and private mappings) a sandboxed process may hold. RLIMIT_AS
# (address space) cannot be used: OpenBLAS and torch reserve gigabytes they never touch, and
# their imports fail under any useful RLIMIT_AS; RLIMIT_DATA counts what is actually mapped
# writable and private, so 6 GB lets torch import and stops a runaway allocation.
DATA_BYTES = 6 * 2**30
# Bytes a job may write in all: its private folder (``/job``) and its ``/tmp`` are size-capped
# file systems (tmpfs), so a job that fills them gets ENOSPC and the machine's disk is untouched.
# Measured (one honest learner, all 8 notebooks, `classrun autograde` with these caps: graded,
# exit 0): nbgrader's job left 3.1 MB in its folder, the learner's tests job 0.7 MB; the caps
# leave two orders of magnitude. RLIMIT_FSIZE (Limits.file_bytes) caps each file on top.
JOB_BYTES = 512 * 2**20
TMP_BYTES = 256 * 2**20


# One BLAS/OpenMP thread per sandboxed command: jobs run side by side (the parallel class run,
# minitorch_grading.parallel), one per core, and must not contend for the cores.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot run here: the message says why and how to fix it."""


@dataclass
class Limits:
    """What one sandboxed command may use (``None``: no limit of that kind)."""

    wall: float = 120.0  # seconds of wall time, then the whole tree is killed
    cpu: float | None = None  # CPU seconds of each process (RLIMIT_CPU)
    file_bytes: int = 256 * 2**20  # largest file it may write (RLIMIT_FSIZE)
    open_files: int = 1024  # RLIMIT_NOFILE
    processes: int | None = 2048  # RLIMIT_NPROC (threads count): the job's own uid, as root
    data_bytes: int | None = DATA_BYTES  # RLIMIT_DATA


@dataclass
class Result:
    """What a sandboxed command did: its exit status and output, never a verdict."""

    returncode: int
    stdout: bytes = b""
    stderr: bytes = b""
    seconds: float = 0.0
    timed_out: bool = False
    argv: list[str] = field(default_factory=list)
    cpu: float = 0.0  # CPU seconds of the command and every process it started (REAPER)


# Run OUTSIDE the sandbox, between the grader and bubblewrap: `python -I -S -c REAPER WALL ARGV`.
# bubblewrap's outer process exits as soon as the sandbox's PID 1 reports the command's status,
# without waiting for that PID 1, so the CPU time of everything inside (nbgrader, its kernels,
# a worker's forked runs) never reached the grader's getrusage(RUSAGE_CHILDREN): 0 s. The
# reaper is a child subreaper (prctl PR_SET_CHILD_SUBREAPER): the orphaned PID 1 comes to it and
# it reaps every process, so its own rusage, which the grader reads with wait4, holds them all.
# It also keeps the wall-clock limit (bubblewrap's process group killed, everything reaped, then
# the reaper kills itself with SIGKILL: -9), so a killed job's CPU time is counted as well.
REAPER = r"""
import ctypes, os, signal, sys
wall, argv = float(sys.argv[1]), sys.argv[2:]
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
pid = os.fork()
if pid == 0:
    try:
        os.setpgid(0, 0)
        for name in ("SIGPIPE", "SIGXFZ", "SIGXFSZ"):  # as subprocess's restore_signals
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), signal.SIG_DFL)
        os.execv(argv[0], argv)
    finally:
        os._exit(127)
try:
    os.setpgid(pid, pid)
except OSError:
    pass
def inside():
    # the live processes of bubblewrap's PID namespace but its PID 1 (bubblewrap's child)
    def stat(p):
        with open(f"/proc/{p}/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        return fields[0], int(fields[1])
    own = os.readlink("/proc/self/ns/pid")
    procs = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    found = []
    for p in procs:
        try:
            if stat(p)[1] == pid and os.readlink(f"/proc/{p}/ns/pid") != own:
                ns = os.readlink(f"/proc/{p}/ns/pid")
                for q in procs:
                    try:
                        if q not in (p, pid) and os.readlink(f"/proc/{q}/ns/pid") == ns \
                                and stat(q)[0] != b"Z":
                            found.append(q)
                    except OSError:
                        pass
        except OSError:
            pass
    return found
expired = []
def expire(*_):
    # first kill what runs INSIDE, so that the namespace's PID 1 reaps it as usual and its CPU
    # time is counted (what dies with PID 1 is reaped uncounted); 2 s later, bubblewrap itself
    expired.append(1)
    killed = False
    if len(expired) == 1:
        for _ in range(20):
            found = inside()
            for p in found:
                try:
                    os.kill(p, signal.SIGKILL)
                except OSError:
                    pass
            if not found:
                break
            killed = True
        if killed:
            signal.setitimer(signal.ITIMER_REAL, 2.0)
            return
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass
signal.signal(signal.SIGALRM, expire)
signal.setitimer(signal.ITIMER_REAL, wall)
status = None
while True:
    try:
        done, got = os.wait()
    except ChildProcessError:
        break
    if done == pid:
        status = got
signal.setitimer(signal.ITIMER_REAL, 0)
if expired or status is None:
    os.kill(os.getpid(), signal.SIGKILL)
code = os.waitstatus_to_exitcode(status)
if code < 0:
    signal.signal(-code, signal.SIG_DFL)
    os.kill(os.getpid(), -code)
sys.exit(code)
"""
GRACE = 10.0  # seconds past the wall limit before the grader kills the reaper itself


def execute(argv: list[str], *, limits: Limits, stdin: bytes | None = None,
            env: dict[str, str] | None = None, cwd: str | None = None,
            max_output: int = 64 * 2**20, shown: list[str] | None = None) -> Result:
    """Run ``argv`` under :data:`REAPER` with ``limits`` (rlimits, wall clock), its output in
    files: the exit status, output, wall time and CPU time of everything it started."""
    reaper = [sys.executable, "-I", "-S", "-c", REAPER, repr(float(limits.wall)), *argv]
    start = time.monotonic()
    with tempfile.TemporaryFile() as inp, tempfile.TemporaryFile() as out, \
            tempfile.TemporaryFile() as err:
        if stdin is not None:  # a file, not a pipe: nothing can block on writing it
            inp.write(stdin)
            inp.seek(0)
        proc = subprocess.Popen(reaper, stdin=inp if stdin is not None else subprocess.DEVNULL,
                                stdout=out, stderr=err, env=env, cwd=cwd,
                                start_new_session=True, preexec_fn=_limiter(limits))
        deadline, delay = start + limits.wall + GRACE, 0.002
        while True:
            done, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:  # the reaper itself hangs: never expected
                with _quiet():
                    os.killpg(proc.pid, signal.SIGKILL)
                done, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(delay)
            delay = min(2 * delay, 0.05)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = round(time.monotonic() - start, 2)
        results = []
        for stream in (out, err):
            stream.seek(0)
            results.append(stream.read(max_output))
    timed_out = proc.returncode == -signal.SIGKILL and seconds >= limits.wall
    return Result(proc.returncode, results[0], results[1], seconds, timed_out,
                  list(shown or argv), round(usage.ru_utime + usage.ru_stime, 2))


def bwrap() -> str | None:
    """The bubblewrap executable, or None."""
    return shutil.which("bwrap", path="/usr/bin:/bin:/usr/local/bin:" + os.environ.get("PATH", ""))


_CHECKED: list[str] = []


def check() -> None:
    """Raise :class:`SandboxUnavailable` (why, and how to fix it) unless a trivial command runs
    in the sandbox exactly as :func:`run` would start it."""
    if _CHECKED:
        return
    if bwrap() is None:
        raise SandboxUnavailable(f"bubblewrap (bwrap) is not installed: {FIX}")
    with tempfile.TemporaryDirectory(prefix="minitorch-sandbox-check-") as tmp:
        result = run(["/bin/sh", "-c", "id -u"], Path(tmp), limits=Limits(wall=30))
    if result.returncode != 0:
        why = result.stderr.decode("utf-8", "replace").strip()[-500:]
        raise SandboxUnavailable(f"bubblewrap cannot create its namespaces here ({why}): {FIX}")
    ran_as = result.stdout.strip().decode("ascii", "replace")
    if os.geteuid() == 0 and not (ran_as.isdigit() and int(ran_as) in UIDS):
        raise SandboxUnavailable(f"the sandbox did not switch to a uid of {UIDS} "
                                 f"(it ran as {ran_as!r}): {FIX}")
    _CHECKED.append("ok")


def python_roots() -> list[Path]:
    """The Python environment and its base interpreter (bound read-only at the same paths:
    the environment's ``python`` is a link to the base interpreter)."""
    roots = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent]
    return list(dict.fromkeys(p.resolve() for p in roots))


def private_folder(prefix: str = "minitorch-job-") -> Path:
    """A new, empty private folder for a job, outside the repository: a tmpfs of
    :data:`JOB_BYTES` when the grader is root (what the job writes cannot fill the machine's
    disk), a plain folder otherwise. :func:`release` removes it."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    if os.geteuid() == 0 and shutil.which("mount"):
        done = subprocess.run(["mount", "-t", "tmpfs", "-o",
                               f"size={JOB_BYTES},mode=0700,nodev,nosuid", "minitorch-job",
                               str(folder)], capture_output=True)
        if done.returncode != 0:
            raise SandboxUnavailable("cannot mount a size-limited tmpfs for the job at "
                                     f"{folder}: {done.stderr.decode(errors='replace')[-300:]}")
    return folder


def release(folder: Path) -> None:
    """Delete a :func:`private_folder` (unmounting its tmpfs), whatever the job left in it."""
    if os.path.ismount(folder):
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)
    shutil.rmtree(folder, ignore_errors=True)


def prepare(private: Path, uid: int = NOBODY) -> None:
    """Make ``private`` (the job's copy) writable by the command's user and nobody else (a
    job's next command may run as another uid: everything is handed over each time)."""
    if os.geteuid() != 0:
        return
    for here, dirs, files in os.walk(private):
        os.lchown(here, uid, uid)
        for name in dirs + files:
            os.lchown(os.path.join(here, name), uid, uid)
    os.chmod(private, 0o700)


def _running_as(uid: int) -> bool:
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and os.stat(f"/proc/{pid}").st_uid == uid:
                return True
        except OSError:  # it ended meanwhile
            continue
    return False


@contextmanager
def job_uid():
    """A uid of :data:`UIDS` for one sandboxed command: no other command holds it meanwhile
    (an flock on ``UID_LOCKS/<uid>``, which the kernel drops if this process dies) and no
    process runs as it. None unless the grader is root (then the user namespace's uid)."""
    if os.geteuid() != 0:
        yield None
        return
    UID_LOCKS.mkdir(mode=0o700, exist_ok=True)
    for uid in UIDS:
        fd = os.open(UID_LOCKS / str(uid), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        try:
            if _running_as(uid):  # a leftover, e.g. a zombie not yet reaped: not this one
                continue
            yield uid
            return
        finally:
            os.close(fd)
    raise SandboxUnavailable(f"every sandbox uid of {UIDS} is in use: too many jobs at once")


def command(argv: list[str], private: Path, read_only: list | None = None,
            env: dict[str, str] | None = None, cwd: str = JOB,
            hide: list[str] | None = None, uid: int = NOBODY) -> list[str]:
    """The bwrap command line for ``argv`` (see the module's docstring). ``read_only``: paths
    bound at the same place, or (source, destination) pairs (a destination inside ``/job``
    must exist in ``private``: it is mounted over). ``uid``: the user it runs as (root only)."""
    exe = bwrap()
    if exe is None:
        raise SandboxUnavailable(f"bubblewrap (bwrap) is not installed: {FIX}")
    args = [exe, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net",
            "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "grading",
            "--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev",
            "--perms", "1777", "--size", str(TMP_BYTES), "--tmpfs", "/tmp",
            "--perms", "0755", "--dir", "/etc"]
    for name in ("lib", "lib64", "bin", "sbin"):
        target = Path("/") / name
        if target.is_symlink():
            args += ["--symlink", os.readlink(target), str(target)]
        elif target.is_dir():
            args += ["--ro-bind", str(target), str(target)]
    for name in ("/etc/ld.so.cache", "/etc/localtime", "/etc/alternatives", "/etc/ssl",
                 "/etc/fonts", "/etc/passwd", "/etc/group"):
        if Path(name).exists():
            args += ["--ro-bind", name, name]
    binds = [(Path(r), Path(r)) if not isinstance(r, tuple) else (Path(r[0]), Path(r[1]))
             for r in read_only or []]
    made: set[Path] = {Path("/"), Path(JOB)}
    for dest in [*python_roots(), *(d for _, d in binds)]:
        # parents traversable by the sandbox's user (bwrap would make them 0700)
        for parent in reversed(dest.parents):
            if parent not in made and not parent.is_relative_to(JOB):
                made.add(parent)
                args += ["--perms", "0755", "--dir", str(parent)]
    for root in python_roots():
        args += ["--ro-bind", str(root), str(root)]
    for path in hide or []:  # e.g. the environment's site-packages: an empty folder
        args += ["--perms", "0755", "--tmpfs", str(path)]
    for src, dest in binds:  # after hide: NumPy inside a hidden site-packages
        if not dest.is_relative_to(JOB):
            args += ["--ro-bind", str(src), str(dest)]
    args += ["--bind", str(private), JOB]
    for src, dest in binds:  # inside the private folder: over its mount points
        if dest.is_relative_to(JOB):
            args += ["--ro-bind", str(src), str(dest)]
    args += ["--chdir", cwd, "--clearenv"]
    for key, value in (env or {}).items():
        args += ["--setenv", key, value]
    if os.geteuid() == 0:  # a real other user, not root in a user namespace
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--",
                 "/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                 "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]
    else:
        args += ["--unshare-user", "--"]
    return args + list(argv)


def _limiter(limits: Limits):
    def apply() -> None:
        def cap(kind: int, value: int) -> None:
            soft, hard = resource.getrlimit(kind)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(kind, (value, value))

        cap(resource.RLIMIT_CORE, 0)
        cap(resource.RLIMIT_FSIZE, limits.file_bytes)
        cap(resource.RLIMIT_NOFILE, limits.open_files)
        if limits.cpu is not None:
            cap(resource.RLIMIT_CPU, int(limits.cpu) + 1)
        if limits.data_bytes is not None:
            cap(resource.RLIMIT_DATA, limits.data_bytes)
        if limits.processes is not None and os.geteuid() == 0:  # per uid: the job's own
            cap(resource.RLIMIT_NPROC, limits.processes)
    return apply


def run(argv: list[str], private: Path, *, read_only: list | None = None,
        env: dict[str, str] | None = None, limits: Limits | None = None,
        stdin: bytes | None = None, cwd: str = JOB, hide: list[str] | None = None,
        max_output: int = 64 * 2**20) -> Result:
    """Run ``argv`` in the sandbox with ``private`` as its only writable folder (``/job``).

    ``env`` is the command's whole environment (``HOME`` and ``TMPDIR`` default to ``/job``).
    Output beyond ``max_output`` bytes is cut. Never raises for what the command does."""
    limits = limits or Limits()
    private = private.resolve()
    env = {"PATH": "/usr/bin:/bin", "HOME": JOB, "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           **ONE_THREAD, **(env or {})}
    with job_uid() as uid:
        prepare(private, uid or NOBODY)
        args = command(argv, private, read_only, env, cwd, hide, uid or NOBODY)
        return execute(args, limits=limits, stdin=stdin, max_output=max_output)


class _quiet:
    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb) -> bool:
        return kind is not None and issubclass(kind, ProcessLookupError | PermissionError)
