"""Hypothesis strategies for the catalog's shape families.

Each family draws a ``Case`` (input shapes and keyword arguments) the op accepts; the values come
from the row's input domains. Shapes come from ``hypothesis.extra.numpy`` (``array_shapes``,
``mutually_broadcastable_shapes`` with NumPy's matmul signature, ``valid_tuple_axes``), with
size-1 axes and 0-d tensors included.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minitorch_course.catalog import CROSS_ENTROPY_REDUCTIONS, Case, Domain, Op, Shape

MAX_DIMS = 4
MAX_SIDE = 3
MATMUL_SIGNATURE = "(m?,n),(n,p?)->(m?,p?)"


@cache  # a strategy is built once: Hypothesis re-validates every new one at its first draw
def _shape(min_dims: int = 0) -> st.SearchStrategy[tuple[int, ...]]:
    return hnp.array_shapes(min_dims=min_dims, max_dims=MAX_DIMS, min_side=1, max_side=MAX_SIDE)


@st.composite
def _unary(draw) -> Case:
    return Case((draw(_shape()),))


@st.composite
def _binary(draw) -> Case:
    shapes = draw(hnp.mutually_broadcastable_shapes(
        num_shapes=2, min_dims=0, max_dims=MAX_DIMS, min_side=1, max_side=MAX_SIDE))
    return Case(tuple(shapes.input_shapes))


@st.composite
def _reduction(draw) -> Case:
    shape = draw(_shape())
    axis = draw(st.none() | hnp.valid_tuple_axes(len(shape), min_size=1)
                | st.integers(-len(shape), len(shape) - 1)) if shape else None
    return Case((shape,), {"axis": axis, "keepdims": draw(st.booleans())})


@st.composite
def _reshape(draw) -> Case:
    shape = draw(_shape())
    size = int(np.prod(shape))
    target = draw(st.sampled_from([(size,), tuple(reversed(shape)), (1, size), shape + (1,)]))
    return Case((shape,), {"shape": target})


@st.composite
def _transpose(draw) -> Case:
    shape = draw(_shape())
    axes = draw(st.none() | st.permutations(range(len(shape))).map(tuple))
    return Case((shape,), {"axes": axes or None})


@st.composite
def _broadcast_to(draw) -> Case:
    shapes = draw(hnp.mutually_broadcastable_shapes(
        num_shapes=2, min_dims=0, max_dims=MAX_DIMS, min_side=1, max_side=MAX_SIDE))
    return Case((shapes.input_shapes[0],), {"shape": shapes.result_shape})


def _positive_steps(index) -> bool:
    """torch, the oracle, has no negative slice steps."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(not isinstance(p, slice) or (p.step or 1) > 0 for p in parts)


@st.composite
def _getitem(draw) -> Case:
    shape = draw(_shape(min_dims=1))
    if draw(st.booleans()):
        index = draw(hnp.basic_indices(shape, min_dims=0, allow_newaxis=False,
                                       allow_ellipsis=True).filter(_positive_steps))
    else:  # integer-array indexing on axis 0, repeats allowed
        index = draw(st.lists(st.integers(-shape[0], shape[0] - 1), min_size=1, max_size=6))
    return Case((shape,), {"index": index})


@st.composite
def _cat(draw) -> Case:
    base = list(draw(_shape(min_dims=1)))
    axis = draw(st.integers(-len(base), len(base) - 1))
    sizes = draw(st.lists(st.integers(1, MAX_SIDE), min_size=1, max_size=3))
    shapes = []
    for n in sizes:
        s = list(base)
        s[axis] = n
        shapes.append(tuple(s))
    return Case(tuple(shapes), {"axis": axis})


@st.composite
def _stack(draw) -> Case:
    shape = draw(_shape())
    count = draw(st.integers(1, 3))
    axis = draw(st.integers(-len(shape) - 1, len(shape)))
    return Case((shape,) * count, {"axis": axis})


@st.composite
def _matmul(draw) -> Case:
    shapes = draw(hnp.mutually_broadcastable_shapes(
        signature=MATMUL_SIGNATURE, max_dims=2, min_side=1, max_side=MAX_SIDE))
    return Case(tuple(shapes.input_shapes))


@st.composite
def _softmax(draw) -> Case:
    shape = draw(_shape(min_dims=1))
    return Case((shape,), {"axis": draw(st.integers(-len(shape), len(shape) - 1))})


@st.composite
def _cross_entropy(draw) -> Case:
    n, c = draw(st.integers(1, 6)), draw(st.integers(2, 5))
    targets = draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n))
    reduction = draw(st.sampled_from((None, *CROSS_ENTROPY_REDUCTIONS)))
    return Case(((n, c),), {"targets": targets} if reduction is None
                else {"targets": targets, "reduction": reduction})


FAMILIES = {  # a family is named after the shapes it draws; several rows may share one
    "unary": _unary,
    "binary": _binary,
    "reduction": _reduction,
    "new-shape": _reshape,
    "permutation": _transpose,
    "broadcast-target": _broadcast_to,
    "index": _getitem,
    "concatenation": _cat,
    "same-shapes": _stack,
    "matrix-operands": _matmul,
    "along-axis": _softmax,
    "logits-and-targets": _cross_entropy,
}


@st.composite
def cases_with_inputs(draw, op: Op) -> tuple[Case, list[np.ndarray]]:
    """A random case for ``op`` and input arrays drawn from its domains; now and then one of
    its inputs is a constant (requires_grad=False)."""
    case = draw(_family(op.family))
    n = len(case.shapes)
    constant = draw(st.sampled_from([(), (), ()] + [(i,) for i in range(n)])) if n else ()
    if constant:
        case = dataclasses.replace(case, constant=constant)
    arrays = []
    for i, shape in enumerate(case.shapes):
        domain = op.domain(i)
        arrays.append(draw(_arrays(domain, shape)))
    return case, arrays


@cache
def _family(name: str) -> st.SearchStrategy[Case]:
    """A family's strategy, built once (``make check`` draws hundreds of cases)."""
    return FAMILIES[name]()


@cache
def _arrays(domain: Domain, shape: Shape) -> st.SearchStrategy[np.ndarray]:
    """float64 arrays of ``shape`` in ``domain``, built once per pair."""
    return hnp.arrays(np.float64, shape, elements=domain.elements(), unique=domain.unique)


# ---------------------------------------------------------------- the fuzzer's argument forms
# The random-program fuzzer (minitorch_authoring.fuzz) wires a row to a node it already has: given
# that operand's shape, a family draws the other operands' shapes, the keyword arguments and the
# slot the given operand takes. Every argument form the chapter's ops accept is drawn here,
# including the ones torch, the oracle, can only take through fuzz.torch_getitem (negative
# steps, boolean masks).
Draw = Callable[..., Any]


@dataclass(frozen=True)
class Wiring:
    """Which shapes a family's first operand may have, and how to draw the rest of a call."""

    arguments: Callable[[Draw, Shape], tuple[tuple[Shape, ...], dict[str, Any], int]]
    min_dims: int = 0
    max_dims: int | None = None
    nonempty: bool = False  # no size-0 axis in the given operand

    def accepts(self, shape: Shape) -> bool:
        return (len(shape) >= self.min_dims
                and (self.max_dims is None or len(shape) <= self.max_dims)
                and (not self.nonempty or all(shape)))


def uniform(draw: Draw, n: int) -> int:
    """One of 0..n-1 (Hypothesis's sampled_from spreads them more evenly than integers)."""
    return draw(st.sampled_from(range(n)))


def rarely(draw: Draw, one_in: int = 8) -> bool:
    """True about once in ``one_in`` draws (a size-0 axis empties everything downstream)."""
    return uniform(draw, one_in) == one_in // 2


def _side(draw: Draw, zero: bool) -> int:
    return 0 if zero and rarely(draw) else draw(st.integers(1, MAX_SIDE))


def _other_shape(draw: Draw, shape: Shape) -> Shape:
    """A shape that broadcasts with ``shape`` (size-1 axes on either side)."""
    return draw(hnp.broadcastable_shapes(shape, min_dims=0, max_dims=MAX_DIMS, min_side=1,
                                         max_side=MAX_SIDE))


def _wire_unary(draw: Draw, shape: Shape):
    return (shape,), {}, 0


def _wire_binary(draw: Draw, shape: Shape):
    other, slot = _other_shape(draw, shape), draw(st.integers(0, 1))
    return ((shape, other) if slot == 0 else (other, shape)), {}, slot


def _axis(draw: Draw, ndim: int):
    """None, an int (negative ones included) or a tuple of axes (negative ones included)."""
    if ndim == 0:
        return draw(st.sampled_from([None, 0, -1]))
    return draw(st.none() | st.integers(-ndim, ndim - 1)
                | hnp.valid_tuple_axes(ndim, min_size=1))


def _wire_reduction(draw: Draw, shape: Shape):
    return (shape,), {"axis": _axis(draw, len(shape)), "keepdims": draw(st.booleans())}, 0


def _wire_reshape(draw: Draw, shape: Shape):
    size = int(np.prod(shape))
    targets = [(size,), tuple(reversed(shape)), (1, size), shape + (1,)]
    if size:  # -1 is ambiguous for an empty tensor with other sizes
        targets += [(-1,), (size, -1)]
    return (shape,), {"shape": draw(st.sampled_from(targets))}, 0


def _wire_transpose(draw: Draw, shape: Shape):
    nd = len(shape)
    if nd == 0 or uniform(draw, 4) == 0:
        return (shape,), {"axes": None}, 0
    perm = draw(st.permutations(range(nd)))
    sign = uniform(draw, 4)  # none, all or (twice as often) some of the axes negative
    negative = [sign == 1 or (sign > 1 and uniform(draw, 2)) for _ in range(nd)]
    return (shape,), {"axes": tuple(a - nd if neg else a for a, neg in zip(perm, negative))}, 0


def _wire_broadcast_to(draw: Draw, shape: Shape):
    target = np.broadcast_shapes(shape, _other_shape(draw, shape))
    return (shape,), {"shape": tuple(int(n) for n in target)}, 0


def _repeated_indices(draw: Draw, n: int) -> list[int]:
    picks = draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=4))
    return picks + [draw(st.sampled_from(picks))]  # at least one repeat


def _wire_getitem(draw: Draw, shape: Shape):
    form = uniform(draw, 5) if shape[0] else uniform(draw, 2) * 4
    if form == 0:  # basic: ints, slices (negative steps too), Ellipsis
        index = draw(hnp.basic_indices(shape, min_dims=0, allow_newaxis=False,
                                       allow_ellipsis=True))
    elif form == 4:  # Ellipsis next to a slice with a negative step
        step = slice(draw(st.sampled_from([None, -1, 1])), None, -draw(st.integers(1, 2)))
        index = (Ellipsis, step) if draw(st.booleans()) else (step, Ellipsis)
    elif form == 1:  # an integer array on axis 0, with a repeat
        index = _repeated_indices(draw, shape[0])
    elif form == 2:  # a boolean mask over the leading axes
        lead = shape[:draw(st.integers(1, len(shape)))]
        index = draw(hnp.arrays(np.bool_, lead))
    else:  # integer arrays on the first axes (repeats broadcast together), then a slice
        arrays = [_repeated_indices(draw, shape[0])]
        if len(shape) > 1 and shape[1]:
            arrays.append(draw(st.lists(st.integers(-shape[1], shape[1] - 1),
                                        min_size=len(arrays[0]), max_size=len(arrays[0]))))
        index = (*arrays, slice(None, None, draw(st.sampled_from([1, -1]))))[:len(shape)]
    return (shape,), {"index": index}, 0


def _wire_cat(draw: Draw, shape: Shape):
    nd = len(shape)
    axis = draw(st.integers(-nd, nd - 1))
    shapes = [shape]
    for _ in range(draw(st.integers(1, 2))):
        s = list(shape)
        s[axis] = _side(draw, zero=True)
        shapes.append(tuple(s))
    return tuple(shapes), {"axis": axis}, 0


def _wire_stack(draw: Draw, shape: Shape):
    nd = len(shape)
    count = draw(st.integers(1, 3))
    return (shape,) * count, {"axis": draw(st.integers(-nd - 1, nd))}, 0


def _wire_matmul(draw: Draw, shape: Shape):
    """``shape`` on the left or on the right; the other operand 1-D or with batch axes."""
    slot = draw(st.integers(0, 1))
    inner = shape[-1] if slot == 0 else shape[-2 if len(shape) > 1 else -1]
    if uniform(draw, 3) == 0:
        other: Shape = (inner,)
    else:
        batch = (draw(hnp.broadcastable_shapes(shape[:-2], min_dims=0, max_dims=2,
                                               max_side=MAX_SIDE)) if len(shape) > 2
                 else draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1,
                                            max_side=MAX_SIDE)))
        outer = _side(draw, zero=True)
        other = batch + ((inner, outer) if slot == 0 else (outer, inner))
    return ((shape, other) if slot == 0 else (other, shape)), {}, slot


def _wire_softmax(draw: Draw, shape: Shape):
    return (shape,), {"axis": draw(st.integers(-len(shape), len(shape) - 1))}, 0


def _wire_cross_entropy(draw: Draw, shape: Shape):
    targets = draw(st.lists(st.integers(0, shape[1] - 1), min_size=shape[0],
                            max_size=shape[0]))
    return (shape,), {"targets": targets}, 0


WIRINGS: dict[str, Wiring] = {  # keyed like FAMILIES
    "unary": Wiring(_wire_unary),
    "binary": Wiring(_wire_binary),
    "reduction": Wiring(_wire_reduction),
    "new-shape": Wiring(_wire_reshape),
    "permutation": Wiring(_wire_transpose),
    "broadcast-target": Wiring(_wire_broadcast_to),
    "index": Wiring(_wire_getitem, min_dims=1),
    "concatenation": Wiring(_wire_cat, min_dims=1),
    "same-shapes": Wiring(_wire_stack),
    "matrix-operands": Wiring(_wire_matmul, min_dims=1),
    "along-axis": Wiring(_wire_softmax, min_dims=1),
    "logits-and-targets": Wiring(_wire_cross_entropy, min_dims=2, max_dims=2, nonempty=True),
}
MATMUL_FAMILY = "matrix-operands"


def leaf_shape(wiring: Wiring, zero: bool) -> st.SearchStrategy[Shape]:
    """A fresh operand's shape for a family (size-0 axes only when ``zero``)."""
    lo = wiring.min_dims
    hi = max(lo, min(MAX_DIMS, wiring.max_dims if wiring.max_dims is not None else MAX_DIMS))
    side = 0 if zero and not wiring.nonempty else 1
    return st.sampled_from(range(lo, hi + 1)).flatmap(  # the number of axes, 0-d included
        lambda nd: hnp.array_shapes(min_dims=nd, max_dims=nd, min_side=side,
                                    max_side=MAX_SIDE))


FORMS: tuple[str, ...] = (  # every form argument_forms names
    "0-d operand", "size-0 axis", "size-1 axis", "broadcast operands", "axis None", "tuple axis",
    "negative axis", "keepdims", "reversed axes", "negative axes", "permuted axes",
    "inferred size -1", "boolean index", "integer-array index", "repeated indices",
    "negative step", "ellipsis", "basic index", "1-D matmul operand", "batch matmul",
)


def argument_forms(op: Op, shapes: tuple[Shape, ...], kwargs: dict[str, Any]) -> set[str]:
    """The argument forms one call uses, read off its data (not off the op's name)."""
    forms = set()
    if any(s == () for s in shapes):
        forms.add("0-d operand")
    if any(0 in s for s in shapes):
        forms.add("size-0 axis")
    if any(1 in s for s in shapes):
        forms.add("size-1 axis")
    if op.broadcasting and len(set(shapes)) > 1:
        forms.add("broadcast operands")
    if "axis" in kwargs:
        axis = kwargs["axis"]
        if axis is None:
            forms.add("axis None")
        elif isinstance(axis, tuple):
            forms.add("tuple axis")
            if any(a < 0 for a in axis):
                forms.add("negative axis")
        elif axis < 0:
            forms.add("negative axis")
    if kwargs.get("keepdims"):
        forms.add("keepdims")
    if "axes" in kwargs:
        axes = kwargs["axes"]
        forms.add("reversed axes" if axes is None else
                  "negative axes" if any(a < 0 for a in axes) else "permuted axes")
    if "shape" in kwargs and -1 in kwargs["shape"]:
        forms.add("inferred size -1")
    if "index" in kwargs:
        forms |= _index_forms(kwargs["index"])
    if op.family == MATMUL_FAMILY:
        if any(len(s) == 1 for s in shapes):
            forms.add("1-D matmul operand")
        if any(len(s) > 2 for s in shapes):
            forms.add("batch matmul")
    return forms


def _index_forms(index: Any) -> set[str]:
    parts = index if isinstance(index, tuple) else (index,)
    forms = set()
    for p in parts:
        if isinstance(p, np.ndarray) and p.dtype == np.bool_:
            forms.add("boolean index")
        elif isinstance(p, list):
            forms.add("integer-array index")
            if len(set(p)) < len(p):
                forms.add("repeated indices")
        elif isinstance(p, slice) and (p.step or 1) < 0:
            forms.add("negative step")
        elif p is Ellipsis:
            forms.add("ellipsis")
    if not forms & {"boolean index", "integer-array index"}:
        forms.add("basic index")
    return forms


# ---------------------------------------------------------------- the same draws in any process
def pin_local_constants() -> None:
    """Make derandomised Hypothesis draw the same examples whatever modules are loaded.

    Hypothesis (6.13x+) mixes into its draws the literal constants of every *local* module in
    ``sys.modules``, re-read whenever that table grows. So, even derandomised, what a property
    test draws depended on what the process had imported before: the fuzzer's planted
    transpose bug and lab 04's model learner tests passed alone and failed after other test
    modules on the same xdist worker, and each chaff (a module of its own) could see different
    draws than the reference. Pinning the pool empty keeps Hypothesis's own global constants
    (0, ±1, NaN, the float limits...) and removes the dependence. A later Hypothesis without
    this hook is left as it is.
    """
    try:
        from hypothesis.internal.conjecture import providers
    except ImportError:  # pragma: no cover - Hypothesis reorganised: nothing to pin
        return
    if not hasattr(providers, "_get_local_constants") or not hasattr(providers, "Constants"):
        return
    empty = providers.Constants()
    providers._get_local_constants = lambda: empty
    providers.CONSTANTS_CACHE.cache.clear()


pin_local_constants()  # every importer of these strategies draws alike
