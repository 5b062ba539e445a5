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

__all__ = ["GradMode", "Node", "checksum", "saved_arrays_changed", "saved_checksums"]


class GradMode(threading.local):
    """Whether ops record a graph, per thread like torch's grad mode (on in every new thread).

    Declared here rather than in tensor.py for the same reason as the fields: %autoreload
    re-classes the instances of classes that an edited module redefines, which a
    ``threading.local`` does not allow.
    """

    enabled = True


SMALL = 512  # elements: up to here a checksum hashes the bytes
_weights = np.empty(0)


def checksum(a: np.ndarray) -> int | bytes:
    """A fingerprint of ``a``'s values, cheap enough to take for every array a backward saves.

    Up to 512 elements: a hash of the bytes. Beyond: the bytes of the dot product with fixed
    random weights, in one pass (a change smaller than the product's rounding error, about 1e-16
    of its size, can go unnoticed: a cheap check, not a proof).
    """
    if a.size <= SMALL:
        return hash(a.tobytes())
    global _weights
    if _weights.size < a.size:
        _weights = np.random.default_rng(0).uniform(0.5, 1.5, size=2 * a.size)
    # einsum, not @: a BLAS dot may wake worker threads, which costs milliseconds on a busy machine
    return np.einsum("i,i->", a.reshape(-1), _weights[: a.size]).tobytes()


def saved_checksums(backward: Callable) -> tuple[int | bytes, ...] | None:
    """The checksums of the NumPy arrays among ``backward``'s closure cells, in cell order.

    Only numbers: the arrays stay where they are (in the cells), so the tuple adds no
    reference for the garbage collector to follow. One plain loop, no comprehension: this runs
    once per recorded op, and in Python 3.11 each comprehension is a call of its own.
    """
    cells = backward.__closure__
    if not cells:
        return None
    saved = []
    for cell in cells:
        value = cell.cell_contents
        if type(value) is np.ndarray:
            saved.append(hash(value.tobytes()) if value.size <= SMALL else checksum(value))
    return tuple(saved) if saved else None


def saved_arrays_changed(node: Node, now: dict[int, int | bytes] | None = None) -> np.ndarray | None:
    """The first of ``node``'s saved arrays that changed since it was saved (None: none did).

    ``now`` caches each array's current checksum by ``id`` while one ``backward()`` checks its
    graph: an array several closures saved (a leaf used by many ops) is hashed once.
    """
    saved = node._checksums
    if saved is None:
        return None
    i = 0
    for cell in node._backward_fn.__closure__:
        a = cell.cell_contents
        if type(a) is not np.ndarray:
            continue
        if now is None:
            current = hash(a.tobytes()) if a.size <= SMALL else checksum(a)
        else:
            current = now.get(id(a))
            if current is None:
                current = now[id(a)] = hash(a.tobytes()) if a.size <= SMALL else checksum(a)
        if current != saved[i]:
            return a
        i += 1
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
