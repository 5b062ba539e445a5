"""Two nbgrader preprocessors for hidden tests, plugged in by the course's ``nbgrader_config.py``.

Instructor tooling: it runs in the nbgrader process (never in a learner's kernel) and is not part
of a class release.

- :class:`OverwriteCellsKnowingHiddenTests` replaces nbgrader's ``OverwriteCells`` at autograde.
  nbgrader stores a locked cell's checksum WITH its hidden tests, then releases the cell without
  them; an honest submission therefore differs from the stored checksum, and ``OverwriteCells``
  logs ``Attribute 'checksum' for cell test_01 has changed!`` for every cell with hidden tests
  (every quiz cell), which drowns real tampering. This subclass stays silent when the submitted
  cell is exactly the released one (the source with its hidden tests removed) and warns, as
  nbgrader does, for anything else. The cell is restored from the gradebook either way.
- :class:`HideHiddenTests` runs in ``generate_feedback``: the feedback page shows a cell with
  hidden tests without them, and replaces whatever the cell's run printed (a traceback quotes the
  failing hidden line, answer included) with the error's name and message. nbgrader shows hidden
  tests in feedback by design.
- :class:`BudgetedExecute` replaces nbgrader's ``Execute`` at autograde: each submission (one
  student) gets a time budget for all its notebooks together; a cell still running when it is
  used up is stopped, and after the first stopped cell the remaining code cells get a "timed
  out" error without running. ``Execute.timeout`` alone is per cell: a looping engine would cost
  it once per graded cell (hours).
"""

from __future__ import annotations

import copy
import math
import time
from typing import Any

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.notebooknode import NotebookNode
from nbformat.v4 import new_output
from nbgrader import utils
from nbgrader.preprocessors import (
    ClearHiddenTests,
    Execute,
    NbGraderPreprocessor,
    OverwriteCells,
)
from traitlets import Float, default

HIDDEN_TEST_FAILED = ("no es la respuesta esperada (una prueba oculta falló) / "
                      "not the expected answer (a hidden test failed)")


def without_hidden_tests(cell: NotebookNode, parent: Any = None) -> NotebookNode | None:
    """A copy of ``cell`` with its hidden-test regions removed, or None if it has none.

    The removal is nbgrader's own (``ClearHiddenTests``, with the course's configured
    delimiters), so the copy is exactly what the release holds.
    """
    clear = ClearHiddenTests(parent=parent, enforce_metadata=False)
    stripped = copy.deepcopy(cell)
    return stripped if clear._remove_hidden_test_region(stripped) else None


class OverwriteCellsKnowingHiddenTests(OverwriteCells):
    """``OverwriteCells`` that does not report a released cell's missing hidden tests as a change."""

    def preprocess_cell(self, cell: NotebookNode, resources: dict,
                        cell_index: int) -> tuple[NotebookNode, dict]:
        self._submitted = cell
        return super().preprocess_cell(cell, resources, cell_index)

    def report_change(self, name: str, attr: str, old: Any, new: Any) -> None:
        if attr == "checksum" and new == self._released_checksum(name):
            self.log.debug("cell %s is the released version (hidden tests stripped)", name)
            return
        super().report_change(name, attr, old, new)

    def _released_checksum(self, name: str) -> str | None:
        """The checksum of the cell as released: its gradebook source without hidden tests."""
        source_cell = self.gradebook.find_source_cell(name, self.notebook_id, self.assignment_id)
        released = copy.deepcopy(self._submitted)  # metadata as OverwriteCells just fixed it
        released.source = source_cell.source
        released = without_hidden_tests(released, parent=self)
        return None if released is None else utils.compute_checksum(released)


class HideHiddenTests(NbGraderPreprocessor):
    """Feedback shows no hidden test: neither its source nor what its run printed."""

    def preprocess_cell(self, cell: NotebookNode, resources: dict,
                        cell_index: int) -> tuple[NotebookNode, dict]:
        stripped = without_hidden_tests(cell, parent=self)
        if stripped is None:
            return cell, resources
        cell.source = stripped.source
        if cell.cell_type == "code":
            cell.outputs = [self._error_only(out) for out in cell.get("outputs", [])
                            if out.get("output_type") == "error"]
        return cell, resources

    @staticmethod
    def _error_only(out: NotebookNode) -> NotebookNode:
        """The error's name and message, without the traceback that quotes the failing line."""
        message = out.get("evalue") or HIDDEN_TEST_FAILED
        ename = out.get("ename", "Error")
        return new_output("error", ename=ename, evalue=message, traceback=[f"{ename}: {message}"])


TIMED_OUT = "TimeBudgetExceeded"  # ename of a cell skipped because the budget was used up
CELL_TIMED_OUT = "CellTimeoutError"  # ename nbgrader gives a cell stopped by its timeout
SPENT_LOG = "time budget: %s spent %.1f s of %g s"  # logged after each notebook
STOPPED_LOG = "time budget: %s stopped at %s after %d s"  # a cell stopped (its timeout, s)
KERNEL_DIED = "DeadKernelError"  # ename of the cell the kernel died in, and of those not run after
DIED_LOG = "kernel died: %s in %s/%s"  # student, notebook, cell
_SPENT: dict[str, list[float]] = {}  # student id -> [kernel CPU s, wall s] of finished notebooks
_STARTED: dict[str, float] = {}  # student id -> when its first notebook started (time.time())
_STOPPED: set[str] = set()  # students with a cell stopped by its timeout: nothing more runs


class BudgetedExecute(Execute):
    """nbgrader's ``Execute`` with one time budget per submission (all its notebooks).

    Two clocks, so that a looping submission costs about ``budget`` seconds of wall time on a
    busy machine too, while an honest one is not cut short because the machine is busy:

    - the deadline, ``budget`` seconds of wall time after the submission started (``deadline``,
      set by the class run to include nbgrader's own start; else when its first notebook
      starts): a cell still running then is stopped. Past the deadline a cell still gets
      ``stall_timeout`` seconds, so a submission whose cells keep finishing (a busy machine)
      goes on, within the next clock;
    - ``budget`` CPU seconds of the submission's kernels (start-ups included), and at most
      ``wall_factor * budget`` of wall time.

    A cell stopped by its timeout gets nbgrader's ``CellTimeoutError``; after that (or once the
    CPU budget is used up) every remaining code cell, in this notebook and the next ones, gets
    a ``TimeBudgetExceeded`` error output without running (no kernel is even started), so
    nbgrader scores its graded cells 0, and the kernel is killed rather than shut down politely.
    After each notebook the CPU time spent so far is logged (``SPENT_LOG``). ``budget = 0``: no
    budget. Without a kernel process to measure (a remote kernel), wall time counts as CPU.
    """

    budget = Float(0.0, help="Seconds for all of one submission's notebooks: wall time to the "
                   "deadline, and CPU time of its kernels (0: no budget). The per-cell timeout "
                   "is Execute.timeout.").tag(config=True)
    wall_factor = Float(3.0, help="Wall time is capped at wall_factor * budget.").tag(config=True)
    deadline = Float(0.0, help="When the submission's budget of wall time ends (time.time(); "
                     "0: budget seconds after its first notebook starts).").tag(config=True)
    stall_timeout = Float(10.0, help="Past the deadline, each cell still gets this many "
                          "seconds (a busy machine) before it is stopped.").tag(config=True)

    _notebook_started = 0.0
    _died = ""  # the cell the kernel died in, in the notebook running now

    @default("shutdown_kernel")
    def _kill_the_kernel(self) -> str:
        """Every output is in once the last cell replied: kill the kernel rather than wait for
        it to exit (a graceful shutdown cost about 1 s of CPU per notebook, a quarter of an
        honest submission's grading)."""
        return "immediate"

    def _student(self) -> str:
        return str((self.resources or {}).get("nbgrader", {}).get("student", ""))

    def _running(self) -> tuple[float, float]:
        """(CPU s, wall s) of the notebook running now."""
        if not self._notebook_started:
            return 0.0, 0.0
        wall = time.monotonic() - self._notebook_started
        try:
            import psutil

            proc = psutil.Process(self.km.provisioner.process.pid)
            times = proc.cpu_times()
            cpu = times.user + times.system + sum(
                c.cpu_times().user + c.cpu_times().system
                for c in proc.children(recursive=True))
            return cpu, wall
        except Exception:  # noqa: BLE001 - no local kernel process to measure: wall time
            return wall, wall

    def spent(self) -> tuple[float, float]:
        """(CPU s, wall s) this submission has spent so far."""
        done = _SPENT.get(self._student(), [0.0, 0.0])
        cpu, wall = self._running()
        return done[0] + cpu, done[1] + wall

    def remaining(self) -> float:
        """Seconds left for this submission (``inf`` without a budget; 0 once a cell was
        stopped)."""
        if not self.budget:
            return math.inf
        if self._student() in _STOPPED:
            return 0.0
        cpu, wall = self.spent()
        return min(self.budget - cpu, self.wall_factor * self.budget - wall)

    def until_deadline(self) -> float:
        """Wall seconds to the submission's deadline (``inf`` without a budget)."""
        if not self.budget:
            return math.inf
        end = self.deadline or _STARTED.get(self._student(), time.time()) + self.budget
        return end - time.time()

    def preprocess(self, nb: NotebookNode, resources: Any = None,
                   km: Any = None) -> tuple[NotebookNode, dict]:
        self.resources = resources or {}
        if self.remaining() <= 0:  # nothing left: do not even start a kernel
            for cell in nb.cells:
                self._mark_timed_out(cell)
            return nb, resources
        _STARTED.setdefault(self._student(), time.time())
        self._notebook_started = time.monotonic()
        self._last = (0.0, 0.0)
        self._died = ""
        shutdown = self.shutdown_kernel
        try:
            return super().preprocess(nb, resources, km)
        finally:
            self.shutdown_kernel = shutdown  # _stop changes it for this notebook only
            student = self._student()
            _SPENT[student] = [a + b for a, b in zip(_SPENT.get(student, [0.0, 0.0]),
                                                      self._last)]
            self._notebook_started = 0.0
            if self.budget:
                self.log.info(SPENT_LOG, student, _SPENT[student][0], self.budget)

    def preprocess_cell(self, cell: NotebookNode, resources: dict,
                        index: int) -> tuple[NotebookNode, dict]:
        if cell.cell_type != "code":
            return cell, resources
        if self._died:
            self._mark(cell, KERNEL_DIED, f"not run: the kernel died at {self._died} / sin "
                       f"ejecutar: el kernel murió en {self._died}")
            return cell, resources
        left = self.remaining()
        if left <= 0:
            self._mark_timed_out(cell)
            return cell, resources
        if not hasattr(self, "_cell_timeout"):
            self._cell_timeout = self.timeout  # the configured one, before this overrides it
        to_deadline = max(self.until_deadline(), self.stall_timeout)
        limits = [t for t in (self._cell_timeout, left, to_deadline) if t and 0 < t < math.inf]
        self.timeout = max(1, math.ceil(min(limits))) if limits else None
        try:
            return super().preprocess_cell(cell, resources, index)
        except DeadKernelError:  # os._exit, a crash: the notebook's other cells are not run,
            # and nbgrader goes on with the next notebook rather than fail the whole submission
            self._died = _where(cell, index)
            self._mark(cell, KERNEL_DIED, f"the kernel died while running this cell / el kernel "
                       f"murió al ejecutar esta celda ({self._died})")
            self.log.error(DIED_LOG, self._student(),
                           (resources.get("nbgrader") or {}).get("notebook", "?"), self._died)
            return cell, resources
        except CellTimeoutError as err:  # e.g. a kernel that ignores the interrupt
            cell.outputs = [*cell.get("outputs", []), new_output(
                "error", ename=CELL_TIMED_OUT, evalue=str(err).splitlines()[0],
                traceback=[f"{CELL_TIMED_OUT}: {err}"])]
            return cell, resources
        finally:
            if not self._died:  # a dead kernel has no CPU time to read: keep the last one
                self._last = self._running()  # the kernel is gone once the notebook is done
            if any(out.get("ename") == CELL_TIMED_OUT for out in cell.get("outputs", [])):
                self._stop(cell, index)

    def _stop(self, cell: NotebookNode, index: int) -> None:
        """A cell was stopped: nothing more of this submission runs; kill its kernel."""
        student = self._student()
        _STOPPED.add(student)
        self.shutdown_kernel = "immediate"  # a kernel that ignores interrupts may still loop
        self.log.info(STOPPED_LOG, student, _where(cell, index), self.timeout or 0)

    def _mark_timed_out(self, cell: NotebookNode) -> None:
        try:  # the course's language (MINITORCH_LANG, which the job sets from the course dir's
            # marker); inside a sandboxed job this is the grader's copy of i18n
            # (nbgrader_job.grader_src: without it the import failed, ModuleNotFoundError)
            from minitorch_course.i18n import t

            message = t("timed out: not run, the submission's time budget ({budget:g} s) was "
                        "used up", budget=self.budget)
        except Exception as err:  # noqa: BLE001 - kept: a broken catalog or copy must not fail
            # a looping learner's class run whole (it did): say it in both languages
            self.log.warning("time budget: message in both languages (%s)", err)
            message = (f"timed out: not run, the submission's time budget ({self.budget:g} s) "
                       "was used up / sin ejecutar: se agotó el tiempo de la entrega")
        self._mark(cell, TIMED_OUT, message)

    @staticmethod
    def _mark(cell: NotebookNode, ename: str, message: str) -> None:
        """The cell's only output: an error (nbgrader scores a graded cell with one 0)."""
        if cell.cell_type != "code":
            return
        cell.outputs = [new_output("error", ename=ename, evalue=message,
                                   traceback=[f"{ename}: {message}"])]
        cell.execution_count = None


def _where(cell: NotebookNode, index: int) -> str:
    """A cell's grade_id, or its index."""
    return (cell.metadata.get("nbgrader") or {}).get("grade_id") or f"cell {index}"


def _replace(default: list, old: type, new: type) -> list:
    """nbgrader's default preprocessor list with ``old`` swapped for ``new``."""
    if old not in default:
        raise RuntimeError(f"nbgrader no longer runs {old.__name__} here: update nbgrader_ext.py")
    return [new if p is old else p for p in default]


def autograde_sanitize_preprocessors() -> list:
    """``Autograde.sanitize_preprocessors``: nbgrader's, with the hidden-test-aware overwrite."""
    from nbgrader.converters import Autograde

    default = Autograde.class_traits()["sanitize_preprocessors"].default()
    return _replace(list(default), OverwriteCells, OverwriteCellsKnowingHiddenTests)


def autograde_preprocessors() -> list:
    """``Autograde.autograde_preprocessors``: nbgrader's, executing within a time budget."""
    from nbgrader.converters import Autograde

    default = Autograde.class_traits()["autograde_preprocessors"].default()
    return _replace(list(default), Execute, BudgetedExecute)


def feedback_preprocessors() -> list:
    """``GenerateFeedback.preprocessors``: nbgrader's, after hiding the hidden tests."""
    from nbgrader.converters import GenerateFeedback

    return [HideHiddenTests, *GenerateFeedback.class_traits()["preprocessors"].default()]
