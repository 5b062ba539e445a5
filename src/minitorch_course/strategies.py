"""Hypothesis strategies for the catalog's shape families.

Each family draws a ``Case`` (input shapes and keyword arguments) the op accepts; the values come
from the row's input domains. Shapes come from ``hypothesis.extra.numpy`` (``array_shapes``,
``mutually_broadcastable_shapes`` with NumPy's matmul signature, ``valid_tuple_axes``), with
size-1 axes and 0-d tensors included.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minitorch_course.catalog import Case, Op

MAX_DIMS = 4
MAX_SIDE = 3
MATMUL_SIGNATURE = "(m?,n),(n,p?)->(m?,p?)"


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
    return Case(((n, c),), {"targets": targets})


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
    """A random case for ``op`` and input arrays drawn from its domains."""
    case = draw(FAMILIES[op.family]())
    arrays = []
    for i, shape in enumerate(case.shapes):
        domain = op.domain(i)
        arrays.append(draw(hnp.arrays(np.float64, shape, elements=domain.elements(),
                                      unique=domain.unique)))
    return case, arrays
