"""A saved edit of tensor.py reaches the graded cells in a live kernel, without a restart.

The labs promise that edits to ``src/minitorch/tensor.py`` take effect with ``%autoreload 2``.
These tests meet that promise as a learner does: a real Jupyter kernel (jupyter_client), a copy
of the course as a fresh clone has it (``src/`` and ``notebooks/`` in a temporary folder, never
the repository's own files), op bodies rewritten on disk between cells, and the graded calls
re-run in the same kernel. Every kind of op is covered (a method wrapped by ``@shape_errors``, a
plain method, a static method exported as a module function), both ways: not started -> passing
-> failing. (The properties live in the course's ``minitorch.base``, which nobody saves.)

The versions of tensor.py are built from the reference: ``implemented`` functions keep their
solution, ``wrong`` ones get a planted mistake, every other one is the stub's
``raise NotImplementedError`` (``stubgen.generate``, the same code that writes the stub).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from minitorch_authoring import stubgen
from minitorch_authoring.repository import ROOT
from minitorch_course import messages

REFERENCE = ROOT / "solutions" / "tensor.py"

_LAB = re.compile(r"^\s*#\s*@lab\s+(\S+)")
_DEF = re.compile(r"^(\s*)def\s+(\w+)\s*\(")
_BACKWARD = re.compile(r"^(\s*)def _backward\((\w+)\):\s*$")
KEPT = "### solution kept by the test"


def fenced_functions(source: str) -> dict[str, str]:
    """Every function with a solution fence in ``source``, mapped to its lab (``# @lab``)."""
    labs: dict[str, str] = {}
    lab = func = None
    inside = False
    for line in source.splitlines():
        stripped = line.strip()
        if inside:
            inside = stripped != stubgen.END
            continue
        if m := _LAB.match(line):
            lab = m.group(1)
        if m := _DEF.match(line):
            func = m.group(2)
        if stripped == stubgen.BEGIN:
            labs[func] = lab
            inside = True
    return labs


def version(implemented: set[str] = frozenset(), wrong: set[str] = frozenset()) -> str:
    """tensor.py with ``implemented`` solved, ``wrong`` solved with a mistake, the rest stubbed.

    The mistake: every ``_backward`` closure doubles its upstream gradient; a function without
    one (the engine, ``unbroadcast``) has its solution replaced by ``pass`` (returns None).
    """
    out: list[str] = []
    func = None
    region: list[str] | None = None
    for line in REFERENCE.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if region is not None:
            if stripped != stubgen.END:
                region.append(line)
                continue
            indent = line[: len(line) - len(line.lstrip())]
            if func in wrong:
                planted = []
                for body_line in region:
                    planted.append(body_line)
                    if m := _BACKWARD.match(body_line):
                        planted.append(f"{m.group(1)}    {m.group(2)} = 2.0 * {m.group(2)}")
                region = planted if planted != region else [f"{indent}pass"]
            out += [f"{indent}{KEPT}", *region, f"{indent}{KEPT}"]
            region = None
            continue
        if m := _DEF.match(line):
            func = m.group(2)
        if stripped == stubgen.BEGIN and (func in implemented or func in wrong):
            region = []
            continue
        out.append(line)
    return stubgen.generate("\n".join(out) + "\n")


def save(path: Path, text: str) -> None:
    """Write ``text`` as an editor's save does; the modification time always moves forward."""
    before = path.stat().st_mtime_ns if path.exists() else 0
    path.write_text(text, encoding="utf-8")
    later = max(path.stat().st_mtime_ns, before + 2_000_000_000)
    os.utime(path, ns=(later, later))


class Kernel:
    """A Jupyter kernel of this interpreter; ``run`` returns (succeeded, everything it printed)."""

    def __init__(self, cwd: Path, pythonpath: Path, home: Path) -> None:
        from jupyter_client.manager import start_new_kernel

        env = {k: v for k, v in os.environ.items() if k not in ("MINITORCH_IMPL", "PYTHONPATH")}
        env.update(MINITORCH_IMPL="learner", PYTHONPATH=str(pythonpath), MPLBACKEND="Agg",
                   PYTHONDONTWRITEBYTECODE="1", IPYTHONDIR=str(home / "ipython"))
        self.manager, self.client = start_new_kernel(kernel_name="python3", cwd=str(cwd),
                                                     env=env, startup_timeout=90)

    def run(self, code: str, timeout: float = 120) -> tuple[bool, str]:
        text: list[str] = []

        def collect(msg) -> None:
            content = msg["content"]
            if msg["msg_type"] == "stream":
                text.append(content["text"])
            elif msg["msg_type"] == "error":
                text.append(f"{content['ename']}: {content['evalue']}\n")
            elif msg["msg_type"] in ("execute_result", "display_data"):
                text.append(content["data"].get("text/plain", "") + "\n")

        reply = self.client.execute_interactive(code, timeout=timeout, output_hook=collect)
        return reply["content"]["status"] == "ok", "".join(text)

    def must(self, code: str) -> str:
        ok, text = self.run(code)
        assert ok, f"{code}\n->\n{text}"
        return text

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


@pytest.fixture
def clone(tmp_path):
    """The course as a fresh clone has it: src/ (with the stub) and notebooks/, in tmp_path."""
    for folder in ("src", "notebooks"):
        shutil.copytree(ROOT / folder, tmp_path / "course" / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.bak-*"))
    course = tmp_path / "course"
    save(course / "src" / "minitorch" / "tensor.py", version())
    return course


@pytest.fixture
def kernel(clone, tmp_path):
    k = Kernel(clone / "notebooks", clone / "src", tmp_path)
    try:
        yield k
    finally:
        k.close()


SETUP = """%load_ext autoreload
%autoreload 2
import numpy as np, minitorch as mt
from minitorch_course.grading import check_ops
print(mt.IMPLEMENTATION, mt.TENSOR_FILE)"""


def _verdicts(text: str, ops: list[str]) -> dict[str, str]:
    """What the graded call said about each op: passed, not started, or failed."""
    verdicts = {}
    for op in ops:
        if re.search(rf"✓ {op}: all checks pass", text):
            verdicts[op] = "passed"
        elif re.search(rf"\[not started\] {op} ·", text):
            verdicts[op] = "not started"
        elif re.search(rf"\[fail\] {op} ·", text):
            verdicts[op] = "failed"
        else:
            verdicts[op] = "?"
    return verdicts


@pytest.mark.slow
def test_every_kind_of_op_follows_each_save(clone, kernel):
    # mul, sum: methods wrapped by @shape_errors; exp: a plain method; cat: a static method,
    # exported as the module function mt.cat
    ops = ["mul", "sum", "exp", "cat"]
    engine = {"_topological_order", "backward", "unbroadcast"}
    source = clone / "src" / "minitorch" / "tensor.py"
    save(source, version(engine))
    assert str(source) in kernel.must(SETUP)
    kernel.must("x = mt.Tensor(np.arange(3.0), requires_grad=True)  # lives across the saves")
    call = f"check_ops({', '.join(map(repr, ops))})"
    ok, text = kernel.run(call)
    assert not ok and _verdicts(text, ops) == dict.fromkeys(ops, "not started"), text

    save(source, version(engine | set(ops)))  # not started -> passing
    ok, text = kernel.run(call)
    assert ok and _verdicts(text, ops) == dict.fromkeys(ops, "passed"), text
    kernel.must("(x * x).sum().backward()\nassert np.allclose(x.grad, 2 * x.data), x.grad\n"
                "assert isinstance(x, mt.Tensor)")

    # passing -> failing: mul's two gradients swapped, the others' gradients doubled
    failing = version(engine | {"mul"}, wrong={"sum", "exp", "cat"})
    assert failing.count("return g * b, g * a") == 1, "mul's backward changed: update this test"
    save(source, failing.replace("return g * b, g * a", "return g * a, g * b"))
    ok, text = kernel.run(call)
    assert not ok and _verdicts(text, ops) == dict.fromkeys(ops, "failed"), text


def _graded_cells(notebook: Path) -> list[str]:
    """The sources of the notebook's graded cells that check tensor.py."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells
            if c["cell_type"] == "code" and c["metadata"].get("nbgrader", {}).get("grade")
            and re.search(r"check_(ops|engine)\(", "".join(c["source"]))]


@pytest.mark.slow
def test_labs_00_and_01_graded_cells_follow_each_save(clone, kernel):
    """A learner's session: run a lab top to bottom, then save wrong, then right, re-running."""
    source = clone / "src" / "minitorch" / "tensor.py"
    labs = fenced_functions(REFERENCE.read_text(encoding="utf-8"))
    done: set[str] = set()
    for lab in ("00-tensor-skeleton", "01-elementwise-ops"):
        notebook = clone / "notebooks" / f"{lab}.ipynb"
        graded = _graded_cells(notebook)
        mine = {f for f, at in labs.items() if at == lab}
        assert graded and mine, lab
        for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":  # the whole lab, once, as the learner first meets it
                kernel.run("".join(cell["source"]))
        for state, files in (("not started", version(done)),
                             ("wrong", version(done, wrong=mine)),
                             ("right", version(done | mine))):
            save(source, files)
            for cell in graded:
                ok, text = kernel.run(cell)
                if state == "right":
                    assert ok and "✓" in text, f"{lab}, {state} version:\n{cell}\n->\n{text}"
                else:
                    started = (stubgen.NOT_WRITTEN not in text
                               and messages.status("not started") not in text)
                    assert not ok and started == (state == "wrong"), (
                        f"{lab}, {state} version:\n{cell}\n->\n{text}")
        done |= mine
