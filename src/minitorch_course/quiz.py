"""Quiz 08 (and the labs' keyed answer cells): each question's answer form and feedback, the judging of one answer, and the score
of a learner's notebook. The quiz notebook's graded cells call ``check_format`` (in the open)
and ``grade`` (in a hidden test, with the key); ``python -m minitorch_course.check`` calls
``report``, so the notebook, nbgrader and the progress report judge with the same code.

The answer key is NOT in this module: this package ships to learners. It lives in the hidden
tests of the instructor notebook (``solutions/notebooks/07-quiz.ipynb``), which a class release
strips and a self-study clone holds; ``report`` reads it from there when it is present, and
reads the learner's answers from the saved ``notebooks/07-quiz.ipynb`` (as literals, never run).

Which answer cells the labs have, and how each is judged (from the course's numbers or with a
key), is ``minitorch_course.exercises.ANSWER_CELLS``; ``read_answers`` is the one reader.
"""

from __future__ import annotations

import ast
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from minitorch_course import i18n, renames
from minitorch_course.i18n import _, language, t

NOTEBOOK = "07-quiz"
PASS_FRACTION = 0.70  # the chapter's pass mark
# What a grader parses of a learner's notebook (ast costs ~500 bytes of memory per byte of
# source, in the grader's own process): an answer cell's source (the course's longest is under
# 1 KB) and the notebook file read for its answers (a run notebook with its plots: a few MB).
MAX_CELL_BYTES = 64 * 1024
MAX_NOTEBOOK_BYTES = 16 * 1024 * 1024
ROOT = Path(__file__).resolve().parents[2]  # the repository, in a clone (src/ layout)
KEY_NOTEBOOK = ROOT / "solutions" / "notebooks" / f"{NOTEBOOK}.ipynb"

# the leaves of an answer's form
LETTER, NUMBER, INTEGER, BOOL = "letter", "number", "integer", "bool"
LETTERS = ("a", "b", "c", "d")


def N_(msgid: str) -> str:  # noqa: N802 (gettext's name): marks a table string for extraction
    """Marks a message id for extraction; translated where it is shown."""
    return msgid


@dataclass(frozen=True)
class Question:
    """One question: its answer's form, how close a number must be, and where to re-read."""

    number: int
    form: object  # a leaf (LETTER, NUMBER, INTEGER, BOOL) or a tuple of forms
    topic: str  # msgid
    theory: str  # the theory file (the same name in theory/ and theory/en/)
    section: str  # msgid: the section's English heading; its translation is the Spanish one
    atol: float = 1e-6
    rtol: float = 1e-6
    unordered: bool = False  # a set of axes: the order does not matter
    name: str = ""  # a lab's answer cell: its variable (the quiz's are answer_NN)
    notebook: str = NOTEBOOK  # where the answer cell is
    exponent: bool = False  # a number that is the exponent of a power of 10 (an ε in float64)

    @property
    def variable(self) -> str:
        return self.name or f"answer_{self.number:02d}"

    @property
    def label(self) -> str:
        return self.name if self.name else t("question {number}", number=self.number)


T01, T02, T03, T04 = ("01-tensor-as-node.md", "02-tensor-op-derivatives.md",
                      "03-matmul-and-softmax-grads.md", "04-gradcheck-and-property-tests.md")
PAIR, TRIPLE = (NUMBER, NUMBER), (NUMBER, NUMBER, NUMBER)

QUESTIONS: tuple[Question, ...] = (
    Question(1, LETTER, N_("topological order"), T01,
             N_("The order of the backward: reverse topological")),
    Question(2, PAIR, N_("accumulation in a reused node"), T01, N_("Accumulation: reused nodes")),
    Question(3, PAIR, N_("the seed of a non-scalar backward(G)"), T01,
             N_("The seed: scalar or non-scalar output")),
    Question(4, (TRIPLE, BOOL), N_("retain_graph and gradients that accumulate"), T01,
             N_("The graph is freed after backward")),
    Question(5, (NUMBER, BOOL), N_("no_grad and detach"), T01, N_("`no_grad` and `detach`")),
    Question(6, LETTER, N_("in-place changes before backward()"), T01,
             N_("Changing `.data` between the forward pass and `backward()`")),
    Question(7, (INTEGER, INTEGER), N_("reverse broadcasting"), T02, N_("The backward rule"),
             unordered=True),
    Question(8, (NUMBER, NUMBER, NUMBER, NUMBER), N_("repeated indices"), T02,
             N_("Indexing with repeated indices")),
    Question(9, ((NUMBER, NUMBER), TRIPLE), N_("1-D matmul"), T03, N_("3. 1-D operands")),
    Question(10, TRIPLE, N_("the backward of log_softmax"), T03,
             N_("4.3 The backward of `log_softmax`")),
    Question(11, (NUMBER, BOOL), N_("the fused cross-entropy's stability"), T03,
             N_("5. Numerical stability: why fuse"), atol=1e-3),
    Question(12, PAIR, N_("the U-curve of eps"), T04, N_("4. The U-curve and the optimal ε"),
             atol=0.0, rtol=0.5),
    Question(13, (BOOL, BOOL), N_("absolute and relative tolerance"), T04,
             N_("5. Absolute and relative tolerance")),
)
BY_NUMBER = {q.number: q for q in QUESTIONS}

# the labs' predict-then-run and compute-by-hand cells: the same forms, feedback and judging
T05 = "05-extension-silu.md"
LAB04 = "04-gradcheck-and-properties"
EXERCISES: dict[str, Question] = {q.name: q for q in (
    Question(0, PAIR, N_("silu's derivative by hand"), T05,
             N_("2. The derivative: on paper, yours"), atol=2e-3, name="silu_prime",
             notebook="06-extension-silu"),
    Question(0, PAIR, N_("the slopes of the U-curve"), T04,
             N_("4. The U-curve and the optimal ε"), atol=0.26, name="slopes",
             notebook=LAB04),
    Question(0, NUMBER, N_("the bottom of the U-curve"), T04,
             N_("4. The U-curve and the optimal ε"), atol=1.01, name="log10_best_eps",
             notebook=LAB04, exponent=True),
    Question(0, LETTER, N_("a random upstream gradient"), T04,
             N_("7. A random upstream gradient"), name="passes_with_sum", notebook=LAB04),
)}

def _question(which: int | str) -> Question:
    return EXERCISES[which] if isinstance(which, str) else BY_NUMBER[which]


def pass_mark(count: int | None = None) -> int:
    """The fewest right answers that pass (70 % of the questions, rounded up)."""
    count = len(QUESTIONS) if count is None else count
    return math.ceil(PASS_FRACTION * count - 1e-9)


# ---------------------------------------------------------------- forms
def describe(form) -> str:
    """The form in words, for a learner ('a tuple of 2: (a number, True or False)')."""
    if form == LETTER:
        return _('a letter in quotes: "a", "b", "c" or "d"')
    if form == NUMBER:
        return _("a number")
    if form == INTEGER:
        return _("an integer")
    if form == BOOL:
        return _("True or False")
    return t("a tuple of {count}: ({items})", count=len(form),
             items=", ".join(describe(f) for f in form))


def _fits(value, form) -> bool:
    if form == LETTER:
        return isinstance(value, str) and value.strip().lower() in LETTERS
    if form == BOOL:
        return isinstance(value, bool | np.bool_)
    if form in (NUMBER, INTEGER):
        if isinstance(value, bool | np.bool_ | str) or not isinstance(value, int | float
                                                                          | np.number):
            return False
        return math.isfinite(float(value)) if form == NUMBER else float(value).is_integer()
    return (isinstance(value, tuple | list) and len(value) == len(form)
            and all(_fits(v, f) for v, f in zip(value, form, strict=True)))


def _same(value, key, form, q: Question) -> bool:
    if form == LETTER:
        return value.strip().lower() == str(key).strip().lower()
    if form == BOOL:
        return bool(value) == bool(key)
    if form == INTEGER:
        return int(value) == int(key)
    if form == NUMBER:
        return bool(np.isclose(float(value), float(key), rtol=q.rtol, atol=q.atol))
    if q.unordered and all(f in (INTEGER, NUMBER) for f in form):
        value, key = sorted(value), sorted(key)
    return all(_same(v, k, f, q) for v, k, f in zip(value, key, form, strict=True))


# ---------------------------------------------------------------- one answer
def where_to_read(q: Question) -> str:
    """The feedback of a wrong answer: the topic and the section to re-read (no answer)."""
    folder = "theory/en" if language() == "en" else "theory"
    return t("{label} ({topic}): re-read {folder}/{file}, section «{section}»",
             label=q.label, topic=_(q.topic), folder=folder, file=q.theory,
             section=_(q.section))


def check_format(number: int | str, value) -> None:
    """The visible check of an answer cell (a quiz question's number, or a lab exercise's
    variable): answered, and in the form the question asks for."""
    __tracebackhide__ = True
    q = _question(number)
    if value is None:
        raise NotImplementedError(t(
            "{label} not answered yet ({notebook}): replace None by your answer",
            label=q.label, notebook=i18n.notebook(q.notebook)))
    if not _fits(value, q.form):
        raise AssertionError(t("{variable} must be {form}", variable=q.variable,
                               form=describe(q.form)))
    if not _plausible(value, q):
        raise AssertionError(t(
            "{variable} must be the exponent of 10, between {low} and 0 (e.g. -3 for 1e-3), "
            "not ε itself: {value} is not such an exponent", variable=q.variable,
            low=EXPONENTS[0], value=repr(value)))


EXPONENTS = (-16, 0)  # a float64 finite-difference step lies between 1e-16 and 1


def _plausible(value, q: Question) -> bool:
    """An exponent answer (``q.exponent``) lies in ``EXPONENTS``: ``1e-5`` is ε, not its
    exponent."""
    return not q.exponent or EXPONENTS[0] <= float(value) <= EXPONENTS[1]


def judge(number: int | str, value, key) -> str:
    """'right', 'wrong', 'unanswered' or 'malformed'."""
    q = _question(number)
    if value is None:
        return "unanswered"
    if not _fits(value, q.form) or not _plausible(value, q):
        return "malformed"
    return "right" if _same(value, key, q.form, q) else "wrong"


def grade(number: int | str, value, key) -> None:
    """The hidden test of an answer cell: raise with the section to re-read unless right."""
    __tracebackhide__ = True
    check_format(number, value)
    if judge(number, value, key) != "right":
        raise AssertionError(t("not right yet: {where}", where=where_to_read(_question(number))))


# ---------------------------------------------------------------- a whole notebook
def _cells(notebook: Path) -> list[dict]:
    return json.loads(notebook.read_text(encoding="utf-8"))["cells"]


def cell_source(cell: dict) -> str:
    """A notebook cell's source as one string (its list of lines joined; anything else: "")."""
    source = cell.get("source", "")
    if isinstance(source, list):
        return "".join(line for line in source if isinstance(line, str))
    return source if isinstance(source, str) else ""


def too_large(size: int, limit: int, what: str) -> str:
    """The reason a grader gives for not parsing something of ``size`` bytes."""
    return f"{what} too large: {size} bytes, limit {limit}"


def read_literals(notebook: Path) -> tuple[dict[str, object], dict[str, str]]:
    """{variable: value} assigned as literals in the notebook's solution cells (never run),
    and {grade_id: why} for the cells that could not be read ("syntax error", "not a
    literal", "answer cell too large: N bytes, limit M"); a value that is not a literal is left
    out (read as unanswered). A notebook that is not readable JSON gives nothing; one larger
    than ``MAX_NOTEBOOK_BYTES`` is not read (``{"*": why}``). The scores of record
    (``minitorch_grading.record``) call it, in the grader's own process: nothing is parsed
    beyond those bounds. A notebook not shaped like a notebook (a cell, its metadata or its
    source of another JSON type: a learner's file may hold anything) gives nothing.
    ``read_answers`` is the same reader without the problems."""
    try:
        size = notebook.stat().st_size
        if size > MAX_NOTEBOOK_BYTES:
            return {}, {"*": too_large(size, MAX_NOTEBOOK_BYTES, "notebook")}
        cells = _cells(notebook)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}, {}
    return _literals(cells if isinstance(cells, list) else [])


def read_answers(notebook: Path) -> dict[str, object]:
    """``read_answers(notebook: Path) -> dict[str, object]``: {variable: value} assigned as
    literals in the notebook's answer cells (never run): the quiz's answer_NN and the labs'
    answer variables alike (a name of an older release read as its new one:
    ``minitorch_course.renames``); an answer that is not a literal is left out (read as
    unanswered).
    The one reader of answer cells (with ``read_literals``): the progress report, the quiz
    score and the tests use it. A notebook that does not parse raises."""
    return _literals(_cells(notebook))[0]


def read_answers_from_cells(cells: list[dict]) -> dict[str, object]:
    """``read_answers`` on a notebook's cells (JSON dicts) already loaded."""
    return _literals(cells)[0]


def _literals(cells: list[dict]) -> tuple[dict[str, object], dict[str, str]]:
    renamed = renames.old_variables()
    values: dict[str, object] = {}
    problems: dict[str, str] = {}
    for cell in cells:
        meta = (cell.get("metadata") or {}) if isinstance(cell, dict) else {}
        meta = meta.get("nbgrader") if isinstance(meta, dict) else None
        if not isinstance(meta, dict) or cell.get("cell_type") != "code" \
                or not meta.get("solution"):
            continue
        grade_id = str(meta.get("grade_id", "?"))
        source = cell_source(cell)
        size = len(source.encode("utf-8", errors="replace"))
        if size > MAX_CELL_BYTES:  # refused before parsing
            problems[grade_id] = too_large(size, MAX_CELL_BYTES, "answer cell")
            continue
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):  # a null byte, nesting
            problems[grade_id] = "syntax error"
            continue
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                    and isinstance(node.targets[0], ast.Name):
                name = renamed.get(node.targets[0].id, node.targets[0].id)
                try:
                    values[name] = ast.literal_eval(node.value)
                except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                    values.pop(name, None)
                    problems[grade_id] = "not a literal"
    return values, problems


def read_key(notebook: Path = KEY_NOTEBOOK) -> dict[int | str, object]:
    """{question: key} from the instructor notebook's hidden tests, the ``grade(N, answer,
    key)`` calls (the one place the key is written); a lab's keyed answer cells are named by
    their variable (``grade("slopes", slopes, key)``)."""
    key: dict[int | str, object] = {}
    for cell in _cells(notebook):
        try:
            tree = ast.parse(cell_source(cell))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and len(node.args) == 3 and (
                    getattr(node.func, "attr", None) == "grade"
                    or getattr(node.func, "id", None) == "grade"):
                which = ast.literal_eval(node.args[0])
                if isinstance(which, int | str):
                    key[which] = ast.literal_eval(node.args[2])
    return key


def learner_notebook(name: str = NOTEBOOK) -> Path | None:
    """The learner's quiz (or lab ``name``): notebooks/ of the current folder or of the
    repository (in English, notebooks/en/ first), or the current folder itself (a class
    release)."""
    bases = [Path.cwd() / "notebooks", ROOT / "notebooks"]
    en = language() == "en"
    folders = [f for base in bases for f in ((base / "en", base) if en else (base,))]
    folders.append(Path.cwd())
    for folder in folders:
        path = folder / f"{name}.ipynb"
        if path.is_file():
            return path
    return None


@dataclass
class QuizReport:
    """The quiz's state for the progress report: per question, right/wrong/...; or why no
    score can be given here."""

    statuses: dict[int, str]
    unavailable: str = ""  # a sentence: why the score is not available here

    @property
    def right(self) -> int:
        return sum(s == "right" for s in self.statuses.values())

    @property
    def passed(self) -> bool:
        return not self.unavailable and self.right >= pass_mark(len(self.statuses))


def report(notebook: Path | None = None, key_notebook: Path = KEY_NOTEBOOK) -> QuizReport:
    """Score the learner's saved quiz against the key, when both are here."""
    notebook = notebook or learner_notebook()
    if notebook is None or not notebook.is_file():
        return QuizReport({}, _("the quiz notebook was not found"))
    if not key_notebook.is_file():
        return QuizReport({}, _("the answer key is not here (a class release, or solutions/ "
                                "hidden until you commit): your instructor, or the key once "
                                "you restore solutions/, gives the score"))
    answers, key = read_answers(notebook), read_key(key_notebook)
    return QuizReport({q.number: judge(q.number, answers.get(q.variable), key.get(q.number))
                       for q in QUESTIONS})


def lines(rep: QuizReport) -> list[str]:
    """The quiz's section of the progress report: score, pass mark, and where to re-read."""
    title = t("Quiz 08 ({notebook}.ipynb)", notebook=NOTEBOOK)
    if rep.unavailable:
        return [t("{title}: no score here: {why}", title=title, why=rep.unavailable)]
    count = len(rep.statuses)
    out = [t("{title}: {right}/{count} right · {need} needed to pass (70 %) · {verdict}",
             title=title, right=rep.right, count=count, need=pass_mark(count),
             verdict=_("passed") if rep.passed else _("not passed yet"))]
    words = {"wrong": _("wrong"), "malformed": _("not in the asked form")}
    for number, status in rep.statuses.items():
        if status in words:
            out.append(f"  {words[status]}: {where_to_read(BY_NUMBER[number])}")
    todo = [str(n) for n, s in rep.statuses.items() if s == "unanswered"]
    if todo:
        out.append("  " + t("unanswered (or not a literal in the saved notebook): {numbers}",
                            numbers=", ".join(todo)))
    return out
