"""After the README's "hide the solutions" step, nothing a self-study learner still sees reveals
the reference.

The step is read from the README itself (its ``git sparse-checkout set`` line), so the test
follows whatever the README tells learners. What reveals the reference is every distinctive line
inside the ``### BEGIN SOLUTION`` fences of ``solutions/tensor.py`` and ``solutions/mlp.py``
(whitespace normalised): planted mistakes, held-out mistakes and instructor notebooks hold such
lines, so they live under the hidden folders. The reference MLP (lab 05's answer) lives only in
``solutions/``: nothing that ships or stays visible holds it, the student's lab 05 notebook
and the theory included.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from minitorch_authoring.repository import MLP_REFERENCE, MLP_STUB, REFERENCE, ROOT, SOLUTION, STUB

# Lines any engine of this shape has, whoever wrote it: they reveal nothing of the reference.
GENERIC = {"raise BackwardError(", "for parent in node._prev:"}
# ...and lines any training loop has, or that the MLP file's own docstrings state as its
# specification (the update rule): they reveal nothing of lab 05's answer either.
GENERIC |= {"p.data -= lr * p.grad", "for p in params.values():", "for step in range(steps):",
            "for k, v in params0.items()}", "losses.append(loss.item())",
            "rng = np.random.default_rng(seed)"}
# The learner's reading: theory and notebooks are checked line by line by issue 28's rule (no
# backward line of an op before the learner writes it: tests/repo/test_leaks.py), stricter than this
# one; this test also forbids a line after its lab (lab 04 shows unbroadcast's, theory 05 silu's).
STUDENT_MATERIALS = ("theory/", "notebooks/")


def _normal(line: str) -> str:
    return " ".join(line.split())


def fenced_lines(reference: Path | None = None, stub_file: Path | None = None) -> set[str]:
    """The distinctive lines the learner writes: fenced in the reference, absent from the stub
    (both learner files when no reference is named)."""
    if reference is None:
        return fenced_lines(REFERENCE, STUB) | fenced_lines(MLP_REFERENCE, MLP_STUB)
    stub = {_normal(line) for line in stub_file.read_text(encoding="utf-8").splitlines()}
    found, inside = set(), False
    for line in reference.read_text(encoding="utf-8").splitlines():
        if line.strip() == SOLUTION[0]:  # a fence line (stubgen's test), not a mention of one
            inside = True
        elif line.strip() == SOLUTION[1]:
            inside = False
        elif inside:
            text = _normal(line)
            if len(text) >= 20 and not text.startswith("#") and text not in stub | GENERIC:
                found.add(text)
    return found


def hidden_folders() -> list[str]:
    """The folders the README's sparse-checkout step takes out of the working copy."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"git sparse-checkout set --no-cone ([^#\n]+)", readme)
    assert match, "the README has no `git sparse-checkout set --no-cone ...` step"
    patterns = re.findall(r"'([^']+)'", match.group(1))
    assert patterns[0] == "/*", patterns  # everything, then the exclusions
    assert all(re.fullmatch(r"!/[\w.-]+/", p) for p in patterns[1:]), patterns
    return [p[2:-1] for p in patterns[1:]]


def visible_files() -> list[str]:
    """The repository's files (committed or not, but not ignored) left after the step."""
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    hidden = tuple(f"{folder}/" for folder in hidden_folders())
    return [f for f in listed if not f.startswith(hidden) and (ROOT / f).is_file()]


def leaks(files: list[str], lines: set[str] | None = None) -> dict[str, list[str]]:
    lines = fenced_lines() if lines is None else lines
    found = {}
    for name in files:
        try:
            text = _normal((ROOT / name).read_text(encoding="utf-8"))
        except (UnicodeDecodeError, OSError):
            continue
        hits = sorted(line for line in lines if line in text)
        if hits:
            found[name] = hits
    return found


def test_the_step_hides_every_solution_and_the_maintainers_material():
    hidden = hidden_folders()
    assert "solutions" in hidden
    for path in ("solutions/heldout", "solutions/planted.py", "solutions/notebooks"):
        assert (ROOT / path).exists(), path
    assert fenced_lines(), "no fenced line found: the check below would pass vacuously"


def test_the_check_finds_a_leak():
    """A file outside the hidden folders holding one fenced line is reported."""
    line = sorted(fenced_lines())[0]
    probe = ROOT / "build" / "probe-leak.txt"
    probe.parent.mkdir(exist_ok=True)
    probe.write_text(f"x = 1\n    {line}\n", encoding="utf-8")
    try:
        assert leaks(["build/probe-leak.txt"]) == {"build/probe-leak.txt": [line]}
    finally:
        probe.unlink()


def test_the_reference_mlp_lives_only_in_solutions():
    """Lab 05's answer: in no shipped package, no visible file, no student notebook or theory."""
    lines = fenced_lines(MLP_REFERENCE, MLP_STUB)
    assert len(lines) >= 5, lines  # else the check below would pass vacuously
    assert not (ROOT / "src" / "minitorch_course" / "mlp.py").exists()
    assert leaks(visible_files(), lines) == {}


def test_nothing_visible_after_the_step_reveals_the_reference():
    files = [f for f in visible_files() if not f.startswith(STUDENT_MATERIALS)]
    assert "src/minitorch_course/catalog.py" in files and "README.md" in files
    assert leaks(files) == {}


# Whether the student materials show a fenced line BEFORE the learner writes it is
# tests/repo/test_leaks.py's question (lab by lab, in reading order): one owner.
