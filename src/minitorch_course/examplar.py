"""The learner's own tests, graded by the mistakes they catch (Brown's Examplar: wheats and chaffs).

A learner writes pytest files in ``my_tests/`` (``LAB_FILES``: the chapter's names, per lab). A
test counts only if it passes on every WHEAT (a correct implementation); the tests that count
then earn credit for the CHAFFS (wrong implementations, each labelled with the kind of test it
takes to catch it: ``TEST_KINDS``) they make fail. A test that fails on a wheat is named and
dropped, not its file. Credit is per kind (the fraction of its chaffs caught), so many chaffs of
one kind cannot dominate.

    grade(folder, impls)        the seam: a test folder + an ImplSet -> {lab: LabGrade}

Every implementation runs in its own process, forked after the imports (torch, Hypothesis,
pytest), with Hypothesis derandomised, its own copy of the tests in its own working folder,
and a time limit. The
implementation is loaded from text with no file behind it, and the wheats differ in form from
each other and from the public reference, so a test that recognises an implementation (its
source, bytecode, file or hash) instead of testing behaviour fails on some wheat and is dropped;
a test file that reaches for those means at all (``inspect``, ``__code__``, ``hashlib``,
``time``...) is flagged and earns nothing (``suspicious``).

Where the implementations come from is the caller's choice: ``minitorch_course.faults`` builds a
set from the learner's own tensor.py (what a class release can ship), the course repository's
``solutions/examplar_set.py`` holds wheats and chaffs derived from the reference (self-study and
the score of record; never shipped), and ``MINITORCH_CHAFFS`` may name an instructor's private
file of the same form (the score of record's set, kept outside the repository).
"""

from __future__ import annotations

import ast
import gc
import hashlib
import json
import math
import os
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from minitorch_course.catalog import LABS
from minitorch_course.i18n import _, t

FOLDER = "my_tests"  # the learner's test folder (the course's own tests live in tests/)
COMMAND = "python -m pytest my_tests"  # how the learner runs them (the documented command)
LAB_FILES: dict[str, tuple[str, ...]] = {  # the labs of catalog.MY_TESTS_CELLS
    "00-tensor-skeleton": ("test_tensor_skeleton.py",),
    "01-elementwise-ops": ("test_elementwise.py", "test_broadcast_reverse.py"),
    "02-reductions-and-shapes": ("test_reductions.py", "test_shape_ops.py"),
    "03-matmul-softmax-ce": ("test_matmul.py", "test_softmax.py", "test_cross_entropy.py",
                             "test_grammar_gradient.py"),
    "04-gradcheck-and-properties": ("test_properties.py", "test_gradcheck.py"),
}
ALL_FILES: tuple[str, ...] = tuple(f for files in LAB_FILES.values() for f in files)
TIMEOUT = 60.0  # seconds of CPU time for one implementation's run of one lab's tests (CPU,
#                 not wall: on a loaded machine a run waits for a core without spending any)
WALL_FACTOR = 5  # a run that spends no CPU (a test blocked on a read) is stopped after
#                  WALL_FACTOR x TIMEOUT seconds of wall time
CHILD_CLOSES: list[int] = []  # file descriptors a forked run closes before any test runs (the
#                               score of record's answer pipe: no test may write into it)
MAX_EXAMPLES = 20  # Hypothesis examples per property while grading (derandomised)
# Each run in namespaces of its own (set by the score of record's job, minitorch_course.tests_job):
# a fresh private /tmp and the job's folder read-only, so no run can leave a mark another run
# reads (a test could otherwise count the runs before it and tell a chaff run from a wheat's)
ISOLATE = False


def N_(msgid: str) -> str:  # noqa: N802 (gettext's name): marks a table string for make messages
    return msgid


LAB_TITLES = LABS  # catalog.LABS: the one list of labs and their titles

# What a test suite must do to catch each kind of chaff: the label, and the sentence a learner
# reads when their tests let that kind through (never the wrong code itself).
TEST_KINDS: dict[str, tuple[str, str]] = {
    "upstream": (N_("non-uniform upstream gradient"), N_(
        "No test seeds backward with a non-uniform upstream gradient: with .sum().backward() "
        "(all ones) a backward that ignores or mishandles g still passes. Use a random g: "
        "y.backward(g), and compare with torch."),),
    "local-derivative": (N_("derivative formula"), N_(
        "No test compares each op's gradient with torch or with gradcheck: a wrong derivative "
        "(a sign, a missing factor or square) went through."),),
    "every-input": (N_("every input's gradient"), N_(
        "Your tests check the gradient of the first operand only: check the second one (b in "
        "a * b, a / b) too."),),
    "kink": (N_("kinks"), N_(
        "No test evaluates an op at its kink (relu at exactly 0, where torch's gradient is 0)."),),
    "broadcast-leading": (N_("broadcasting along a leading axis"), N_(
        "Your broadcasting tests never broadcast along a leading axis: pair (3,) with (4, 3), "
        "or (5,) with (2, 3, 5), and check grad.shape == data.shape after backward."),),
    "broadcast-inner": (N_("broadcasting along an inner size-1 axis"), N_(
        "Your broadcasting tests never broadcast along an inner size-1 axis: pair (4, 1) with "
        "(4, 3), or (2, 1, 5) with (2, 3, 5)."),),
    "axis": (N_("reductions along one axis"), N_(
        "No test reduces along one axis (axis=0, axis=-1, keepdims=False and True) and checks "
        "the gradient: reducing everything hides a lost or wrong axis."),),
    "ties": (N_("tied maxima"), N_(
        "No test takes the max of an input with tied maxima (torch splits the gradient evenly "
        "between them)."),),
    "repeated-indices": (N_("repeated indices"), N_(
        "No test indexes the same element twice (x[[0, 0, 2]]): its gradient must add up."),),
    "grad-shape": (N_("gradient shapes"), N_(
        "No test checks grad.shape == data.shape after backward for a shape op (reshape "
        "between different shapes)."),),
    "permutation": (N_("non-trivial permutations"), N_(
        "No test transposes with a permutation that is not its own inverse, such as (1, 2, "
        "0) on three axes."),),
    "uneven-pieces": (N_("pieces of different sizes"), N_(
        "No test concatenates pieces of different sizes ((2, 5) with (3, 5)) and checks each "
        "input's gradient: with pieces of equal size, a backward that cuts g at the wrong "
        "places still passes."),),
    "non-square": (N_("non-square matrices"), N_(
        "No matmul test uses non-square matrices with a random upstream gradient: (4, 5) @ "
        "(5, 3) tells a missing transpose apart."),),
    "batch-axes": (N_("batched matmul"), N_(
        "No matmul test has batch axes ((2, 4, 5) @ (5, 3)): transposing with .T reverses "
        "them too."),),
    "edge-values": (N_("extreme values"), N_(
        "No test feeds large logits (±1e4) to softmax or cross-entropy: the result must stay "
        "finite."),),
    "batch": (N_("a batch of several rows"), N_(
        "No cross-entropy test uses a batch of several rows and compares the gradient: the "
        "mean over the batch divides it by N."),),
    "paths": (N_("a node reached along two paths"), N_(
        "A node reached along two paths needs both cases tested: y = x * x (both gradients "
        "add up in x), and an intermediate node used by two different later nodes (h = x * 3; "
        "y = h * 2 + h * 5: h must collect both gradients before passing them on)."),),
    "accumulate-calls": (N_("backward called twice"), N_(
        "No test calls backward twice on new graphs without zero_grad: a leaf's .grad must "
        "accumulate."),),
    "deep-graph": (N_("a deep graph"), N_(
        "No test runs backward through a long chain (10,000 ops or more): a recursive "
        "topological sort overflows Python's stack."),),
    "freed-graph": (N_("the graph freed after backward"), N_(
        "No test checks that a second backward through the same graph fails unless "
        "retain_graph=True."),),
    "constants": (N_("constant operands"), N_(
        "No test mixes in a constant operand (a tensor with requires_grad=False): it must "
        "keep .grad None."),),
}


def kind_label(kind: str) -> str:
    return _(TEST_KINDS[kind][0])


def kind_missed(kind: str) -> str:
    return _(TEST_KINDS[kind][1])


# ---------------------------------------------------------------- implementations
@dataclass(frozen=True)
class Impl:
    """One implementation the tests run against: a tensor.py text (``source``) or file
    (``path``), with ``faults`` (minitorch_course.faults ids) injected at its op boundary."""

    name: str  # shown to maintainers only, never to a learner
    role: str  # "wheat" | "chaff"
    kind: str = ""  # chaffs: a TEST_KINDS key
    labs: tuple[str, ...] = ()  # chaffs: the labs whose tests should catch it
    source: str | None = None
    path: str | None = None
    faults: tuple[str, ...] = ()

    def text(self) -> str:
        if self.source is not None:
            return self.source
        return Path(self.path).read_text(encoding="utf-8")


@dataclass
class ImplSet:
    """Wheats and chaffs; ``chaffs_for(lab)`` are the chaffs a lab's tests are graded by."""

    name: str
    wheats: list[Impl]
    chaffs: list[Impl]

    def chaffs_for(self, lab: str) -> list[Impl]:
        return [c for c in self.chaffs if lab in c.labs]

    def kinds_for(self, lab: str) -> list[str]:
        return sorted({c.kind for c in self.chaffs_for(lab)}, key=list(TEST_KINDS).index)

    def digest(self) -> str:
        h = hashlib.sha256()
        for impl in self.wheats + self.chaffs:
            h.update(repr((impl.name, impl.role, impl.kind, impl.labs, impl.faults)).encode())
            h.update(impl.text().encode())
        return h.hexdigest()


# ---------------------------------------------------------------- suspicious tests
# What a test needs to recognise an implementation instead of testing it.
SUSPICIOUS_NAMES = frozenset({
    "inspect", "getsource", "getsourcelines", "getfile", "findsource", "dis", "marshal",
    "hashlib", "zlib", "linecache", "__code__", "co_code", "co_consts", "co_names",
    "__file__", "TENSOR_FILE", "IMPLEMENTATION", "__globals__", "__closure__", "time",
    "perf_counter", "monotonic", "process_time", "environ", "getenv", "_getframe", "gc",
    "tracemalloc", "resource",
})


def suspicious(path: Path) -> list[str]:
    """The fingerprinting means a test file reaches for (names, attributes, imports), sorted."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return []
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in SUSPICIOUS_NAMES - {"__file__"}:
            found.add(node.id)  # a test's own __file__ (a data file beside it) is fine
        elif isinstance(node, ast.Attribute) and node.attr in SUSPICIOUS_NAMES:
            found.add(node.attr)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            found.update(n.split(".")[0] for n in names if n.split(".")[0] in SUSPICIOUS_NAMES)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value in SUSPICIOUS_NAMES:  # getattr(f, "__code__")
            found.add(node.value)
    return sorted(found)


# ---------------------------------------------------------------- running one implementation
@dataclass
class Run:
    """What one implementation made of the tests: node id -> passed / failed / error / skipped."""

    impl: Impl
    outcomes: dict[str, str]
    problem: str = ""  # timeout, crash, collection error
    seconds: float = 0.0

    def passed(self, nodeid: str) -> bool:
        return self.outcomes.get(nodeid) == "passed"


_PRELOADED = False


def preload() -> None:
    """Import what every run needs once, before forking (about 1 s saved per run)."""
    global _PRELOADED
    if _PRELOADED:
        return
    import importlib

    import hypothesis  # noqa: F401
    import hypothesis.extra.numpy  # noqa: F401
    import numpy  # noqa: F401
    import pytest  # noqa: F401
    from _pytest.config import default_plugins

    for name in default_plugins:  # pytest.main imports them at each start
        try:
            importlib.import_module(f"_pytest.{name}")
        except ImportError:
            pass

    import minitorch  # noqa: F401
    import minitorch.gradcheck  # noqa: F401
    # what a run would otherwise import afresh each time (measured: 0.5 of its 3.5 s)
    for name in ("numpy.testing", "numpy.random", "pdb", "faulthandler", "secrets",
                 "torch.fx.experimental.symbolic_shapes"):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    try:
        import torch
    except ImportError:  # a learner's test that needs torch then fails on every wheat
        torch = None
    if torch is not None:  # torch imports much lazily (sympy...) at the first autograd call
        x = torch.ones((2, 3), dtype=torch.float64, requires_grad=True)
        y = torch.nn.functional.gelu(x).softmax(-1).log_softmax(0) @ torch.ones(3, 2,
                                                                             dtype=torch.float64)
        loss = torch.nn.functional.cross_entropy(y, torch.tensor([0, 1])) + x.amax(dim=1).sum()
        loss.backward()
        (x.sum_to_size(1, 3) * x.tanh().sigmoid().exp().log()).sum().backward()
    gc.collect()
    gc.freeze()  # the forked runs' collections then skip the preloaded heap (torch's)
    _PRELOADED = True


UNWRITTEN = "unwritten:"  # a run's status for a test that met an op raising NotImplementedError


def _unwritten_op(report) -> str | None:
    """The op a failed test met unwritten: the NotImplementedError raised inside the
    implementation under test (its code is compiled as "tensor.py"), e.g. the stub's
    "Tensor.sum: aún sin escribir / not written yet (...)" -> "Tensor.sum"; None otherwise (a
    NotImplementedError the test raised itself is a failure like any other)."""
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    message = str(getattr(crash, "message", ""))
    if not message.startswith("NotImplementedError") \
            or os.path.basename(str(getattr(crash, "path", ""))) != "tensor.py":
        return None
    detail = message.removeprefix("NotImplementedError").lstrip(": ").strip()
    return detail.split(":", 1)[0].strip()[:80]


class _Collector:
    """A pytest plugin recording each test's outcome (setup and teardown errors count), each
    one also appended to ``stream`` as it happens: a run killed at its time limit still tells
    which tests finished."""

    def __init__(self, stream=None) -> None:
        self.outcomes: dict[str, str] = {}
        self.errors: list[str] = []
        self.stream = stream

    def pytest_runtest_logreport(self, report) -> None:
        if report.when == "call" or report.outcome != "passed":
            if report.failed:
                status = "failed" if report.when == "call" else "error"
                op = _unwritten_op(report)
                if op is not None:
                    status = UNWRITTEN + op
            else:
                status = report.outcome
            if self.outcomes.get(report.nodeid) in (None, "passed"):
                self.outcomes[report.nodeid] = status
                if self.stream is not None:
                    self.stream.write(json.dumps([report.nodeid, status]) + "\n")
                    self.stream.flush()

    def pytest_runtest_logstart(self, nodeid, location) -> None:
        if self.stream is not None:  # a test still "running" when the run is killed hung
            self.stream.write(json.dumps([nodeid, "running"]) + "\n")
            self.stream.flush()

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.errors.append(report.nodeid or "collection")


def _load_module(impl: Impl):
    """The implementation as a module with no file or source behind it (see the module doc)."""
    from types import ModuleType

    module = ModuleType("minitorch.tensor")
    module.__file__ = "tensor.py"
    sys.modules["minitorch.tensor"] = module  # dataclasses and typing look their module up
    exec(compile(impl.text(), "tensor.py", "exec"), module.__dict__)
    if impl.faults:
        from minitorch_course import faults

        faults.inject(module, impl.faults)
    return module


def _isolate() -> str:
    """In a forked run, before any test: a user and mount namespace of its own, a fresh
    private tmpfs on /tmp and every other mount read-only (the job's folder included).
    Returns "" or why it could not (the run then goes on, shared /tmp and all)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.getuid(), os.getgid()
    if libc.unshare(0x10000000 | 0x00020000) != 0:  # CLONE_NEWUSER | CLONE_NEWNS
        return f"unshare: errno {ctypes.get_errno()}"
    # the score of record's job is not dumpable (its answer pipe); /proc/self/uid_map is then
    # root's: dumpable for the microseconds of the three writes, before any test is loaded
    dumpable = libc.prctl(3, 0, 0, 0, 0)  # PR_GET_DUMPABLE
    libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                           ("gid_map", f"{gid} {gid} 1")):
            with open(f"/proc/self/{name}", "w", encoding="ascii") as fh:
                fh.write(text)
    except OSError as err:
        return f"id maps: {err}"
    finally:
        libc.prctl(4, max(dumpable, 0), 0, 0, 0)
    ms_rdonly, ms_remount, ms_bind, ms_rec, ms_private = 1, 32, 4096, 16384, 1 << 18
    libc.mount(None, b"/", None, ms_rec | ms_private, None)  # nothing propagates out
    with open("/proc/self/mounts", encoding="utf-8") as fh:
        points = [line.split()[1] for line in fh]
    for point in points:  # best effort: /proc and the like may refuse
        if point != "/tmp" and not point.startswith("/proc"):
            try:  # the flags a remount must keep (nosuid, nodev, noexec, atime: locked)
                have = os.statvfs(point).f_flag
            except OSError:
                continue
            keep = (have & (2 | 4 | 8 | 1024 | 2048)) | (1 << 21 if have & 4096 else 0)
            libc.mount(None, point.encode(), None, ms_remount | ms_bind | ms_rdonly | keep,
                       None)
    # what this process runs from and lies under /tmp (an environment or a checkout there: a
    # fresh clone in /tmp) stays visible through the new tmpfs, read-only, reached by fd
    kept = [(path, os.open(path, os.O_PATH | os.O_DIRECTORY)) for path in _under_tmp()]
    if libc.mount(b"tmpfs", b"/tmp", b"tmpfs", 0, b"size=64m,mode=0700") != 0:
        return f"mount /tmp: errno {ctypes.get_errno()}"
    for path, fd in kept:
        os.makedirs(path, exist_ok=True)
        source = f"/proc/self/fd/{fd}".encode()
        if libc.mount(source, path.encode(), None, ms_bind | ms_rec, None) != 0:
            return f"keep {path} under /tmp: errno {ctypes.get_errno()}"
        os.close(fd)
        have = os.statvfs(path).f_flag  # read-only already (the loop above); make sure
        keep = (have & (2 | 4 | 8 | 1024 | 2048)) | (1 << 21 if have & 4096 else 0)
        libc.mount(None, path.encode(), None, ms_remount | ms_bind | ms_rdonly | keep, None)
    return ""


def _under_tmp() -> list[str]:
    """The folders under /tmp this process needs after its /tmp is replaced: its Python
    environment, its base interpreter and every folder on sys.path (outermost only)."""
    found = [os.path.realpath(p) for p in (sys.prefix, sys.base_prefix,
                                           os.path.dirname(os.path.realpath(sys.executable)),
                                           *sys.path) if p and os.path.isdir(p)]
    found = sorted({p for p in found if p.startswith("/tmp/")})
    return [p for p in found if not any(p.startswith(q + "/") for q in found if q != p)]


def _scrub() -> None:
    """Forget, in this forked run's memory, which implementation is what: every Impl's name,
    role, kind, labs and source, every set's lists and every dict that names a role (the
    job's description), so a test reaching into the process (frames, objects) finds nothing
    that tells a chaff run from a wheat's."""
    gc.unfreeze()  # preload froze the parent's objects: get_objects would not list them
    for obj in gc.get_objects():
        if isinstance(obj, Impl):
            for name, blank in (("name", ""), ("role", ""), ("kind", ""), ("labs", ()),
                                ("source", ""), ("path", None), ("faults", ())):
                object.__setattr__(obj, name, blank)
        elif isinstance(obj, ImplSet):
            obj.name = ""
            obj.wheats.clear()
            obj.chaffs.clear()
        elif isinstance(obj, dict) and "role" in obj:
            obj.clear()
    gc.freeze()  # as preload left it: collections skip the preloaded heap


def _shadowing_modules(folder: str) -> list[str]:
    """The modules in ``sys.modules`` under a name pytest gives a test file of ``folder``.

    pytest's importlib mode returns a module already imported under the name it computes for a
    test file (its stem, or its dotted path in a package) instead of importing the file. A
    grading process that holds another ``test_gradcheck`` (an xdist worker collects the
    course's tests/minitorch/test_gradcheck.py; a kernel that imported one) would then run
    THAT module's tests against every implementation, never the learner's."""
    base = Path(folder).parent
    names: set[str] = set()
    for path in Path(folder).rglob("*.py"):
        if not (path.name.startswith("test_") or path.name in ("conftest.py", "__init__.py")):
            continue
        parts = path.relative_to(base).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.update(".".join(parts[i:]) for i in range(len(parts)))
    return sorted(name for name in names if name in sys.modules)


def _child(impl: Impl, args: list[str], rootdir: str, out: str, max_examples: int,
           workdir: str) -> None:
    """In the forked process: copy the tests to ``workdir`` (a run cannot leave anything for
    the next one in the test folder), load ``impl`` as minitorch.tensor, run pytest there, and
    write the outcomes as JSON to ``out``. Every run gets the same arguments; with
    :data:`ISOLATE`, its own /tmp (``workdir`` is then ``/tmp/run``) and a read-only job."""
    import shutil

    result: dict = {"outcomes": {}, "problem": ""}
    answer = open(out, "w", encoding="utf-8")  # noqa: SIM115 - both opened before
    partial = open(out + ".partial", "w", encoding="utf-8")  # noqa: SIM115 - /tmp is replaced
    try:
        if ISOLATE:
            why = _isolate()
            if why:
                result["problem"] = f"not isolated: {why}"
            workdir = "/tmp/run"
            os.makedirs(workdir, exist_ok=True)
        copy = os.path.join(workdir, "tests")
        shutil.copytree(rootdir, copy, ignore=shutil.ignore_patterns(
            "__pycache__", ".hypothesis", ".pytest_cache", "*.bak*", ".*"))
    except BaseException as err:  # noqa: BLE001 (the child reports whatever happened)
        result["problem"] = (f"set-up: {type(err).__name__}: {err} "
                             f"{result['problem']}")[:500]
        with answer:
            json.dump(result, answer)
        return
    args = [copy + a[len(rootdir):] if a.startswith(rootdir) else a for a in args]
    rootdir = copy
    os.chdir(workdir)
    os.environ["TMPDIR"] = tempfile.tempdir = workdir
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    # the caller's sys.stdout may be a capture of its own (pytest's): never write into it
    sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        from hypothesis import HealthCheck, settings

        settings.register_profile("examplar", derandomize=True, database=None, deadline=None,
                                  max_examples=max_examples, print_blob=False,
                                  suppress_health_check=list(HealthCheck))
        settings.load_profile("examplar")
        from minitorch_course.strategies import pin_local_constants

        pin_local_constants()  # the same draws for every implementation (each is a module)
        try:
            import torch

            torch.set_num_threads(1)
        except ImportError:
            pass
        import pytest

        from minitorch_course import runner

        for name in _shadowing_modules(copy):  # the learner's files, not another module
            del sys.modules[name]
        module = _load_module(impl)
        del impl
        _scrub()
        collector = _Collector(partial)
        with runner.using(module):
            pytest.main([*args, "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                         "-p", "no:unraisableexception", "-p", "no:threadexception",
                         "-p", "no:logging", "-p", "no:faulthandler", "-p", "no:warnings",
                         "--import-mode=importlib", "--rootdir", rootdir, "-c", os.devnull,
                         "-o", "python_files=test_*.py", "--no-header", "--assert=plain"],
                        plugins=[collector])
        result["outcomes"] = collector.outcomes
        if collector.errors:
            result["problem"] = "collection error: " + ", ".join(collector.errors)
    except BaseException as err:  # noqa: BLE001 (the child reports whatever happened)
        result["problem"] = f"{type(err).__name__}: {err}"[:500]
    with answer:
        json.dump(result, answer)


def _answer(path: str) -> dict | None:
    """A finished run's answer, or None (a run that died before writing it whole)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        return data if isinstance(data, dict) and "outcomes" in data else None
    except (OSError, ValueError):
        return None


def _partial(path: str) -> dict[str, str]:
    """The outcomes a killed or crashed run had written; the test it was in counts as failed
    (it is not in the file)."""
    outcomes: dict[str, str] = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    nodeid, status = json.loads(line)
                except ValueError:
                    break  # a line cut off by the kill
                if outcomes.get(nodeid) in (None, "running", "passed"):
                    outcomes[nodeid] = status
    except OSError:
        pass
    return {n: "timeout" if s == "running" else s for n, s in outcomes.items()}


def _limit_cpu(seconds: float) -> None:
    """In a forked run: SIGXCPU after ``seconds`` of CPU time (SIGKILL two seconds later), and
    no core file when it comes."""
    import resource

    soft, hard = max(1, math.ceil(seconds)), seconds + 2
    _, ceiling = resource.getrlimit(resource.RLIMIT_CPU)  # a sandbox's own limit stays
    if ceiling != resource.RLIM_INFINITY:
        soft, hard = min(soft, ceiling), min(soft + 2, ceiling)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CPU, (soft, math.ceil(hard)))


def run_many(impls: Sequence[Impl], args: list[str], rootdir: Path, *,
             timeout: float = TIMEOUT, jobs: int | None = None,
             max_examples: int = MAX_EXAMPLES) -> list[Run]:
    """Run the tests ``args`` (paths or node ids) against each implementation, each in its own
    forked process, ``jobs`` at a time, each stopped after ``timeout`` seconds of CPU time
    (``WALL_FACTOR`` times that of wall time if it spends none)."""
    preload()
    jobs = jobs or max(1, min(len(os.sched_getaffinity(0)), 4))
    runs: dict[int, Run] = {}
    queue = list(enumerate(impls))
    active: dict[int, tuple[int, float, str]] = {}  # pid -> (index, start, output file)
    with tempfile.TemporaryDirectory(prefix="examplar-") as tmp:
        while queue or active:
            while queue and len(active) < jobs:
                index, impl = queue.pop(0)
                out = os.path.join(tmp, f"{index}.json")
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:  # the child never returns into the caller's code
                    try:
                        for fd in CHILD_CLOSES:
                            os.close(fd)
                        _limit_cpu(timeout)
                        workdir = tempfile.mkdtemp(dir=tmp)
                        _child(impl, args, str(rootdir), out, max_examples, workdir)
                    finally:
                        os._exit(0)
                active[pid] = (index, time.monotonic(), out)
            time.sleep(0.01)
            for pid, (index, start, out) in list(active.items()):
                done, status, usage = os.wait4(pid, os.WNOHANG)
                elapsed = time.monotonic() - start
                if done == 0 and elapsed < timeout * WALL_FACTOR:
                    continue
                if done == 0:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    runs[index] = Run(impls[index], _partial(out + ".partial"),
                                      f"timeout after {elapsed:.0f} s of wall time", elapsed)
                elif os.WIFSIGNALED(status) and (
                        os.WTERMSIG(status) == signal.SIGXCPU or os.WTERMSIG(status)
                        == signal.SIGKILL and usage.ru_utime + usage.ru_stime >= timeout):
                    runs[index] = Run(impls[index], _partial(out + ".partial"),
                                      f"timeout after {timeout:.0f} s of CPU time", elapsed)
                elif (data := _answer(out)) is not None:
                    runs[index] = Run(impls[index], data["outcomes"], data["problem"], elapsed)
                else:
                    runs[index] = Run(impls[index], _partial(out + ".partial"),
                                      f"crashed (status {status})", elapsed)
                del active[pid]
    return [runs[i] for i in range(len(impls))]


# ---------------------------------------------------------------- grading
@dataclass
class LabGrade:
    """A lab's tests graded: which count, which were dropped or flagged, the kinds caught."""

    lab: str
    files: list[str]
    tests: list[str] = field(default_factory=list)  # every test collected on the wheats
    valid: list[str] = field(default_factory=list)  # pass on every wheat, not flagged
    dropped: dict[str, str] = field(default_factory=dict)  # test -> the wheat it failed on
    unwritten: dict[str, str] = field(default_factory=dict)  # dropped test -> the op it met
    #                                          not written yet (NotImplementedError), "" unnamed
    flagged: dict[str, list[str]] = field(default_factory=dict)  # file -> suspicious means
    kinds: dict[str, list[int]] = field(default_factory=dict)  # kind -> [caught, chaffs]
    problems: list[str] = field(default_factory=list)  # maintainers' notes (timeouts...)
    ended: str = ""  # how a run on a correct implementation died ("" if none did): then a
    #                  chaff's run dying proves nothing and catches nothing by itself
    seconds: float = 0.0

    @property
    def caught(self) -> list[str]:
        return [k for k, (c, n) in self.kinds.items() if n and c == n]

    @property
    def missed(self) -> list[str]:
        return [k for k, (c, n) in self.kinds.items() if c < n]

    @property
    def score(self) -> float:
        """The mean over kinds of the fraction of its chaffs caught, in [0, 1]."""
        if not self.kinds:
            return 0.0
        return sum(c / n for c, n in self.kinds.values() if n) / len(self.kinds)

    def to_dict(self) -> dict:
        return {k: getattr(self, k) for k in ("lab", "files", "tests", "valid", "dropped",
                                              "unwritten", "flagged", "kinds", "problems",
                                              "ended", "seconds")}

    @classmethod
    def from_dict(cls, data: dict) -> LabGrade:
        return cls(**data)


def has_tests(path: Path) -> bool:
    """Whether a test file defines any test function or class (pytest's default names)."""
    try:
        return has_tests_text(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, OSError):
        return True


def has_tests_text(text: str) -> bool:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return True  # let pytest report it: its tests fail on every wheat
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
               and n.name.lower().startswith("test") for n in ast.walk(tree))


def lab_files(folder: Path, lab: str) -> list[Path]:
    """The lab's test files present in ``folder``."""
    return [folder / name for name in LAB_FILES[lab] if (folder / name).is_file()]


def grade_lab(folder: Path, lab: str, impls: ImplSet, **options) -> LabGrade:
    """One lab's test files against the wheats, then the tests that count against its chaffs."""
    start = time.perf_counter()
    folder = Path(folder).resolve()
    files = lab_files(folder, lab)
    kinds = impls.kinds_for(lab)
    grade = LabGrade(lab, [f.name for f in files], kinds={k: [0, 0] for k in kinds})
    chaffs = impls.chaffs_for(lab)
    for chaff in chaffs:
        grade.kinds[chaff.kind][1] += 1
    if not files:
        return grade
    for path in files:
        means = suspicious(path)
        if means:
            grade.flagged[path.name] = means
    runnable = [f for f in files if f.name not in grade.flagged and has_tests(f)]
    if not runnable:  # nothing that could count: no process started
        grade.seconds = round(time.perf_counter() - start, 2)
        return grade
    # every implementation, wheats and chaffs, in ONE call, in an order drawn from the OS's
    # random source (no seed a test could read from memory and replay), on the same arguments
    # (the files): nothing tells a run which kind it is; the verdicts are taken afterwards
    import random

    order = [*impls.wheats, *chaffs]
    random.SystemRandom().shuffle(order)
    runs = run_many(order, [str(f) for f in runnable], folder, **options)
    by_impl = {id(run.impl): run for run in runs}
    wheat_runs = [by_impl[id(w)] for w in impls.wheats]
    tests = sorted(wheat_runs[0].outcomes)
    grade.tests = tests
    for run in wheat_runs:
        if run.problem:
            grade.problems.append(f"{run.impl.name}: {run.problem}")
            if _died(run):
                grade.ended = grade.ended or run.problem
    for nodeid in tests:
        failing = next((r for r in wheat_runs if not r.passed(nodeid)), None)
        if failing is not None:
            grade.dropped[nodeid] = failing.impl.name
            status = failing.outcomes.get(nodeid, "")
            if status.startswith(UNWRITTEN):
                grade.unwritten[nodeid] = status.removeprefix(UNWRITTEN)
        else:
            grade.valid.append(nodeid)
    for chaff in chaffs if grade.valid else ():
        run = by_impl[id(chaff)]
        # a run that dies (the process ended, a crash) catches its chaff by itself only when
        # every wheat's run finished: tests that end their own process everywhere (os._exit,
        # a C stack overflow) would otherwise catch every kind while testing nothing; then,
        # as for a timeout, only a counting test that failed before the end catches it
        timed_out = run.problem.startswith("timeout")
        crashed = _died(run)
        caught = (crashed and not grade.ended) or any(
            run.outcomes.get(n) in ("failed", "error") if timed_out or crashed
            else not run.passed(n) for n in grade.valid)
        if run.problem:
            grade.problems.append(f"{run.impl.name}: {run.problem}")
        grade.kinds[run.impl.kind][0] += caught
    grade.seconds = round(time.perf_counter() - start, 2)
    return grade


def _died(run: Run) -> bool:
    """Whether a run's process died before writing its answer (not a timeout, not a refusal
    to run unisolated)."""
    return bool(run.problem) and not run.problem.startswith(("timeout", "not isolated"))


def _file_of(nodeid: str) -> str:
    return Path(nodeid.split("::", 1)[0]).name


def grade(folder: Path, impls: ImplSet, labs: Sequence[str] | None = None,
          **options) -> dict[str, LabGrade]:
    """THE seam: the learner's test ``folder`` against ``impls``, lab by lab.

    The score of record calls it inside the per-learner sandboxed job (the learner's tests are
    untrusted code), with the instructor's private ImplSet; ``make check`` and the notebooks
    call it here. Returns plain data (``LabGrade.to_dict``)."""
    return {lab: grade_lab(folder, lab, impls, **options) for lab in (labs or LAB_FILES)}


# ---------------------------------------------------------------- cache (make check)
def files_digest(folder: Path, lab: str) -> str:
    h = hashlib.sha256()
    for path in lab_files(Path(folder), lab):
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def cached_grade(folder: Path, lab: str, impls: ImplSet, cache: Path,
                 set_digest: str | None = None, **options) -> LabGrade:
    """``grade_lab``, remembered in ``cache`` (JSON) by the hash of the lab's files and of the
    implementation set: an unchanged lab costs nothing."""
    key = f"{lab}:{files_digest(folder, lab)}:{set_digest or impls.digest()}:{CACHE_VERSION}"
    try:
        stored = json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        stored = {}
    if key in stored:
        return LabGrade.from_dict(stored[key])
    result = grade_lab(folder, lab, impls, **options)
    if not result.tests:  # nothing ran (no tests yet): nothing worth remembering
        return result
    stored = {k: v for k, v in stored.items() if not k.startswith(lab + ":")}
    stored[key] = result.to_dict()
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(json.dumps(stored, indent=1), encoding="utf-8")
    return result


# ---------------------------------------------------------------- what the learner reads
def summary(g: LabGrade) -> str:
    """One line: the lab's tests, kinds caught / kinds."""
    if not g.tests and not g.flagged:
        return t("no tests yet in {files}", files=", ".join(LAB_FILES[g.lab]))
    return t("{valid} of {tests} test(s) count · kinds of mistake caught: {caught}/{kinds} "
             "({percent:.0f} %)", valid=len(g.valid), tests=len(g.tests),
             caught=len(g.caught), kinds=len(g.kinds), percent=100 * g.score)


def feedback(g: LabGrade) -> list[str]:
    """What the learner reads about one lab's tests: dropped and flagged tests named, each
    kind of mistake the tests let through explained (never the wrong code)."""
    lines = [_(LAB_TITLES[g.lab]) + ": " + summary(g)]
    if not g.tests and not g.flagged:
        return lines
    for name, means in g.flagged.items():
        lines.append("  " + t("{file}: its tests earn nothing: they reach for {means}, which "
                              "recognises an implementation instead of testing what it does",
                              file=name, means=", ".join(means)))
    if g.ended:
        lines.append("  " + t("your tests' process died on a correct implementation (a test "
                              "ends or crashes it): that proves nothing, so a run that dies "
                              "catches a mistake only through a test that failed before it"))
    for nodeid in g.dropped:
        if nodeid in g.unwritten:
            lines.append("  " + t("{test} does not count yet: it calls {op}, which your "
                                  "tensor.py does not implement yet (NotImplementedError); it "
                                  "counts once that op is written",
                                  test=nodeid, op=g.unwritten[nodeid] or _("an operation")))
        else:
            lines.append("  " + t("{test} fails on a correct implementation, so it does not "
                                  "count (is its expected value right? is it random without a "
                                  "seed?)", test=nodeid))
    for kind in g.missed:
        caught, total = g.kinds[kind]
        if g.unwritten:  # the tests waiting for an op may well test this kind: no claim
            lines.append("  " + t("✗ {label} ({caught}/{total}): not caught by the tests that "
                                  "count now; if none of your tests waiting for an unwritten "
                                  "op does it either: {advice}", label=kind_label(kind),
                                  caught=caught, total=total, advice=kind_missed(kind)))
        else:
            lines.append("  " + t("✗ {label} ({caught}/{total}): {advice}",
                                  label=kind_label(kind), caught=caught, total=total,
                                  advice=kind_missed(kind)))
    for kind in g.caught:
        lines.append("  " + t("✓ {label}", label=kind_label(kind)))
    return lines


# ---------------------------------------------------------------- the implementation sets
def load_set_module(path: Path):
    """The Python file of an implementation set, as a module."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("examplar_set", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop(spec.name, None)
    return module


def load_set_file(path: Path) -> ImplSet:
    """An implementation set from a Python file defining ``implementations() -> ImplSet``
    (solutions/examplar_set.py, or an instructor's private file of the same form)."""
    factory: Callable[[], ImplSet] = load_set_module(path).implementations
    return factory()


PRIVATE_ENV = "MINITORCH_CHAFFS"  # an instructor's private set (the score of record's)


def course_set() -> ImplSet | None:
    """The set ``make check`` and the score of record use: ``MINITORCH_CHAFFS`` if set, else
    the repository's ``solutions/examplar_set.py``; None where neither exists (a class
    release, or solutions/ hidden): then ``fault_set`` is what there is."""
    private = os.environ.get(PRIVATE_ENV)
    from minitorch_course import runner

    path = Path(private) if private else runner.REFERENCE_FILE.parent / "examplar_set.py"
    return load_set_file(path) if path.is_file() else None


# ---------------------------------------------------------------- the learner's front ends
CACHE_VERSION = 3  # raised when a stored grade's meaning changes (2: tests waiting for an op;
#                   3: a run that dies on a wheat)
CACHE_NAME = ".grades.json"  # in the learner's test folder (ignored by git and nbgrader)


def learner_folder() -> Path:
    """The learner's test folder: ``my_tests/`` in the working directory, else beside the
    course's packages (the repository's root, or a class release folder)."""
    here = Path(__file__).resolve()
    for base in (Path.cwd(), here.parents[2], here.parents[1]):
        if (base / FOLDER).is_dir():
            return base / FOLDER
    return Path.cwd() / FOLDER


def passing_methods(reports) -> set[str]:
    """The methods (and engine rows) whose every catalog row passes, from runner RowReports."""
    from minitorch_course.catalog import BY_NAME
    from minitorch_course.outcomes import PASS

    status: dict[str, bool] = {}
    for r in reports:
        method = r.row if r.engine else BY_NAME[r.row].method
        status[method] = status.get(method, True) and r.status == PASS
    return {m for m, ok in status.items() if ok}


def learner_set(passing: set[str]) -> tuple[ImplSet, str]:
    """What the learner's tests are graded by here, and its name: the course's wheats and
    chaffs where this checkout has them, else faults in the learner's own implementation."""
    found = course_set()
    if found is not None:
        return found, "course"
    import minitorch

    return fault_set(str(minitorch.TENSOR_FILE), passing), "faults"


def fault_set(path: str, passing: set[str]) -> ImplSet:
    """The in-kernel set (``minitorch_course.faults``): the tensor.py at ``path`` as the one
    wheat, and one chaff per fault whose wrapped methods it already gets right (``passing``;
    "backward" and "unbroadcast" stand for the engine rows)."""
    from minitorch_course import faults

    wheat = Impl("learner", "wheat", path=path)
    chaffs = [Impl(f.id, "chaff", f.kind, f.labs, path=path, faults=(f.id,))
              for f in faults.FAULTS if f.methods and all(m in passing for m in f.methods)]
    return ImplSet("faults", [wheat], chaffs)


def learner_grades(labs: Sequence[str], passing: set[str],
                   folder: Path | None = None) -> tuple[dict[str, LabGrade], str]:
    """The learner's tests of ``labs``, graded (cached by file hash); and the set's name. Labs
    with no test function yet cost nothing (no set is loaded for them)."""
    folder = folder or learner_folder()
    grades = {lab: LabGrade(lab, [f.name for f in lab_files(folder, lab)]) for lab in labs}
    written = [lab for lab in labs
               if any(has_tests(f) or suspicious(f) for f in lab_files(folder, lab))]
    if not written:
        return grades, ""
    impls, which = learner_set(passing)
    digest = impls.digest()
    for lab in written:
        grades[lab] = cached_grade(folder, lab, impls, folder / CACHE_NAME, digest)
    return grades, which


def learner_report(grades: dict[str, LabGrade], which: str) -> list[str]:
    """The lines ``make check`` and the notebooks print about the learner's tests."""
    lines = [t("Your tests ({folder}/, run them with `{command}`): a test counts when it passes "
               "on correct implementations; it earns the kinds of mistake it catches.",
               folder=FOLDER, command=COMMAND)]
    if which == "faults":
        lines.append(_("Here the mistakes are planted into your own implementation, in the ops "
                       "it already gets right: feedback only. The score of record runs your "
                       "tests against the course's own correct and wrong implementations."))
    for g in grades.values():
        lines += feedback(g)
    return lines
