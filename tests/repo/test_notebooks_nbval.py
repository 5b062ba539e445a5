"""Every instructor notebook runs top to bottom under nbval (strict: every output compared, with
``tests/nbval_sanitize.cfg``) against the reference implementation.

A module of its own (not in test_notebooks.py): make test hands out whole modules, and these
eight executions are the longest part of the notebooks' tests. They run in one pytest process
(``conftest.nbval``), each notebook in its own kernel; each notebook is still a test of its own.
"""

from __future__ import annotations

import pytest
from conftest import nbval, nbval_problems

from minitorch_grading import course

INSTRUCTOR = course.lab_notebooks()
IDS = [p.stem for p in INSTRUCTOR]


@pytest.fixture(scope="module")
def cells(tmp_path_factory):
    return nbval(INSTRUCTOR, course.reference_env(), tmp_path_factory.mktemp("nbval"))


@pytest.mark.slow
@pytest.mark.parametrize("path", INSTRUCTOR, ids=IDS)
def test_instructor_notebook_nbval(path, cells):
    """Strict nbval: every output of the committed notebook is reproduced by the reference."""
    problems = nbval_problems(cells, path)
    assert not problems, problems
