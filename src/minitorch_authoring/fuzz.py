"""A random-program differential fuzzer: minitorch against torch float64, op DAGs from the catalog.

A program is a DAG of 3 to 12 calls of catalog rows (``op.fn`` in minitorch, ``op.ref`` in
torch), drawn by Hypothesis: each call takes a node the program already has (often the newest,
so most nodes reach the output) or a fresh leaf, and its family's wiring
(``strategies.WIRINGS``) draws the other operands' shapes and every argument form the op accepts
(negative and tuple axes, keepdims, size-0 and size-1 axes, 0-d tensors, integer-array indices
with repeats, boolean masks, negative steps, 1-D and batched matmul operands); an operand of the
right shape that already exists is reused half the time. Both libraries run the same program
on the same leaves, and each sink (a call no later step uses) gets a backward pass with the
same random upstream gradient (retain_graph=True; leaf gradients add up across passes). Every
node's value and every leaf's gradient must agree at rtol = atol = 1e-7 (NaN where torch gives
NaN; None where torch gives None).

Domains. Each operand stays inside its row's input domain (``op.domain(i)``, the catalog's):
a leaf is drawn from that domain (and may be reused wherever its domain fits inside the one
asked for); an intermediate node is re-mapped into the domain by a smooth glue step run in both
libraries, ``high·tanh(u)`` for a domain symmetric around 0 and ``low + (high - low)·σ(u)``
otherwise (so log, sqrt and pow's base see [0.5, 2], divisors and relu inputs [0.2, 2]), which
also keeps values from overflowing along a chain. A domain that forbids ties (max's) takes
leaves only: an intermediate's near-ties could round differently in NumPy and torch. Calls
torch rejects (max over an empty axis) are rejected by Hypothesis, not run. Edge inputs outside
a row's domain (pow at base 0, relu at exactly 0) are therefore never drawn here: they belong to
fixed cases.

    python -m minitorch_authoring.fuzz --programs 5000      # against the reference; prints failures
    make fuzz N=5000                                     # the pytest suite with Hypothesis statistics
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, event, given, reject, settings, target
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minitorch_course.catalog import OPS, REAL, Domain, Op, Shape
from minitorch_course.strategies import WIRINGS, argument_forms, leaf_shape, rarely, uniform

RTOL = ATOL = 1e-7
MIN_OPS, MAX_OPS = 3, 12
PROGRAMS = 2000  # in make test
SMALL = 4  # leaves up to this size get Hypothesis's elements; bigger ones a seeded draw
# Generation only: no shrinking (a failure is recorded, not raised) and no hill-climbing on
# ``target`` (it would spend the budget re-running near copies of one program).
settings.register_profile(
    "fuzz", max_examples=PROGRAMS, derandomize=True, database=None, deadline=None,
    suppress_health_check=list(HealthCheck), print_blob=False, phases=[Phase.generate])


# ---------------------------------------------------------------- programs
@dataclass(frozen=True)
class Leaf:
    data: np.ndarray
    requires_grad: bool
    domain: Domain


@dataclass(frozen=True)
class Call:
    row: Op | None  # None: the glue re-mapping args[0] into ``remap``
    args: tuple[int, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)
    remap: Domain | None = None
    forms: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Program:
    steps: tuple[Leaf | Call, ...]
    shapes: tuple[Shape, ...]
    sinks: tuple[int, ...]  # the calls no later step uses: each gets a backward pass
    upstream: tuple[np.ndarray, ...]  # one random upstream gradient per sink
    reused: bool  # some node is an operand more than once

    @property
    def calls(self) -> list[Call]:
        return [s for s in self.steps if isinstance(s, Call) and s.row is not None]

    def __str__(self) -> str:
        lines = []
        for i, (s, shape) in enumerate(zip(self.steps, self.shapes)):
            if isinstance(s, Leaf):
                grad = "requires_grad" if s.requires_grad else "no grad"
                lines.append(f"v{i} = leaf {shape} {grad}: {np.array2string(s.data, 200)}")
            elif s.row is None:
                lines.append(f"v{i} = remap(v{s.args[0]}) into [{s.remap.low}, {s.remap.high}]"
                             f"{' signed' if s.remap.signed else ''}")
            else:
                args = ", ".join(f"v{a}" for a in s.args)
                kw = "".join(f", {k}={v!r}" for k, v in s.kwargs.items())
                lines.append(f"v{i} = {s.row.name}({args}{kw}) -> {shape}")
        sinks = ", ".join(f"v{i}" for i in self.sinks)
        return "\n".join(lines) + f"\nbackward from {sinks} with random upstream gradients"


def _within(inner: Domain, outer: Domain) -> bool:
    """Every value ``inner`` draws is one ``outer`` allows."""
    return (inner.low >= outer.low and inner.high <= outer.high
            and (outer.signed or not inner.signed) and (inner.unique or not outer.unique))


def remap(u: Any, domain: Domain) -> Any:
    """The glue step: ``u`` (a minitorch or torch tensor) smoothly into ``domain``."""
    if domain.signed and domain.low == 0:
        return u.tanh() * domain.high
    return u.sigmoid() * (domain.high - domain.low) + domain.low


def _torch_shape(op: Op, shapes: Sequence[Shape], kwargs: dict[str, Any]) -> Shape:
    """The call's output shape per torch; Hypothesis rejects what torch refuses."""
    import torch

    try:
        out = op.ref(torch, *[torch.zeros(s, dtype=torch.float64) for s in shapes], **kwargs)
    except (RuntimeError, IndexError, ValueError):
        reject()
    return tuple(out.shape)


# Hypothesis validates a strategy object at its first draws: built afresh for every leaf, each
# was validated again (a quarter of the generation's time). The same arguments give the same
# strategy object, and the same programs (their text hashed alike before and after).
@functools.cache
def _arrays(shape: Shape, domain: Domain, unique: bool) -> st.SearchStrategy[np.ndarray]:
    return hnp.arrays(np.float64, shape, elements=domain.elements(), unique=unique)


_leaf_shape = functools.cache(leaf_shape)


@st.composite
def programs(draw, rows: Sequence[Op] = OPS, focus: Sequence[Op] | None = None) -> Program:
    """A random program over ``rows`` (each call of one of ``focus``, if given, at least once)."""
    n_ops = draw(st.integers(MIN_OPS, MAX_OPS))
    focus_at = draw(st.integers(0, n_ops - 1)) if focus else -1
    steps: list[Leaf | Call] = []
    shapes: list[Shape] = []
    uses: Counter[int] = Counter()

    def add(step: Leaf | Call, shape: Shape) -> int:
        steps.append(step)
        shapes.append(shape)
        return len(steps) - 1

    def leaf(shape: Shape, domain: Domain) -> int:
        if math.prod(shape) <= SMALL:  # element by element, edge values included
            data = draw(_arrays(shape, domain, domain.unique))
        else:  # a seeded draw from the domain: 20 times faster than Hypothesis's elements
            data = domain.sample(np.random.default_rng(draw(st.integers(0, 2**32 - 1))), shape)
        return add(Leaf(data, uniform(draw, 6) > 0, domain), shape)  # 1 in 6 without grad

    def feed(i: int, domain: Domain) -> int:
        step = steps[i]
        if isinstance(step, Leaf) and _within(step.domain, domain):
            uses[i] += 1
            return i
        if domain.unique:
            return leaf(shapes[i], domain)
        uses[i] += 1
        return add(Call(None, (i,), remap=domain), shapes[i])

    def nodes() -> list[int]:  # what a call may take (glue steps are not nodes of their own)
        return [i for i, s in enumerate(steps) if isinstance(s, Leaf) or s.row is not None]

    for k in range(n_ops):
        pool = list(focus if k == focus_at else rows)
        op = pool[uniform(draw, len(pool))]
        wiring = WIRINGS[op.family]
        candidates = [i for i in nodes() if wiring.accepts(shapes[i])]
        how = draw(st.integers(0, 3))
        given_node = None
        if candidates and how:
            given_node = candidates[-1] if how < 3 else draw(st.sampled_from(candidates))
            first = shapes[given_node]
        else:
            first = draw(_leaf_shape(wiring, zero=rarely(draw)))
        op_shapes, kwargs, slot = wiring.arguments(draw, first)
        args = []
        for pos, shape in enumerate(op_shapes):
            domain = op.domain(pos)
            same = [i for i in nodes() if shapes[i] == shape]
            if pos == slot and given_node is not None:
                args.append(feed(given_node, domain))
            elif same and draw(st.booleans()):
                args.append(feed(draw(st.sampled_from(same)), domain))
            else:
                args.append(leaf(shape, domain))
        out_shape = _torch_shape(op, [shapes[a] for a in args], kwargs)
        add(Call(op, tuple(args), kwargs, forms=frozenset(argument_forms(op, op_shapes, kwargs))),
            out_shape)
    used = {a for step in steps if isinstance(step, Call) for a in step.args}
    sinks = tuple(i for i in nodes() if isinstance(steps[i], Call) and i not in used)
    upstream = tuple(draw(_arrays(shapes[i], REAL, False)) for i in sinks)
    return Program(tuple(steps), tuple(shapes), sinks, upstream,
                   any(n > 1 for n in uses.values()))


# ---------------------------------------------------------------- running one
def run_minitorch(m: ModuleType, program: Program) -> tuple[list[Any], list[Any]]:
    """Every node's value and every leaf's gradient (None when it has none)."""
    values: list[Any] = []
    for step in program.steps:
        if isinstance(step, Leaf):
            values.append(m.Tensor(step.data.copy(), requires_grad=step.requires_grad))
        elif step.row is None:
            values.append(remap(values[step.args[0]], step.remap))
        else:
            values.append(step.row.fn(m, *[values[a] for a in step.args], **step.kwargs))
    for i, g in zip(program.sinks, program.upstream):  # leaf gradients add up across passes
        if values[i].requires_grad:
            values[i].backward(g.copy(), retain_graph=True)
    leaves = [v for v, s in zip(values, program.steps) if isinstance(s, Leaf)]
    return [np.asarray(v.data) for v in values], [v.grad for v in leaves]


def run_torch(program: Program) -> tuple[list[Any], list[Any]]:
    import torch

    values: list[Any] = []
    for step in program.steps:
        if isinstance(step, Leaf):
            values.append(torch.tensor(step.data, dtype=torch.float64,
                                       requires_grad=step.requires_grad))
        elif step.row is None:
            values.append(remap(values[step.args[0]], step.remap))
        else:
            values.append(step.row.ref(torch, *[values[a] for a in step.args], **step.kwargs))
    for i, g in zip(program.sinks, program.upstream):
        if values[i].requires_grad:
            warnings.filterwarnings("ignore", "grad and param do not obey")  # size-0 leaves
            # a copy: torch may keep it as a leaf's .grad and add the next pass into it in place
            values[i].backward(torch.tensor(g), retain_graph=True)
    leaves = [v for v, s in zip(values, program.steps) if isinstance(s, Leaf)]
    return ([v.detach().numpy() for v in values],
            [None if v.grad is None else v.grad.numpy() for v in leaves])


def _differs(mine: Any, want: Any) -> str:
    if want is None or mine is None:
        return "" if mine is None and want is None else f"{mine!r} where torch has {want!r}"
    mine = np.asarray(mine)
    if mine.shape != want.shape:
        return f"shape {mine.shape} where torch has {want.shape}"
    try:
        np.testing.assert_allclose(mine, want, rtol=RTOL, atol=ATOL, equal_nan=True)
    except AssertionError as err:
        return str(err).strip().split("\n", 1)[-1]
    return ""


@dataclass(frozen=True)
class Failure:
    program: Program
    what: str  # "value of v3 (transpose)", "grad of leaf v0", "minitorch raised ..."
    detail: str

    def __str__(self) -> str:
        return f"{self.what}: {self.detail}\n{self.program}"


def check(impl: ModuleType, program: Program) -> Failure | None:
    """The first difference between ``impl`` and torch on ``program`` (None: they agree)."""
    want_values, want_grads = run_torch(program)
    try:
        values, grads = run_minitorch(impl, program)
    except Exception as err:  # noqa: BLE001 - a crash is a finding
        return Failure(program, "minitorch raised", f"{type(err).__name__}: {err}")
    for i, (mine, want) in enumerate(zip(values, want_values)):
        detail = _differs(mine, want)
        if detail:
            step = program.steps[i]
            name = getattr(getattr(step, "row", None), "name", "leaf or remap")
            return Failure(program, f"value of v{i} ({name})", detail)
    leaves = [i for i, s in enumerate(program.steps) if isinstance(s, Leaf)]
    for i, mine, want in zip(leaves, grads, want_grads):
        detail = _differs(mine, want)
        if detail:
            return Failure(program, f"grad of leaf v{i}", detail)
    return None


def record(program: Program, coverage: Counter[str]) -> None:
    """Hypothesis events (for --hypothesis-show-statistics) and our own per-program counts."""
    seen = {f"op {c.row.name}" for c in program.calls}
    seen |= {f"form {form}" for c in program.calls for form in c.forms}
    if program.reused:
        seen.add("node reuse")
    for label in sorted(seen):
        event(label)
    coverage.update(seen)
    coverage["programs"] += 1
    target(float(len(program.calls)), label="calls per program")


# ---------------------------------------------------------------- many
@dataclass
class Result:
    programs: int = 0
    failures: list[Failure] = field(default_factory=list)
    coverage: Counter[str] = field(default_factory=Counter)


def compare(impl: ModuleType, n: int = PROGRAMS, focus: Sequence[Op] | None = None,
            rows: Sequence[Op] = OPS) -> Result:
    """Run ``n`` programs (each containing one of ``focus``, if given) on ``impl`` and torch."""
    result = Result()

    @settings(settings.get_profile("fuzz"), max_examples=n)
    @given(programs(rows, focus))
    def one(program: Program) -> None:
        record(program, result.coverage)
        result.programs += 1
        failure = check(impl, program)
        if failure is not None:
            result.failures.append(failure)

    one()
    return result


def main(argv: list[str] | None = None) -> int:
    from minitorch_course import runner

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=PROGRAMS)
    parser.add_argument("--impl", default="reference", help="reference, learner or a path")
    args = parser.parse_args(argv)
    impl, label = runner.load(args.impl)
    result = compare(impl, args.programs)
    for f in result.failures[:5]:
        print(f, "\n")
    print(f"{result.programs} programs on {label}: {len(result.failures)} differ from torch")
    for key, count in sorted(result.coverage.items()):
        print(f"  {key:32s} {count}")
    return 1 if result.failures else 0


if __name__ == "__main__":
    sys.exit(main())
