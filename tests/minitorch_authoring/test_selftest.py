"""`make test` never reads, judges or writes the learner's files: with learner work in the
checkout it runs on a clean export of HEAD, or stops with one sentence naming `make check`."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from minitorch_authoring import selftest
from minitorch_authoring.repository import ROOT

# what the command under test reports: where it ran and which tensor.py `import minitorch` found
PROBE = [sys.executable, "-c",
         "import os, minitorch; print('RAN', os.getcwd()); print('TENSOR', minitorch.TENSOR_FILE)"]


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                   cwd=root, check=True, capture_output=True)


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A committed course checkout: the packages and the student notebooks, as the tools wrote them."""
    monkeypatch.setenv("MINITORCH_IMPL", "learner")  # the probe imports the export's tensor.py
    root = tmp_path / "course"
    shutil.copytree(ROOT / "src", root / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.bak-*"))
    shutil.copytree(ROOT / "notebooks", root / "notebooks",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "*.bak"))
    shutil.copytree(ROOT / "my_tests", root / "my_tests")  # the learner's test skeletons
    assert selftest.learner_work(root) == [], "the committed stub or notebooks are stale"
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "course")
    return root


def _run(root: Path, capfd) -> tuple[int, dict[str, str], str]:
    code = selftest.run(PROBE, root)
    captured = capfd.readouterr()
    out = captured.out + captured.err
    probe = dict(line.split(" ", 1) for line in out.splitlines() if line.startswith(("RAN", "TENSOR")))
    return code, probe, out


def _learner_edits(root: Path) -> dict[Path, bytes]:
    """The learner implements something and saves a notebook with outputs; returns the files."""
    tensor = root / "src" / "minitorch" / "tensor.py"
    tensor.write_text(tensor.read_text() + "\n# my own work\n")
    notebook = sorted((root / "notebooks").glob("0*.ipynb"))[0]
    nb = json.loads(notebook.read_text())
    nb["cells"][0]["source"] = "mis notas"
    notebook.write_text(json.dumps(nb))
    (root / "notebooks" / "scratch.ipynb").write_text(json.dumps(nb))  # a notebook of their own
    return {p: p.read_bytes() for p in (tensor, notebook, root / "notebooks" / "scratch.ipynb")}


def test_untouched_checkout_is_tested_in_place(checkout, capfd):
    code, probe, out = _run(checkout, capfd)
    assert code == 0 and Path(probe["RAN"]) == checkout, out
    assert "make check" not in out


def test_learner_work_is_left_alone_and_head_is_tested(checkout, capfd):
    committed = (checkout / "src" / "minitorch" / "tensor.py").read_text()
    before = _learner_edits(checkout)
    stamps = {p: p.stat().st_mtime_ns for p in before}
    code, probe, out = _run(checkout, capfd)
    assert code == 0, out
    ran, tensor = Path(probe["RAN"]), Path(probe["TENSOR"])
    assert ran != checkout and tensor.is_relative_to(ran), out  # the export's own packages
    assert not ran.exists()  # removed afterwards
    assert "make check" in out and len([s for s in out.splitlines() if "make check" in s]) == 1
    assert {p: p.read_bytes() for p in before} == before  # not written
    assert {p: p.stat().st_mtime_ns for p in before} == stamps
    assert "# my own work" not in committed  # what the export held is what HEAD holds


def test_a_regenerated_stub_is_the_tools_not_the_learners(checkout, capfd):
    """A maintainer's `make stubs` after changing the reference: tested where it is."""
    tensor = checkout / "src" / "minitorch" / "tensor.py"
    tensor.write_text(tensor.read_text() + "\n# regenerated\n")
    (checkout / "src" / "minitorch" / ".stub.sha256").write_text(
        hashlib.sha256(tensor.read_bytes()).hexdigest() + "\n")
    code, probe, out = _run(checkout, capfd)
    assert code == 0 and Path(probe["RAN"]) == checkout, out


def test_committed_learner_work_stops_with_one_sentence(checkout, capfd):
    _learner_edits(checkout)
    _git(checkout, "add", "-A")
    _git(checkout, "commit", "-qm", "my work")
    code, probe, out = _run(checkout, capfd)
    assert code == 1 and not probe, out
    assert out.strip() == selftest.STOPPED and "make check" in out


def test_outside_git_it_stops_with_one_sentence(checkout, capfd):
    shutil.rmtree(checkout / ".git")
    code, probe, out = _run(checkout, capfd)
    assert code == 0 and Path(probe["RAN"]) == checkout, out  # nothing of the learner's: in place
    _learner_edits(checkout)
    code, probe, out = _run(checkout, capfd)
    assert code == 1 and not probe and out.strip() == selftest.STOPPED, out
