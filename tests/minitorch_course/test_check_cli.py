"""``make check`` (python -m minitorch_course.check): the stub is all "not started", the reference
all ✓, a planted mistake fails exactly its row, and ``--op`` prints the full diagnosis."""

from __future__ import annotations

import ast
import io
import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_report

from minitorch_authoring import stubgen
from minitorch_authoring.repository import ROOT
from minitorch_course import check as check_cli
from minitorch_course.catalog import (
    CELLS,
    ENGINE_ROWS,
    LABS,
    MLP_CELLS,
    MY_TESTS_CELLS,
    OPS,
    lab_points,
)

# the catalog's rows, and lab 05's rows: the MLP file's two checks
MLP_ROWS = [c.grade_id.removeprefix("check_") for c in MLP_CELLS.values()]
ROWS = [r.name for r in ENGINE_ROWS] + [op.name for op in OPS] + MLP_ROWS


@pytest.fixture(autouse=True)
def _mlp_cache(tmp_path, monkeypatch):
    """The report caches lab 05's MLP checks: here in a temporary folder, never in ~/.cache."""
    monkeypatch.setenv(check_cli.CACHE_ENV, str(tmp_path / "mlp-cache"))


class Terminal(io.StringIO):
    encoding = "utf-8"


def run(*args: str) -> tuple[int, str]:
    args = list(args)
    mutant = None
    if "--mutant" in args:  # a maintainer's view: the reference with a planted mistake
        i = args.index("--mutant")
        mutant = args.pop(i + 1)
        args.pop(i)
    return run_report(*args, mutant=mutant)


def row_lines(text: str) -> dict[str, str]:
    """The table line of every row, by row name."""
    lines = {}
    for line in text.splitlines():
        parts = line.split()
        if (line.startswith("  ") and parts and parts[0] in ROWS and len(parts) > 1
                and re.fullmatch(r"\d+/\d+", parts[-1])):  # a table line ends with its points
            lines.setdefault(parts[0], line)
    return lines


@pytest.fixture(scope="module")
def stub_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("stub") / "tensor.py"
    path.write_text(stubgen.generate((ROOT / "solutions" / "tensor.py").read_text()))
    return path


def test_stub_shows_every_row_not_started(stub_file):
    code, out = run("--impl", str(stub_file), "--examples", "5")
    assert code != 0
    lines = row_lines(out)
    assert set(lines) == set(ROWS)
    for line in lines.values():
        assert "not started" in line and "✗" not in line, line
    assert f"0 of {len(ROWS)} rows pass" in out and f"{len(ROWS)} not started" in out
    assert "Traceback" not in out and "\033[" not in out  # no crash, no colour off a TTY


def test_lab04_has_its_group_and_the_tests_cells_say_the_record_grades_them(stub_file):
    """Lab 04 (no op of its own) had no group, so its 8 points were missing from the total, and
    the my_tests cells, which only the score of record grades, read "graded in the notebook
    only"."""
    code, out = run("--impl", str(stub_file), "--examples", "1")
    lab = "04-gradcheck-and-properties"
    assert lab_points(lab) > 0 and re.search(
        re.escape(LABS[lab]) + rf" +0/{lab_points(lab)} points", out), out
    assert f"Total: 0/{sum(lab_points(lab) for lab in LABS)} points" in out
    for cell in MY_TESTS_CELLS.values():
        name = cell.grade_id.removeprefix("check_")
        line = next(line for line in out.splitlines() if line.split()[:1] == [name])
        assert "notebook only" not in line and "score of record" in line, line


def test_reference_is_all_pass():
    code, out = run("--impl", "reference", "--examples", "10")
    assert code == 0, out
    lines = row_lines(out)
    assert set(lines) == set(ROWS)
    for line in lines.values():
        assert "✗" not in line and "not started" not in line and "✓" in line, line
    suite_cells = [c for c in CELLS if c.suite]  # lab 04's cells, scored from the rows that ran
    rows = (sum(r.points for r in ENGINE_ROWS) + sum(op.points for op in OPS)
            + sum(c.points for c in MLP_CELLS.values()) + sum(c.points for c in suite_cells))
    assert f"Total: {rows}/{sum(lab_points(lab) for lab in LABS)} points" in out
    for cell in suite_cells:
        line = cell_line(out, cell).splitlines()[0]
        assert "✓" in line and line.endswith(f" {cell.points}/{cell.points}"), line


def cell_line(text: str, cell) -> str:
    """The table line of a notebook cell's row (its grade id without ``check_``), and after a
    newline the lines its note wraps onto."""
    name = cell.grade_id.removeprefix("check_")
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:1] == [name])
    more = itertools.takewhile(lambda line: line.startswith(" " * 20), lines[start + 1:])
    return "\n".join([lines[start], *more])


def test_lab04_cells_are_scored_from_the_rows_and_fail_on_a_planted_mistake():
    """Lab 04's gradcheck and property cells ran only in the notebook, so the report showed
    "0/8 points" with every row "?" while the notebook was all green (o37): they are scored
    from the rows the report ran. A planted mistake in div fails the gradcheck cell, naming div,
    and leaves the property cell (add, mul) passing."""
    code, out = run("--mutant", "div_quotient_rule_sign", "--examples", "10")
    assert code == 1
    by_id = {c.grade_id: c for c in CELLS if c.suite}
    gradcheck, prop = by_id["check_gradcheck"], by_id["check_property"]
    line, *more = cell_line(out, gradcheck).splitlines()
    assert "✗" in line and line.endswith(f" 0/{gradcheck.points}"), line
    assert "div" in " ".join([line, *more]) and "exp" not in " ".join([line, *more]), line
    line = cell_line(out, prop).splitlines()[0]
    assert "✓" in line and line.endswith(f" {prop.points}/{prop.points}"), line
    lab = "04-gradcheck-and-properties"
    header = next(line for line in out.splitlines() if line.startswith(LABS[lab]))
    # the points the report cannot give (the answers whose key is not here, my_tests) are said
    assert re.search(rf" {prop.points}/{lab_points(lab)} points \(\d+ not scored here", header)


@pytest.mark.parametrize("folder", ["notebooks", "notebooks/en"])
def test_lab04_cells_run_what_the_catalog_says(folder):
    """The catalog's suite and ops of a lab 04 cell are what its graded cell calls: the report
    scores the cell by them."""
    cells = {c.grade_id: c for c in CELLS if c.suite}
    notebook = json.loads((ROOT / folder / "04-gradcheck-and-properties.ipynb").read_text())
    found = {}
    for nb_cell in notebook["cells"]:
        grade_id = nb_cell["metadata"].get("nbgrader", {}).get("grade_id")
        if grade_id in cells:
            call = ast.parse("".join(nb_cell["source"])).body[-1].value
            assert call.func.id == "check_ops"
            keywords = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
            found[grade_id] = (keywords["suites"], tuple(ast.literal_eval(a) for a in call.args))
    assert found == {g: ((c.suite,), c.over) for g, c in cells.items()}


def test_the_mlp_rows_name_the_mistake_and_are_cached(tmp_path, monkeypatch):
    """Lab 05's rows run the MLP file beside the checked tensor.py, say why one fails, and a
    second run with unchanged files reads the cache (no training)."""
    from minitorch_course import mlp_checks

    monkeypatch.setenv(check_cli.CACHE_ENV, str(tmp_path / "cache"))
    (tmp_path / "tensor.py").write_text((ROOT / "solutions" / "tensor.py").read_text())
    mlp = (ROOT / "solutions" / "mlp.py").read_text()
    planted = mlp.replace("            p.zero_grad()\n", "            pass\n")
    assert planted != mlp
    (tmp_path / "mlp.py").write_text(planted)
    code, out = run("--impl", str(tmp_path / "tensor.py"), "--op", "mlp")
    lines = row_lines(out)
    assert set(lines) == set(MLP_ROWS) and code == 1, out
    assert "✗" in lines["mlp_loss_curve"] and "zero_grad()" in out, out
    assert (tmp_path / "cache" / "mlp-checks.json").is_file()
    calls = []
    monkeypatch.setattr(mlp_checks, "check_all", lambda *a: calls.append(a))
    code2, out2 = run("--impl", str(tmp_path / "tensor.py"), "--op", "mlp")
    assert (code2, row_lines(out2)) == (code, lines) and "zero_grad()" in out2
    assert calls == []


@pytest.mark.parametrize("setting", ["off", "on"])
def test_mlp_checks_write_nothing_when_the_cache_is_off(tmp_path, monkeypatch, setting):
    """MINITORCH_CACHE=off means no cache for lab 05's MLP checks too (oracle_cache's rule):
    the MLP part of the report leaves its working folder and the user's cache folder empty.
    "on" (a folder) shows the same run does write, so the empty folders are not luck."""
    from minitorch_course import mlp_checks, runner

    cwd, home = tmp_path / "cwd", tmp_path / "home"
    cwd.mkdir()
    home.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv(check_cli.CACHE_ENV, "off" if setting == "off" else str(cwd / "cache"))
    (tmp_path / "tensor.py").write_text((ROOT / "solutions" / "tensor.py").read_text())
    (tmp_path / "mlp.py").write_text((ROOT / "solutions" / "mlp.py").read_text())
    monkeypatch.setattr(mlp_checks, "check_all", lambda module, seeds: [])  # no training
    impl = runner.load_impl(tmp_path / "tensor.py")
    assert check_cli.run_mlp(tmp_path / "mlp.py", impl, mlp_checks.SEEDS) == []
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file()
                     and p.parent != tmp_path)
    assert written == ([] if setting == "off" else ["cwd/cache/mlp-checks.json"])


def test_a_mutant_fails_exactly_its_row_with_its_diagnosis():
    code, out = run("--mutant", "max_ties_not_split", "--examples", "10")
    assert code == 1
    failing = {name for name, line in row_lines(out).items() if "✗" in line}
    assert failing == {"max"}
    assert "✗ max · backward" in out and "[wrong on ties]" in out
    assert f"{check_cli.COMMAND} --op max" in out


def test_op_prints_the_full_diagnosis():
    code, out = run("--mutant", "div_quotient_rule_sign", "--op", "div", "--examples", "10")
    assert code == 1
    assert set(row_lines(out)) == {"div"}
    # explained from a 2-D case, not the smaller 0-d one: one number cannot show a flipped sign
    assert "failing case explained: (3, 5), (3, 5)" in out
    assert "diagnosis: sign flipped" in out
    assert "Sign flipped: the gradient is exactly the negative of the right one" in out
    assert "shrunk (smallest) counterexample" in out  # the property suite's Hypothesis example


def test_op_accepts_engine_rows_and_rejects_unknown_names():
    code, out = run("--mutant", "recursive_topological_sort", "--op", "topological_order")
    assert code == 1 and "[recursive topological sort]" in out and "RecursionError" in out
    code, out = run("--op", "softplus")
    assert code == 2 and "unknown op" in out


def test_ascii_terminal_gets_ascii_symbols():
    style = check_cli.Style(type("S", (), {"encoding": "ascii", "isatty": lambda self: False})())
    assert (style.ok, style.bad) == ("ok", "X") and not style.colour


@pytest.mark.slow
def test_command_line_exit_status(stub_file):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "MINITORCH_IMPL": "reference"}
    done = subprocess.run([sys.executable, "-m", "minitorch_course.check", "--impl",
                           str(stub_file), "--op", "add"], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120)
    assert done.returncode == 1, done.stderr
    # the suites run in English (conftest): the English learner's notebook is named
    assert "not started" in done.stdout and "notebooks/en/01-elementwise-ops.ipynb" in done.stdout


@pytest.mark.parametrize("args, last", [
    (("--impl", "reference", "--op", "add"), "Total:"),
    (("--mutant", "div_gradients_swapped", "--op", "div"), "minitorch_course.check --op <op>"),
    (("--op", "softplus"), "could not check your work"),
], ids=["all-pass", "work-pending", "cannot-check"])
def test_closing_says_what_the_exit_status_means(args, last):
    """``--closing`` (make check) ends with a sentence instead of make's "Error 1"."""
    code, out = run(*args, "--examples", "3", "--closing")
    lines = out.strip().splitlines()
    assert last in lines[-1], lines[-3:]
    if code:
        assert lines[-2] == "", lines[-3:]  # a blank line, then the sentence
    _, plain = run(*args, "--examples", "3")
    seconds = re.compile(r"[\d.]+ s$", re.M)  # the run's duration
    assert (seconds.sub("", plain) == seconds.sub("", out)) == (code == 0)
