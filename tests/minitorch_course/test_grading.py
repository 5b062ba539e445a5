"""grading.refuse_foreign_code on a minitorch.tensor made from source, with no file: outside
autograde it names where the package loaded it from; under autograde it refuses to grade."""

from __future__ import annotations

import types

import pytest

import minitorch
from minitorch_course import grading


@pytest.fixture
def fileless(monkeypatch):
    module = types.ModuleType("minitorch.tensor")  # __spec__ None, no __file__
    monkeypatch.setattr(minitorch, "tensor", module)
    return module


def test_a_module_without_a_file_falls_back_to_the_packages_file(fileless, monkeypatch):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    assert grading.refuse_foreign_code() == minitorch.TENSOR_FILE


def test_autograde_refuses_a_module_without_a_file(fileless, monkeypatch, tmp_path):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setattr(minitorch, "IMPLEMENTATION", "learner")
    monkeypatch.chdir(minitorch.TENSOR_FILE.parents[2])  # even where the package's file lies
    with pytest.raises(RuntimeError, match="refusing to grade.*no file"):
        grading.refuse_foreign_code()
