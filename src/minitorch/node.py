"""The fields of a graph node, apart from the Tensor class that the learner edits.

``Tensor = (data, grad, _prev, _op, _backward, requires_grad)``: the fields are declared here, in
``__slots__`` (no per-instance ``__dict__``: a node of a 100,000-op graph stays small), and
``minitorch.tensor.Tensor`` inherits them. They live in their own module for one practical
reason: when ``%autoreload`` re-executes your edited ``tensor.py``, the Tensor class is replaced,
and slot descriptors defined in the replaced class would no longer fit the tensors you already
have. Declared here, they never change, so your live tensors keep working after every save.

The fields are plain slots, ``_backward`` included: your ``backward`` reads it up to three times
per node and writes ``None`` into it to free the graph, so it costs no more than any other field
(as a property that took the checksums below, it cost about 4 % of a 200-op chain's
instructions: benchmarks/README.md, issue 32).

Recording an op (``TensorBase._make``) also takes a checksum of every NumPy array the closure
captured (``_checksums``): exactly the arrays its backward will read (``a`` and ``b`` in ``mul``,
the output in ``exp``), and keeps the closure's code (``_code``) to know it again.
``backward()`` compares them before running any closure (``minitorch.support.check_unchanged``),
so an array changed in place between the forward pass and ``backward()`` gives an error naming
the op, not a silently wrong gradient. A closure assigned by hand after ``_make(data, parents,
op)`` (``out._backward = f``, as notebook 00 does) is a plain write the engine does not see:
for such a node ``_make`` takes digests of its data and of each parent's data instead, and
``backward()`` checks those of them that the closure captured. PyTorch counts the writes to each
tensor instead (version counters); a NumPy array cannot count, and making the arrays the engine
creates read-only instead would forbid writes that no backward reads, which PyTorch allows
(benchmarks/README.md, issue 32).
"""

from __future__ import annotations

from collections.abc import Callable
from types import CodeType
from typing import TYPE_CHECKING, Any

import numpy as np

__all__ = [
    "EXACT", "ROWS", "SMALL", "Node", "checksum", "digest", "saved_arrays_changed",
    "saved_checksums",
]


EXACT = 64  # elements: up to here an array's checksum is its bytes themselves (<= 512 bytes)
SMALL = 512  # elements: up to here a hash of the bytes; beyond, a weighted sum
ROWS = 32_768  # elements: beyond, the weighted sum goes by rows of 64 (see checksum)
_weights = np.empty(0)
_row_weights = np.random.default_rng(1).uniform(0.5, 1.5, size=64)


def checksum(a: np.ndarray) -> bytes:
    """A fingerprint of ``a``'s values, cheap enough to take for every array a backward saves.

    Up to 64 elements: the bytes themselves (cheaper to take and to compare than a hash, and
    exact). Up to 512: a hash of the bytes (8 bytes). Beyond: the bytes of the dot product with
    fixed random weights, in one pass (a change smaller than the product's rounding error, about
    1e-16 of its size, can go unnoticed: a cheap check, not a proof); beyond 32,768 elements the
    weights are products u_i * v_j over rows of 64. The engine's loops inline the first case:
    ``a.tobytes() if a.size <= EXACT else checksum(a)``.
    """
    if a.size <= EXACT:
        return a.tobytes()
    if a.size <= SMALL:
        return hash(a.tobytes()).to_bytes(8, "little", signed=True)
    global _weights
    if _weights.size < a.size:
        _weights = np.random.default_rng(0).uniform(0.5, 1.5, size=2 * a.size)
    # einsum, not @: a BLAS dot may wake worker threads, which costs milliseconds on a busy machine
    flat = a.reshape(-1)
    if a.size <= ROWS:
        return np.einsum("i,i->", flat, _weights[: a.size]).tobytes()
    # Element (i, j) of the rows of 64 weighs u_i * v_j: the same kind of sum, but its 64 weights
    # v stay in the CPU's first-level cache where the flat form reads a second array as long as
    # ``a`` (a quarter less time at 98,304 elements; benchmarks/README.md, issue 32).
    k, tail = divmod(a.size, 64)
    rows = np.einsum("ij,j->i", flat[: k * 64].reshape(k, 64), _row_weights)
    total = np.einsum("i,i->", rows, _weights[:k])
    if tail:
        total = total + np.einsum("i,i->", flat[k * 64:], _weights[k:k + tail])
    return total.tobytes()


def digest(a: np.ndarray) -> bytes:
    """``checksum(a)`` in 8 bytes whatever ``a``'s size: the record of a node whose closure is
    assigned by hand, one digest per array, at fixed offsets (``minitorch.support``)."""
    return hash(checksum(a)).to_bytes(8, "little", signed=True)


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

    Each array's checksum is compared with its stretch of ``node._checksums``. Only for the
    closure ``_make`` recorded (``node._code``): another one's cells are not what was saved.
    """
    saved, backward = node._checksums, node._backward
    if saved is None or getattr(backward, "__code__", None) is not node._code:
        return None
    start = 0
    for cell in backward.__closure__ or ():
        a = cell.cell_contents
        if type(a) is np.ndarray:
            c = checksum(a)
            if saved[start:start + len(c)] != c:
                return a
            start += len(c)
    return None


class Node:
    """Storage for a Tensor's fields; every behaviour is in ``minitorch.tensor.Tensor``.

    ``_backward`` is the closure grad_output -> parent grads (None for a leaf, or once the graph
    is freed). ``_checksums`` and ``_code`` are the engine's record of what the closure saved
    (the module docstring): ``_code`` is the code of the closure ``_make`` recorded, or None if
    it recorded none (then ``_checksums`` holds ``digest`` of the node's data and each parent's).
    """

    __slots__ = ("data", "grad", "requires_grad", "_prev", "_op", "_backward", "_code",
                 "_checksums", "__weakref__")

    if TYPE_CHECKING:  # what the slots hold, as a type checker reads it
        data: np.ndarray
        grad: np.ndarray | None
        requires_grad: bool
        _prev: tuple
        _op: str
        _backward: Callable[..., Any] | None
        _code: CodeType | None
        _checksums: bytes | None
