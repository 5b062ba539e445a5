"""The phase's definition of done: the one list of what the learner owns at the end.

``theory/README.md`` and ``theory/en/README.md`` show it (their block between the
``definition-of-done`` markers is ``markdown()``; ``tests/minitorch_course/test_done.py`` keeps them equal, and
``python -m minitorch_course.done --write`` rewrites them), and the progress report ends with
it, each item ticked where the course can tell from here (``ticks``).
"""

from __future__ import annotations

import ast
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from minitorch_course import i18n, mlp_checks, quiz
from minitorch_course.i18n import _, t
from minitorch_course.outcomes import FAIL, NOT_STARTED, PASS, SKIP, RowReport

EXTENSION_LAB = "06-extension-silu"  # its rows (the catalog's) are the extension's method
# The labelled parts of lab 06's note, per language: the bold labels of the note cell (grade id
# ``silu_note``) of notebooks/06-extension-silu.ipynb and notebooks/en/06-extension-silu.ipynb
# (tests/minitorch_course/test_done.py reads them there and compares).
NOTE_PARTS: dict[str, tuple[str, ...]] = {
    "es": ("Derivada", "Test", "Primitiva o compuesta"),
    "en": ("Derivative", "Test", "Primitive or composite"),
}
NOTE_ID = "silu_note"  # the note cell's nbgrader grade id
TEST_FUNCTION = "test_silu"


def N_(msgid: str) -> str:  # noqa: N802 (gettext's name): marks a table string for extraction
    return msgid


@dataclass(frozen=True)
class Item:
    key: str
    text: str  # msgid (English); Spanish in the .po
    values: tuple[tuple[str, str], ...] = ()  # its {fields}, from the modules that own them

    def words(self) -> str:
        """The item in the current language, its fields filled in."""
        return _(self.text).format(**dict(self.values))


def _percent(fraction: float) -> str:
    # a field, not literal text: "90 % on" in a msgid reads to Babel as the conversion "% o"
    return f"{fraction * 100:.0f} %"


ITEMS: tuple[Item, ...] = (
    Item("ops", N_("Every operation of labs 00–03 in your `minitorch/tensor.py` "
                   "(`src/minitorch/tensor.py` in the repository), each with its backward, "
                   "written by you (the engine of lab 00 included).")),
    Item("torch", N_("The per-op cross-check against PyTorch in float64 (forward and backward, "
                     "`1e-7`) and `gradcheck`, green for every op.")),
    Item("property", N_("The property suite: Hypothesis over random shapes and values of every "
                        "op, green.")),
    Item("broadcast", N_("The broadcasting-backward suite over the common shape pairs (`(3,)` "
                         "with `(4, 3)`, `(N, 1)` with `(1, M)`...), green.")),
    Item("lab_tests", N_("Your own tests for each lab, passing.")),
    Item("mlp", N_("An MLP trained end to end with only `minitorch` (lab 05), above {accuracy} "
                   "on held-out examples."), (("accuracy", _percent(mlp_checks.THRESHOLD)),)),
    Item("extension", N_("Your extension, `silu` (lab 06): the derivative on paper, the method, "
                         "its test and a short note.")),
    Item("quiz", N_("Quiz 08 at {mark} or more."), (("mark", _percent(quiz.PASS_FRACTION)),)),
)

BEGIN = "<!-- definition-of-done: generated from src/minitorch_course/done.py -->"
END = "<!-- /definition-of-done -->"
README = {"es": Path("theory/README.md"), "en": Path("theory/en/README.md")}


def markdown() -> str:
    """The list as the theory README shows it, in the current language."""
    return "\n".join(f"{i}. {item.words()}" for i, item in enumerate(ITEMS, 1))


# ---------------------------------------------------------------- lab 06's extension, read
def extension_parts(notebook: Path | None) -> dict[str, bool]:
    """Whether the learner's lab 06 holds its test (``test_silu`` defined, not the stub's
    ``NotImplementedError``) and its note (every labelled part followed by some words)."""
    found = {"test": False, "note": False}
    if notebook is None or not notebook.is_file():
        return found
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    for cell in cells:
        meta = (cell.get("metadata") or {}).get("nbgrader") or {}
        if not meta.get("solution"):
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        if cell.get("cell_type") == "code" and f"def {TEST_FUNCTION}" in source:
            found["test"] = _written(source)
        elif cell.get("cell_type") == "markdown":
            found["note"] = note_complete(source)
    return found


def _written(source: str) -> bool:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    defs = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == TEST_FUNCTION]
    if not defs:
        return False
    last = defs[-1]  # the definition that takes effect
    raises = [n for n in ast.walk(last) if isinstance(n, ast.Raise)
              and "NotImplementedError" in ast.unparse(n)]
    checks = [n for n in ast.walk(last) if isinstance(n, ast.Assert | ast.Call)]
    return not raises and bool(checks)


def note_complete(source: str, words: int = 8) -> bool:
    """Every part of one language's NOTE_PARTS appears as a label and is followed by ``words``
    words or more before the next label (what the course can check; a human grades the
    content). Either language's labels count, whichever notebook the note is in."""
    return any(_parts_complete(source, parts, words) for parts in NOTE_PARTS.values())


def _parts_complete(source: str, parts: tuple[str, ...], words: int) -> bool:
    text = source.replace("*", "")
    at = []
    for part in parts:
        index = text.find(f"{part}:")
        if index < 0:
            return False
        at.append((index, part))
    at.sort()
    for k, (index, part) in enumerate(at):
        end = at[k + 1][0] if k + 1 < len(at) else len(text)
        if len(text[index + len(part) + 1:end].split()) < words:
            return False
    return True


def _lab_notebook(lab: str) -> Path | None:
    here = quiz.learner_notebook()
    folder = here.parent if here else None
    path = folder / f"{lab}.ipynb" if folder else None
    return path if path and path.is_file() else None


# ---------------------------------------------------------------- ticks
YES, NO, UNKNOWN = "yes", "no", "unknown"


def ticks(reports: list[RowReport], quiz_report: quiz.QuizReport | None = None,
          extension_notebook: Path | None = None,
          mlp: list | None = None) -> dict[str, str]:
    """{item: yes / no / unknown} from the progress report's rows (all of them), the quiz and
    lab 06's notebook, and lab 05's MLP findings (``mlp_checks``) when the report ran them.
    Unknown: what the course cannot tell from here."""

    def green(suites: tuple[str, ...], rows: list[RowReport]) -> str:
        ok = all(r.summary(s) in (PASS, SKIP) for r in rows for s in suites if s in r.suites)
        return YES if rows and ok else NO

    core = [r for r in reports if r.lab != EXTENSION_LAB]
    ops = [r for r in core if not r.engine]
    out = {
        "ops": YES if core and all(r.status == PASS for r in core) else NO,
        "torch": green(("forward", "backward", "gradcheck"), ops),
        "property": green(("property",), ops),
        "broadcast": green(("broadcast",), ops),
        "lab_tests": UNKNOWN,
        "mlp": UNKNOWN if not mlp else (YES if all(f.passed for f in mlp) else NO),
    }
    method = [r for r in reports if r.lab == EXTENSION_LAB]
    parts = extension_parts(extension_notebook or _lab_notebook(EXTENSION_LAB))
    out["extension"] = YES if (method and all(r.status == PASS for r in method)
                               and all(parts.values())) else NO
    quiz_report = quiz_report or quiz.report()
    out["quiz"] = UNKNOWN if quiz_report.unavailable else (YES if quiz_report.passed else NO)
    if not reports or any(r.status in (FAIL, NOT_STARTED) for r in reports if r.engine):
        out["ops"] = NO
    return out


def lines(state: dict[str, str], marks: dict[str, str]) -> list[str]:
    """The list as the progress report ends: one line per item, ✓ / ✗ / · (not checked here)."""
    out = [t("Definition of done ({readme}): {done} of {count} ticked",
             readme=README[i18n.language()].as_posix(),
             done=sum(v == YES for v in state.values()), count=len(ITEMS))]
    for i, item in enumerate(ITEMS, 1):
        out.append(f"  {marks[state[item.key]]} {i}. {item.words()}")
    if UNKNOWN in state.values():
        out.append("     " + _("· : not checked here (your tests with pytest, the MLP in lab 05's "
                               "graded cells, the quiz with its key or your instructor)"))
    return out


# ---------------------------------------------------------------- the theory READMEs
def write(root: Path) -> list[Path]:
    """Rewrite the block between the markers of both theory READMEs; the files changed."""
    import os

    changed = []
    before = os.environ.get("MINITORCH_LANG")
    try:
        for lang, rel in README.items():
            os.environ["MINITORCH_LANG"] = lang
            path = root / rel
            text = path.read_text(encoding="utf-8")
            head, rest = text.split(BEGIN, 1)
            _old, tail = rest.split(END, 1)
            new = f"{head}{BEGIN}\n{markdown()}\n{END}{tail}"
            if new != text:
                path.write_text(new, encoding="utf-8")
                changed.append(path)
    finally:
        if before is None:
            os.environ.pop("MINITORCH_LANG", None)
        else:
            os.environ["MINITORCH_LANG"] = before
    return changed


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        for p in write(quiz.ROOT):
            print(f"wrote {p}")
    else:
        print(markdown())
