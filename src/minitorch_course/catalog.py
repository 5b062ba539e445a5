"""The ONE catalog of ops. Every suite and every grade is driven by it.

A row says how to call an op in minitorch and in PyTorch, where its inputs may live (kept away
from kinks and from the log of non-positive numbers), fixed example cases on the chapter's
grammatical-grid shapes, and which family of shapes Hypothesis may draw for it. The torch
cross-check, gradcheck, the property tests, the broadcasting suite, ``make check`` and the
graded notebook cells all read this table. Adding an op (say ``silu``) is one method in
``tensor.py`` plus one row here.

``fn(m, *tensors, **kwargs)`` receives the implementation module ``m`` (``minitorch.tensor``,
or a learner's or a mutant's) so that every check can run against any implementation;
``ref(torch, *tensors, **kwargs)`` receives the torch module (imported only by the checks).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Shape = tuple[int, ...]

LABS = {
    "00-tensor-skeleton": "Lab 00: el esqueleto del tensor",
    "01-elementwise-ops": "Lab 01: operaciones elemento a elemento",
    "02-reductions-and-shapes": "Lab 02: reducciones y formas (shapes)",
    "03-matmul-softmax-ce": "Lab 03: matmul, softmax y cross-entropy",
    "06-extension-silu": "Lab 06: extensión silu",
}


# ---------------------------------------------------------------- input domains
@dataclass(frozen=True)
class Domain:
    """Where an input's values are drawn from: |x| in [low, high], sign allowed or not."""

    low: float
    high: float
    signed: bool = True
    unique: bool = False  # no ties (max: the numerical gradient is undefined at a tie)

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


REAL = Domain(0.0, 2.0)  # anything moderate
AWAY_FROM_ZERO = Domain(0.2, 2.0)  # kinks (relu) and divisors
POSITIVE = Domain(0.5, 2.0, signed=False)  # log, sqrt, pow's base
NO_TIES = Domain(0.0, 2.0, unique=True)
LOGITS = Domain(0.0, 3.0)


# ---------------------------------------------------------------- cases
@dataclass(frozen=True)
class Case:
    """One concrete call: input shapes, keyword arguments, optional fixed input data."""

    shapes: tuple[Shape, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    data: tuple[Any, ...] | None = None  # fixed inputs (ties, huge logits) instead of random
    note: str = ""

    @property
    def label(self) -> str:
        shapes = " , ".join(_fmt(s) for s in self.shapes)
        kw = ", ".join(f"{k}={v!r}" for k, v in self.kwargs.items() if k not in ("targets",))
        return shapes + (f" [{kw}]" if kw else "") + (f" ({self.note})" if self.note else "")


def _fmt(shape: Shape) -> str:
    return "(" + ",".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


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


GRID = (20, 3, 5)  # verbo × persona × tiempo
UNARY_CASES = (Case(((),)), Case(((5,),)), Case(((3, 5),)), Case((GRID,)))
BINARY_CASES = (Case(((3, 5), (3, 5))), Case((GRID, GRID)), Case(((), ())))

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


REDUCTION_CASES = (
    Case(((3, 5),)),
    Case((GRID,), {"axis": 1}),
    Case((GRID,), {"axis": (0, 2), "keepdims": True}),
    Case((GRID,), {"axis": -1, "keepdims": False}),
    Case(((3, 5),), {"axis": None, "keepdims": True}),
    Case(((),)),
)

OPS: tuple[Op, ...] = (
    # ------------------------------------------------------------ lab 01: elementwise
    Op("add", "add", "01-elementwise-ops", lambda m, a, b: a + b, lambda t, a, b: a + b,
       (REAL,), BINARY_CASES, "binary", broadcasting=True, formula="a + b"),
    Op("sub", "sub", "01-elementwise-ops", lambda m, a, b: a - b, lambda t, a, b: a - b,
       (REAL,), BINARY_CASES, "binary", broadcasting=True, formula="a - b"),
    Op("mul", "mul", "01-elementwise-ops", lambda m, a, b: a * b, lambda t, a, b: a * b,
       (REAL,), BINARY_CASES, "binary", broadcasting=True, formula="a * b"),
    Op("div", "div", "01-elementwise-ops", lambda m, a, b: a / b, lambda t, a, b: a / b,
       (REAL, AWAY_FROM_ZERO), BINARY_CASES, "binary", broadcasting=True, formula="a / b"),
    Op("pow", "pow", "01-elementwise-ops", lambda m, a, b: a**b, lambda t, a, b: a**b,
       (POSITIVE, REAL), BINARY_CASES, "binary", broadcasting=True, points=1, formula="a ** b"),
    Op("pow_scalar", "pow", "01-elementwise-ops", lambda m, a: a**3, lambda t, a: a**3,
       (REAL,), UNARY_CASES, "unary", points=1, formula="a ** 3"),
    Op("neg", "neg", "01-elementwise-ops", lambda m, a: -a, lambda t, a: -a,
       (REAL,), UNARY_CASES, "unary", points=1, formula="-a"),
    Op("exp", "exp", "01-elementwise-ops", lambda m, a: a.exp(), lambda t, a: a.exp(),
       (REAL,), UNARY_CASES, "unary", points=1, formula="e^a"),
    Op("log", "log", "01-elementwise-ops", lambda m, a: a.log(), lambda t, a: a.log(),
       (POSITIVE,), UNARY_CASES, "unary", points=1, formula="ln a"),
    Op("sqrt", "sqrt", "01-elementwise-ops", lambda m, a: a.sqrt(), lambda t, a: a.sqrt(),
       (POSITIVE,), UNARY_CASES, "unary", points=1, formula="√a"),
    Op("relu", "relu", "01-elementwise-ops", lambda m, a: a.relu(), lambda t, a: a.relu(),
       (AWAY_FROM_ZERO,), UNARY_CASES, "unary", points=1, formula="max(a, 0)"),
    Op("gelu", "gelu", "01-elementwise-ops", lambda m, a: a.gelu(),
       lambda t, a: t.nn.functional.gelu(a), (REAL,), UNARY_CASES, "unary",
       points=1, formula="a·Φ(a)"),
    Op("gelu_tanh", "gelu", "01-elementwise-ops", lambda m, a: a.gelu(approximate="tanh"),
       lambda t, a: t.nn.functional.gelu(a, approximate="tanh"), (REAL,), UNARY_CASES, "unary",
       points=1, formula="0.5·a·(1 + tanh(√(2/π)(a + 0.044715a³)))"),
    Op("tanh", "tanh", "01-elementwise-ops", lambda m, a: a.tanh(), lambda t, a: a.tanh(),
       (REAL,), UNARY_CASES, "unary", points=1, formula="tanh a"),
    Op("sigmoid", "sigmoid", "01-elementwise-ops", lambda m, a: a.sigmoid(),
       lambda t, a: a.sigmoid(), (REAL,), UNARY_CASES, "unary", points=1, formula="1/(1+e^-a)"),
    # ------------------------------------------------------------ lab 02: reductions, shapes
    Op("sum", "sum", "02-reductions-and-shapes", lambda m, a, **k: a.sum(**k), _torch_sum,
       (REAL,), REDUCTION_CASES, "reduction", formula="Σ a"),
    Op("mean", "mean", "02-reductions-and-shapes", lambda m, a, **k: a.mean(**k), _torch_mean,
       (REAL,), REDUCTION_CASES, "reduction", points=1, formula="Σ a / n"),
    Op("max", "max", "02-reductions-and-shapes", lambda m, a, **k: a.max(**k), _torch_max,
       (NO_TIES,), REDUCTION_CASES + (
           Case(((2, 3),), {"axis": 1}, data=([[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]],), note="ties"),
           Case(((2, 2),), {}, data=([[4.0, 4.0], [4.0, 1.0]],), note="ties"),
       ), "reduction", formula="max a"),
    Op("reshape", "reshape", "02-reductions-and-shapes",
       lambda m, a, shape: a.reshape(shape), lambda t, a, shape: a.reshape(shape), (REAL,),
       (Case(((3, 5),), {"shape": (15,)}), Case((GRID,), {"shape": (60, 5)}),
        Case(((3, 5),), {"shape": (5, 3)}), Case(((),), {"shape": (1, 1)})),
       "reshape", points=1, formula="reshape"),
    Op("transpose", "transpose", "02-reductions-and-shapes",
       lambda m, a, axes=None: a.transpose(*(axes or ())),
       lambda t, a, axes=None: a.permute(tuple(axes or reversed(range(a.ndim)))), (REAL,),
       (Case(((3, 5),)), Case((GRID,), {"axes": (1, 2, 0)}), Case((GRID,))),
       "transpose", points=1, formula="permute axes"),
    Op("broadcast_to", "broadcast_to", "02-reductions-and-shapes",
       lambda m, a, shape: a.broadcast_to(shape), lambda t, a, shape: a.broadcast_to(shape),
       (REAL,), (Case(((5,),), {"shape": GRID}), Case(((3, 1),), {"shape": GRID}),
                 Case(((),), {"shape": (3, 5)})),
       "broadcast_to", points=1, formula="broadcast_to"),
    Op("getitem", "getitem", "02-reductions-and-shapes",
       lambda m, a, index: a[index], lambda t, a, index: a[_torch_index(index)], (REAL,),
       (Case(((3, 5),), {"index": (slice(1, None), slice(None, None, 2))}),
        Case((GRID,), {"index": [0, 0, 2, 19]}, note="repeated indices"),
        Case((GRID,), {"index": ([1, 1, 4], slice(None), [0, 0, 2])}, note="repeated pairs"),
        Case(((3, 5),), {"index": (-1, 2)})),
       "getitem", formula="a[index]"),
    Op("cat", "cat", "02-reductions-and-shapes",
       lambda m, *ts, axis=0: m.cat(ts, axis=axis), lambda t, *ts, axis=0: t.cat(ts, dim=axis),
       (REAL,), (Case(((2, 5), (3, 5))), Case(((3, 2), (3, 4), (3, 1)), {"axis": 1}),
                 Case(((20, 3, 2), (20, 3, 3)), {"axis": -1})),
       "cat", points=1, formula="concatenate"),
    Op("stack", "stack", "02-reductions-and-shapes",
       lambda m, *ts, axis=0: m.stack(ts, axis=axis),
       lambda t, *ts, axis=0: t.stack(ts, dim=axis), (REAL,),
       (Case(((3, 5),) * 3), Case(((3, 5),) * 2, {"axis": -1}), Case(((5,),) * 4, {"axis": 1})),
       "stack", points=1, formula="stack"),
    # ------------------------------------------------------------ lab 03
    Op("matmul", "matmul", "03-matmul-softmax-ce", lambda m, a, b: a @ b,
       lambda t, a, b: a @ b, (REAL,),
       (Case(((3, 4), (4, 5))), Case(((4,), (4, 5))), Case(((3, 4), (4,))),
        Case(((4,), (4,))), Case(((20, 3, 4), (20, 4, 5)))) +
       tuple(Case(pair) for pair in MATMUL_BROADCAST_PAIRS),
       "matmul", formula="a @ b"),
    Op("softmax", "softmax", "03-matmul-softmax-ce", lambda m, a, axis=-1: a.softmax(axis=axis),
       lambda t, a, axis=-1: a.softmax(dim=axis), (LOGITS,),
       (Case(((3, 5),)), Case((GRID,), {"axis": 0}), Case(((5,),))),
       "softmax", points=1, formula="e^a / Σ e^a"),
    Op("log_softmax", "log_softmax", "03-matmul-softmax-ce",
       lambda m, a, axis=-1: a.log_softmax(axis=axis),
       lambda t, a, axis=-1: a.log_softmax(dim=axis), (LOGITS,),
       (Case(((3, 5),)), Case((GRID,), {"axis": 1}), Case(((5,),))),
       "softmax", points=1, formula="a - log Σ e^a"),
    Op("cross_entropy", "cross_entropy", "03-matmul-softmax-ce",
       lambda m, z, targets: m.cross_entropy(z, np.asarray(targets)),
       lambda t, z, targets: t.nn.functional.cross_entropy(z, t.as_tensor(targets)), (LOGITS,),
       (Case(((8, 5),), {"targets": [0, 1, 2, 3, 4, 4, 2, 0]}),
        Case(((1, 3),), {"targets": [2]}),
        Case(((2, 3),), {"targets": [0, 2]},
             data=([[1e4, -1e4, 0.0], [-1e4, 0.0, 1e4]],), note="logits ±1e4")),
       "cross_entropy", formula="mean(-log softmax(z)[y])"),
    # ------------------------------------------------------------ lab 06: the extension
    Op("silu", "silu", "06-extension-silu", lambda m, a: a.silu(),
       lambda t, a: t.nn.functional.silu(a), (REAL,), UNARY_CASES, "unary",
       formula="a·σ(a)"),
)

BY_NAME: dict[str, Op] = {op.name: op for op in OPS}
assert len(BY_NAME) == len(OPS), "catalog row names must be unique"


# ---------------------------------------------------------------- engine rows
@dataclass(frozen=True)
class EngineRow:
    """A graded check that is not an op: ``minitorch_course.engine_checks.CHECKS[name]``."""

    name: str
    lab: str
    what: str
    points: int = 2


ENGINE_ROWS: tuple[EngineRow, ...] = (
    EngineRow("topological_order", "00-tensor-skeleton",
              "parents first; 100,000-op chain", 2),
    EngineRow("backward", "00-tensor-skeleton",
              "chain rule; sums paths and calls", 2),
    EngineRow("retain_graph", "00-tensor-skeleton",
              "graph freed unless retain_graph", 1),
    EngineRow("unbroadcast", "01-elementwise-ops", "the one reverse-broadcast helper", 2),
)
ENGINE_BY_NAME: dict[str, EngineRow] = {row.name: row for row in ENGINE_ROWS}
assert not set(ENGINE_BY_NAME) & set(BY_NAME), "engine rows and ops share one namespace"


def lab_points(lab: str) -> int:
    """The points a lab is worth: its engine rows and its ops (the single source of points)."""
    return (sum(r.points for r in ENGINE_ROWS if r.lab == lab)
            + sum(op.points for op in OPS if op.lab == lab))


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


def count_cells() -> int:
    """How many (row, case) pairs the fixed cross-check runs."""
    return sum(len(op.cases) for op in OPS)

