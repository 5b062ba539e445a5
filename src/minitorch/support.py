"""Course-provided helpers that the learner's ``tensor.py`` calls and never edits.

Argument parsing and validation (axes, sizes, permutations, indices, class targets), the
numerically careful functions NumPy lacks (a stable sigmoid, erf), grad mode (``no_grad``), and
the engine's two bookkeeping steps that are not the chain rule: adding a gradient into a node
without aliasing, read-only for an intermediate node (``accumulate``), and refusing to run
backward on data changed in place since the forward pass (``check_unchanged``). The learner's
file imports them by the names it uses.

Nothing here knows the Tensor class (an edited ``tensor.py`` replaces it): a tensor is
recognised as a ``minitorch.node.Node``, whose fields never change.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from threading import get_ident
from typing import Any

import numpy as np
from numpy import ndarray

from minitorch.errors import BackwardError, ShapeError
from minitorch.node import EXACT, Node, checksum, digest, saved_arrays_changed

__all__ = [
    "Axis",
    "Backward",
    "accumulate",
    "as_array",
    "check_unchanged",
    "class_targets",
    "erf",
    "is_grad_enabled",
    "no_grad",
    "no_grad_threads",
    "permutation",
    "reduced_axes",
    "select",
    "sigmoid",
    "sizes",
]

Axis = int | tuple[int, ...] | None
Backward = Callable[[np.ndarray], tuple[np.ndarray | None, ...]]

# The threads inside a no_grad() block, each with how many such blocks it is in: grad mode is
# per thread, like torch's (on in every new thread). A dict rather than a threading.local:
# TensorBase._make asks once per op, and testing an empty dict costs about a tenth of reading a
# thread-local attribute (benchmarks/README.md, issue 32). Each thread writes only its own key.
no_grad_threads: dict[int, int] = {}


@contextmanager
def no_grad() -> Iterator[None]:
    """Inside ``with no_grad():`` ops record no graph (inference, parameter updates).

    It applies to the calling thread only, like ``torch.no_grad()``.
    """
    thread = get_ident()
    depth = no_grad_threads.get(thread, 0)
    no_grad_threads[thread] = depth + 1
    try:
        yield
    finally:
        if depth:
            no_grad_threads[thread] = depth
        else:
            no_grad_threads.pop(thread, None)


def is_grad_enabled() -> bool:
    """True unless inside a ``no_grad()`` block (of this thread)."""
    return get_ident() not in no_grad_threads


# ---------------------------------------------------------------- arguments
def as_array(data: Any) -> np.ndarray:
    """``data`` as a fresh float64 array; a TypeError naming it if it is not numeric."""
    if isinstance(data, Node):
        return data.data.copy()
    try:
        array = np.array(data)
    except ValueError as err:  # ragged nested lists
        raise TypeError(f"Tensor data must be rectangular numeric data; {err}") from None
    if array.dtype.kind not in "biuf":
        raise TypeError(
            "Tensor data must be numbers (a number, nested lists of numbers or an ndarray); "
            f"got {type(data).__name__} {data!r:.60} (NumPy dtype {array.dtype})"
        )
    return array.astype(np.float64)


def reduced_axes(axis: Axis, ndim: int) -> tuple[int, ...]:
    """``axis`` (None, int or tuple, possibly negative) as a sorted tuple of positive axes.

    None and ``()`` mean every axis (torch's ``dim=()`` reduces all, unlike NumPy's
    ``axis=()``). A 0-d tensor accepts axis 0 and -1, like torch, and has nothing to reduce.
    """
    if axis is None:
        return tuple(range(ndim))
    try:
        axes = (operator.index(axis),)  # int or NumPy integer
    except TypeError:
        axes = tuple(operator.index(a) for a in axis)
    normalized = []
    for a in axes:
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise ShapeError(f"axis {a} is out of range for a tensor with {ndim} dimensions")
        normalized.append(a % ndim if ndim else 0)
    if not axes or not ndim:
        return tuple(range(ndim))
    return tuple(sorted(normalized))


def sizes(args: tuple[Any, ...], what: str) -> tuple[int, ...]:
    """``f(3, 5)`` or ``f((3, 5))`` as a tuple of ints; NumPy integers welcome."""
    try:
        if len(args) == 1 and not isinstance(args[0], int | np.integer):
            args = tuple(args[0])
        return tuple(operator.index(n) for n in args)
    except TypeError:
        raise TypeError(f"{what} must be integers, got {args!r}") from None


def permutation(axes: tuple[int, ...], ndim: int) -> tuple[int, ...]:
    """``axes`` of ``transpose`` with negative axes made positive; () (none given) becomes the
    full reversal (ndim - 1, ..., 0), so the forward and the backward never see an empty one.

    The backward's inverse permutation, ``np.argsort(axes)``, needs the positive form: the
    argsort of (-1, 0) is (0, 1), not the inverse (1, 0) of the permutation (1, 0).
    """
    if axes and sorted(a % ndim if -ndim <= a < ndim else a for a in axes) != list(range(ndim)):
        raise ShapeError(
            f"transpose: axes {axes} are not a permutation of the {ndim} axes of the tensor "
            f"(each of 0..{ndim - 1}, or its negative form, exactly once)"
        )
    if not axes:
        return tuple(reversed(range(ndim)))
    return tuple(a % ndim for a in axes)


def _own_index(index: Any) -> Any:
    """``index`` with its arrays and lists copied: the backward must not see later changes.

    A Tensor is refused, as torch refuses float tensors as indices: Tensors hold float64 values,
    and reading 0.0/1.0 as positions would silently mistake a mask for indices.
    """
    if isinstance(index, tuple):
        return tuple(_own_index(i) for i in index)
    if isinstance(index, Node):
        raise IndexError(
            f"getitem: a Tensor (float64, shape {index.data.shape}) cannot be used as an index; "
            "index with integers, slices or an integer array (e.g. t.data.astype(int))"
        )
    if isinstance(index, np.ndarray):
        return index.copy()
    if isinstance(index, list):  # NumPy reads a list as an array; [] as an empty integer one
        array = np.array(index)
        return array.astype(np.intp) if array.size == 0 else array
    return index


def select(data: np.ndarray, index: Any) -> tuple[Any, np.ndarray]:
    """``(index, data[index])`` for ``getitem``, the index copied (its arrays are the backward's
    to keep); an IndexError naming the shape and the index if NumPy refuses it."""
    index = _own_index(index)
    try:
        return index, data[index]
    except IndexError as err:
        raise IndexError(f"getitem: {err} (tensor shape {data.shape}, index {index!r})") from None


def class_targets(targets: Any, logits_shape: tuple[int, ...]) -> np.ndarray:
    """Validate class indices for ``cross_entropy``: an integer array of shape (N,), 0 <= t < C."""
    if len(logits_shape) != 2:
        raise ShapeError(
            f"cross_entropy: logits must have shape (N, C), got {logits_shape}; "
            "reshape a single example to (1, C)"
        )
    n, c = logits_shape
    if n == 0:
        raise ShapeError("cross_entropy: an empty batch (N = 0) has no mean loss")
    t = targets.data if isinstance(targets, Node) else np.array(targets)  # a copy: ours
    if t.dtype.kind == "f" and np.all(np.isfinite(t)) and np.all(t == np.round(t)):
        t = t.astype(np.intp)
    if t.dtype.kind not in "iu":
        raise TypeError(
            "cross_entropy: targets must be integer class indices, got dtype "
            f"{t.dtype} with values {np.asarray(t).ravel()[:5]}"
        )
    if t.shape != (n,):
        raise ShapeError(
            f"cross_entropy: targets must have shape ({n},) to match logits {logits_shape}, "
            f"got {t.shape}"
        )
    bad = (t < 0) | (t >= c)
    if bad.any():
        raise ValueError(
            f"cross_entropy: target values must lie in [0, {c}) for {c} classes; "
            f"got {t[bad][:5].tolist()} at rows {np.flatnonzero(bad)[:5].tolist()}"
        )
    return t


# ---------------------------------------------------------------- numerics
def sigmoid(x: np.ndarray) -> np.ndarray:
    """1/(1+e^-x) without overflow: e^-|x| never exceeds 1."""
    z = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + z), z / (1.0 + z))


_erf_ufunc = np.frompyfunc(math.erf, 1, 1)


def erf(x: np.ndarray) -> np.ndarray:
    """The error function, elementwise, exact to float64 (NumPy has none; math.erf does)."""
    return np.asarray(_erf_ufunc(x), dtype=np.float64)


# ---------------------------------------------------------------- the engine's bookkeeping
def accumulate(node: Node, g: np.ndarray, grad_output: np.ndarray) -> None:
    """``node.grad += g``, never in place; a leaf's gradient never aliases another array.

    An intermediate node's gradient is the upstream gradient its own ``_backward`` will receive:
    it is stored read-only (a read-only view of ``g``, or the new sum), so a backward that
    writes into its ``g`` (``g *= mask``) raises instead of silently changing the gradient that
    a sibling, or the node's ``.grad``, still shares (``TensorBase`` names the op).

    Only names the learner's ``tensor.py`` also has (``np``): the planted mistake
    ``accumulate_overwrites`` runs an edited copy of this function inside that module.
    """
    old = node.grad
    if node._prev:
        if old is None:
            if type(g) is np.ndarray:
                # passed through (add): read-only already, unless it is the seed; else a view
                # (the array itself may be someone else's to write)
                if g is not grad_output or g.flags.writeable:
                    g = g.view()
                    g.setflags(False)
            else:  # NumPy computes 0-d results as scalars
                g = np.asarray(g, dtype=np.float64)
                g.setflags(False)
            node.grad = g
        else:
            total = old + g  # a new array: ours to freeze
            if type(total) is not np.ndarray:
                total = np.asarray(total, dtype=np.float64)
            total.setflags(False)
            node.grad = total
        return
    if old is None:
        # A leaf's .grad is the user's (an optimizer may update it in place): it must not be a
        # read-only array or view, nor the very array handed to a sibling.
        shared = (type(g) is np.ndarray
                  and (g is grad_output or g.base is not None or not g.flags.writeable))
        node.grad = g.copy() if shared else g
    else:
        node.grad = node.grad + g
    if type(node.grad) is not np.ndarray:  # NumPy computes 0-d results as scalars
        node.grad = np.asarray(node.grad, dtype=np.float64)


def check_unchanged(order: Sequence[Node]) -> None:
    """A BackwardError naming the op if an array its backward reads changed since the forward.

    Recording the op took a checksum of each array the closure captured (``minitorch.node``);
    changing one in place (``x.data *= 2``, ``y.data[0] = 7``) between the
    forward pass and ``backward()`` would otherwise give a silently wrong gradient.
    """
    # A small array's checksum is taken again where it is met (cheaper than looking it up); a
    # large one's, a pass over its data, once per call even if several ops saved the array.
    large: dict[int, bytes] = {}
    # minitorch.node.saved_checksums again, inlined: this loop visits every node of the graph
    for node in order:
        saved = node._checksums
        if saved is None:
            continue
        if node._code is None:  # a closure assigned by hand after _make
            _check_assigned(node)
            continue
        backward = node._backward
        try:
            cells = backward.__closure__
        except AttributeError:  # None (the graph was freed), or a callable that is no function
            continue
        current = None
        for cell in cells or ():
            array = cell.cell_contents
            if type(array) is ndarray:
                if array.size <= EXACT:
                    c = array.tobytes()
                else:
                    c = large.get(id(array))
                    if c is None:
                        c = large[id(array)] = checksum(array)
                current = c if current is None else current + c
        # a closure that replaced the one _make recorded (the fault injection of the course does
        # this) has other cells: its record describes the closure it replaced, not checked
        if current != saved and backward.__code__ is node._code:
            _changed_in_place(node, saved_arrays_changed(node))


def _check_assigned(node: Node) -> None:
    """``check_unchanged`` for a closure assigned by hand after ``_make(data, parents, op)``
    (``out._backward = f``), which the engine did not see: the arrays it captured that are the
    node's data or a parent's are compared with the digests ``_make`` took of them (in that
    order, 8 bytes each); any other array it captured is not checked.
    """
    cells = getattr(node._backward, "__closure__", None)
    if not cells:
        return
    arrays = [node.data] + [p.data for p in node._prev]
    for cell in cells:
        array = cell.cell_contents
        if type(array) is ndarray:
            for i, known in enumerate(arrays):
                if array is known:
                    if node._checksums[8 * i:8 * i + 8] != digest(array):
                        _changed_in_place(node, array)
                    break


def _changed_in_place(node: Node, array: np.ndarray | None) -> None:
    """Raise the BackwardError of ``check_unchanged``: ``array``, which ``node`` saved, changed."""
    owners = [] if array is None else [name for name, t in [("output", node)] + [
        (f"input {i}", p) for i, p in enumerate(node._prev)] if np.shares_memory(t.data, array)]
    what = f"the data of its {' / '.join(owners)}" if owners else "an array it saved"
    if array is not None:  # None: its checksum no longer lines up (its size changed)
        what += f" (shape {array.shape})"
    raise BackwardError(
        f"{node._op}: {what} was changed in place after the forward "
        "pass, and its backward needs the values the forward saw; recompute the forward pass "
        "after changing data (PyTorch: 'modified by an inplace operation')"
    )
