"""Every instructor notebook runs top to bottom under nbval (strict: every output compared, with
``tests/nbval_sanitize.cfg``) against the reference implementation.

A module of its own (not in test_notebooks.py): make test hands out whole modules, and these
eight executions are the longest part of the notebooks' tests.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from minitorch_authoring.repository import ROOT
from minitorch_grading import course

SANITIZE = ROOT / "tests" / "nbval_sanitize.cfg"
INSTRUCTOR = course.lab_notebooks()
IDS = [p.stem for p in INSTRUCTOR]


@pytest.mark.slow
@pytest.mark.parametrize("path", INSTRUCTOR, ids=IDS)
def test_instructor_notebook_nbval(path):
    """Strict nbval: every output of the committed notebook is reproduced by the reference."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env",
         "--nbval-sanitize-with", str(SANITIZE), "--nbval-cell-timeout", "600",
         "-p", "no:cacheprovider", "-q", "--no-header", str(path.relative_to(ROOT))],
        cwd=ROOT, env=course.reference_env(), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert re.search(r"\d+ passed", proc.stdout), proc.stdout[-2000:]
