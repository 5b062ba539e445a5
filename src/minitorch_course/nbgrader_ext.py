"""Two nbgrader preprocessors for hidden tests, plugged in by the course's ``nbgrader_config.py``.

Instructor tooling: it runs in the nbgrader process (never in a learner's kernel) and is not part
of a class release.

- :class:`OverwriteCellsKnowingHiddenTests` replaces nbgrader's ``OverwriteCells`` at autograde.
  nbgrader stores a locked cell's checksum WITH its hidden tests, then releases the cell without
  them; an honest submission therefore differs from the stored checksum, and ``OverwriteCells``
  logs ``Attribute 'checksum' for cell test_01 has changed!`` for every cell with hidden tests
  (the 17 quiz cells), which drowns real tampering. This subclass stays silent when the submitted
  cell is exactly the released one (the source with its hidden tests removed) and warns, as
  nbgrader does, for anything else. The cell is restored from the gradebook either way.
- :class:`HideHiddenTests` runs in ``generate_feedback``: the feedback page shows a cell with
  hidden tests without them, and replaces whatever the cell's run printed (a traceback quotes the
  failing hidden line, answer included) with the error's name and message. nbgrader shows hidden
  tests in feedback by design.
"""

from __future__ import annotations

import copy
from typing import Any

from nbformat.notebooknode import NotebookNode
from nbformat.v4 import new_output
from nbgrader import utils
from nbgrader.preprocessors import ClearHiddenTests, NbGraderPreprocessor, OverwriteCells

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


def feedback_preprocessors() -> list:
    """``GenerateFeedback.preprocessors``: nbgrader's, after hiding the hidden tests."""
    from nbgrader.converters import GenerateFeedback

    return [HideHiddenTests, *GenerateFeedback.class_traits()["preprocessors"].default()]
