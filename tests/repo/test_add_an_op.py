"""The README's recipe for adding an op, applied to a new op in a temporary copy of the repository:
one method in solutions/tensor.py, one catalog row, a theory note (es + en), then the tools the
README names (`make stubs`, the catalog's graded cells). The suites the new op touches must pass
there: the stub, points and graded cells, the catalog's checks of the new row, the theory."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from minitorch_authoring import stubgen
from minitorch_authoring.repository import ROOT

pytestmark = pytest.mark.slow  # copies the repository and runs pytest in a subprocess

LAB = "06-extension-silu"

METHOD = '''
def softplus(self) -> Tensor:
    """ln(1 + e^a), elementwise, without overflow; d/da = σ(a). (...) -> (...)."""
    ### BEGIN SOLUTION
    a = self.data

    def _backward(g):
        return (g * _sigmoid(a),)

    return Tensor._make(np.logaddexp(0.0, a), (self,), "softplus", _backward)
    ### END SOLUTION
'''
ROW = '''
    Op("softplus", "softplus", "06-extension-silu", lambda m, a: a.softplus(),
       lambda t, a: t.nn.functional.softplus(a), (REAL,), UNARY_CASES, "unary",
       points=1, formula="ln(1 + e^a)"),'''
NOTE = {
    "theory/05-extension-silu.md": (
        "## Autoevaluación", "Otra extensión, `softplus`: $\\ln(1 + e^a)$, de derivada $\\sigma(a)$."),
    "theory/en/05-extension-silu.md": (
        "## Self-check", "Another extension, `softplus`: $\\ln(1 + e^a)$, whose derivative is "
        "$\\sigma(a)$."),
}
NOTE_BLOCK = '''{title}

```python
import numpy as np
import minitorch as mt

x = mt.Tensor([-2.0, 0.0, 3.0], requires_grad=True)
x.softplus().sum().backward()
print(np.allclose(x.grad, 1 / (1 + np.exp(-x.data))))
```

'''


def _copy_repository(dest: Path) -> None:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for name in listed.splitlines():
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


def _insert_after(path: Path, anchor: ast.AST, text: str, indent: int) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    block = "".join(" " * indent + line if line.strip() else line
                    for line in text.splitlines(keepends=True))
    end = anchor.end_lineno
    while end < len(lines) and lines[end].strip() == "### END SOLUTION":  # a comment: not in ast
        end += 1
    lines.insert(end, block)
    path.write_text("".join(lines), encoding="utf-8")


def apply_recipe(repo: Path) -> None:
    """One method beside silu (its lab), one row after silu's, a note in each theory file."""
    reference = repo / "solutions" / "tensor.py"
    tree = ast.parse(reference.read_text(encoding="utf-8"))
    tensor = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    silu = next(n for n in tensor.body if isinstance(n, ast.FunctionDef) and n.name == "silu")
    _insert_after(reference, silu, METHOD, silu.col_offset)

    catalog = repo / "src" / "minitorch_course" / "catalog.py"
    tree = ast.parse(catalog.read_text(encoding="utf-8"))
    row = next(n for n in ast.walk(tree) if isinstance(n, ast.Call)
               and getattr(n.func, "id", "") == "Op" and n.args
               and getattr(n.args[0], "value", None) == "silu")
    lines = catalog.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[row.end_lineno - 1] = lines[row.end_lineno - 1].rstrip("\n") + ROW + "\n"
    catalog.write_text("".join(lines), encoding="utf-8")

    for name, (heading, title) in NOTE.items():
        path = repo / name
        text = path.read_text(encoding="utf-8")
        assert heading in text, name
        path.write_text(text.replace(heading, NOTE_BLOCK.format(title=title) + heading, 1),
                        encoding="utf-8")


def run(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "MINITORCH_IMPL": "reference", "PYTHONPATH": str(repo / "src")}
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run([sys.executable, *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=300)


def test_adding_an_op_by_the_readme_recipe_passes_the_suites_it_touches(tmp_path):
    start = time.perf_counter()
    repo = tmp_path / "repo"
    _copy_repository(repo)
    apply_recipe(repo)

    where = run(repo, "-c", "import minitorch_course.catalog as c; print(c.__file__)")
    assert where.stdout.strip() == str(repo / "src" / "minitorch_course" / "catalog.py"), where
    # the committed stub is the Spanish one; the suites' MINITORCH_LANG=en would pick English
    for tool in (["-m", "minitorch_authoring.stubgen", "--lang", "es"],
                 ["-m", "minitorch_grading.course", "cells"]):
        done = run(repo, *tool)
        assert done.returncode == 0, done.stdout + done.stderr
    assert f"softplus: {stubgen.NOT_WRITTEN} (notebooks/06-extension-silu.ipynb)" in (
        repo / "src" / "minitorch" / "tensor.py").read_text(encoding="utf-8")

    suites = run(repo, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
                 "tests/minitorch_authoring/test_stubs.py", "tests/minitorch_course/test_points.py", "tests/repo/test_layout.py",
                 "tests/minitorch_course/test_catalog.py", "tests/repo/test_theory.py",
                 "-k", "softplus or not (matches_torch or gradcheck or broadcasting_backward "
                       "or property or python_blocks_run) or 05-extension")
    assert suites.returncode == 0, suites.stdout[-3000:] + suites.stderr[-2000:]
    assert "softplus" in run(repo, "-m", "pytest", "-q", "--collect-only", "-p",
                              "no:cacheprovider", "tests/minitorch_course/test_catalog.py").stdout
    elapsed = time.perf_counter() - start
    assert elapsed < 60, f"the recipe's check took {elapsed:.0f} s"
