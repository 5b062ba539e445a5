"""The fields of a graph node, apart from the Tensor class that the learner edits.

``Tensor = (data, grad, _prev, _op, _backward, requires_grad)``: the fields are declared here, in
``__slots__`` (no per-instance ``__dict__``: a node of a 100,000-op graph stays small), and
``minitorch.tensor.Tensor`` inherits them. They live in their own module for one practical
reason: when ``%autoreload`` re-executes your edited ``tensor.py``, the Tensor class is replaced,
and slot descriptors defined in the replaced class would no longer fit the tensors you already
have. Declared here, they never change, so your live tensors keep working after every save.
"""

from __future__ import annotations


class Node:
    """Storage for a Tensor's fields; every behaviour is in ``minitorch.tensor.Tensor``."""

    # _checksums: fingerprints of the data an op's backward reads, taken in the forward pass and
    # compared in backward() (a BackwardError if an array changed in place in between)
    __slots__ = ("data", "grad", "requires_grad", "_prev", "_op", "_backward", "_checksums",
                 "__weakref__")
