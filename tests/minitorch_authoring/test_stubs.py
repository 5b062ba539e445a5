"""The learner's stub: generated from the reference, never edited by hand, and it fails every
check (the tests bite)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from minitorch_authoring import stubgen
from minitorch_authoring.repository import ROOT
from minitorch_course import op_checks, runner
from minitorch_course.catalog import BY_NAME, ENGINE_ROWS, LABS, MLP_CELLS, OPS
from minitorch_course.outcomes import NOT_STARTED

STUB = ROOT / "src" / "minitorch" / "tensor.py"
STUBS = sorted(stubgen.STUBS)  # the learner's files: tensor (labs 00-03, 06), mlp (lab 05)


@pytest.mark.parametrize("name", STUBS)
def test_committed_stub_is_what_the_generator_produces(name):
    stub = stubgen.STUBS[name]
    assert stub.target.read_text(encoding="utf-8") == stubgen.stub_text(stub), "run `make stubs`"


@pytest.mark.parametrize("name", STUBS)
def test_committed_marker_records_the_committed_stub(name):
    """Without it, `make stubs` would take the pristine stub for a learner's edited file."""
    stub = stubgen.STUBS[name]
    marker = stub.target.with_name(stub.marker).read_text().strip()
    assert marker == stubgen._sha(stub.target.read_text(encoding="utf-8")), "run `make stubs`"


def test_the_mlp_stub_keeps_the_interface_and_none_of_the_answer():
    from minitorch_course import mlp_checks

    stub = stubgen.STUBS["mlp"]
    text = stub.target.read_text(encoding="utf-8")
    assert "BEGIN SOLUTION" not in text and "zero_grad()\n" not in text
    for name in mlp_checks.INTERFACE:
        assert re.search(rf"^(def {name}\(|{name} = )", text, re.M), name
    assert text.count(f"{stubgen.NOT_WRITTEN} ({stubgen.NOTEBOOKS}/05-mlp-grammar.ipynb)") == 3


def test_stub_has_no_solution_left():
    text = STUB.read_text(encoding="utf-8")
    assert "BEGIN SOLUTION" not in text and "np.add.at" not in text
    for op in {op.method for op in OPS}:
        assert f"{op}: {stubgen.NOT_WRITTEN} ({stubgen.NOTEBOOKS}/" in text, op


def test_every_stubbed_function_names_its_lab_notebook():
    """Each lab it names exists in both routes' folders (the English stub names notebooks/en/)."""
    text = "".join(s.target.read_text(encoding="utf-8") for s in stubgen.STUBS.values())
    labs = {line.split(f"({stubgen.NOTEBOOKS}/")[1].split(")")[0] for line in text.splitlines()
            if "NotImplementedError(" in line}
    for lab in labs:
        for folder in ("notebooks", "notebooks/en"):
            assert (ROOT / folder / lab).is_file(), f"{folder}/{lab}"
    writes_code = {row.lab for row in OPS + ENGINE_ROWS} | {c.lab for c in MLP_CELLS.values()}
    assert writes_code <= set(LABS)  # lab 04 asks for tests, not code
    assert {lab.removesuffix(".ipynb") for lab in labs} == writes_code


def test_every_op_fails_against_the_stub():
    stub = runner.load_impl(STUB, name="minitorch_stub")
    with runner.using(stub):
        not_started = [
            op.name for op in OPS
            if all(o.status == NOT_STARTED
                   for outs in op_checks.check_op(op, stub, suites=("forward", "backward",
                                                                     "gradcheck")).values()
                   for o in outs)
        ]
    assert not_started == [op.name for op in OPS], sorted(set(BY_NAME) - set(not_started))


@pytest.mark.parametrize(("doc", "pattern"), [
    ("README.md", r"unas (\d+) líneas de código tuyas"),
    ("theory/README.md", r"Escribes unas (\d+) líneas de código"),
    ("theory/en/README.md", r"You write about (\d+) lines of code"),
])
def test_the_docs_state_the_learners_measured_line_count(doc, pattern):
    """Within 5 %, rounded as a person would: neither the old promise of 400 nor padding."""
    stated = re.search(pattern, (ROOT / doc).read_text(encoding="utf-8"))
    assert stated, f"{doc} no longer states how many lines the learner writes"
    measured = stubgen.learner_lines(stubgen.REFERENCE.read_text(encoding="utf-8"))
    assert abs(int(stated.group(1)) - measured) <= 0.05 * measured, (doc, measured)


OP_COUNT = {  # where the docs state how many operations the learner writes
    "README.md": (r"con más de (\d+) operaciones, cada una", r"with more than (\d+) operations"),
    "theory/README.md": (r"un `Tensor` con más de (\d+) operaciones diferenciables",),
    "theory/en/README.md": (r"a `Tensor` with more than (\d+) differentiable operations",),
}


def test_the_docs_state_one_op_count_and_it_is_true():
    """One figure in every doc (es and en), true of the catalog (every row is an op of the
    learner's tensor.py) and not stale: within 5 of it, so that adding an op by the README's
    recipe needs no doc change but a handful does."""
    stated = {}
    for doc, patterns in OP_COUNT.items():
        text = (ROOT / doc).read_text(encoding="utf-8")
        for pattern in patterns:
            found = re.search(pattern, text)
            assert found, f"{doc} no longer states how many operations the learner writes"
            stated[(doc, pattern)] = int(found.group(1))
    assert len(set(stated.values())) == 1, stated
    figure = next(iter(stated.values()))
    assert figure < len(OPS) <= figure + 5, (figure, len(OPS))


def test_the_learners_file_reads_in_lab_order():
    """Each lab's section once, in the order of the labs."""
    labs = [m.group(1) for line in STUB.read_text(encoding="utf-8").splitlines()
            if (m := re.match(r"\s*# @lab (\S+)", line))]
    assert labs == sorted(labs) and len(labs) == len(set(labs)), labs


@pytest.fixture
def workspace(tmp_path):
    return tmp_path / "tensor.py"


def run(*args):
    return subprocess.run([sys.executable, "-m", "minitorch_authoring.stubgen", *args],
                          capture_output=True, text=True, cwd=ROOT)


def test_generator_refuses_to_overwrite_edits_and_force_keeps_a_backup(workspace):
    assert run("--target", str(workspace)).returncode == 0  # fresh file: written
    assert run("--target", str(workspace)).returncode == 0  # unchanged: nothing to do
    workspace.write_text(workspace.read_text() + "\n# my own work\n")
    refused = run("--target", str(workspace))
    assert refused.returncode == 2 and "refusing to overwrite" in refused.stderr
    assert "make stubs FORCE=1" in refused.stderr  # what the person types
    assert "# my own work" in workspace.read_text()
    forced = run("--target", str(workspace), "--force")
    assert forced.returncode == 0, forced.stderr
    backups = list(workspace.parent.glob("tensor.py.bak-*"))
    assert len(backups) == 1 and "# my own work" in backups[0].read_text()
    assert "# my own work" not in workspace.read_text()


def test_check_mode_flags_a_stale_stub(workspace):
    workspace.write_text("stale\n")
    assert run("--target", str(workspace), "--check").returncode == 1


def test_the_mlp_file_is_kept_like_tensor_py(tmp_path):
    """`make stubs` writes both files; an edited mlp.py is refused, FORCE=1 backs it up."""
    target = tmp_path / "mlp.py"
    assert run("--file", "mlp", "--target", str(target)).returncode == 0
    assert (tmp_path / ".stub.mlp.sha256").is_file()
    target.write_text(target.read_text() + "\n# my MLP\n")
    refused = run("--file", "mlp", "--target", str(target))
    assert refused.returncode == 2 and "refusing to overwrite" in refused.stderr
    assert run("--file", "mlp", "--target", str(target), "--force").returncode == 0
    assert "# my MLP" in next(tmp_path.glob("mlp.py.bak-*")).read_text()
