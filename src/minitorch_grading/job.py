"""One learner's isolated job: a snapshot of the submission, a private copy, a sandbox.

Instructor tooling (never ships). A class run takes each submission's :func:`snapshot` BEFORE
any of its code runs; everything that executes that code afterwards (nbgrader's execution of
the notebooks, the scores-of-record worker, the learner's own tests) runs through a
:class:`Job`: a private folder, copied from the snapshot, that the sandbox
(:mod:`minitorch_grading.sandbox`) sees as ``/job`` and may write, with nothing else of the
machine writable or even visible. What a job produced comes back only as files read with
:meth:`Job.read` (regular files, no links followed, size-capped) or as its output: data the
instructor's process validates; the job never touches the course directory or the gradebook.

    with Job.from_snapshot(snap, unsafe=False) as job:
        result = job.run([sys.executable, "-m", "pytest", f"{job.root}/tests"],
                         limits=sandbox.Limits(wall=60))
        text = job.read("report.json")

A learner's time is counted by part (:data:`PARTS`: nbgrader's execution, the scores of record,
the learner's tests) with a :class:`Meter`: the class run opens one per learner and each step
says which part it is (:func:`part`); :meth:`Job.run` adds each command's CPU time to the part
that runs it.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from minitorch_grading import sandbox

SNAPSHOT_BYTES = 64 * 2**20  # a submission is a few hundred kB; more is not graded
SNAPSHOT_FILES = 2000
SKIPPED = (".ipynb_checkpoints", "__pycache__", ".hypothesis", ".pytest_cache")


class SubmissionTooLarge(RuntimeError):
    """A submission folder beyond :data:`SNAPSHOT_BYTES` or :data:`SNAPSHOT_FILES`."""


def snapshot(submission: Path, dest: Path) -> list[str]:
    """Copy ``submission`` into ``dest`` (a new folder): regular files and folders only (a
    symbolic link, a device, a FIFO is left out and named in the returned list), caches
    skipped, within :data:`SNAPSHOT_BYTES` and :data:`SNAPSHOT_FILES`. Taken before any of
    the submission's code runs, it is what every later step grades."""
    left_out: list[str] = []
    total, count = 0, 0
    dest.mkdir(parents=True, exist_ok=False)
    os.chmod(dest, 0o700)
    for here, dirs, files in os.walk(submission, followlinks=False):
        rel = Path(here).relative_to(submission)
        keep = []
        for name in sorted(dirs):
            path = Path(here) / name
            if name in SKIPPED:
                continue
            if path.is_symlink():
                left_out.append(str(rel / name))
                continue
            keep.append(name)
            (dest / rel / name).mkdir()
        dirs[:] = keep
        for name in sorted(files):
            path = Path(here) / name
            info = path.lstat()
            if not stat.S_ISREG(info.st_mode):
                left_out.append(str(rel / name))
                continue
            if name.endswith(".pyc"):
                continue
            total += info.st_size
            count += 1
            if total > SNAPSHOT_BYTES or count > SNAPSHOT_FILES:
                raise SubmissionTooLarge(f"{submission} holds more than {SNAPSHOT_FILES} files "
                                         f"or {SNAPSHOT_BYTES // 2**20} MB")
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as src, open(dest / rel / name, "wb") as out:
                shutil.copyfileobj(src, out)
    return left_out


class Job:
    """A private folder (host path ``folder``, seen as ``root`` by the commands) and the
    sandbox its commands run in. ``unsafe``: no sandbox at all (``--unsafe-no-sandbox``)."""

    def __init__(self, folder: Path, unsafe: bool = False):
        self.folder = folder.resolve()
        self.unsafe = unsafe
        self.root = str(self.folder) if unsafe else sandbox.JOB

    @classmethod
    def new(cls, unsafe: bool = False) -> Job:
        """An empty private folder outside the repository and the course directory."""
        if not unsafe:
            sandbox.check()
        if unsafe:
            return cls(Path(tempfile.mkdtemp(prefix="minitorch-job-")), unsafe)
        return cls(sandbox.private_folder(), unsafe)  # size-capped: the disk cannot fill

    @classmethod
    def from_snapshot(cls, snap: Path, under: str = "", unsafe: bool = False) -> Job:
        """A job whose folder holds a copy of ``snap`` (at ``under`` inside it)."""
        job = cls.new(unsafe)
        shutil.copytree(snap, job.folder / under if under else job.folder,
                        dirs_exist_ok=True, symlinks=True)
        return job

    def path(self, rel: str) -> str:
        """``rel`` as the job's commands see it."""
        return f"{self.root}/{rel}" if rel else self.root

    def run(self, argv: list[str], *, env: dict[str, str] | None = None,
            limits: sandbox.Limits | None = None, stdin: bytes | None = None,
            cwd: str = "", read_only: list | None = None,
            hide: list[Path] | None = None) -> sandbox.Result:
        """``argv`` in the job's sandbox, its working directory ``cwd`` inside the folder."""
        limits = limits or sandbox.Limits()
        result = self._run(argv, env=env, limits=limits, stdin=stdin, cwd=cwd,
                           read_only=read_only, hide=hide)
        meter = _METER.get()
        if meter is not None:
            meter.commands(result.cpu)
        return result

    def _run(self, argv: list[str], *, env: dict[str, str] | None, limits: sandbox.Limits,
             stdin: bytes | None, cwd: str, read_only: list | None,
             hide: list[Path] | None) -> sandbox.Result:
        if not self.unsafe:
            return sandbox.run(argv, self.folder, read_only=read_only, env=env, limits=limits,
                               stdin=stdin, cwd=self.path(cwd), hide=[str(h) for h in hide or []])
        start, cpu = time.monotonic(), _children_cpu()
        env = {"PATH": "/usr/bin:/bin", "HOME": self.root, "LANG": "C.UTF-8",
               **sandbox.ONE_THREAD, **(env or {})}
        try:  # no reaper here: an orphaned kernel must see its parent die and exit
            proc = subprocess.run(argv, input=stdin, capture_output=True, env=env,
                                  cwd=self.path(cwd), timeout=limits.wall,
                                  start_new_session=True, preexec_fn=sandbox._limiter(limits))
            return sandbox.Result(proc.returncode, proc.stdout, proc.stderr,
                                  round(time.monotonic() - start, 2), False, argv,
                                  round(_children_cpu() - cpu, 2))
        except subprocess.TimeoutExpired as err:
            return sandbox.Result(-9, err.stdout or b"", err.stderr or b"",
                                  round(time.monotonic() - start, 2), True, argv,
                                  round(_children_cpu() - cpu, 2))

    def read(self, rel: str, max_bytes: int = 64 * 2**20) -> bytes | None:
        """The bytes of a regular file the job left at ``rel`` (None: absent, a link, a
        folder, too large). No link is followed on the way (each component is opened with
        ``O_NOFOLLOW`` under the previous one)."""
        fd = os.open(self.folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            parts = [p for p in rel.split("/") if p not in ("", ".")]
            if any(p == ".." for p in parts) or not parts:
                return None
            for part in parts[:-1]:
                nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                os.close(fd)
                fd = nxt
            leaf = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
        except OSError:
            os.close(fd)
            return None
        os.close(fd)
        with os.fdopen(leaf, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None
            data = fh.read(max_bytes + 1)
        return None if len(data) > max_bytes else data

    def listing(self, rel: str) -> list[str]:
        """Names of the regular files directly in ``rel`` (no links)."""
        folder = self.folder / rel
        if folder.is_symlink() or not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir() if not p.is_symlink() and p.is_file())

    def close(self) -> None:
        """Delete the folder (whatever the job left in it)."""
        sandbox.release(self.folder)

    def __enter__(self) -> Job:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def python() -> str:
    """The interpreter a job's Python commands run (this environment's)."""
    return sys.executable


def _children_cpu() -> float:
    """CPU seconds of this process's finished (waited for) children, and theirs."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# ---------------------------------------------------------------- a learner's time, by part
PARTS = ("nbgrader", "record", "tests")  # in the order a learner's job runs them


class Meter:
    """Wall and CPU seconds of one learner's job by part (:data:`PARTS`), each second counted
    once: a part opened inside another (the learner's tests inside the scores of record) is
    taken out of the outer one. CPU time is this thread's own (``time.thread_time``: the
    grader's work for the learner, e.g. the record's comparisons) and that of every command
    :meth:`Job.run` ran for it (``sandbox.Result.cpu``: nbgrader and its kernels, the record's
    worker, the tests' job, each measured from outside its sandbox, so jobs side by side in
    one process never mix). Used as ``with Meter() as meter:``; steps inside say their part
    with :func:`part`, wherever they are called from."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self._open: list[list] = []  # [name, wall at start, own CPU at start, inner wall, inner CPU]
        self._tokens: list[contextvars.Token] = []  # entered again by a step: still this meter

    def __enter__(self) -> Meter:
        self._tokens.append(_METER.set(self))
        return self

    def __exit__(self, *exc) -> None:
        _METER.reset(self._tokens.pop())

    @contextlib.contextmanager
    def part(self, name: str):
        frame = [name, time.monotonic(), time.thread_time(), 0.0, 0.0]
        self._open.append(frame)
        try:
            yield
        finally:
            self._open.pop()
            wall, own = time.monotonic() - frame[1], time.thread_time() - frame[2]
            self._add(name, wall - frame[3], own - frame[4])
            if self._open:  # the enclosing part does not count it again
                self._open[-1][3] += wall
                self._open[-1][4] += own

    def commands(self, cpu: float) -> None:
        """A command's CPU seconds, counted in the part that ran it."""
        if self._open:
            self._add(self._open[-1][0], 0.0, cpu)

    def _add(self, name: str, wall: float, cpu: float) -> None:
        self.wall[name] = self.wall.get(name, 0.0) + wall
        self.cpu[name] = self.cpu.get(name, 0.0) + cpu

    def rounded(self) -> tuple[dict[str, float], dict[str, float]]:
        """(wall, CPU) seconds by part, to 0.1 s, in :data:`PARTS` order."""
        order = [p for p in PARTS if p in self.wall] + [p for p in self.wall if p not in PARTS]
        return ({p: round(self.wall[p], 1) for p in order},
                {p: round(self.cpu[p], 1) for p in order})


_METER: contextvars.ContextVar[Meter | None] = contextvars.ContextVar("minitorch_meter",
                                                                     default=None)


@contextlib.contextmanager
def part(name: str):
    """Count what runs inside as part ``name`` of this thread's :class:`Meter` (without one,
    e.g. ``python -m minitorch_grading.record``, nothing is counted)."""
    meter = _METER.get()
    if meter is None:
        yield
        return
    with meter.part(name):
        yield
