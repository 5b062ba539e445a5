"""Predict, then run: the labs' answer cells (``ANSWER_CELLS``, the one list of them); those of
labs 00-03 are checked here with the course's own numbers, those of labs 04 and 06 with the
instructor's key (``quiz.grade``).

A learner writes an answer in a notebook cell as a plain Python value (a tuple, a list of
lists, a number, a bool), before running anything; the graded cell below it calls
``check_exercise(name, *answers)``. The same call works in a class (nbgrader grades the cell;
the scores of record run it on the answers read as literals) and in self-study (it is an
ordinary cell).

The expected values are computed here, from the exercise's own inputs, by the definition of the
gradient (central differences of the NumPy forward) or, for the questions about shapes and
graphs, by NumPy's broadcasting and the graph's structure: never by a backward rule (the
reference's or the learner's), and never copied from a rendered output. A wrong answer says what is wrong (its
shape, its sign, the node out of order) and where to re-read, not the right value.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from minitorch_course import i18n
from minitorch_course.i18n import _, t


def N_(msgid: str) -> str:  # noqa: N802 (gettext's name): marks a table string for `make messages`
    return msgid


class ExerciseFailure(AssertionError):
    """A wrong answer: the message says what is wrong and where to re-read. In a notebook it is
    shown alone, without the course's frames."""

    def _render_traceback_(self) -> list[str]:
        return str(self).splitlines()


@dataclass(frozen=True)
class Exercise:
    lab: str
    title: str  # N_ (translated when shown)
    reread: str  # N_: where to re-read
    answers: tuple[str, ...]  # the variables the learner fills in, in order
    check: Callable[..., None]  # raises ExerciseFailure
    grade_ids: tuple[str, str] = ("", "")  # (answer cell, check cell); default answer_<name>


def _fail(message: str, exercise: Exercise) -> None:
    raise ExerciseFailure(message + "\n" + t("Re-read: {where}", where=_(exercise.reread)))


def _array(value: Any, name: str, exercise: Exercise) -> np.ndarray:
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        _fail(t("{name} must be numbers (a list of lists for a matrix), not {value!r}",
                name=name, value=value), exercise)
    return array


def _compare(value: Any, expected: np.ndarray, name: str, exercise: Exercise,
             tol: float = 1e-6) -> None:
    got = _array(value, name, exercise)
    if got.shape != expected.shape:
        _fail(t("{name} has shape {got}, but a gradient has the shape of its tensor: {want}",
                name=name, got=tuple(got.shape), want=tuple(expected.shape)), exercise)
    if not np.allclose(got, expected, rtol=0.0, atol=tol):
        wrong = int(np.sum(~np.isclose(got, expected, rtol=0.0, atol=tol)))
        _fail(t("{name}: the shape is right, {wrong} of its {size} values are not",
                name=name, wrong=wrong, size=got.size), exercise)


H = 1e-6  # central differences: exact to ~1e-9 on these small, smooth (or linear) cases


def _numeric_grads(forward: Callable, inputs: list[Any], upstream: Any) -> list[np.ndarray]:
    """d(sum(upstream * forward(*inputs)))/d(each input) by central differences, element by
    element: the definition of the gradient, computed with NumPy's forward only (no backward
    rule of anyone's). At a two-way tie of a max, the central difference is exactly the even
    split the course (and torch.amax) uses: (h - 0) / 2h = 1/2."""
    arrays = [np.array(x, dtype=float) for x in inputs]
    weights = np.asarray(upstream, dtype=float)
    grads = []
    for k, x in enumerate(arrays):
        grad = np.zeros_like(x)
        for index in np.ndindex(x.shape):
            up, down = [a.copy() for a in arrays], [a.copy() for a in arrays]
            up[k][index] += H
            down[k][index] -= H
            grad[index] = np.sum(weights * (forward(*up) - forward(*down))) / (2 * H)
        grads.append(grad)
    return grads


# ---------------------------------------------------------------- lab 00
# The graph of lab 00, section 2: y = x², z = y ⊙ w, s = Σ z; w is a constant.
LAB00_PARENTS: dict[str, tuple[str, ...]] = {"x": (), "w": (), "y": ("x",), "z": ("y", "w"),
                                             "s": ("z",)}
LAB00_CONSTANTS = frozenset({"w"})


def _topological_order(ex: Exercise, order: Any) -> None:
    if not isinstance(order, list | tuple) or not all(isinstance(n, str) for n in order):
        _fail(t("the order must be a list of names, e.g. {example}", example='["x", "y"]'), ex)
    needed = {n for n in LAB00_PARENTS if n not in LAB00_CONSTANTS}
    for name in order:
        if name in LAB00_CONSTANTS:
            _fail(t("{name} is a constant: it needs no gradient, so it is not in the order",
                    name=name), ex)
        if name not in LAB00_PARENTS:
            _fail(t("the graph has no node {name!r}; its nodes are {nodes}", name=name,
                    nodes=sorted(LAB00_PARENTS)), ex)
    if len(set(order)) != len(order):
        _fail(_("a node appears twice: each node enters the order once"), ex)
    missing = sorted(needed - set(order))
    if missing:
        _fail(t("missing nodes that need a gradient: {names}", names=missing), ex)
    seen: set[str] = set()
    for name in order:
        late = [p for p in LAB00_PARENTS[name] if p in needed and p not in seen]
        if late:
            _fail(t("{child} comes before its parent {parent}: parents come first",
                    child=name, parent=late[0]), ex)
        seen.add(name)


LAB00_SHAPE = (3, 5)  # x (and w) of that graph: one verb's person x tense table


def _grad_shapes(ex: Exercise, shape_x: Any, shape_s: Any) -> None:
    x = np.zeros(LAB00_SHAPE)
    w = np.ones(LAB00_SHAPE)
    shapes = {"x": x.shape, "s": np.sum(x**2 * w).shape}  # the graph's forward, in NumPy
    for name, tensor, value in (("grad_x_shape", "x", shape_x), ("grad_s_shape", "s", shape_s)):
        if not isinstance(value, tuple) or not all(isinstance(n, int) for n in value):
            _fail(t("{name} must be a tuple of integers, e.g. (2, 4), or () for a scalar; "
                    "not {value!r}", name=name, value=value), ex)
        if value != shapes[tensor]:
            _fail(t("{name} = {value} is not the shape of {tensor}.grad: a gradient always has "
                    "the shape of its tensor; look at how {tensor} was built",
                    name=name, value=value, tensor=tensor), ex)


# ---------------------------------------------------------------- lab 01
BROADCAST_A = np.zeros((2, 1))
BROADCAST_B = np.zeros((1, 3))
BROADCAST_G = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def _broadcast_sum(ex: Exercise, grad_a: Any, grad_b: Any) -> None:
    want_a, want_b = _numeric_grads(lambda a, b: a + b, [BROADCAST_A, BROADCAST_B],
                                    BROADCAST_G)
    _compare(grad_a, want_a, "grad_a", ex)
    _compare(grad_b, want_b, "grad_b", ex)


DIV_A, DIV_B = 3.0, 2.0  # the sign of d(a/b)/db
POW_A, POW_B = 0.0, 2.0  # d(a**b)/db at a = 0


def _div_pow(ex: Exercise, sign_div: Any, pow_at_zero: Any) -> None:
    db = _numeric_grads(lambda a, b: a / b, [DIV_A, DIV_B], 1.0)[1]
    if sign_div not in (-1, 0, 1) or isinstance(sign_div, bool):
        _fail(t("{name} must be -1, 0 or 1", name="div_sign"), ex)
    if sign_div != int(np.sign(db)):
        _fail(_("the sign of d(a/b)/db is not that one: write the derivative with respect to "
                "the divisor and put in a = 3, b = 2"), ex)
    pb = _numeric_grads(lambda a, b: a**b, [POW_A, POW_B], 1.0)[1]
    got = _array(pow_at_zero, "pow_at_zero", ex)
    if got.shape != () or not math.isfinite(float(got)) or abs(float(got) - float(pb)) > 1e-9:
        _fail(_("d(a**b)/db = a**b · ln a at a = 0 is a limit, 0 · (-∞): for b > 0 the power "
                "wins; work out which value the course (and PyTorch) returns"), ex)


# ---------------------------------------------------------------- lab 02
SUM_TRAP_SHAPES = ((4, 3), (3, 3))  # X.sum(axis=1) backward without re-inserting the axis


def _misplaced(shape: tuple[int, ...]) -> str:
    """What ``np.broadcast_to(g, shape)`` does with g of X.sum(axis=1): an error, a silently
    wrong gradient, or the right one."""
    g = np.arange(1.0, shape[0] + 1.0)  # distinct values: a misplaced axis shows
    right = np.broadcast_to(np.expand_dims(g, 1), shape)
    try:
        naive = np.broadcast_to(g, shape)
    except ValueError:
        return "error"
    return "right" if np.array_equal(naive, right) else "silent"


def _sum_trap(ex: Exercise, error_shape: Any, silent_shape: Any) -> None:
    for name, value in (("error_shape", error_shape), ("silent_shape", silent_shape)):
        if not isinstance(value, tuple) or value not in SUM_TRAP_SHAPES:
            _fail(t("{name} must be one of the two shapes {shapes}", name=name,
                    shapes=" / ".join(map(str, SUM_TRAP_SHAPES))), ex)
    if _misplaced(error_shape) != "error":
        _fail(t("with X of shape {shape}, g has shape {g}: align them to the right and see "
                "whether broadcasting can stretch g to X", shape=error_shape,
                g=(error_shape[0],)), ex)
    if _misplaced(silent_shape) != "silent":
        _fail(t("with X of shape {shape}, the broadcast goes through: then ask whether g[i] "
                "lands in row i or in column i", shape=silent_shape), ex)


MAX_A = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]])
MAX_G = np.array([1.0, 2.0])  # upstream of A.max(axis=1)


def _max_ties(ex: Exercise, grad: Any) -> None:
    (want,) = _numeric_grads(lambda a: a.max(axis=1), [MAX_A], MAX_G)
    _compare(grad, want, "grad_A", ex)


CAT_SHAPES = ((2, 1), (2, 2), (2, 1))  # a, b, c joined along axis 1 -> (2, 4)
CAT_G = np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]])


def _cat(ex: Exercise, grad_a: Any, grad_c: Any) -> None:
    want = _numeric_grads(lambda *ts: np.concatenate(ts, axis=1),
                          [np.zeros(s) for s in CAT_SHAPES], CAT_G)
    _compare(grad_a, want[0], "grad_a", ex)
    _compare(grad_c, want[2], "grad_c", ex)


# ---------------------------------------------------------------- lab 03
MATMUL_A = np.array([[1.0, 2.0], [3.0, 4.0]])
MATMUL_B = np.array([[1.0, 2.0], [0.0, 1.0]])
MATMUL_G = np.array([[1.0, 1.0], [0.0, 2.0]])


def _matmul(ex: Exercise, grad_A: Any, grad_B: Any) -> None:  # noqa: N803 (the maths' names)
    want_a, want_b = _numeric_grads(lambda a, b: a @ b, [MATMUL_A, MATMUL_B], MATMUL_G)
    _compare(grad_A, want_a, "grad_A", ex)
    _compare(grad_B, want_b, "grad_B", ex)


SOFTMAX_Z = np.array([0.0, 0.0, math.log(2.0)])  # softmax = (1/4, 1/4, 1/2)
SOFTMAX_K = 2  # g = e_k


# the classic slips of softmax's backward, each computed from its own (wrong) rule: what the
# answer would be, and what to say; the right answer is never among them (the test checks)
SOFTMAX_SLIPS: tuple[tuple[Callable[[np.ndarray, np.ndarray], np.ndarray], str], ...] = (
    (lambda s, g: s * g, N_(
        "grad_z is s ⊙ g: the sum term is missing. Every output of a softmax depends on every "
        "input of its row, so each z_j also gets gradient through the outputs of the other "
        "classes, even where g is 0")),
    (lambda s, g: s * (1.0 - s) * g, N_(
        "grad_z keeps only the Jacobian's diagonal, s_j(1 - s_j): its off-diagonal entries "
        "-s_i·s_j give the other classes a gradient too")),
    (lambda s, g: s * ((g * s).sum() - g), N_(
        "every value of grad_z has the opposite sign: check which of g and the sum term is "
        "subtracted from the other")),
    (lambda s, g: s * (g - g.sum()), N_(
        "grad_z subtracts the plain sum of g: the sum term weighs each g_j by its probability "
        "s_j")),
    (lambda s, g: s, N_(
        "grad_z is softmax(z) itself, the forward's output: the question asks for the gradient "
        "with respect to z when the upstream gradient is g = e_k")),
)


def _softmax_ek(ex: Exercise, grad_z: Any) -> None:
    (want,) = _numeric_grads(_softmax, [SOFTMAX_Z], np.eye(3)[SOFTMAX_K])
    got = _array(grad_z, "grad_z", ex)
    if got.shape == want.shape and not np.allclose(got, want, rtol=0.0, atol=1e-4):
        s, g = _softmax(SOFTMAX_Z), np.eye(3)[SOFTMAX_K]
        for slip, message in SOFTMAX_SLIPS:
            if np.allclose(got, slip(s, g), rtol=0.0, atol=1e-4):
                _fail(_(message), ex)
    _compare(grad_z, want, "grad_z", ex, tol=1e-4)


CE_LOGITS = np.array([[1000.0, -1000.0, 0.0], [-1000.0, -1000.0, -1000.0]])
CE_TARGETS = np.array([1, 2])


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _ce_extremes(ex: Exercise, fused_loss: Any, naive_finite: Any) -> None:
    rows = np.arange(len(CE_TARGETS))
    z = CE_LOGITS - CE_LOGITS.max(axis=1, keepdims=True)  # log-sum-exp, the max subtracted
    fused = float(np.mean(np.log(np.exp(z).sum(axis=1)) - z[rows, CE_TARGETS]))
    with np.errstate(all="ignore"):  # the naive route: probabilities, then their logarithm
        naive = float(-np.log(_softmax(CE_LOGITS)[rows, CE_TARGETS]).mean())
    got = _array(fused_loss, "fused_loss", ex)
    if got.shape != () or not abs(float(got) - fused) <= 1e-3:
        _fail(_("the fused loss is not that one: per row, -(z_target - max - log Σ e^(z - max)); "
                "then the mean over the two rows"), ex)
    if not isinstance(naive_finite, bool):
        _fail(t("{name} must be True or False", name="naive_finite"), ex)
    if naive_finite != math.isfinite(naive):
        _fail(_("follow the naive route step by step: the target's probability in row 0, "
                "then its logarithm"), ex)


EXERCISES: dict[str, Exercise] = {
    "topo_order": Exercise(
        "00-tensor-skeleton", N_("the topological order of lab 00's graph"),
        N_("theory/01, 'Without recursion'; lab 00, section 3"), ("topo_order",),
        _topological_order),
    "grad_shapes": Exercise(
        "00-tensor-skeleton", N_("the shapes of the gradients"),
        N_("theory/01, 'The six fields of a `Tensor`'; lab 00, section 1"),
        ("grad_x_shape", "grad_s_shape"), _grad_shapes,
        grade_ids=("exercise_shapes", "check_exercise_shapes")),
    "bcast_sum": Exercise(
        "01-elementwise-ops", N_("the two gradients of a (2, 1) + (1, 3) sum"),
        N_("theory/02, 'The backward rule' of broadcasting; lab 01, section 2"),
        ("grad_a", "grad_b"), _broadcast_sum),
    "div_pow": Exercise(
        "01-elementwise-ops", N_("the sign of d(a/b)/db and d(a**b)/db at a = 0"),
        N_("theory/02, elementwise table and 'pow at base 0'"),
        ("div_sign", "pow_at_zero"), _div_pow),
    "sum_trap": Exercise(
        "02-reductions-and-shapes", N_("which shape fails loudly and which silently"),
        N_("theory/02, 'sum': why expand_dims is needed"),
        ("error_shape", "silent_shape"), _sum_trap),
    "max_ties": Exercise(
        "02-reductions-and-shapes", N_("the gradient of a max with ties"),
        N_("theory/02, 'max'"), ("grad_A",), _max_ties),
    "cat_axis1": Exercise(
        "02-reductions-and-shapes", N_("the gradients of a concatenation along axis 1"),
        N_("theory/02, shape operations table and its notes"), ("grad_a", "grad_c"), _cat),
    "matmul_2x2": Exercise(
        "03-matmul-softmax-ce", N_("a 2 × 2 matmul's gradients"),
        N_("theory/03, section 1.1 and 1.2"), ("grad_A", "grad_B"), _matmul),
    "softmax_ek": Exercise(
        "03-matmul-softmax-ce", N_("a 3-class softmax backward with g = e_k"),
        N_("theory/03, sections 4.1 and 4.2"), ("grad_z",), _softmax_ek),
    "ce_1000": Exercise(
        "03-matmul-softmax-ce", N_("the losses of logits of ±1000"),
        N_("theory/03, section 5"), ("fused_loss", "naive_finite"), _ce_extremes),
}


def answer_cell(name: str) -> str:
    """The nbgrader grade_id of exercise ``name``'s graded cell (``check_answer_<name>``)."""
    return EXERCISES[name].grade_ids[1] or f"check_answer_{name}"


def answer_input_cell(name: str) -> str:
    """The nbgrader grade_id of exercise ``name``'s answer cell (``answer_<name>``)."""
    return EXERCISES[name].grade_ids[0] or f"answer_{name}"


def check_exercise(name: str, *answers: Any) -> None:
    """Check the answers of exercise ``name``; prints a tick, or raises with what is wrong."""
    __tracebackhide__ = True
    exercise = EXERCISES[name]
    if len(answers) != len(exercise.answers):
        raise TypeError(f"{name} takes {len(exercise.answers)} answers: {exercise.answers}")
    unanswered = [var for var, value in zip(exercise.answers, answers) if value is None]
    if unanswered:
        raise NotImplementedError(t(
            "exercise not answered yet: replace None in {names} ({notebook})",
            names=", ".join(unanswered), notebook=i18n.notebook(exercise.lab)))
    try:
        exercise.check(exercise, *answers)
    except ExerciseFailure:
        raise
    except Exception as err:  # noqa: BLE001 - an answer of an unexpected kind
        _fail(t("this answer cannot be read ({error}): follow the format the question gives",
                error=type(err).__name__), exercise)
    print("✓", t("exercise: {title}", title=_(exercise.title)))


# ---------------------------------------------------------------- every lab's answer cells
@dataclass(frozen=True)
class AnswerCell:
    """One graded answer cell of a lab: the one list of them (catalog's cells, the progress
    report and the tests read it). Either ``exercise`` names an entry of EXERCISES (judged here,
    from the course's numbers) or each variable is a keyed question of ``quiz.EXERCISES``
    (judged against the instructor notebook's hidden key, ``quiz.grade``)."""

    grade_id: str
    lab: str
    variables: tuple[str, ...]
    title: str  # N_
    exercise: str = ""
    points: int = 1


def _keyed(grade_id: str, lab: str, *variables: str) -> AnswerCell:
    from minitorch_course import quiz

    return AnswerCell(grade_id, lab, variables, quiz.EXERCISES[variables[0]].topic)


ANSWER_CELLS: tuple[AnswerCell, ...] = tuple(
    AnswerCell(answer_cell(name), ex.lab, ex.answers, ex.title, exercise=name)
    for name, ex in EXERCISES.items()
) + (
    _keyed("check_answer_u_curve", "04-gradcheck-and-properties", "slopes", "log10_best_eps"),
    _keyed("check_answer_passes_with_sum", "04-gradcheck-and-properties", "passes_with_sum"),
    _keyed("check_answer_silu_prime", "06-extension-silu", "silu_prime"),
)

RIGHT, WRONG, UNANSWERED, ANSWERED = "right", "wrong", "unanswered", "answered"


def judge_cell(cell: AnswerCell, answers: dict[str, Any],
               key: dict[int | str, Any] | None) -> str:
    """RIGHT, WRONG or UNANSWERED for the cell's answers (literals read from the learner's
    notebook); ANSWERED when they need a key (``key`` None: solutions/ not here)."""
    from minitorch_course import quiz

    values = [answers.get(var) for var in cell.variables]
    if any(v is None for v in values):
        return UNANSWERED
    if cell.exercise:
        try:
            EXERCISES[cell.exercise].check(EXERCISES[cell.exercise], *values)
        except Exception:  # noqa: BLE001 - a wrong answer, or one of an unexpected kind
            return WRONG
        return RIGHT
    if key is None:
        return ANSWERED
    verdicts = [quiz.judge(var, value, key.get(var))
                for var, value in zip(cell.variables, values, strict=True)]
    return RIGHT if all(v == "right" for v in verdicts) else WRONG


def cell_states(lab: str, notebook: Any = None, key_notebook: Any = None) -> dict[str, str]:
    """{grade_id: state} of ``lab``'s answer cells in the learner's saved notebook (read as
    literals, never run); an empty dict when the notebook is not here."""
    from pathlib import Path

    from minitorch_course import quiz

    path = Path(notebook) if notebook else quiz.learner_notebook(lab)
    if path is None or not path.is_file():
        return {}
    try:
        answers = quiz.read_answers(path)
    except (OSError, ValueError, KeyError, TypeError):  # a notebook that does not parse
        return {}
    key_path = Path(key_notebook) if key_notebook else quiz.ROOT / "solutions" / "notebooks" / \
        f"{lab}.ipynb"
    key = quiz.read_key(key_path) if key_path.is_file() else None
    return {c.grade_id: judge_cell(c, answers, key) for c in ANSWER_CELLS if c.lab == lab}
