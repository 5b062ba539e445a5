"""The fields of a graph node, apart from the Tensor class that the learner edits.

``Tensor = (data, grad, _prev, _op, _backward, requires_grad)``: the fields are declared here, in
``__slots__`` (no per-instance ``__dict__``: a node of a 100,000-op graph stays small), and
``minitorch.tensor.Tensor`` inherits them. They live in their own module for one practical
reason: when ``%autoreload`` re-executes your edited ``tensor.py``, the Tensor class is replaced,
and slot descriptors defined in the replaced class would no longer fit the tensors you already
have. Declared here, they never change, so your live tensors keep working after every save.

One field does a little more than store. Recording an op (``TensorBase._make``, or assigning
``out._backward = _backward`` to a node that requires grad) also takes a checksum of every NumPy
array the closure captured (``saved_checksums``): exactly the arrays its backward will read
(``a`` and ``b`` in ``mul``, the output in ``exp``). ``backward()`` compares them before running
any closure (``minitorch.support.check_unchanged``), so an array changed in place between the
forward pass and ``backward()`` gives an error naming the op, not a silently wrong gradient.
PyTorch counts the writes to each tensor instead (version counters); a NumPy array cannot
count, and making the arrays the engine creates read-only instead would forbid writes that no
backward reads, which PyTorch allows (benchmarks/README.md, issue 32).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import numpy as np

__all__ = [
    "EXACT", "SMALL", "GradMode", "Node", "checksum", "saved_arrays_changed", "saved_checksums"
]


class GradMode(threading.local):
    """Whether ops record a graph, per thread like torch's grad mode (on in every new thread).

    Declared here rather than in tensor.py for the same reason as the fields: %autoreload
    re-classes the instances of classes that an edited module redefines, which a
    ``threading.local`` does not allow.
    """

    enabled = True


EXACT = 64  # elements: up to here an array's checksum is its bytes themselves (<= 512 bytes)
SMALL = 512  # elements: up to here a hash of the bytes; beyond, a weighted sum
_weights = np.empty(0)


def checksum(a: np.ndarray) -> bytes:
    """A fingerprint of ``a``'s values, cheap enough to take for every array a backward saves.

    Up to 64 elements: the bytes themselves (cheaper to take and to compare than a hash, and
    exact). Up to 512: a hash of the bytes (8 bytes). Beyond: the bytes of the dot product with
    fixed random weights, in one pass (a change smaller than the product's rounding error, about
    1e-16 of its size, can go unnoticed: a cheap check, not a proof). The engine's loops inline
    the first case: ``a.tobytes() if a.size <= EXACT else checksum(a)``.
    """
    if a.size <= EXACT:
        return a.tobytes()
    if a.size <= SMALL:
        return hash(a.tobytes()).to_bytes(8, "little", signed=True)
    global _weights
    if _weights.size < a.size:
        _weights = np.random.default_rng(0).uniform(0.5, 1.5, size=2 * a.size)
    # einsum, not @: a BLAS dot may wake worker threads, which costs milliseconds on a busy machine
    return np.einsum("i,i->", a.reshape(-1), _weights[: a.size]).tobytes()


def saved_checksums(backward: Callable) -> bytes | None:
    """The checksums of the NumPy arrays among ``backward``'s closure cells, end to end, in cell
    order (None if it saved none).

    One ``bytes`` object, whatever the number of arrays: no tuple to allocate, nothing for the
    garbage collector to track (bytes hold no references), and the arrays stay where they are
    (in the cells). ``saved_arrays_changed`` finds which array changed. One plain loop, no
    comprehension: this runs once per recorded op (``TensorBase._make`` inlines it), and in
    Python 3.11 each comprehension is a call of its own.
    """
    saved = None
    cells = backward.__closure__
    if cells:
        for cell in cells:
            a = cell.cell_contents
            if type(a) is np.ndarray:
                c = a.tobytes() if a.size <= EXACT else checksum(a)
                saved = c if saved is None else saved + c
    return saved


def saved_arrays_changed(node: Node) -> np.ndarray | None:
    """The first of ``node``'s saved arrays that changed since it was saved (None: none did).

    Each array's checksum is compared with its stretch of ``node._checksums``.
    """
    saved = node._checksums
    if saved is None or node._backward_fn is None:
        return None
    start = 0
    for cell in node._backward_fn.__closure__ or ():
        a = cell.cell_contents
        if type(a) is np.ndarray:
            c = checksum(a)
            if saved[start:start + len(c)] != c:
                return a
            start += len(c)
    return None


class Node:
    """Storage for a Tensor's fields; every behaviour is in ``minitorch.tensor.Tensor``."""

    __slots__ = ("data", "grad", "requires_grad", "_prev", "_op", "_backward_fn", "_checksums",
                 "__weakref__")

    def _set_backward(self, backward: Callable | None) -> None:
        self._backward_fn = backward
        # only a recorded node will run its backward: no_grad() costs nothing
        self._checksums = (saved_checksums(backward)
                           if backward is not None and self.requires_grad else None)

    if TYPE_CHECKING:  # the same property, as a type checker reads one
        @property
        def _backward(self) -> Callable[..., Any] | None: ...

        @_backward.setter
        def _backward(self, backward: Callable[..., Any] | None) -> None: ...
    else:
        # reading is a C-level attribute fetch: the engine reads _backward once or twice per node
        _backward = property(attrgetter("_backward_fn"), _set_backward,
                             doc="The closure grad_output -> parent grads (None for a leaf).")
