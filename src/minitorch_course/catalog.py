"""The ONE catalog of ops. Every suite, every diagnosis, every mutant and every grade reads it.

A row owns everything about its op: how to call it in minitorch and in PyTorch, where its
inputs may live (kept away from kinks and from the log of non-positive numbers), fixed example
cases on the chapter's grammatical-grid shapes (with flags such as "no gradcheck here" as data),
its broadcasting pairs, which family of shapes Hypothesis may draw for it, its lab, its graded
notebook cell and points, and its typical mistakes: what each would do to the output or the
gradient (so the diagnosis can recognise it), the hint shown for it, and the planted version
of it that proves the checks catch it (``minitorch_authoring.mutants``). Adding an op (say
``silu``) is one method in ``tensor.py`` plus one row here.

``fn(m, *tensors, **kwargs)`` receives the implementation module ``m`` (``minitorch.tensor``,
or a learner's or a mutant's) so that every check can run against any implementation;
``ref(torch, *tensors, **kwargs)`` receives the torch module (imported only by the checks).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from minitorch_course.exercises import ANSWER_CELLS
from minitorch_course.i18n import _

Shape = tuple[int, ...]

# each lab's title: English message ids, shown translated (minitorch_course.i18n). THE list of
# labs: make check's groups, the learner's tests (examplar.LAB_FILES), the cells below.
LABS = {
    "00-tensor-skeleton": "Lab 00: the tensor's skeleton",
    "01-elementwise-ops": "Lab 01: elementwise operations",
    "02-reductions-and-shapes": "Lab 02: reductions and shapes",
    "03-matmul-softmax-ce": "Lab 03: matmul, softmax and cross-entropy",
    "04-gradcheck-and-properties": "Lab 04: gradcheck and property tests",
    "05-mlp-grammar": "Lab 05: an MLP on the grammatical grid",
    "06-extension-silu": "Lab 06: the silu extension",
}


# ---------------------------------------------------------------- input domains
@dataclass(frozen=True)
class Domain:
    """Where an input's values are drawn from: |x| in [low, high], sign allowed or not."""

    low: float
    high: float
    signed: bool = True
    unique: bool = False  # no ties (max: the numerical gradient is undefined at a tie)
    # the wide-range case's magnitudes |x| in [wide_low, wide_high] (geometric grid): where the
    # op's forward or backward can overflow, underflow or lose precision
    wide_low: float = 1e-4
    wide_high: float = 1e4
    # a point the draws avoid where torch still defines the gradient: a fixed case sits on it
    kink: float | None = None

    def sample(self, rng: np.random.Generator, shape: Shape) -> np.ndarray:
        """Random values in the domain, deterministic for a given ``rng``."""
        magnitude = rng.uniform(self.low, self.high, size=shape)
        if self.signed:
            magnitude = magnitude * rng.choice([-1.0, 1.0], size=shape)
        return magnitude

    def elements(self):
        """The same domain as a Hypothesis strategy for one element."""
        from hypothesis import strategies as st

        if self.unique:  # a grid 0.01 apart: no two values closer than gradcheck's eps
            lo, hi = round(self.low * 100), round(self.high * 100)
            return st.integers(-hi if self.signed else lo, hi).map(lambda k: k / 100)
        positive = st.floats(self.low, self.high, allow_nan=False, allow_infinity=False)
        return (positive | positive.map(lambda v: -v)) if self.signed else positive


# anything moderate; its wide case reaches 1e4, where an exponential inside an activation
# overflows (e^a is inf beyond a ≈ 709: tanh from e^2a beyond 355, gelu's tanh form beyond 20)
REAL = Domain(0.0, 2.0)
AWAY_FROM_ZERO = Domain(0.2, 2.0, kink=0.0)  # relu's kink: torch defines its gradient there (0)
DIVISOR = Domain(0.2, 2.0, wide_low=1e-3, wide_high=1e3)  # away from the pole at 0
POSITIVE = Domain(0.5, 2.0, signed=False, wide_low=1e-3, wide_high=1e3)  # pow's base
LOG_DOMAIN = Domain(0.5, 2.0, signed=False, wide_low=1e-12, wide_high=1e12)  # log, sqrt
EXPONENT = Domain(0.0, 2.0, wide_low=1e-2, wide_high=3.0)  # pow's exponent: a^b stays finite
NO_TIES = Domain(0.0, 2.0, unique=True)
LOGITS = Domain(0.0, 3.0, wide_low=1e-2, wide_high=1e4)
EXP = Domain(0.0, 2.0, wide_low=1e-3, wide_high=700.0)  # e^700 ≈ 1e304, still finite


# ---------------------------------------------------------------- cases
@dataclass(frozen=True)
class Case:
    """One concrete call: input shapes, keyword arguments, optional fixed input data."""

    shapes: tuple[Shape, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    data: tuple[Any, ...] | None = None  # fixed inputs (ties, huge logits) instead of random
    note: str = ""  # shown in the label only
    gradcheck: bool = field(default=True, repr=False)  # False: central differences mean nothing
    # the inputs given as constants (requires_grad=False): torch gives them no gradient, and the
    # others must still get theirs
    constant: tuple[int, ...] = ()

    @property
    def label(self) -> str:
        shapes = ", ".join(_fmt(s) for s in self.shapes)
        kw = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items() if k not in ("targets",))
        return shapes + (f" [{kw}]" if kw else "") + (f" ({self.shown_note})" if self.note else "")

    @property
    def shown_note(self) -> str:
        """The note in the learner's language (a catalog note; any other note as it is)."""
        return _(self.note) if self.note in CASE_NOTES else self.note


def format_shape(shape: Shape) -> str:
    """A shape written like NumPy: (), (3,), (4, 3). The course's one shape formatter (the
    library, which must not import the course, has its own in minitorch.errors)."""
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


_fmt = format_shape


# ---------------------------------------------------------------- typical mistakes
# The kinds a diagnosis can name (the short taxonomy; the words shown for them live in
# minitorch_course.messages).
KINDS: tuple[str, ...] = (
    "reverse-broadcast", "keepdims", "transposed", "reshaped", "shape", "missing-grad", "zero",
    "sign", "factor", "ties", "repeated-indices", "softmax-sum-term", "exp-uses-input",
    "local-derivative", "unstable-forward", "unstable-backward", "forward", "forward-shape",
    "recursion", "double-counting", "topological-order", "accumulate", "freed-graph", "engine",
    "shape-error", "crash", "values", "swapped-inputs", "missing-upstream", "at-output",
    "wrong-axis", "stale-grad", "aliasing", "constant-operand", "backward-return",
)


@dataclass
class Evidence:
    """What a diagnosis knows about one failure, handed to a mistake's prediction."""

    case: Case
    inputs: list[np.ndarray]
    index: int = 0  # which input's gradient
    upstream: np.ndarray | None = None  # the gradient fed to backward()
    want: np.ndarray | None = None  # the right output or gradient
    stage: str = ""  # forward | backward | gradcheck
    error: BaseException | None = None  # for crashes
    wants: list | None = None  # the right gradient of every input (None where there is none)
    output: np.ndarray | None = None  # the right forward output
    # the right input gradients at other inputs / another upstream: (inputs, upstream) -> grads
    oracle: Callable[[list[np.ndarray], np.ndarray], list] | None = None
    shapes: list = field(default_factory=list)  # the shapes a crash's message names
    code: str = ""  # the line of the implementation a crash was raised at

    @property
    def x(self) -> np.ndarray:
        return self.inputs[self.index] if self.inputs else np.zeros(())

    @property
    def g(self) -> np.ndarray:
        return self.upstream

    @property
    def axes(self) -> tuple[int, ...]:
        """The axes a reduction's ``axis`` keyword names, normalised (all when None)."""
        x, axis = self.inputs[0], self.case.kwargs.get("axis")
        if axis is None or x.ndim == 0:
            return tuple(range(x.ndim))
        return tuple(sorted(a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis)))

    @property
    def reduced(self) -> int:
        """How many elements a reduction combines into each output element."""
        return math.prod(self.inputs[0].shape[a] for a in self.axes)

    @property
    def batch(self) -> int:
        return self.inputs[0].shape[0] if self.inputs and self.inputs[0].ndim else 1


Prediction = Callable[[Evidence], "np.ndarray | None"]


@dataclass(frozen=True)
class Mistake:
    """A typical mistake for a row: a stable id, a kind (``KINDS``), what it predicts, a hint.

    ``predict`` returns the output (stage forward) or input gradient (stage backward) the
    mistake would produce (or a list of candidates), or None where it does not apply; ``where`` returns the positions it
    would get wrong (a mask), for mistakes that are right elsewhere; ``applies`` says whether a
    crash or a wrongly shaped forward fits it. A mistake without any of them is still named by
    the generic diagnosis (a sign, a missing gradient...); ``mutants.PLANTS`` proves it by
    planting it into the reference (kept out of the catalog, which ships to learners).
    The ``hint`` may use {batch}, {reduced}, {size}, {axes}, {formula}, {method}, {raised}.
    """

    id: str
    kind: str
    hint: str = ""
    stages: tuple[str, ...] = ("backward",)  # forward | backward | forward-shape | crash
    predict: Prediction | None = None
    where: Prediction | None = None
    applies: Callable[[Evidence], bool] | None = None


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _normal_cdf(x: np.ndarray) -> np.ndarray:
    cdf = 0.5 * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0))) if x.size else x.copy()
    return np.asarray(cdf, dtype=np.float64)


def _normal_pdf(x: np.ndarray) -> np.ndarray:
    return np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


GELU_C = math.sqrt(2.0 / math.pi)


def _gelu_tanh_terms(a: np.ndarray, inner: float = 1.0, cubic: bool = True):
    """gelu's tanh form, 0.5·a·(1 + tanh u) with u = c(a + 0.044715a³): its product rule's two
    terms, 0.5(1 + tanh u) and 0.5·a·(1 - tanh² u)·u' (``inner`` scales c in u'; ``cubic``
    False drops the 3·0.044715a² of u')."""
    th = np.tanh(GELU_C * (a + 0.044715 * a ** 3))
    du = GELU_C * inner * (1.0 + (3 * 0.044715 * a ** 2 if cubic else 0.0))
    return 0.5 * (1.0 + th), 0.5 * a * (1.0 - th ** 2) * du


def _log_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    z = x - x.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def _axis(k: Evidence) -> int:
    return k.case.kwargs.get("axis", -1)


def _sum_term_keepdims_lost(k: Evidence, log: bool) -> np.ndarray | None:
    """softmax's (or log_softmax's) backward with its per-slice sum taken without keepdims: the
    sums, one per slice, broadcast against the wrong axis (None where they cannot, or where the
    slip changes nothing: along axis 0 or on one axis they still line up)."""
    x, axis = k.x, _axis(k)
    if x.ndim < 2 or axis % x.ndim == 0:
        return None
    s = _softmax(x, axis)
    term = k.g.sum(axis=axis) if log else (k.g * s).sum(axis=axis)
    try:
        return k.g - s * term if log else s * (k.g - term)
    except ValueError:
        return None


def _sum_term_keepdims_crash(k: Evidence) -> bool:
    """The backward crashed broadcasting an array of the input's shape against one with the
    op's axis removed: the per-slice sum lost its axis."""
    x = k.x
    if k.stage != "backward" or not isinstance(k.error, ValueError) or x.ndim < 2:
        return False
    reduced = tuple(n for i, n in enumerate(x.shape) if i != _axis(k) % x.ndim)
    return tuple(x.shape) in map(tuple, k.shapes) and reduced in map(tuple, k.shapes)


SUM_TERM_KEEPDIMS_HINT = (
    "{method}'s backward lost the axis of its sum term: that sum is one number per slice along "
    "the op's axis, and it must keep that axis (as a size-1 axis) to line up with its own slice. "
    "Without it the sums line up with the last axis instead: on a square input element (i, j) "
    "gets the sum of slice j, not of slice i, and on most other shapes the arrays do not "
    "broadcast at all.")


def _reduction_of(k: Evidence) -> str:
    return k.case.kwargs.get("reduction", "mean")


def _stack_kept_axis(k: Evidence) -> bool:
    """stack's backward handed input i g's slice with the stacking axis still in it (size 1)."""
    got, want = tuple(k.error.grad_shape), tuple(k.error.expected)
    if len(got) != len(want) + 1:
        return False
    axis = k.case.kwargs.get("axis", 0) % len(got)
    return got[axis] == 1 and got[:axis] + got[axis + 1:] == want


TRANSPOSING = (".T", "transpose", "swapaxes", "moveaxis")  # a line that moves axes


def _reversed_operand(k: Evidence) -> bool:
    """The NumPy error names an operand of more than 2 axes with EVERY axis reversed (.T)."""
    shapes = {tuple(s) for s in k.shapes}
    return any(a.ndim > 2 and tuple(reversed(a.shape)) in shapes for a in k.inputs)


# torch's spellings that NumPy writes otherwise (the diagnosis names them when a crash shows
# one): keyword arguments, and Tensor methods an ndarray lacks (np.exp(x), not x.exp())
TORCH_KEYWORDS = {"keepdim": "keepdims", "dim": "axis"}
TORCH_METHODS = frozenset({"exp", "log", "sqrt", "tanh", "sigmoid", "softmax", "log_softmax",
                           "relu", "abs", "pow", "unsqueeze", "view", "permute", "t", "size",
                           "dim", "clamp", "expand", "numel", "detach", "matmul", "mm", "bmm",
                           "logsumexp", "amax", "exp_"})


def _reduced_upstream(k: Evidence) -> np.ndarray:
    """A reduction's upstream gradient with its reduced axes back as 1s."""
    return k.g if k.case.kwargs.get("keepdims") else np.expand_dims(k.g, k.axes)


def _ties(k: Evidence) -> np.ndarray:
    x = k.x
    top = x.max(axis=k.axes, keepdims=True) if x.size else x
    winners = x == top
    return winners & (winners.sum(axis=k.axes, keepdims=True) > 1)


def _repeated(k: Evidence) -> np.ndarray | None:
    counts = np.zeros(k.x.shape)
    np.add.at(counts, k.case.kwargs["index"], 1.0)
    return counts > 1


def _keepdims_lost(k: Evidence, divide: bool) -> np.ndarray | None:
    """sum's (or mean's) backward broadcasting g without putting the reduced axes back."""
    x = k.x
    if k.case.kwargs.get("keepdims") or k.g.ndim == x.ndim:
        return None
    try:
        full = np.broadcast_to(k.g, x.shape).copy()
    except ValueError:
        return None
    return full / k.reduced if divide else full


def _reduction_backward_crash(k: Evidence) -> bool:
    err = k.error
    return k.stage == "backward" and isinstance(err, ValueError) and (
        "broadcast" in str(err) or "could not be" in str(err))


def _gelu_cdf_only(k: Evidence) -> np.ndarray:
    a = k.x
    if k.case.kwargs.get("approximate", "none") == "tanh":
        c = math.sqrt(2.0 / math.pi)
        return k.g * 0.5 * (1.0 + np.tanh(c * (a + 0.044715 * a ** 3)))
    return k.g * _normal_cdf(a)


REDUCTION_MISTAKES = (
    Mistake("reduction_forward_axes", "forward-shape",
            "Check axis and keepdims: the output drops each reduced axis, or keeps it as a 1 with "
            "keepdims=True.", stages=("forward-shape",), applies=lambda k: True),
    Mistake("reduction_backward_keepdims_crash", "keepdims",
            "keepdims lost in {method}'s backward: {raised}. The upstream gradient has the "
            "reduced shape; the reduced axes must be back in their places, as size-1 axes "
            "(unless keepdims=True kept them), before it can be broadcast to the input's shape.",
            stages=("crash",), applies=_reduction_backward_crash),
    Mistake("reduction_backward_expands_kept_axes", "keepdims",
            "{method}'s backward crashed on a case with keepdims=True: {raised}. With "
            "keepdims=True the upstream gradient already has the reduced axes, as size-1 axes, "
            "and as many axes as the input; only with keepdims=False are they missing from it.",
            stages=("crash",), applies=lambda k: k.stage == "backward"
            and bool(k.case.kwargs.get("keepdims")) and isinstance(k.error, ValueError)),
)
KEEPDIMS_LOST_HINT = ("keepdims lost in {method}'s backward: the upstream gradient was broadcast "
                      "without putting the reduced axes back first (as size-1 axes, where they "
                      "were), so its values landed on the wrong axis.")
EXP_OVERFLOW_HINT = "e^x is inf beyond x ≈ 709: {form}. A stable form: {fix}."
POWER_RULE_HINT = "power rule off by one: d/da a^b = b·a^(b-1), not b·a^b."
POW_SCALAR_EXPONENT = 3.0  # the pow_scalar row is a ** 3
# base 0, where torch defines what the formulas leave as 0·∞ (theory 02): d/db 0^b = 0 for
# b >= 0, d/da a^0 = 0, d/da 0^1 = 1; the gradient at 0^0.5 is inf (no gradcheck here)
POW_ZERO_BASE = Case(((2, 4), (2, 4)), data=([[0.0, 0.0, 0.0, 0.0], [1.5, 0.5, 2.0, 1.0]],
                                             [[2.0, 0.5, 1.0, 0.0], [2.0, -1.0, 0.5, 0.0]]),
                     note="base 0", gradcheck=False)


GRID = (20, 3, 5)  # verbo × persona × tiempo
EMPTY = "size-0 axis"  # the note of a case with an empty axis (no gradcheck: no element to nudge)
# every note a catalog case carries (English message ids, shown translated)
WIDE = "wide range"  # the derived case with magnitudes from tiny to huge (Domain.wide_*)
# a derived case with constant inputs (requires_grad=False): its note, by position
CONSTANT_NOTES = ("input 0 constant", "input 1 constant", "input 2 constant")
ALL_CONSTANT = "every input constant"
DERIVED_NOTES = frozenset({WIDE, ALL_CONSTANT, *CONSTANT_NOTES})
CASE_NOTES = frozenset({EMPTY, "broadcast", "batch broadcast", "kink at 0", "logits ±1e4", "ties",
                        "repeated indices", "repeated pairs", "base 0", WIDE, ALL_CONSTANT,
                        *CONSTANT_NOTES, "target logits far below the max"})
UNARY_CASES = (Case(((),)), Case(((5,),)), Case(((3, 5),)), Case((GRID,)),
               Case(((0, 5),), note=EMPTY, gradcheck=False))
BINARY_CASES = (Case(((3, 5), (3, 5))), Case((GRID, GRID)), Case(((), ())),
                Case(((0, 5), (5,)), note=EMPTY, gradcheck=False))

# The named shape pairs of the broadcasting-backward suite: (left, right).
BROADCAST_PAIRS: tuple[tuple[Shape, Shape], ...] = (
    ((3,), (4, 3)),
    ((4, 1), (1, 3)),
    ((), (2, 3)),
    ((1,), (2, 3, 4)),
    ((2, 1, 4), (3, 1)),
    ((5,), GRID),
    ((3, 5), GRID),
    ((20, 1, 5), (1, 3, 1)),
    ((3, 1), GRID),
    (GRID, (5,)),
)
# matmul's batch broadcasting: (left, right)
MATMUL_BROADCAST_PAIRS: tuple[tuple[Shape, Shape], ...] = (
    ((20, 3, 4), (4, 5)),
    ((3, 4), (20, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 6)),
    ((20, 1, 3, 4), (1, 2, 4, 5)),
    ((4,), (20, 4, 5)),
    ((20, 3, 4), (4,)),
)
# A binary elementwise op runs every pair in both orders.
BINARY_BROADCAST_CASES = tuple(Case(pair, note="broadcast") for pair in
                               BROADCAST_PAIRS + tuple((b, a) for a, b in BROADCAST_PAIRS))
MATMUL_BROADCAST_CASES = tuple(Case(pair, note="batch broadcast")
                               for pair in MATMUL_BROADCAST_PAIRS)


# ---------------------------------------------------------------- op rows
@dataclass(frozen=True, repr=False)
class Op:
    """One catalog row."""

    name: str  # unique row name, e.g. "gelu_tanh"
    method: str  # the Tensor method / function the learner writes, e.g. "gelu"
    lab: str
    fn: Callable[..., Any]  # (m, *tensors, **kwargs) -> minitorch Tensor
    ref: Callable[..., Any]  # (torch, *tensors, **kwargs) -> torch.Tensor
    domains: tuple[Domain, ...]  # one per input (the last repeats for variadic ops)
    cases: tuple[Case, ...]
    family: str  # the Hypothesis shape family: see minitorch_course.strategies
    broadcasting: bool = False  # a binary elementwise op: runs the broadcasting-pairs suite
    formula: str = ""
    points: int = 2  # earned when every graded suite passes (make check and the graded cells)
    mistakes: tuple[Mistake, ...] = ()
    broadcast_cases: tuple[Case, ...] = ()  # the broadcasting-backward suite's cases
    reverse_broadcasts: bool = False  # its gradients go through unbroadcast
    cell: str = ""  # the graded notebook cell (default check_<method>)
    # the cases derived from the row's own (derived_cases): each operand as a constant, and
    # the wide value range; computed, never written in a row
    derived: tuple[Case, ...] = field(init=False, default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.cell:
            object.__setattr__(self, "cell", f"check_{self.method}")
        if self.broadcasting and not self.broadcast_cases:
            object.__setattr__(self, "broadcast_cases", BINARY_BROADCAST_CASES)
        if self.broadcasting or self.broadcast_cases:
            object.__setattr__(self, "reverse_broadcasts", True)
        object.__setattr__(self, "derived", derived_cases(self))

    @property
    def all_cases(self) -> tuple[Case, ...]:
        """What the fixed-case suites run: the row's own cases, then the derived ones."""
        return self.cases + self.derived

    def __repr__(self) -> str:
        return f"Op({self.name!r})"

    def domain(self, i: int) -> Domain:
        return self.domains[min(i, len(self.domains) - 1)]

    def inputs(self, case: Case, seed: int = 0) -> list[np.ndarray]:
        """The case's input arrays: its fixed data, or seeded draws from each input's domain."""
        if case.data is not None:
            return [np.array(d, dtype=np.float64) for d in case.data]
        rng = np.random.default_rng(seed)
        return [self.domain(i).sample(rng, s) for i, s in enumerate(case.shapes)]


def _base_case(op: Op) -> Case:
    """The case the derived cases vary: the first with random values and 2+ elements per input
    (the first case, failing that)."""
    plain = [c for c in op.cases if c.data is None and not c.note and c.shapes
             and all(math.prod(s) >= 2 for s in c.shapes)]
    return next((c for c in plain if all(len(s) >= 2 for s in c.shapes)),
                plain[0] if plain else op.cases[0])


def wide_values(domain: Domain, shape: Shape, k: int = 0) -> np.ndarray:
    """Magnitudes on a geometric grid from ``domain.wide_low`` to ``domain.wide_high`` (both
    included), signs alternating when the domain is signed, the grid rotated by ``k`` so that
    two inputs of one case do not get the same values."""
    n = math.prod(shape)
    grid = np.geomspace(domain.wide_low, domain.wide_high, max(n, 2))[:n]
    if n >= 2:
        grid[-1] = domain.wide_high
    grid = np.roll(grid, k)
    if domain.signed:
        grid = grid * np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    return grid.reshape(shape)


def derived_cases(op: Op) -> tuple[Case, ...]:
    """What every row is also checked on, derived from its base case (tests/minitorch_course/test_catalog.py
    checks that every row has them): the inputs at magnitudes from tiny to huge (``WIDE``; no
    gradcheck: central differences mean nothing there), and each input in turn as a constant
    (requires_grad=False), plus every input constant when there are several."""
    if not op.cases:  # nothing to derive from
        return ()
    base = _base_case(op)
    n = len(base.shapes)
    wide = Case(base.shapes, base.kwargs, tuple(
        wide_values(op.domain(i), s, 3 * i).tolist() for i, s in enumerate(base.shapes)),
        note=WIDE, gradcheck=False)
    constants = [Case(base.shapes, base.kwargs, base.data, CONSTANT_NOTES[i], False, (i,))
                 for i in range(min(n, len(CONSTANT_NOTES)))]
    if n > 1:
        constants.append(Case(base.shapes, base.kwargs, base.data, ALL_CONSTANT, False,
                              tuple(range(n))))
    return (wide, *constants)


def _dims(x, axis) -> tuple[int, ...] | int:
    return tuple(range(x.ndim)) if axis is None else axis


def _torch_sum(t, x, axis=None, keepdims=False):
    return x.sum(dim=_dims(x, axis), keepdim=keepdims)


def _torch_mean(t, x, axis=None, keepdims=False):
    return x.mean(dim=_dims(x, axis), keepdim=keepdims)


def _torch_max(t, x, axis=None, keepdims=False):
    return t.amax(x, dim=_dims(x, axis), keepdim=keepdims)


def _torch_index(index):
    """NumPy index -> torch index (lists stay lists; slices, ints and Ellipsis as they are)."""
    def one(i):
        return list(i) if isinstance(i, list | tuple | np.ndarray) else i

    return tuple(one(i) for i in index) if isinstance(index, tuple) else one(index)


def _torch_getitem(t, a, index):
    """``a[index]`` in torch for a NumPy index, including what torch's indexing lacks: a slice
    with a negative step (the axis is flipped, then sliced forwards) and a boolean mask given
    as an ndarray."""
    parts = list(index) if isinstance(index, tuple) else [index]

    def width(p) -> int:  # how many axes an index part consumes
        return p.ndim if isinstance(p, np.ndarray) and p.dtype == np.bool_ else 1

    axis, out = 0, []
    for p in parts:
        if p is Ellipsis:
            axis += a.dim() - sum(width(q) for q in parts if q is not Ellipsis)
        elif isinstance(p, slice) and (p.step or 1) < 0:
            n = a.shape[axis]
            picked = range(*p.indices(n))
            a = a.flip(axis)
            first = n - 1 - picked[0] if len(picked) else 0
            p = slice(first, first + len(picked) * -p.step, -p.step)
        elif isinstance(p, np.ndarray) and p.dtype == np.bool_:
            p = t.as_tensor(p)
        out.append(p)
        axis += 0 if p is Ellipsis else width(p) if not hasattr(p, "dim") else p.dim()
    return a[_torch_index(tuple(out) if isinstance(index, tuple) else out[0])]


REDUCTION_CASES = (
    Case(((3, 5),)),
    Case((GRID,), {"axis": 1}),
    Case((GRID,), {"axis": (0, 2), "keepdims": True}),
    Case((GRID,), {"axis": -1, "keepdims": False}),
    Case(((3, 5),), {"axis": None, "keepdims": True}),
    Case(((3, 5),), {"axis": ()}),  # every axis, like torch's dim=() (NumPy's () reduces none)
    Case(((),)),
    Case(((0, 5),), {"axis": 1}, note=EMPTY, gradcheck=False),
)
# reducing the empty axis itself: a sum of nothing is 0, a mean of nothing NaN (torch too)
REDUCE_EMPTY_AXIS = Case(((0, 5),), {"axis": 0}, note=EMPTY, gradcheck=False)

# softmax and log_softmax: logits far beyond e^709 (a missing max shift overflows), a negative
# axis that is not the last, an empty axis beside the softmax axis, and an empty softmax axis
ALONG_AXIS_CASES = (
    # each row spans 2e4: shifting by its mean (or min) overflows too; the last row is all far
    # below 0: a max floored at 0 (initial=0 instead of -inf) underflows every exp to 0
    Case(((3, 3),), data=([[1e4, 1e4 - 1.0, -1e4], [-1e4, 1e4 - 2.0, 1e4 - 0.5],
                           [-1e4, -1e4 - 1.0, -1e4 - 3.0]],),
         note="logits ±1e4"),
    Case((GRID,), {"axis": -2}),
    Case(((0, 5),), note=EMPTY, gradcheck=False),
    Case(((3, 0),), note=EMPTY, gradcheck=False),
)

OPS: tuple[Op, ...] = (
    # ------------------------------------------------------------ lab 01: elementwise
    Op("add", "add", "01-elementwise-ops", lambda m, a, b: a + b, lambda t, a, b: a + b,
       (REAL,), BINARY_CASES, "binary", broadcasting=True, formula="a + b"),
    Op("sub", "sub", "01-elementwise-ops", lambda m, a, b: a - b, lambda t, a, b: a - b,
       (REAL,), BINARY_CASES, "binary", broadcasting=True, formula="a - b", mistakes=(
           Mistake("sub_second_forgets_upstream", "missing-upstream"),
       )),
    Op("mul", "mul", "01-elementwise-ops", lambda m, a, b: a * b, lambda t, a, b: a * b,
       (REAL,), BINARY_CASES, "binary", broadcasting=True, formula="a * b", mistakes=(
           Mistake("mul_forgets_second_parent", "missing-grad"),
       )),
    Op("div", "div", "01-elementwise-ops", lambda m, a, b: a / b, lambda t, a, b: a / b,
       (REAL, DIVISOR), BINARY_CASES, "binary", broadcasting=True, formula="a / b",
       mistakes=(
           Mistake("div_quotient_rule_sign", "sign"),
           Mistake("div_gradients_swapped", "swapped-inputs"),
       )),
    Op("pow", "pow", "01-elementwise-ops", lambda m, a, b: a**b, lambda t, a, b: a**b,
       (POSITIVE, EXPONENT), BINARY_CASES + (POW_ZERO_BASE,), "binary", broadcasting=True, points=1, formula="a ** b",
       mistakes=(
           Mistake("pow_power_rule_off_by_one", "local-derivative", POWER_RULE_HINT,
                   predict=lambda k: k.g * k.inputs[1] * k.x ** k.inputs[1]
                   if k.index == 0 else None),
       )),
    Op("pow_scalar", "pow", "01-elementwise-ops", lambda m, a: a**POW_SCALAR_EXPONENT,
       lambda t, a: a**POW_SCALAR_EXPONENT, (REAL,), UNARY_CASES, "unary", points=1,
       formula="a ** 3", mistakes=(
           Mistake("pow_power_rule_off_by_one", "local-derivative", POWER_RULE_HINT,
                   predict=lambda k: k.g * POW_SCALAR_EXPONENT * k.x ** POW_SCALAR_EXPONENT),
       )),
    Op("neg", "neg", "01-elementwise-ops", lambda m, a: -a, lambda t, a: -a,
       (REAL,), UNARY_CASES, "unary", points=1, formula="-a"),
    Op("exp", "exp", "01-elementwise-ops", lambda m, a: a.exp(), lambda t, a: a.exp(),
       (EXP,), UNARY_CASES, "unary", points=1, formula="e^a", mistakes=(
           Mistake("exp_backward_uses_input", "exp-uses-input",
                   "exp's backward multiplied the upstream gradient by the INPUT a; the "
                   "derivative of e^a is e^a itself: multiply by the forward's output (save it "
                   "in the forward, the closure can reuse it).",
                   predict=lambda k: k.g * k.x),
           Mistake("exp_backward_exponentiates_output", "at-output"),
       )),
    Op("log", "log", "01-elementwise-ops", lambda m, a: a.log(), lambda t, a: a.log(),
       (LOG_DOMAIN,), UNARY_CASES, "unary", points=1, formula="ln a"),
    Op("sqrt", "sqrt", "01-elementwise-ops", lambda m, a: a.sqrt(), lambda t, a: a.sqrt(),
       (LOG_DOMAIN,), UNARY_CASES, "unary", points=1, formula="√a", mistakes=(
           Mistake("sqrt_forgets_one_half", "factor"),
       )),
    Op("relu", "relu", "01-elementwise-ops", lambda m, a: a.relu(), lambda t, a: a.relu(),
       (AWAY_FROM_ZERO,), UNARY_CASES + (
           Case(((2, 3),), data=([[-1.5, 0.0, 2.0], [0.0, -0.0, 0.5]],), note="kink at 0",
                gradcheck=False),
       ), "unary", points=1, formula="max(a, 0)", mistakes=(
           Mistake("relu_backward_uses_output", "local-derivative",
                   "relu's backward multiplied by relu(a), the OUTPUT; the derivative of "
                   "max(a, 0) is the step 1[a > 0]: 1 where a > 0, 0 elsewhere, times the "
                   "upstream gradient.",
                   predict=lambda k: k.g * np.maximum(k.x, 0.0)),
           Mistake("relu_backward_uses_input", "local-derivative",
                   "relu's backward multiplied by the input a; the derivative is the step "
                   "1[a > 0]: 1 or 0, never a's value.", predict=lambda k: k.g * k.x),
           Mistake("relu_mask_inverted", "local-derivative",
                   "relu's mask is inverted: the gradient flows where a < 0; it must flow where "
                   "a > 0.", predict=lambda k: k.g * (k.x < 0)),
           Mistake("relu_passes_everything", "local-derivative",
                   "relu's backward passed the upstream gradient everywhere; it must be zero "
                   "where a <= 0 (the step 1[a > 0]).", predict=lambda k: k.g.copy()),
           Mistake("relu_gradient_one_at_zero", "local-derivative",
                   "Wrong at exactly a = 0: relu has a kink there, and torch's convention is "
                   "a gradient of 0: the step 1[a > 0] is strict, so it is 0 at a = 0.",
                   predict=lambda k: k.g * (k.x >= 0), where=lambda k: k.x == 0),
           Mistake("relu_backward_writes_upstream", "aliasing",
                   "relu's backward changed the upstream gradient g in place (g *= mask, "
                   "g[...] = 0): g is the output's .grad, shared with whatever else reads it, "
                   "and the engine hands it read-only. Compute a new array from g instead.",
                   stages=("crash",),
                   applies=lambda k: getattr(k.error, "upstream_written", False)),
       )),
    Op("gelu", "gelu", "01-elementwise-ops", lambda m, a: a.gelu(),
       lambda t, a: t.nn.functional.gelu(a), (REAL,), UNARY_CASES, "unary",
       points=1, formula="a·Φ(a)", mistakes=(
           Mistake("gelu_forgets_product_rule", "local-derivative",
                   "gelu's backward kept only Φ(a): gelu(a) = a·Φ(a) is a product, so its "
                   "derivative is Φ(a) + a·φ(a) (product rule; φ is the normal density "
                   "e^(-a²/2)/√(2π)).", predict=_gelu_cdf_only),
           Mistake("gelu_cdf_without_sqrt2", "forward",
                   "gelu's forward equals a·(1 + erf(a))/2: the normal CDF is "
                   "Φ(a) = (1 + erf(a/√2))/2, with a/√2 inside erf (and its density "
                   "φ(a) = e^(-a²/2)/√(2π) in the backward).", stages=("forward",),
                   predict=lambda k: k.x * 0.5 * (1.0 + np.vectorize(math.erf)(k.x))
                   if k.x.size else None),
           Mistake("gelu_keeps_only_density_term", "local-derivative",
                   "gelu's backward kept only a·φ(a): the product rule gives Φ(a) + a·φ(a).",
                   predict=lambda k: k.g * k.x * _normal_pdf(k.x)),
       )),
    Op("gelu_tanh", "gelu", "01-elementwise-ops", lambda m, a: a.gelu(approximate="tanh"),
       lambda t, a: t.nn.functional.gelu(a, approximate="tanh"), (REAL,), UNARY_CASES, "unary",
       points=1, formula="0.5·a·(1 + tanh(√(2/π)(a + 0.044715a³)))", mistakes=(
           Mistake("gelu_tanh_forgets_product_rule", "local-derivative",
                   "gelu's backward kept only 0.5(1 + tanh u): 0.5·a·(1 + tanh u) is a product, "
                   "so its derivative is 0.5(1 + tanh u) + 0.5·a·(1 - tanh² u)·u' (product "
                   "rule; u = √(2/π)(a + 0.044715a³)).",
                   predict=lambda k: k.g * _gelu_tanh_terms(k.x)[0]),
           Mistake("gelu_tanh_keeps_only_second_term", "local-derivative",
                   "gelu's backward kept only 0.5·a·(1 - tanh² u)·u': the product rule adds "
                   "the term 0.5(1 + tanh u) (the derivative of the factor a, times the rest).",
                   predict=lambda k: k.g * _gelu_tanh_terms(k.x)[1]),
           Mistake("gelu_tanh_inner_derivative", "local-derivative",
                   "gelu's backward has the chain rule's inner derivative wrong: with "
                   "u = √(2/π)(a + 0.044715a³), u' = √(2/π)(1 + 3·0.044715a²), both factors.",
                   predict=lambda k: [k.g * (t0 + t1) for t0, t1 in (
                       _gelu_tanh_terms(k.x, cubic=False),
                       _gelu_tanh_terms(k.x, inner=1.0 / GELU_C),
                       _gelu_tanh_terms(k.x, inner=1.0 / GELU_C, cubic=False))]),
           Mistake("gelu_tanh_forward_overflows", "unstable-forward", EXP_OVERFLOW_HINT.format(
               form="tanh u written with exponentials is inf/inf once u passes ≈ 355, and u "
                    "grows as a³ (a ≈ 20 is enough)",
               fix="np.tanh(u)"), stages=("forward",)),
       )),
    Op("tanh", "tanh", "01-elementwise-ops", lambda m, a: a.tanh(), lambda t, a: a.tanh(),
       (REAL,), UNARY_CASES, "unary", points=1, formula="tanh a", mistakes=(
           Mistake("tanh_derivative_not_squared", "local-derivative",
                   "tanh's derivative is 1 - tanh²(a), not 1 - tanh(a): square the output.",
                   predict=lambda k: k.g * (1.0 - np.tanh(k.x))),
           Mistake("tanh_derivative_sign", "sign"),
           Mistake("tanh_derivative_of_the_input", "local-derivative",
                   "tanh's derivative is 1 - tanh²(a): with the output y = tanh(a) it is 1 - y², "
                   "not 1 - a² (the input squared).", predict=lambda k: k.g * (1.0 - k.x ** 2)),
           Mistake("tanh_uses_sigmoid_rule", "local-derivative",
                   "y·(1 - y) is the sigmoid's derivative; tanh's is 1 - y² (y = tanh(a)).",
                   predict=lambda k: k.g * np.tanh(k.x) * (1.0 - np.tanh(k.x))),
           Mistake("tanh_forward_overflows", "unstable-forward", EXP_OVERFLOW_HINT.format(
               form="(e^a - e^-a)/(e^a + e^-a) is inf/inf beyond |a| ≈ 710 (and "
                    "(e^2a - 1)/(e^2a + 1) beyond a ≈ 355)",
               fix="np.tanh(a), or 1 - 2/(e^2a + 1) written with e^(-2|a|) and the sign of a"),
               stages=("forward",)),
       )),
    Op("sigmoid", "sigmoid", "01-elementwise-ops", lambda m, a: a.sigmoid(),
       lambda t, a: a.sigmoid(), (REAL,), UNARY_CASES, "unary", points=1, formula="1/(1+e^-a)",
       mistakes=(
           Mistake("sigmoid_times_sigma_only", "local-derivative",
                   "sigmoid's derivative is σ(a)(1 - σ(a)); the backward multiplied by σ(a) "
                   "only.", predict=lambda k: k.g * _sigmoid(k.x)),
           Mistake("sigmoid_derivative_of_the_input", "local-derivative",
                   "sigmoid's derivative is σ(a)(1 - σ(a)), written with the output s = σ(a), "
                   "not with the input a.", predict=lambda k: k.g * k.x * (1.0 - k.x)),
           Mistake("sigmoid_forgets_upstream", "missing-upstream"),
           Mistake("sigmoid_uses_tanh_rule", "local-derivative",
                   "1 - s² is tanh's derivative; the sigmoid's is s·(1 - s) (s = σ(a)).",
                   predict=lambda k: k.g * (1.0 - _sigmoid(k.x) ** 2)),
           Mistake("sigmoid_forward_overflows", "unstable-forward", EXP_OVERFLOW_HINT.format(
               form="e^a/(1 + e^a) is inf/inf = NaN beyond a ≈ 709",
               fix="1/(1 + e^-a) for a >= 0 and e^a/(1 + e^a) for a < 0 (the exponent is never "
                   "positive), or the provided stable sigmoid"), stages=("forward",)),
       )),
    # ------------------------------------------------------------ lab 02: reductions, shapes
    Op("sum", "sum", "02-reductions-and-shapes", lambda m, a, **k: a.sum(**k), _torch_sum,
       (REAL,), REDUCTION_CASES + (REDUCE_EMPTY_AXIS,), "reduction", formula="Σ a",
       mistakes=REDUCTION_MISTAKES + (
           Mistake("sum_backward_keepdims_lost", "keepdims", KEEPDIMS_LOST_HINT,
                   predict=lambda k: _keepdims_lost(k, divide=False)),
       )),
    Op("mean", "mean", "02-reductions-and-shapes", lambda m, a, **k: a.mean(**k), _torch_mean,
       (REAL,), REDUCTION_CASES + (REDUCE_EMPTY_AXIS,),
       "reduction", points=1, formula="Σ a / n",
       mistakes=REDUCTION_MISTAKES + (
           Mistake("mean_backward_keepdims_lost", "keepdims", KEEPDIMS_LOST_HINT,
                   predict=lambda k: _keepdims_lost(k, divide=True)),
           Mistake("mean_divides_by_total_size", "factor",
                   "the mean's divisor is wrong: the number of elements averaged is {reduced}, "
                   "but it divided by {size}, the size of the whole tensor; count only the axes "
                   "reduced {axes}.", stages=("forward", "backward", "crash"),
                   predict=lambda k: k.want * k.reduced / k.x.size
                   if k.x.size != k.reduced else None,
                   # on an empty tensor the total size is 0: a ZeroDivisionError
                   applies=lambda k: isinstance(k.error, ZeroDivisionError) and bool(k.inputs)
                   and k.x.size == 0 and k.reduced > 0),
       )),
    Op("max", "max", "02-reductions-and-shapes", lambda m, a, **k: a.max(**k), _torch_max,
       (NO_TIES,), REDUCTION_CASES + (
           Case(((2, 3),), {"axis": 1}, data=([[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]],), note="ties",
                gradcheck=False),
           Case(((2, 2),), {}, data=([[4.0, 4.0], [4.0, 1.0]],), note="ties", gradcheck=False),
       ), "reduction", formula="max a", mistakes=REDUCTION_MISTAKES + (
           Mistake("max_ties_not_split", "ties",
                   "Wrong on ties: every tied maximum received the whole upstream gradient. "
                   "torch.amax splits it evenly among them: divide by the number of ties, "
                   "counted in each slice along the reduced axes.",
                   predict=lambda k: (k.x == k.x.max(axis=k.axes, keepdims=True))
                   * _reduced_upstream(k)),
           Mistake("max_wrong_on_ties", "ties",
                   "Right except on ties: where several elements share the maximum, torch.amax "
                   "splits the gradient evenly among them (divide by the number of ties).",
                   where=_ties),
       )),
    Op("reshape", "reshape", "02-reductions-and-shapes",
       lambda m, a, shape: a.reshape(shape), lambda t, a, shape: a.reshape(shape), (REAL,),
       (Case(((3, 5),), {"shape": (15,)}), Case((GRID,), {"shape": (60, 5)}),
        Case(((3, 5),), {"shape": (5, 3)}), Case(((),), {"shape": (1, 1)}),
        Case(((0, 5),), {"shape": (5, 0)}, note=EMPTY, gradcheck=False)),
       "new-shape", points=1, formula="reshape", mistakes=(
           Mistake("reshape_backward_flattens", "reshaped"),
       )),
    Op("transpose", "transpose", "02-reductions-and-shapes",
       lambda m, a, axes=None: a.transpose(*(axes or ())),
       lambda t, a, axes=None: a.permute(tuple(axes or reversed(range(a.ndim)))), (REAL,),
       (Case(((3, 5),)), Case((GRID,), {"axes": (1, 2, 0)}), Case((GRID,)), Case(((),)),
        Case(((0, 5),), note=EMPTY, gradcheck=False),
        Case((GRID,), {"axes": (-1, 0, 1)})),
       "permutation", points=1, formula="permute axes", mistakes=(
           Mistake("transpose_inverse_is_perm", "transposed"),
           Mistake("transpose_wrong_permutation", "transposed",
                   "transpose's backward permuted g with the wrong permutation: the gradient "
                   "has shape {got}, the input {want}. The backward undoes the forward's "
                   "permutation: it permutes g by the INVERSE permutation (the argsort of "
                   "the permutation), the same only for a permutation that is its own inverse "
                   "(reversing the axes, swapping two).",
                   stages=("grad-shape",),
                   applies=lambda k: len(k.error.grad_shape) == len(k.error.expected) and sorted(
                       k.error.grad_shape) == sorted(k.error.expected)),
       )),
    Op("broadcast_to", "broadcast_to", "02-reductions-and-shapes",
       lambda m, a, shape: a.broadcast_to(shape), lambda t, a, shape: a.broadcast_to(shape),
       (REAL,), (Case(((5,),), {"shape": GRID}), Case(((3, 1),), {"shape": GRID}),
                 Case(((),), {"shape": (3, 5)}),
                 Case(((1, 5),), {"shape": (0, 5)}, note=EMPTY, gradcheck=False),
                 Case(((0, 5),), {"shape": (3, 0, 5)}, note=EMPTY, gradcheck=False)),
       "broadcast-target", points=1, formula="broadcast_to", reverse_broadcasts=True),
    Op("getitem", "getitem", "02-reductions-and-shapes",
       lambda m, a, index: a[index], _torch_getitem, (REAL,),
       (Case(((3, 5),), {"index": (slice(1, None), slice(None, None, 2))}),
        Case((GRID,), {"index": [0, 0, 2, 19]}, note="repeated indices"),
        Case((GRID,), {"index": ([1, 1, 4], slice(None), [0, 0, 2])}, note="repeated pairs"),
        Case(((3, 5),), {"index": (-1, 2)}),
        Case(((0, 5),), {"index": (slice(None), slice(1, 3))}, note=EMPTY, gradcheck=False)),
       "index", formula="a[index]", mistakes=(
           Mistake("getitem_assigns_repeated_indices", "repeated-indices",
                   "Wrong at repeated indices: an index that appears twice kept only one of "
                   "its gradients, as an indexed write does (full[index] = g, and also "
                   "full[index] += g, which NumPy runs as one write per position). It must "
                   "receive the sum of all of them: a write that accumulates, once per "
                   "occurrence (theory 02, 'Indexing with repeated indices').",
                   predict=lambda k: _assigned(k)),
           Mistake("getitem_index_made_an_array", "crash",
                   "getitem's backward crashed: {raised}. A tuple index "
                   "picks along several axes, one entry per axis; np.asarray (or np.array) turns "
                   "it into ONE array, which NumPy cannot use as an index when it holds slices. "
                   "Hand the index on to the write exactly as the forward received it.",
                   stages=("crash",), applies=lambda k: k.stage == "backward" and isinstance(
                       k.error, IndexError) and isinstance(k.case.kwargs.get("index"), tuple)
                   and any(isinstance(p, slice) for p in k.case.kwargs["index"])
                   and ("asarray" in k.code or "np.array(" in k.code)),
           Mistake("getitem_wrong_at_repeated_indices", "repeated-indices",
                   "Right except at repeated indices: an index that appears twice must receive "
                   "the sum of both gradients: a write that accumulates once per occurrence "
                   "(theory 02, 'Indexing with repeated indices'), not an assignment.",
                   where=_repeated),
       )),
    Op("cat", "cat", "02-reductions-and-shapes",
       lambda m, *ts, axis=0: m.cat(ts, axis=axis), lambda t, *ts, axis=0: t.cat(ts, dim=axis),
       (REAL,), (Case(((2, 5), (3, 5))), Case(((3, 2), (3, 4), (3, 1)), {"axis": 1}),
                 Case(((20, 3, 2), (20, 3, 3)), {"axis": -1}),
                 Case(((0, 5), (3, 5)), note=EMPTY, gradcheck=False)),
       "concatenation", points=1, formula="concatenate", mistakes=(
           Mistake("cat_pieces_cut_at_wrong_offsets", "shape",
                   "cat's backward handed input {index} a piece of g of shape {got}, but the "
                   "input is {want}: they differ only along the concatenation axis "
                   "(axis={axis_kw}), so g was cut at the wrong places. Input i's piece starts "
                   "where the inputs before it end: the cut points are the cumulative offsets "
                   "of ALL the inputs' sizes along the axis, one cut between each pair of "
                   "neighbours (so none after the last input).",
                   stages=("grad-shape",), applies=lambda k: _piece_differs(k, along=True)),
           Mistake("cat_pieces_cut_along_wrong_axis", "wrong-axis",
                   "cat's backward handed input {index} a piece of g of shape {got}, but the "
                   "input is {want}: they differ on an axis other than the concatenation axis "
                   "(axis={axis_kw}), so g was cut along the wrong axis: cut it along the "
                   "concatenation axis.",
                   stages=("grad-shape",), applies=lambda k: _piece_differs(k, along=False)),
       )),
    Op("stack", "stack", "02-reductions-and-shapes",
       lambda m, *ts, axis=0: m.stack(ts, axis=axis),
       lambda t, *ts, axis=0: t.stack(ts, dim=axis), (REAL,),
       (Case(((3, 5),) * 3), Case(((3, 5),) * 2, {"axis": -1}), Case(((5,),) * 4, {"axis": 1}),
        Case(((),) * 3), Case(((3, 1),) * 2, {"axis": 1}),
        Case(((0, 5),) * 2, {"axis": 1}, note=EMPTY, gradcheck=False)),
       "same-shapes", points=1, formula="stack", mistakes=(
           Mistake("stack_unstacks_wrong_axis", "wrong-axis",
                   "stack's backward handed input {index} a slice of g of shape {got}, but the "
                   "input is {want}: input i's gradient is g's slice i along the stacking axis "
                   "(axis={axis_kw}), not along another one.",
                   stages=("grad-shape",), applies=lambda k: len(k.error.grad_shape) == len(
                       k.error.expected)),
           Mistake("stack_keeps_stacking_axis", "keepdims",
                   "stack's backward handed input {index} a piece of g of shape {got}: the "
                   "input's {want} with the stacking axis (axis={axis_kw}) still in it, as a 1. "
                   "Input i's gradient is g's slice i along that axis with the axis dropped "
                   "(a slice that takes one index of an axis drops that axis; a split keeps it).",
                   stages=("grad-shape",), applies=_stack_kept_axis),
           Mistake("stack_squeezes_unit_axes", "keepdims",
                   "stack's backward handed input {index} a gradient of shape {got}, but the "
                   "input is {want}: the input's own size-1 axes went too (np.squeeze drops "
                   "every size-1 axis, not only the stacking one). Take slice i along the "
                   "stacking axis, which drops that axis only.", stages=("grad-shape",),
                   applies=lambda k: len(k.error.grad_shape) < len(k.error.expected) and tuple(
                       k.error.grad_shape) == tuple(n for n in k.error.expected if n != 1)),
       )),
    # ------------------------------------------------------------ lab 03
    Op("matmul", "matmul", "03-matmul-softmax-ce", lambda m, a, b: a @ b,
       lambda t, a, b: a @ b, (REAL,),
       (Case(((3, 4), (4, 5))), Case(((4,), (4, 5))), Case(((3, 4), (4,))),
        Case(((4,), (4,))), Case(((20, 3, 4), (20, 4, 5))),
        Case(((3, 0), (0, 5)), note=EMPTY, gradcheck=False)) +
       tuple(Case(pair) for pair in MATMUL_BROADCAST_PAIRS),
       "matrix-operands", formula="a @ b", broadcast_cases=MATMUL_BROADCAST_CASES, mistakes=(
           Mistake("matmul_operand_not_transposed", "transposed",
                   "matmul's backward crashed on plain 2-D operands: {raised}. With a (N, K), "
                   "b (K, M) and g (N, M), grad_a = g @ bᵀ is (N, K) and grad_b = aᵀ @ g is "
                   "(K, M): check which operand each product transposes.",
                   stages=("crash",), applies=lambda k: k.stage == "backward" and isinstance(
                       k.error, ValueError) and len(k.inputs) == 2
                   and all(a.ndim == 2 for a in k.inputs)),
           Mistake("matmul_grad_b_not_transposed", "transposed"),
           Mistake("matmul_T_reverses_batch_axes", "transposed",
                   "matmul's backward crashed on batched operands, at a line that transposes: "
                   "{raised}. On an array with more than 2 axes, the transposes of "
                   "grad_a = g @ bᵀ and grad_b = aᵀ @ g swap only the last two axes, "
                   "np.swapaxes(x, -1, -2): .T (and np.transpose without axes) reverses EVERY "
                   "axis, and swapping other axes moves a batch axis.",
                   stages=("crash",), applies=lambda k: k.stage == "backward" and isinstance(
                       k.error, ValueError) and any(a.ndim > 2 for a in k.inputs) and (
                       _reversed_operand(k) or any(w in k.code for w in TRANSPOSING))),
       )),
    Op("softmax", "softmax", "03-matmul-softmax-ce", lambda m, a, axis=-1: a.softmax(axis=axis),
       lambda t, a, axis=-1: a.softmax(dim=axis), (LOGITS,),
       (Case(((3, 5),)), Case((GRID,), {"axis": 0}), Case(((5,),))) + ALONG_AXIS_CASES,
       "along-axis", points=1, formula="e^a / Σ e^a", mistakes=(
           Mistake("softmax_without_sum_term", "softmax-sum-term",
                   "Softmax backward without the sum term: it returned s·g, but every output "
                   "depends on every input of its slice, so each input also gets gradient "
                   "through the other outputs: a term ⟨g, s⟩ per slice along the softmax axis "
                   "(theory 03, sections 4.1 and 4.2).",
                   predict=lambda k: _softmax(k.x, k.case.kwargs.get("axis", -1)) * k.g),
           Mistake("softmax_sum_along_other_axis", "wrong-axis",
                   "softmax's backward sums g·s along another axis than the softmax's: the sum "
                   "term of s·(g - Σ g·s) runs along the softmax axis (axis=axis, "
                   "keepdims=True), the same axis the forward normalised.",
                   predict=lambda k: _other_axis_jvp(k, log=False)),
           Mistake("softmax_diagonal_only", "softmax-sum-term",
                   "Softmax backward used only the Jacobian's diagonal s·(1 - s); the "
                   "off-diagonal terms -s_i·s_j give the sum term: s·(g - Σ g·s).",
                   predict=lambda k: _softmax_diagonal(k)),
           Mistake("softmax_sum_over_every_axis", "wrong-axis",
                   "softmax's backward summed g·s over EVERY axis: the sum term of "
                   "s·(g - Σ g·s) runs along the softmax axis only (axis=axis, keepdims=True), "
                   "one sum per slice.",
                   predict=lambda k: _softmax(k.x, _axis(k)) * (
                       k.g - (k.g * _softmax(k.x, _axis(k))).sum())),
           Mistake("softmax_sum_of_g_only", "softmax-sum-term",
                   "softmax's backward summed g instead of g·s: the sum term of s·(g - Σ g·s) "
                   "weighs each g by its softmax (the Jacobian's off-diagonal -s_i·s_j).",
                   predict=lambda k: _softmax(k.x, _axis(k)) * (
                       k.g - k.g.sum(axis=_axis(k), keepdims=True))),
           Mistake("softmax_sum_term_keepdims_lost", "keepdims", SUM_TERM_KEEPDIMS_HINT,
                   stages=("backward", "crash"),
                   predict=lambda k: _sum_term_keepdims_lost(k, log=False),
                   applies=_sum_term_keepdims_crash),
           Mistake("softmax_without_max_shift", "unstable-forward",
                   "e^a is inf beyond a ≈ 709 (inf/inf is NaN) and 0 below a ≈ -745 (0/0 is "
                   "NaN). Subtract each slice's OWN max, "
                   "along the softmax axis with keepdims=True: e^(a - max a) / Σ e^(a - max a) "
                   "never overflows, and its largest term is 1. A single max over the whole "
                   "array leaves a slice far below it all zeros; a max without keepdims lines up "
                   "with the wrong axis.", stages=("forward",)),
       )),
    Op("log_softmax", "log_softmax", "03-matmul-softmax-ce",
       lambda m, a, axis=-1: a.log_softmax(axis=axis),
       lambda t, a, axis=-1: a.log_softmax(dim=axis), (LOGITS,),
       (Case(((3, 5),)), Case((GRID,), {"axis": 1}), Case(((5,),))) + ALONG_AXIS_CASES,
       "along-axis", points=1, formula="a - log Σ e^a", mistakes=(
           Mistake("log_softmax_without_sum_term", "softmax-sum-term",
                   "log_softmax backward without the sum term: it returned g, but log Σ e^a "
                   "depends on every input too: g - softmax(a)·Σ g (sum along the axis, "
                   "keepdims=True).", predict=lambda k: k.g.copy()),
           Mistake("log_softmax_sum_term_keepdims_lost", "keepdims", SUM_TERM_KEEPDIMS_HINT,
                   stages=("backward", "crash"),
                   predict=lambda k: _sum_term_keepdims_lost(k, log=True),
                   applies=_sum_term_keepdims_crash),
           Mistake("log_softmax_sum_along_other_axis", "wrong-axis",
                   "log_softmax's backward sums g along another axis than the op's: in "
                   "g - softmax(a)·Σ g the sum runs along the log_softmax axis (keepdims=True).",
                   predict=lambda k: _other_axis_jvp(k, log=True)),
           Mistake("log_softmax_softmax_times_g", "softmax-sum-term",
                   "log_softmax backward: the softmax must multiply Σ g (the sum along the "
                   "axis), not g itself: g - softmax(a)·Σ g.",
                   predict=lambda k: k.g - _softmax(k.x, k.case.kwargs.get("axis", -1)) * k.g),
           Mistake("log_softmax_sum_over_every_axis", "wrong-axis",
                   "log_softmax's backward summed g over EVERY axis: in g - softmax(a)·Σ g the "
                   "sum runs along the log_softmax axis only (keepdims=True), one per slice.",
                   predict=lambda k: k.g - _softmax(k.x, _axis(k)) * k.g.sum()),
           Mistake("log_softmax_backward_without_exp", "softmax-sum-term",
                   "log_softmax's backward multiplied Σ g by the forward's output itself, "
                   "log softmax(a); the term is softmax(a) = e^out: g - e^out·Σ g.",
                   predict=lambda k: k.g - _log_softmax(k.x, _axis(k)) * k.g.sum(
                       axis=_axis(k), keepdims=True)),
           Mistake("log_softmax_without_max_shift", "unstable-forward",
                   "log Σ e^a is inf (or -inf) when e^a overflows (or underflows to 0), and the log of a softmax is log 0 = -inf "
                   "once a probability underflows. Compute z - log Σ e^z directly, with z = a - "
                   "max a: each slice's own max, along the axis with keepdims=True (a max "
                   "without keepdims lines up with the wrong axis).", stages=("forward",)),
           Mistake("log_softmax_backward_unstable", "unstable-backward",
                   "log_softmax's backward recomputed the softmax from the raw logits, which "
                   "overflows at large ones (NaN). The softmax is e^out, the exponential of the "
                   "forward's own stable output: g - e^out·Σ g."),
       )),
    Op("cross_entropy", "cross_entropy", "03-matmul-softmax-ce",
       lambda m, z, targets, **k: m.cross_entropy(z, np.asarray(targets), **k),
       lambda t, z, targets, **k: t.nn.functional.cross_entropy(z, t.as_tensor(targets), **k),
       (LOGITS,),
       (Case(((8, 5),), {"targets": [0, 1, 2, 3, 4, 4, 2, 0]}),
        Case(((8, 5),), {"targets": [0, 1, 2, 3, 4, 4, 2, 0], "reduction": "sum"}),
        Case(((8, 5),), {"targets": [0, 1, 2, 3, 4, 4, 2, 0], "reduction": "none"}),
        Case(((8, 5),), {"targets": [0, 1, 2, 3, 4, 4, 2, 0], "reduction": "mean"}),
        Case(((1, 3),), {"targets": [2]}),
        Case(((2, 3),), {"targets": [0, 2]},
             data=([[1e4, -1e4, 0.0], [-1e4, 0.0, 1e4]],), note="logits ±1e4", gradcheck=False),
        # each target's probability underflows to 0: log(softmax) is -inf, log-sum-exp is not
        Case(((2, 3),), {"targets": [1, 0]},
             data=([[1e4, -1e4, 0.0], [-1e4, 0.0, 1e4]],), note="target logits far below the max",
             gradcheck=False)),
       "logits-and-targets", formula="-log softmax(z)[y] (reduction='mean' | 'sum' | 'none')", mistakes=(
           Mistake("cross_entropy_without_onehot", "local-derivative",
                   "cross-entropy's gradient is (softmax(z) - onehot(y)) / N: the -1 at each "
                   "row's target class is missing.",
                   predict=lambda k: _softmax(k.x, 1) * _ce_upstream(k)),
           Mistake("cross_entropy_not_divided_by_batch", "factor",
                   "That is the batch size N = {batch}: with reduction='mean' cross-entropy is a "
                   "MEAN over the batch, so its gradient is divided by N too.",
                   predict=lambda k: k.want * k.batch
                   if k.batch > 1 and _reduction_of(k) == "mean" else None),
           Mistake("cross_entropy_divided_by_batch_twice", "factor",
                   "divided by the batch size N = {batch} once too often.",
                   predict=lambda k: k.want / k.batch
                   if k.batch > 1 and _reduction_of(k) == "mean" else None),
           Mistake("cross_entropy_divided_by_batch_without_mean", "factor",
                   "That is the batch size N = {batch}: only reduction='mean' divides by N; "
                   "'sum' adds the rows' losses and 'none' returns each row's.",
                   stages=("forward", "backward"),
                   predict=lambda k: k.want / k.batch
                   if k.batch > 1 and _reduction_of(k) != "mean" else None),
           Mistake("cross_entropy_without_logsumexp", "unstable-forward",
                   "e^z is inf beyond z ≈ 709, and log softmax(z)[y] is log 0 = -inf once the target's probability underflows "
                   "(its logit far below the row's max). Fuse both along the class axis with "
                   "log-sum-exp: -(z[y] - m) + log Σ e^(z - m), m each row's max "
                   "(keepdims=True).", stages=("forward",)),
           Mistake("cross_entropy_onehot_added", "local-derivative",
                   "cross-entropy's gradient is (softmax(z) - onehot(y)) / N: the one-hot was "
                   "ADDED at each row's target class; it enters with a minus sign.",
                   predict=lambda k: (_softmax(k.x, 1) + _onehot(k)) * _ce_upstream(k)),
       )),
    # ------------------------------------------------------------ lab 06: the extension
    Op("silu", "silu", "06-extension-silu", lambda m, a: a.silu(),
       lambda t, a: t.nn.functional.silu(a), (REAL,), UNARY_CASES, "unary",
       formula="a·σ(a)", mistakes=(
           Mistake("silu_keeps_only_sigmoid", "local-derivative",
                   "silu's backward kept only σ(a), as if the factor a were a constant: "
                   "a·σ(a) is a product, its derivative σ(a) + a·σ(a)(1 - σ(a)) (product rule).",
                   predict=lambda k: k.g * _sigmoid(k.x)),
           Mistake("silu_keeps_only_second_term", "local-derivative",
                   "silu's backward kept only a·σ(a)(1 - σ(a)), as if σ(a) were a constant "
                   "factor: the product rule adds σ(a).",
                   predict=lambda k: k.g * k.x * _sigmoid(k.x) * (1.0 - _sigmoid(k.x))),
           Mistake("silu_forward_overflows", "unstable-forward", EXP_OVERFLOW_HINT.format(
               form="a·e^a/(1 + e^a) is inf/inf = NaN beyond a ≈ 709",
               fix="a times the stable sigmoid (the provided one, or one whose exponent is "
                   "never positive)"), stages=("forward",)),
       )),
)

BY_NAME: dict[str, Op] = {op.name: op for op in OPS}
assert len(BY_NAME) == len(OPS), "catalog row names must be unique"


def _assigned(k: Evidence) -> np.ndarray:
    full = np.zeros_like(k.x)
    full[k.case.kwargs["index"]] = k.g
    return full


def _piece_differs(k: Evidence, along: bool) -> bool:
    """A concatenation's wrongly shaped piece differs from its input only along the op's axis
    (``along``), or also on another axis."""
    got, want = tuple(k.error.grad_shape), tuple(k.error.expected)
    if len(got) != len(want):
        return not along
    axis = k.case.kwargs.get("axis", 0) % len(want)
    off = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
    return (off == [axis]) if along else bool(off) and off != [axis]


def _other_axis_jvp(k: Evidence, log: bool) -> np.ndarray | None:
    """softmax's (or log_softmax's) backward with its sum taken along each other axis than the
    op's: a list of candidates (the diagnosis compares each)."""
    axis = k.case.kwargs.get("axis", -1) % k.x.ndim
    s = _softmax(k.x, axis)
    return [k.g - s * k.g.sum(axis=other, keepdims=True) if log
            else s * (k.g - (k.g * s).sum(axis=other, keepdims=True))
            for other in range(k.x.ndim) if other != axis]


CROSS_ENTROPY_REDUCTIONS = ("mean", "sum", "none")  # torch's reduction=, 'mean' the default


def _ce_upstream(k: Evidence) -> np.ndarray:
    """cross-entropy's upstream gradient as each row's factor (N, 1) (or one number), by
    reduction: g/N for 'mean', g for 'sum', g[i] per row for 'none'."""
    per_row = {"none": lambda: np.asarray(k.g)[:, None], "sum": lambda: k.g,
               "mean": lambda: k.g / k.x.shape[0]}
    return per_row[_reduction_of(k)]()


def _onehot(k: Evidence) -> np.ndarray:
    hot = np.zeros_like(k.x)
    hot[np.arange(k.x.shape[0]), np.asarray(k.case.kwargs["targets"])] = 1.0
    return hot


def _softmax_diagonal(k: Evidence) -> np.ndarray:
    s = _softmax(k.x, k.case.kwargs.get("axis", -1))
    return s * (1.0 - s) * k.g


# ---------------------------------------------------------------- engine rows
@dataclass(frozen=True)
class EngineRow:
    """A graded check that is not an op: ``minitorch_course.engine_checks.CASES_BY_ROW[name]``."""

    name: str
    lab: str
    what: str
    points: int = 2
    mistakes: tuple[Mistake, ...] = ()
    cell: str = ""  # the graded notebook cell (default check_<name>)

    def __post_init__(self) -> None:
        if not self.cell:
            object.__setattr__(self, "cell", f"check_{self.name}")


NEEDS_UNBROADCAST = tuple(op.name for op in OPS if op.reverse_broadcasts)

ENGINE_ROWS: tuple[EngineRow, ...] = (
    EngineRow("topological_order", "00-tensor-skeleton",
              "parents first; 100,000-op chain", 2, mistakes=(
                  Mistake("recursive_topological_sort", "recursion"),
                  Mistake("topological_sort_without_visited", "double-counting"),
              )),
    EngineRow("backward", "00-tensor-skeleton",
              "chain rule; sums paths and calls", 2, mistakes=(
                  Mistake("accumulate_overwrites", "accumulate"),
                  Mistake("backward_skips_unbroadcast", "reverse-broadcast"),
                  Mistake("backward_gives_constants_a_grad", "engine"),
                  Mistake("leaf_grads_alias", "aliasing",
                          "A leaf's .grad shares memory with another array (a sibling's .grad, "
                          "the upstream gradient, or a read-only broadcast view), so an in-place "
                          "update of one (an optimizer's p.grad *= 0.9) changes the other or "
                          "fails. Hand each gradient to the provided helper _accumulate, which "
                          "copies what is shared."),
                  Mistake("backward_resets_leaf_grads", "accumulate",
                          "The second backward() kept only its own gradient: a leaf's .grad "
                          "must accumulate across backward() calls (like PyTorch) until "
                          "zero_grad(). At the start of backward() reset only the intermediate "
                          "nodes (those with _prev), never the leaves."),
              )),
    EngineRow("retain_graph", "00-tensor-skeleton",
              "graph freed unless retain_graph", 1, mistakes=(
                  Mistake("graph_never_freed", "freed-graph"),
                  Mistake("freed_graph_backward_silent", "freed-graph"),
                  Mistake("freed_graph_wrong_error", "freed-graph"),
                  Mistake("intermediate_grads_not_reset", "stale-grad",
                          "An intermediate node's .grad still holds the previous backward()'s "
                          "gradient, added to this one's, and the stale part flows on to the "
                          "leaves. An intermediate node's .grad must hold this pass's gradient "
                          "only: every backward() starts with no gradient on the nodes that "
                          "have parents (never on the leaves, which accumulate)."),
              )),
    EngineRow("unbroadcast", "01-elementwise-ops", "the one reverse-broadcast helper", 2,
              mistakes=(
                  Mistake("unbroadcast_returns_grad", "reverse-broadcast"),
                  Mistake("unbroadcast_forgets_size1_axes", "reverse-broadcast"),
                  Mistake("unbroadcast_forgets_leading_axes", "reverse-broadcast"),
                  Mistake("unbroadcast_drops_size1_axes", "keepdims"),
              )),
)
ENGINE_BY_NAME: dict[str, EngineRow] = {row.name: row for row in ENGINE_ROWS}
assert not set(ENGINE_BY_NAME) & set(BY_NAME), "engine rows and ops share one namespace"


def lab_asking_for(function: str) -> str | None:
    """The lab whose notebook asks for this function of tensor.py (``Tensor.add``, ``unbroadcast``,
    ``Tensor._topological_order``), or None."""
    short = function.rsplit(".", 1)[-1]
    for op in OPS:
        if op.method == short:
            return op.lab
    row = ENGINE_BY_NAME.get(short.lstrip("_"))
    return row.lab if row else None


def _mistake_index() -> dict[str, Mistake]:
    index: dict[str, Mistake] = {}
    for row in OPS + ENGINE_ROWS:
        for m in row.mistakes:
            assert m.kind in KINDS, f"{m.id}: unknown kind {m.kind}"
            assert index.get(m.id, m).hint == m.hint, f"mistake {m.id}: two different hints"
            index.setdefault(m.id, m)
    return index


MISTAKES: dict[str, Mistake] = _mistake_index()


# ---------------------------------------------------------------- graded cells and points
@dataclass(frozen=True)
class Cell:
    """A graded notebook cell: its nbgrader grade_id, lab, points and the rows it checks
    (none for a cell the notebook alone can grade, such as an exercise's answer)."""

    grade_id: str
    lab: str
    points: int
    rows: tuple[str, ...] = ()
    what: str = ""
    suite: str = ""  # a lab 04 cell: the one suite it runs over the ops named in `over`
    over: tuple[str, ...] = ()  # its check_ops(...) names (catalog names or method names)


NOTEBOOK_ONLY_CELLS: tuple[Cell, ...] = tuple(  # the labs' answer cells: exercises owns them
    Cell(cell.grade_id, cell.lab, cell.points, what=cell.title) for cell in ANSWER_CELLS
) + (  # lab 04: the course's own gradcheck and property checks over ops of labs 01-03
    # `suite` and `over` say what the cell runs, so the progress report can score it from the
    # rows it already ran (tests/minitorch_course/test_check_cli.py reads the notebook's call)
    Cell("check_gradcheck", "04-gradcheck-and-properties", 2,
         what="gradcheck on ops of labs 01-03", suite="gradcheck",
         over=("add", "mul", "div", "exp", "log", "sum", "max", "getitem", "matmul", "softmax",
               "cross_entropy")),
    Cell("check_property", "04-gradcheck-and-properties", 2,
         what="property tests of add and mul", suite="property", over=("add", "mul")),
)


# Lab 05's graded cells check the learner's MLP file (minitorch/mlp.py), not catalog rows:
# grading.check_mlp(check) runs minitorch_course.mlp_checks, and so does the progress report.
MLP_CELLS: dict[str, Cell] = {  # mlp_checks' check name -> its cell
    "loss_curve": Cell("check_mlp_loss_curve", "05-mlp-grammar", 3,
                       what="the MLP's loss curve against PyTorch float64"),
    "accuracy": Cell("check_mlp_accuracy", "05-mlp-grammar", 2,
                     what="the MLP's held-out accuracy above 90 %"),
}


# Labs 00-04's cells of the learner's own tests (``my_tests/``): the score of record grades them
# (minitorch_grading.record runs examplar.grade on the submission's tests in a sandboxed job and
# gives points x the fraction of chaff kinds caught); in the notebook, check_my_tests(lab)
# prints feedback and scores nothing under autograde (its value there is 0: the record owns it).
MY_TESTS_POINTS = 2
MY_TESTS_CELLS: dict[str, Cell] = {  # lab -> its cell
    lab: Cell(f"check_my_tests_{lab[:2]}", lab, MY_TESTS_POINTS,
              what="your tests: the kinds of mistake they catch")
    for lab in list(LABS)[:5]  # labs 00-04 (lab 05 on asks for code, not tests)
}


def _cells() -> tuple[Cell, ...]:
    cells: dict[str, Cell] = {}
    for row in ENGINE_ROWS + OPS:
        known = cells.get(row.cell, Cell(row.cell, row.lab, 0))
        assert known.lab == row.lab, f"cell {row.cell} spans two labs"
        cells[row.cell] = Cell(row.cell, row.lab, known.points + row.points,
                               known.rows + (row.name,))
    return (tuple(cells.values()) + NOTEBOOK_ONLY_CELLS + tuple(MLP_CELLS.values())
            + tuple(MY_TESTS_CELLS.values()))


CELLS: tuple[Cell, ...] = _cells()


def lab_points(lab: str) -> int:
    """The points a lab is worth: its graded cells' (the single source of points)."""
    return sum(cell.points for cell in CELLS if cell.lab == lab)


def ops_for_lab(lab: str) -> tuple[Op, ...]:
    """The rows a lab notebook asks for, in catalog order."""
    return tuple(op for op in OPS if op.lab == lab)


def resolve(names: str | list[str]) -> list[Op]:
    """Rows by name or by method name ('gelu' -> gelu and gelu_tanh)."""
    wanted = [names] if isinstance(names, str) else list(names)
    rows = [op for op in OPS if op.name in wanted or op.method in wanted]
    unknown = set(wanted) - {op.name for op in rows} - {op.method for op in rows}
    if unknown:
        raise KeyError(f"unknown op(s) {sorted(unknown)}; the catalog has {sorted(BY_NAME)}")
    return rows
