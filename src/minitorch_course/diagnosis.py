"""Name the likely mistake behind a failed check, in one or two sentences.

A checker that says only "mismatch" leaves the learner to guess; this module compares what
minitorch produced with the right answer (PyTorch's, or central differences) and classifies the
difference. Every function returns a ``Diagnosis``: a ``kind`` (a stable keyword the tests and
``make check`` use) and the sentence(s) shown to the learner.

The classification works from OBSERVED values only (shapes, gradients, the upstream gradient,
the exception), never from the learner's source, so it names a mistake the same way wherever it
was made: in ``unbroadcast``, in the engine, or inside one op's ``_backward``. In order:

1. no gradient at all; a gradient of the wrong shape (reverse broadcasting missing, keepdims
   lost, transposed, reshaped);
2. a known wrong answer: what a classic mistake for THIS op would produce, recomputed from the
   inputs and the upstream gradient (softmax without the sum term, exp's backward using the
   input, relu multiplied by its output, max's ties not split, getitem's repeated indices
   assigned...);
3. zeros, a flipped sign, a transpose, a constant factor (double counting, a mean divisor, the
   batch size);
4. wrong only on ties (max) or at repeated indices (getitem), only where it should be zero.

Crashes get the same treatment: a ``GradShapeError`` names the axes to sum, a NumPy broadcasting
error prints the shapes aligned to the right, a ``RecursionError`` names the recursive sort.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from minitorch_course.catalog import Case, Op

Shape = tuple[int, ...]

# kind -> what the table and the summaries call it
KINDS: dict[str, str] = {
    "reverse-broadcast": "reverse broadcasting missing",
    "keepdims": "keepdims lost",
    "transpose": "transposed",
    "reshape": "right elements, wrong shape",
    "shape": "wrong gradient shape",
    "missing-grad": "no gradient reached the input",
    "zero": "zero where it should not be",
    "sign": "sign flipped",
    "factor": "off by a constant factor",
    "ties": "wrong on ties",
    "repeated-indices": "wrong at repeated indices",
    "softmax-sum-term": "softmax backward without the sum term",
    "exp-uses-input": "exp's backward uses the input",
    "local-derivative": "wrong local derivative",
    "unstable-forward": "numerically unstable forward",
    "unstable-backward": "numerically unstable backward",
    "forward": "forward wrong",
    "forward-shape": "forward has the wrong shape",
    "recursion": "recursive topological sort",
    "double-counting": "a node visited twice (double counting)",
    "topological-order": "wrong topological order",
    "accumulate": "gradient overwritten instead of accumulated",
    "freed-graph": "graph not freed / retain_graph ignored",
    "engine": "engine bug",
    "shape-error": "shape error",
    "crash": "crash",
    "values": "wrong values",
}


@dataclass(frozen=True)
class Diagnosis:
    """The likely mistake: a stable ``kind`` (see ``KINDS``) and the learner-facing ``text``."""

    kind: str
    text: str

    def __str__(self) -> str:
        return self.text

    @property
    def label(self) -> str:
        return KINDS.get(self.kind, self.kind)


# ---------------------------------------------------------------- shapes
def fmt(shape: Shape) -> str:
    """(3,) and (4, 3) written like NumPy."""
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def reducible(full: Shape, shape: Shape) -> bool:
    """True when ``shape`` broadcasts to ``full`` (so ``full`` can be summed back down to it)."""
    if len(shape) > len(full):
        return False
    extra = len(full) - len(shape)
    return all(n == m or n == 1 for n, m in zip(shape, full[extra:]))


def broadcast_axes(shape: Shape, full: Shape) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The axes of ``full`` that broadcasting ``shape`` created: (added in front, stretched 1s)."""
    extra = len(full) - len(shape)
    lead = tuple(range(extra))
    ones = tuple(i + extra for i, n in enumerate(shape) if n == 1 and full[i + extra] != 1)
    return lead, ones


def reduce_to(grad: np.ndarray, shape: Shape) -> np.ndarray | None:
    """``grad`` summed down to ``shape`` by the broadcasting rule, or None if impossible."""
    if not reducible(grad.shape, shape):
        return None
    lead, ones = broadcast_axes(shape, grad.shape)
    g = grad.sum(axis=ones, keepdims=True) if ones else grad
    return g.sum(axis=lead) if lead else g


def broadcast_report(shapes: list[Shape], names: list[str] | None = None) -> str:
    """The shapes aligned to the right (a dimension table) and what happens on every axis."""
    from minitorch.errors import broadcast_table

    names = names or [f"shape {i}" for i in range(len(shapes))]
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(None,) * (ndim - len(s)) + tuple(s) for s in shapes]
    words = []
    for i, column in enumerate(zip(*padded)):
        sizes = [n for n in column if n is not None]
        big = {n for n in sizes if n != 1}
        axis = i - ndim
        if len(big) > 1:
            words.append(f"axis {axis}: {' vs '.join(map(str, sizes))} clash")
        elif len(set(sizes)) > 1 or len(sizes) < len(column):
            size = big.pop() if big else 1
            words.append(f"axis {axis}: broadcast to {size}")
    table = broadcast_table(shapes, names)
    return table + ("\n" + "; ".join(words) if words else "")


def explain_grad_shape(got: Shape, want: Shape, got_array: np.ndarray | None = None,
                       want_array: np.ndarray | None = None, subject: str = "") -> Diagnosis:
    """A gradient of shape ``got`` where the input has shape ``want``: which mistake fits.

    ``subject`` is the clause that says where ``got`` came from (default: "the gradient has
    shape ...").
    """
    got, want = tuple(got), tuple(want)
    subject = subject or f"the gradient has shape {fmt(got)}"
    if reducible(got, want):
        lead, ones = broadcast_axes(want, got)
        parts = []
        if lead:
            parts.append(f"{_axes(lead)} added in front by broadcasting")
        if ones:
            parts.append(f"{_axes(ones)} where the input has size 1, with keepdims=True")
        same = ""
        if got_array is not None and want_array is not None:
            reduced = reduce_to(got_array, want)
            if reduced is not None and _close(reduced, want_array):
                same = " Once summed, its values are exactly right."
        return Diagnosis("reverse-broadcast", (
            f"Reverse broadcasting missing: sum over axes {_axes(lead + ones)} "
            f"({'; '.join(parts)}). Here {subject}, "
            f"but the input is {fmt(want)}: summing the gradient back down to the input's "
            f"shape is unbroadcast's job.{same}"))
    squeezed = tuple(n for n in want if n != 1)
    if got != want and tuple(n for n in got if n != 1) == squeezed and len(got) < len(want):
        return Diagnosis("keepdims", (
            f"keepdims lost: {subject} but the input is {fmt(want)}: its size-1 axes were summed "
            "away. Sum over them with keepdims=True (or np.expand_dims them back) so the "
            "gradient keeps the input's shape."))
    if len(got) == len(want) and sorted(got) == sorted(want) and got != want:
        return Diagnosis("transpose", (
            f"Transposed: {subject}, a permutation of the input's {fmt(want)}. A transpose's "
            "backward applies the INVERSE permutation (np.argsort(axes)); on a batched array .T "
            "reverses every axis, swap only the last two (np.swapaxes(x, -1, -2))."))
    if math.prod(got) == math.prod(want):
        return Diagnosis("reshape", (
            f"Right number of elements, wrong shape: {subject} but the input is {fmt(want)}; "
            "reshape it back to the input's shape."))
    return Diagnosis("shape", (
        f"Wrong gradient shape: {subject} but it must have the input's shape {fmt(want)}. "
        "Shapes aligned to the right:\n" + broadcast_report([want, got], ["input", "gradient"])))


def _axes(axes: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, axes)) + ("," if len(axes) == 1 else "") + ")"


def _close(a: np.ndarray, b: np.ndarray, rtol: float = 1e-6, atol: float = 1e-9) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


# ---------------------------------------------------------------- known wrong answers
def _axis_of(op: Op, case: Case, x: np.ndarray) -> tuple[int, ...]:
    axis = case.kwargs.get("axis")
    if axis is None or x.ndim == 0:
        return tuple(range(x.ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(sorted(a % x.ndim for a in axes))


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _phi(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(standard normal CDF, density) at x."""
    cdf = 0.5 * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0))) if x.size else x.copy()
    return np.asarray(cdf, dtype=np.float64), np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def _reduced_upstream(g: np.ndarray, x: np.ndarray, case: Case, op: Op) -> np.ndarray:
    """A reduction's upstream gradient with its reduced axes back as 1s."""
    axes = _axis_of(op, case, x)
    return g if case.kwargs.get("keepdims") else np.expand_dims(g, axes)


Predictor = Callable[[list[np.ndarray], np.ndarray, Case, int], np.ndarray | None]


def _mistakes(op: Op) -> list[tuple[str, str, Predictor]]:
    """(kind, explanation, what the mistake's gradient would be) for classic mistakes of ``op``."""
    m = op.method
    out: list[tuple[str, str, Predictor]] = []
    if m == "exp":
        out.append(("exp-uses-input", "exp's backward multiplied the upstream gradient by the "
                    "INPUT a; the derivative of e^a is e^a itself: multiply by the forward's "
                    "output (save it in the forward, the closure can reuse it).",
                    lambda xs, g, c, i: g * xs[0]))
    elif m == "relu":
        out += [
            ("local-derivative", "relu's backward multiplied by relu(a), the OUTPUT; the "
             "derivative of max(a, 0) is the step 1[a > 0]: g * (a > 0).",
             lambda xs, g, c, i: g * np.maximum(xs[0], 0.0)),
            ("local-derivative", "relu's backward multiplied by the input a; the derivative is "
             "the step 1[a > 0]: g * (a > 0).", lambda xs, g, c, i: g * xs[0]),
            ("local-derivative", "relu's mask is inverted: the gradient flows where a < 0; it "
             "must flow where a > 0.", lambda xs, g, c, i: g * (xs[0] < 0)),
            ("local-derivative", "relu's backward passed the upstream gradient everywhere; it "
             "must be zero where a <= 0: g * (a > 0).", lambda xs, g, c, i: g.copy()),
        ]
    elif m == "gelu":
        def gelu_cdf_only(xs, g, c, i):
            if c.kwargs.get("approximate", "none") == "tanh":
                k = math.sqrt(2.0 / math.pi)
                return g * 0.5 * (1.0 + np.tanh(k * (xs[0] + 0.044715 * xs[0] ** 3)))
            return g * _phi(xs[0])[0]

        def gelu_pdf_only(xs, g, c, i):
            if c.kwargs.get("approximate", "none") == "tanh":
                return None
            return g * xs[0] * _phi(xs[0])[1]

        out += [
            ("local-derivative", "gelu's backward kept only Φ(a): gelu(a) = a·Φ(a) is a "
             "product, so its derivative is Φ(a) + a·φ(a) (product rule; φ is the normal "
             "density e^(-a²/2)/√(2π)).", gelu_cdf_only),
            ("local-derivative", "gelu's backward kept only a·φ(a): the product rule gives "
             "Φ(a) + a·φ(a).", gelu_pdf_only),
        ]
    elif m == "tanh":
        out.append(("local-derivative", "tanh's derivative is 1 - tanh²(a), not 1 - tanh(a): "
                    "square the output.", lambda xs, g, c, i: g * (1.0 - np.tanh(xs[0]))))
    elif m == "sigmoid":
        def sig(x):
            return 1.0 / (1.0 + np.exp(-x))

        out += [
            ("local-derivative", "sigmoid's derivative is σ(a)(1 - σ(a)); the backward "
             "multiplied by σ(a) only.", lambda xs, g, c, i: g * sig(xs[0])),
            ("local-derivative", "sigmoid's derivative is σ(a)(1 - σ(a)), written with the "
             "output s = σ(a), not with the input a.",
             lambda xs, g, c, i: g * xs[0] * (1.0 - xs[0])),
        ]
    elif m == "pow":
        out.append(("local-derivative", "power rule off by one: d/da a^b = b·a^(b-1), not "
                    "b·a^b.", lambda xs, g, c, i: (
                        None if i != 0 else g * _exponent(xs, op) * xs[0] ** _exponent(xs, op))))
    elif m == "softmax":
        def no_sum(xs, g, c, i):
            return _softmax(xs[0], c.kwargs.get("axis", -1)) * g

        def diagonal(xs, g, c, i):
            s = _softmax(xs[0], c.kwargs.get("axis", -1))
            return s * (1.0 - s) * g

        out += [
            ("softmax-sum-term", "Softmax backward without the sum term: it returned s·g, but "
             "every output depends on every input of its row, so it is s·(g - Σ g·s) (sum along "
             "the softmax axis, keepdims=True).", no_sum),
            ("softmax-sum-term", "Softmax backward used only the Jacobian's diagonal s·(1 - s); "
             "the off-diagonal terms -s_i·s_j give the sum term: s·(g - Σ g·s).", diagonal),
        ]
    elif m == "log_softmax":
        def ls_no_sum(xs, g, c, i):
            return g.copy()

        def ls_no_axis_sum(xs, g, c, i):
            return g - _softmax(xs[0], c.kwargs.get("axis", -1)) * g

        out += [
            ("softmax-sum-term", "log_softmax backward without the sum term: it returned g, "
             "but log Σ e^a depends on every input too: g - softmax(a)·Σ g (sum along the axis, "
             "keepdims=True).", ls_no_sum),
            ("softmax-sum-term", "log_softmax backward: the softmax must multiply Σ g (the sum "
             "along the axis), not g itself: g - softmax(a)·Σ g.", ls_no_axis_sum),
        ]
    elif m == "cross_entropy":
        def ce_no_onehot(xs, g, c, i):
            z = xs[0]
            return _softmax(z, 1) * g / z.shape[0]

        out.append(("local-derivative", "cross-entropy's gradient is (softmax(z) - onehot(y)) "
                    "/ N: the -1 at each row's target class is missing.", ce_no_onehot))
    elif m == "max":
        def ties_not_split(xs, g, c, i):
            x = xs[0]
            axes = _axis_of(op, c, x)
            top = x.max(axis=axes, keepdims=True)
            return (x == top) * _reduced_upstream(g, x, c, op)

        out.append(("ties", "Wrong on ties: every tied maximum received the whole upstream "
                    "gradient. torch.amax splits it evenly among them: divide by the number "
                    "of ties (winners.sum(axis, keepdims=True)).", ties_not_split))
    elif m == "getitem":
        def assigned(xs, g, c, i):
            full = np.zeros_like(xs[0])
            full[c.kwargs["index"]] = g
            return full

        out.append(("repeated-indices", "Wrong at repeated indices: the backward ASSIGNED "
                    "full[index] = g, so an index that appears twice keeps only its last "
                    "gradient. It must receive the sum of all of them: np.add.at(full, index, g).",
                    assigned))
    elif m in ("sum", "mean"):
        def no_expand(xs, g, c, i):
            x = xs[0]
            if c.kwargs.get("keepdims") or g.ndim == x.ndim:
                return None
            try:
                full = np.broadcast_to(g, x.shape).copy()
            except ValueError:
                return None
            axes = _axis_of(op, c, x)
            count = math.prod(x.shape[a] for a in axes) if m == "mean" else 1
            return full / count

        out.append(("keepdims", f"keepdims lost in {m}'s backward: the upstream gradient was "
                    "broadcast without putting the reduced axes back first, so its values landed "
                    "on the wrong axis. np.expand_dims(g, axes) before np.broadcast_to.",
                    no_expand))
    return out


def _exponent(xs: list[np.ndarray], op: Op) -> np.ndarray | float:
    return xs[1] if len(xs) > 1 else 3.0  # pow_scalar is a ** 3


def _known_mistake(op: Op, case: Case, index: int, inputs: list[np.ndarray] | None,
                   upstream: np.ndarray | None, got: np.ndarray, rtol: float, atol: float
                   ) -> Diagnosis | None:
    if inputs is None or upstream is None:
        return None
    for kind, text, predict in _mistakes(op):
        try:
            with np.errstate(all="ignore"):
                wrong = predict(inputs, upstream, case, index)
        except Exception:  # a predictor that does not apply to this case
            continue
        if wrong is not None and np.shape(wrong) == got.shape and _close(got, wrong, rtol, atol):
            return Diagnosis(kind, text)
    return None


# ---------------------------------------------------------------- gradients
def explain_gradient(op: Op, case: Case, index: int, x: np.ndarray, got: np.ndarray | None,
                     want: np.ndarray, *, inputs: list[np.ndarray] | None = None,
                     upstream: np.ndarray | None = None, rtol: float = 1e-6,
                     atol: float = 1e-9) -> Diagnosis:
    """The likely mistake when input ``index``'s gradient is ``got`` instead of ``want``.

    ``inputs`` and ``upstream`` (the gradient fed to ``backward``) let the known mistakes of the
    op be recomputed; ``rtol``/``atol`` say how exact ``want`` is (looser for central differences).
    """
    if got is None:
        return Diagnosis("missing-grad", (
            f"No gradient reached input {index}: its .grad is None. The op must list it in "
            "_prev and its _backward must return one gradient per parent, in the same order."))
    got = np.asarray(got, dtype=np.float64)
    if got.shape != want.shape:
        return explain_grad_shape(got.shape, want.shape, got, want)
    if not np.all(np.isfinite(got)) and np.all(np.isfinite(want)):
        return Diagnosis("unstable-backward", (
            "The gradient has inf/NaN where the right one is finite: a numerically unstable "
            "backward (a division by a tiny number, an exponential of a large one); reuse the "
            "forward's stable values (e.g. the softmax) instead of recomputing them."))
    known = _known_mistake(op, case, index, inputs, upstream, got, rtol, atol)
    if known:
        return known
    nonzero = np.abs(want) > max(atol, 1e-12)
    if np.all(got == 0) and nonzero.any():
        return Diagnosis("zero", (
            "The gradient is all zeros where it should not be: backward never wrote it, "
            "returned zeros, or a later write overwrote it."))
    if nonzero.any() and _close(got, -want, rtol, atol):
        return Diagnosis("sign", (
            "Sign flipped: the gradient is exactly the negative of the right one. Check the "
            f"minus signs in {op.method}'s derivative ({op.formula})."))
    if got.ndim >= 2 and got.shape[-1] == got.shape[-2] and nonzero.any() and _close(
            np.swapaxes(got, -1, -2), want, rtol, atol):
        return Diagnosis("transpose", (
            "Transposed: the gradient equals the right one with its last two axes swapped "
            "(for a @ b: grad_a = g @ bᵀ, grad_b = aᵀ @ g)."))
    if nonzero.any():
        ratios = got[nonzero] / want[nonzero]
        r = float(np.median(ratios))
        zero_ok = np.allclose(got[~nonzero], 0.0, atol=max(atol, 1e-12) * 10)
        if (zero_ok and np.isfinite(r) and not np.isclose(r, 1.0, rtol=1e-3)
                and np.allclose(ratios, r, rtol=max(rtol, 1e-6) * 10)):
            return _explain_factor(r, op, case, x, "gradient")
    located = _located(op, case, x, got, want, rtol, atol)
    if located:
        return located
    return Diagnosis("values", (
        f"Wrong gradient values (no simple pattern: not a factor, a sign or a transpose). "
        f"Re-derive {op.method}'s local derivative ({op.formula}) and multiply it by the "
        "upstream gradient g."))


def _explain_factor(r: float, op: Op, case: Case, x: np.ndarray, what: str) -> Diagnosis:
    """A constant ratio ``r`` between the learner's values and the right ones."""
    head = f"Off by a constant factor: every element of the {what} is {_ratio(r)} the right one"
    if op.method == "cross_entropy" and x.ndim == 2:
        n = x.shape[0]
        if np.isclose(r, n):
            return Diagnosis("factor", f"{head}. That is the batch size N = {n}: cross-entropy "
                             "is a MEAN over the batch, so its gradient is divided by N too.")
        if np.isclose(r, 1.0 / n):
            return Diagnosis("factor", f"{head}: divided by the batch size N = {n} once too often.")
    if op.method == "mean":
        axes = _axis_of(op, case, x)
        reduced = math.prod(x.shape[a] for a in axes)
        used = reduced / r
        detail = f"the number of elements averaged is {reduced}"
        if np.isclose(used, x.size) and x.size != reduced:
            detail += (f", but it divided by {x.size}, the size of the whole tensor; count only "
                       f"the axes reduced ({_axes(axes)})")
        else:
            detail += f", but it divided by {used:g}"
        return Diagnosis("factor", f"{head}: the mean's divisor is wrong: {detail}.")
    if np.isclose(r, 2.0):
        return Diagnosis("factor", f"{head}: double counting. A contribution was added twice "
                         "(accumulated once too often, a node processed twice, or a stray 2).")
    if np.isclose(r, 0.5):
        return Diagnosis("factor", f"{head}: half of it. A factor 1/2 too many, or one of two "
                         "equal contributions was lost (overwritten instead of accumulated).")
    inv = 1.0 / r
    if r > 0 and np.isclose(inv, round(inv)) and round(inv) > 1:
        return Diagnosis("factor", f"{head}: divided by {round(inv)} once too often (a mean "
                         "divisor or a batch size applied twice).")
    if r > 0 and np.isclose(r, round(r)) and round(r) > 1:
        return Diagnosis("factor", f"{head}: a division by {round(r)} is missing (a mean's "
                         "count or a batch size N).")
    return Diagnosis("factor", f"{head}: the derivative's form is right, its scale is not.")


def _ratio(r: float) -> str:
    if r != 0 and abs(r) < 1 and np.isclose(1.0 / r, round(1.0 / r)):
        return f"1/{round(1.0 / r)} of"
    return f"{r:.4g}×"


def _located(op: Op, case: Case, x: np.ndarray, got: np.ndarray, want: np.ndarray,
             rtol: float, atol: float) -> Diagnosis | None:
    """Wrong only at some telling positions: ties, repeated indices, where it should be zero."""
    wrong = ~np.isclose(got, want, rtol=rtol * 10, atol=atol * 10)
    if not wrong.any():
        return None
    if op.method == "max":
        axes = _axis_of(op, case, x)
        top = x.max(axis=axes, keepdims=True) if x.size else x
        winners = x == top
        ties = winners & (winners.sum(axis=axes, keepdims=True) > 1)
        if ties.any() and not (wrong & ~ties).any():
            return Diagnosis("ties", (
                "Right except on ties: where several elements share the maximum, torch.amax "
                "splits the gradient evenly among them (divide by the number of ties)."))
    if op.method == "getitem" and "index" in case.kwargs:
        counts = np.zeros(x.shape)
        try:
            np.add.at(counts, case.kwargs["index"], 1.0)
        except (IndexError, TypeError, ValueError):
            counts = None
        if counts is not None and (counts > 1).any() and not (wrong & (counts <= 1)).any():
            return Diagnosis("repeated-indices", (
                "Right except at repeated indices: an index that appears twice must receive the "
                "sum of both gradients; use np.add.at(full, index, g), not assignment."))
    zero_wrong = wrong & (got == 0) & (np.abs(want) > 0)
    if zero_wrong.any() and not (wrong & ~zero_wrong).any():
        j = tuple(int(i) for i in np.argwhere(zero_wrong)[0])
        return Diagnosis("zero", (
            f"Zero where it should not be: {int(zero_wrong.sum())} of {got.size} elements are 0 "
            f"but should not be (first at {j}); everything else is right. A mask or a condition "
            "is too strict."))
    return None


# ---------------------------------------------------------------- forward
def explain_forward_shape(op: Op, case: Case, got: Shape, want: Shape) -> Diagnosis:
    """The likely mistake when the forward output has the wrong shape."""
    if "axis" in case.kwargs or "keepdims" in case.kwargs or op.family == "reduction":
        if case.kwargs.get("keepdims") and len(got) < len(want):
            return Diagnosis("keepdims", "keepdims ignored: with keepdims=True each reduced axis "
                             "stays in the output as a 1.")
        return Diagnosis("forward-shape", "Check axis and keepdims: the output drops each "
                         "reduced axis, or keeps it as a 1 with keepdims=True.")
    if len(got) == len(want) and sorted(got) == sorted(want):
        return Diagnosis("forward-shape", "The output's axes are permuted: check the order of "
                         "the axes (transpose/matmul).")
    return Diagnosis("forward-shape", f"The forward output must have the shape torch gives, "
                     f"{fmt(want)}.")


def explain_forward_values(op: Op, got: np.ndarray, want: np.ndarray, case: Case | None = None,
                           inputs: list[np.ndarray] | None = None) -> Diagnosis:
    """The likely mistake when the forward values are wrong (the backward is then not checked)."""
    tail = " The forward is wrong, so the backward was not checked."
    if not np.all(np.isfinite(got)) and np.all(np.isfinite(want)):
        big = max((float(np.abs(a).max()) for a in inputs or [] if a.size), default=0.0)
        at = f" (inputs up to |{big:g}|)" if big else ""
        return Diagnosis("unstable-forward", (
            f"Numerically unstable forward: it overflows to inf/NaN{at} where torch's stays "
            "finite. exp of a large logit overflows: subtract the max first "
            "(log-sum-exp: log Σ e^z = m + log Σ e^(z - m))." + tail))
    nonzero = np.abs(want) > 1e-12
    if nonzero.any() and _close(got, -want):
        return Diagnosis("sign", "Sign flipped in the forward pass." + tail)
    if nonzero.any() and case is not None:
        ratios = got[nonzero] / want[nonzero]
        r = float(np.median(ratios))
        if (np.isfinite(r) and not np.isclose(r, 1.0) and np.allclose(ratios, r, rtol=1e-6)
                and np.allclose(got[~nonzero], 0.0)):
            x = inputs[0] if inputs else np.zeros(())
            d = _explain_factor(r, op, case, x, "output")
            return Diagnosis(d.kind, d.text + tail)
    return Diagnosis("forward", f"The forward values are wrong: compare with the formula "
                     f"{op.formula}." + tail)


# ---------------------------------------------------------------- crashes
_TUPLE = re.compile(r"[(\[]\s*((?:\d+\s*,\s*)*\d*\s*,?)\s*[)\]]")


def shapes_in(text: str) -> list[Shape]:
    """Every shape written like (4, 3), (3,), () or [20,5] in ``text``, in order."""
    found = []
    for m in _TUPLE.finditer(text):
        body = m.group(1).strip()
        if body and not re.search(r"\d", body):
            continue
        found.append(tuple(int(n) for n in re.findall(r"\d+", body)))
    return found


def explain_crash(op: Op, err: BaseException, tb: Any = None, *, case: Case | None = None,
                  inputs: list[np.ndarray] | None = None, stage: str = "",
                  impl: Any = None) -> Diagnosis:
    """A crash inside the implementation: what it most likely means, and where it came from."""
    where = _where(tb)
    text = f"{type(err).__name__}: {err}"
    message = str(err)
    if isinstance(err, RecursionError):
        return Diagnosis("recursion", (
            f"{text}{where}. A recursive depth-first search overflows Python's call stack "
            "(about 1000 frames) on a deep graph; walk it with a while loop over an explicit "
            "stack."))
    in_backward = stage == "backward" or "_backward" in where or "backward" in where
    if type(err).__name__ == "GradShapeError" or "backward returned a gradient" in message:
        shapes = shapes_in(message)
        m = re.search(r"input (\d+)", message)
        index = int(m.group(1)) if m else None
        want = None
        if inputs is not None and index is not None and index < len(inputs):
            want = inputs[index].shape
        got = next((s for s in shapes if want is None or s != want), None)
        if want is None and len(shapes) >= 2:
            got, want = shapes[0], shapes[1]
        if got is not None and want is not None:
            d = _through_unbroadcast(got, want, impl) or explain_grad_shape(got, want)
            return Diagnosis(d.kind, f"{d.text}\n(raised: {text}{where})")
    if isinstance(err, ValueError) and in_backward and op.method == "matmul" and inputs and any(
            a.ndim > 2 for a in inputs):
        return Diagnosis("transpose", (
            f"matmul's backward crashed on batched operands: {text}{where}. On an array with "
            "more than 2 axes, .T (and np.transpose without axes) reverses EVERY axis, batch "
            "axes included; transpose only the last two: np.swapaxes(x, -1, -2)."))
    if isinstance(err, ValueError) and ("broadcast" in message or "could not be" in message):
        shapes = shapes_in(message)
        table = ""
        if len(shapes) >= 2:
            table = "\nShapes aligned to the right:\n" + broadcast_report(shapes[:3])
        if in_backward and op.family == "reduction":
            return Diagnosis("keepdims", (
                f"keepdims lost in {op.method}'s backward: {text}{where}. The upstream gradient "
                "has the reduced shape; put the reduced axes back as size 1 (np.expand_dims(g, "
                "axes), unless keepdims=True) before broadcasting it to the input's shape."
                + table))
        return Diagnosis("shape-error", (
            f"A shape error{' in the backward' if in_backward else ''}: {text}{where}." + table))
    return Diagnosis("crash", f"{text}{where}")


def _through_unbroadcast(got: Shape, want: Shape, impl: Any) -> Diagnosis | None:
    """The engine could not reduce a (got)-shaped gradient to (want): ask the implementation's
    own ``unbroadcast`` what it makes of it, and name its mistake."""
    helper = getattr(impl, "unbroadcast", None)
    if helper is None or not reducible(got, want):
        return None
    grad = np.random.default_rng(0).standard_normal(got)
    try:
        result = np.asarray(helper(grad.copy(), tuple(want)))
    except NotImplementedError:
        return None
    except Exception as err:
        return Diagnosis("reverse-broadcast", (
            f"Reverse broadcasting failed: unbroadcast(grad of shape {fmt(got)}, {fmt(want)}) "
            f"raised {type(err).__name__}: {err}."))
    if result.shape == tuple(want):
        return None
    return explain_grad_shape(result.shape, want, subject=(
        f"unbroadcast(g of shape {fmt(got)}, {fmt(want)}) returns shape {fmt(result.shape)}"))


def _where(tb: Any) -> str:
    """' at tensor.py:123 (add: <line>)' for the deepest frame in the implementation."""
    if not tb:
        return ""
    frames = list(tb)
    impl = [f for f in frames if f.filename.endswith("tensor.py") or f.filename.startswith("<")]
    frame = (impl or frames)[-1]
    line = f": {frame.line.strip()}" if getattr(frame, "line", None) else ""
    name = frame.filename.rsplit("/", 1)[-1]
    return f" at {name}:{frame.lineno} ({frame.name}{line})"


# ---------------------------------------------------------------- engine checks
def explain_engine(row: str, case_name: str, err: BaseException) -> Diagnosis:
    """Classify a failure of an engine check (``minitorch_course.engine_checks``)."""
    text = str(err)
    if isinstance(err, RecursionError) or "RecursionError" in text or "recursi" in text.lower():
        return Diagnosis("recursion", text)
    if "more than once" in text:
        return Diagnosis("double-counting", text)
    m = re.search(r"Every element is ([-\d.e+]+)× the right one", text)
    if m:
        r = float(m.group(1))
        if np.isclose(r, 0.5):
            return Diagnosis("accumulate", text + " (Half the right gradient: one of two "
                             "contributions was overwritten instead of accumulated.)")
        if np.isclose(r, 2.0):
            return Diagnosis("double-counting", text)
        if row == "unbroadcast":
            return Diagnosis("factor", text)
    if row == "unbroadcast":
        shapes = shapes_in(text.split(":", 1)[-1])
        m = re.search(r"returned shape (\(.*?\)), expected (\(.*?\))", text)
        if m:
            got, want = shapes_in(m.group(1))[0], shapes_in(m.group(2))[0]
            d = explain_grad_shape(got, want, subject=f"unbroadcast returns shape {fmt(got)}")
            return Diagnosis(d.kind, f"{text}\n{d.text}")
        return Diagnosis("reverse-broadcast" if shapes else "values", text)
    if row == "retain_graph":
        return Diagnosis("freed-graph", text)
    if row == "topological_order":
        return Diagnosis("topological-order", text)
    if "accumulat" in text.lower():
        return Diagnosis("accumulate", text)
    return Diagnosis("engine", text)
