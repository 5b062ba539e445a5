"""minitorch.tensor: reverse-mode autodiff on NumPy arrays. YOUR implementation.

This is the file you fill in during Fase 08. Every ``raise NotImplementedError`` names the lab
notebook that asks for it; replace it with your code. Run ``make check`` to see your progress.
(Generated from the reference by ``make stubs``; the docstrings below are your specification.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from minitorch.base import TensorBase
from minitorch.errors import BackwardError, GradShapeError, shape_errors
from minitorch.errors import grad_shape_message as _grad_shape_message
from minitorch.support import Axis, is_grad_enabled, no_grad
from minitorch.support import accumulate as _accumulate
from minitorch.support import check_unchanged as _check_unchanged
from minitorch.support import class_targets as _class_targets
from minitorch.support import erf as _erf
from minitorch.support import permutation as _permutation
from minitorch.support import reduced_axes as _axes
from minitorch.support import select as _select
from minitorch.support import sigmoid as _sigmoid
from minitorch.support import sizes as _sizes

__all__ = [
    "Tensor",
    "cat",
    "cross_entropy",
    "is_grad_enabled",
    "no_grad",
    "stack",
    "unbroadcast",
]


class Tensor(TensorBase):
    """A NumPy array that remembers how it was computed, so gradients can flow back to it.

    ``Tensor(data, requires_grad=False)`` copies ``data`` into a float64 array. Leaves that need
    a gradient are created with ``requires_grad=True``; an op's output requires grad when any of
    its inputs does (and grad mode is on). The constructor, ``_make``, ``shape``, ``item()``,
    ``detach()``, the operators (``a + b`` calls your ``add``) and the rest come from
    ``minitorch.base.TensorBase``, provided by the course; the helpers imported above
    (``_axes``, ``_sigmoid``, ``_accumulate``, ...) from ``minitorch.support``.

    An op computes its output's data and its closure ``_backward(g)`` (one gradient per parent,
    at the output's shape), then returns ``Tensor._make(data, parents, op_name, _backward)``.
    """

    __slots__ = ()  # the fields are declared in minitorch.node.Node

    # ================================================================== the engine
    # @lab 00-tensor-skeleton

    def _topological_order(self) -> list[Tensor]:
        """Every node that needs a gradient and leads to ``self``, parents before children.

        Iterative depth-first search with an explicit stack: a recursive one overflows Python's
        call stack (limit ~1000) on a chain of 100,000 ops.
        """
        raise NotImplementedError("Tensor._topological_order: not written yet (notebooks/en/00-tensor-skeleton.ipynb)")

    def backward(self, grad: Any = None, retain_graph: bool = False) -> None:
        """Fill ``.grad`` of every leaf that leads here with d(self)/d(leaf).

        ``grad`` is the upstream gradient, with ``self``'s shape; it may be omitted only when
        ``self`` has one element (the seed is then 1). Leaf gradients accumulate across calls
        (call ``zero_grad``); an intermediate node's ``.grad`` holds the last pass's value.
        The graph is freed afterwards, like PyTorch's, unless ``retain_graph=True``; a second
        ``backward()`` through a freed graph then raises ``BackwardError`` (theory 01): noticing
        it is yours too, and lab 00's ``retain_graph`` check tests it.

        Add each gradient into its node with the provided ``_accumulate(node, g, grad_output)``,
        never by hand: ``g`` is the gradient for ``node``, and ``grad_output`` the upstream
        gradient that the ``_backward`` which returned ``g`` received (for the output itself,
        its seed). The helper compares the two to know whether ``g`` is an array it may keep.
        A gradient whose shape differs from its parent's goes through ``unbroadcast``, which
        lab 01 asks for (next section): lab 00's graphs never broadcast, so until then the
        call is never reached, and it stays the one place where reverse broadcasting happens.

        Two checks are yours too (theory 01): before any gradient flows, hand the nodes to the
        provided ``_check_unchanged`` (data changed in place since the forward pass: a
        ``BackwardError``); and a gradient that, even after ``unbroadcast``, does not have its
        parent's shape raises ``GradShapeError`` with the provided ``_grad_shape_message``
        (the op, the parent's index, both shapes).
        """
        seed = self._seed(grad)  # provided: requires_grad, and grad's shape
        raise NotImplementedError("Tensor.backward: not written yet (notebooks/en/00-tensor-skeleton.ipynb)")

    # ================================================================== elementwise ops
    # @lab 01-elementwise-ops

    @staticmethod
    def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        """Sum ``grad`` down to ``shape``: the reverse of broadcasting ``shape`` to ``grad.shape``.

        Aligned to the right, the leading axes ``grad`` has in excess are summed away, and so are
        the axes where ``shape`` has 1 and ``grad`` does not. (4, 3) -> (3,): sum over axis 0.
        Returns ``grad`` unchanged when no rule applies; the caller checks the final shape.
        """
        raise NotImplementedError("Tensor.unbroadcast: not written yet (notebooks/en/01-elementwise-ops.ipynb)")

    @shape_errors
    def add(self, other: Any) -> Tensor:
        """a + b, elementwise with broadcasting. (...), (...) -> broadcast shape."""
        other = self._as_tensor(other)
        raise NotImplementedError("Tensor.add: not written yet (notebooks/en/01-elementwise-ops.ipynb)")

    @shape_errors
    def sub(self, other: Any) -> Tensor:
        """a - b, elementwise with broadcasting. (...), (...) -> broadcast shape."""
        other = self._as_tensor(other)
        raise NotImplementedError("Tensor.sub: not written yet (notebooks/en/01-elementwise-ops.ipynb)")

    @shape_errors
    def mul(self, other: Any) -> Tensor:
        """a * b, elementwise with broadcasting. (...), (...) -> broadcast shape."""
        other = self._as_tensor(other)
        raise NotImplementedError("Tensor.mul: not written yet (notebooks/en/01-elementwise-ops.ipynb)")

    @shape_errors
    def div(self, other: Any) -> Tensor:
        """a / b, elementwise with broadcasting. (...), (...) -> broadcast shape."""
        other = self._as_tensor(other)
        raise NotImplementedError("Tensor.div: not written yet (notebooks/en/01-elementwise-ops.ipynb)")

    def neg(self) -> Tensor:
        """-a, elementwise. (...) -> (...)."""
        raise NotImplementedError("Tensor.neg: not written yet (notebooks/en/01-elementwise-ops.ipynb)")

    @shape_errors
    def pow(self, other: Any) -> Tensor:
        """a ** b with broadcasting; the exponent's gradient needs a > 0 (theory/02, pow at base 0)."""
        other = self._as_tensor(other)
        raise NotImplementedError("Tensor.pow: not written yet (notebooks/en/01-elementwise-ops.ipynb)")

    def exp(self) -> Tensor:
        """e^a, elementwise. (...) -> (...)."""
        raise NotImplementedError("Tensor.exp: not written yet (notebooks/en/01-elementwise-ops.ipynb)")

    def log(self) -> Tensor:
        """ln a, elementwise (a > 0). (...) -> (...)."""
        raise NotImplementedError("Tensor.log: not written yet (notebooks/en/01-elementwise-ops.ipynb)")

    def sqrt(self) -> Tensor:
        """√a, elementwise (a > 0). (...) -> (...)."""
        raise NotImplementedError("Tensor.sqrt: not written yet (notebooks/en/01-elementwise-ops.ipynb)")

    def relu(self) -> Tensor:
        """max(a, 0), elementwise; at the kink a = 0 the gradient is 0, as torch's. (...) -> (...)."""
        raise NotImplementedError("Tensor.relu: not written yet (notebooks/en/01-elementwise-ops.ipynb)")

    def gelu(self, approximate: str = "none") -> Tensor:
        """a·Φ(a), Φ the standard normal CDF; ``approximate='tanh'`` uses torch's tanh formula.

        tanh: 0.5·a·(1 + tanh(u)), u = √(2/π)·(a + 0.044715·a³). Derivatives: theory/02, gelu.
        """
        if approximate not in ("none", "tanh"):
            raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
        raise NotImplementedError("Tensor.gelu: not written yet (notebooks/en/01-elementwise-ops.ipynb)")

    def tanh(self) -> Tensor:
        """tanh a, elementwise. (...) -> (...)."""
        raise NotImplementedError("Tensor.tanh: not written yet (notebooks/en/01-elementwise-ops.ipynb)")

    def sigmoid(self) -> Tensor:
        """σ(a) = 1/(1+e^-a), elementwise (``_sigmoid`` computes it without overflow). (...) -> (...)."""
        raise NotImplementedError("Tensor.sigmoid: not written yet (notebooks/en/01-elementwise-ops.ipynb)")

    # ================================================================== reductions and shape ops
    # @lab 02-reductions-and-shapes

    @shape_errors
    def sum(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """Σ over ``axis`` (int, tuple or None = all). (...) -> reduced shape."""
        raise NotImplementedError("Tensor.sum: not written yet (notebooks/en/02-reductions-and-shapes.ipynb)")

    def mean(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """Σ over ``axis`` / number of elements summed. (...) -> reduced shape."""
        raise NotImplementedError("Tensor.mean: not written yet (notebooks/en/02-reductions-and-shapes.ipynb)")

    @shape_errors
    def max(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """max over ``axis``; the gradient is split evenly among tied maxima (torch.amax)."""
        raise NotImplementedError("Tensor.max: not written yet (notebooks/en/02-reductions-and-shapes.ipynb)")

    @shape_errors
    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        """The same elements in a new shape (``reshape(3, 5)`` or ``reshape((3, 5))``)."""
        shape = _sizes(shape, "reshape: sizes")
        raise NotImplementedError("Tensor.reshape: not written yet (notebooks/en/02-reductions-and-shapes.ipynb)")

    @shape_errors
    def transpose(self, *axes: int | Sequence[int]) -> Tensor:
        """Permute the axes (none given: reverse them). (d0, d1, ...) -> permuted shape.

        ``perm``, provided: every axis, positive, in the output's order (none given: reversed)."""
        perm = _permutation(_sizes(axes, "transpose: axes"), self.ndim)  # (-1, 0) -> (1, 0)
        raise NotImplementedError("Tensor.transpose: not written yet (notebooks/en/02-reductions-and-shapes.ipynb)")

    @shape_errors
    def broadcast_to(self, shape: Sequence[int]) -> Tensor:
        """Expand to ``shape`` by broadcasting; backward is unbroadcast's job."""
        raise NotImplementedError("Tensor.broadcast_to: not written yet (notebooks/en/02-reductions-and-shapes.ipynb)")

    def getitem(self, index: Any) -> Tensor:
        """``a[index]``: slices, integers, integer arrays (repeated indices accumulate)."""
        index, selected = _select(self.data, index)  # provided: the index copied, or an IndexError
        raise NotImplementedError("Tensor.getitem: not written yet (notebooks/en/02-reductions-and-shapes.ipynb)")

    @staticmethod
    @shape_errors
    def cat(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
        """Join tensors along an existing ``axis``: (2,5), (3,5) -> (5,5) for axis=0."""
        tensors = tuple(Tensor._as_tensor(t) for t in tensors)
        raise NotImplementedError("Tensor.cat: not written yet (notebooks/en/02-reductions-and-shapes.ipynb)")

    @staticmethod
    @shape_errors
    def stack(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
        """Join equally shaped tensors along a NEW ``axis``: 3 × (4,5) -> (3,4,5) for axis=0."""
        tensors = tuple(Tensor._as_tensor(t) for t in tensors)
        raise NotImplementedError("Tensor.stack: not written yet (notebooks/en/02-reductions-and-shapes.ipynb)")

    # ================================================================== matmul and softmax
    # @lab 03-matmul-softmax-ce

    @shape_errors
    def matmul(self, other: Any) -> Tensor:
        """a @ b with NumPy semantics: (..., N, K) @ (..., K, M) -> (..., N, M), 1-D allowed."""
        other = self._as_tensor(other)
        raise NotImplementedError("Tensor.matmul: not written yet (notebooks/en/03-matmul-softmax-ce.ipynb)")

    @shape_errors
    def softmax(self, axis: int = -1) -> Tensor:
        """e^a / Σ e^a along ``axis`` (the max is subtracted first). (...) -> (...)."""
        raise NotImplementedError("Tensor.softmax: not written yet (notebooks/en/03-matmul-softmax-ce.ipynb)")

    @shape_errors
    def log_softmax(self, axis: int = -1) -> Tensor:
        """a - log Σ e^a along ``axis``, through log-sum-exp. (...) -> (...)."""
        raise NotImplementedError("Tensor.log_softmax: not written yet (notebooks/en/03-matmul-softmax-ce.ipynb)")

    @staticmethod
    def cross_entropy(logits: Tensor, targets: Any, reduction: str = "mean") -> Tensor:
        """-log softmax(logits)[i, targets[i]] for each row i, reduced as torch does: (N, C),
        (N,) ints -> () for reduction='mean' (the default: the mean over the batch) or 'sum',
        (N,) for 'none' (each row's loss).

        Fused through log-sum-exp, so logits of ±1e4 stay finite; one node, whose gradient you
        derive in theory/03, section 4.4 (the reduction only changes how g reaches each row).
        """
        logits = Tensor._as_tensor(logits)
        targets = _class_targets(targets, logits.shape)
        if reduction not in ("mean", "sum", "none"):
            raise ValueError("cross_entropy: reduction must be 'mean', 'sum' or 'none', got "
                             f"{reduction!r}")
        raise NotImplementedError("Tensor.cross_entropy: not written yet (notebooks/en/03-matmul-softmax-ce.ipynb)")

    # ================================================================== extension
    # @lab 06-extension-silu

    def silu(self) -> Tensor:
        """a·σ(a) (a.k.a. swish); its derivative is yours to derive (lab 06). (...) -> (...)."""
        raise NotImplementedError("Tensor.silu: not written yet (notebooks/en/06-extension-silu.ipynb)")


# ---------------------------------------------------------------------- provided
# The ops written as static methods are also module-level functions (``mt.cat(...)``).
unbroadcast = Tensor.unbroadcast
cat = Tensor.cat
stack = Tensor.stack
cross_entropy = Tensor.cross_entropy
