"""minitorch.tensor: reverse-mode autodiff on NumPy arrays. YOUR implementation.

This is the file you fill in during Fase 08. Every ``raise NotImplementedError`` names the lab
notebook that asks for it; replace it with your code. Run ``make check`` to see your progress.
(Generated from the reference by ``make stubs``; the docstrings below are your specification.)
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from minitorch.errors import BackwardError, GradShapeError, ShapeError, shape_errors
from minitorch.errors import grad_shape_message as _grad_shape_message
from minitorch.node import GradMode, Node, saved_arrays_changed

__all__ = [
    "Tensor",
    "cat",
    "cross_entropy",
    "is_grad_enabled",
    "no_grad",
    "stack",
    "unbroadcast",
]

Axis = int | tuple[int, ...] | None
Backward = Callable[[np.ndarray], tuple[np.ndarray | None, ...]]

_grad_mode = GradMode()  # .enabled: whether ops record a graph, per thread (like torch)


@contextmanager
def no_grad() -> Iterator[None]:
    """Inside ``with no_grad():`` ops record no graph (inference, parameter updates).

    It applies to the calling thread only, like ``torch.no_grad()``.
    """
    previous, _grad_mode.enabled = _grad_mode.enabled, False
    try:
        yield
    finally:
        _grad_mode.enabled = previous


def is_grad_enabled() -> bool:
    """True unless inside a ``no_grad()`` block (of this thread)."""
    return _grad_mode.enabled


def _as_array(data: Any) -> np.ndarray:
    """``data`` as a fresh float64 array; a TypeError naming it if it is not numeric."""
    if isinstance(data, Tensor):
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


def _as_tensor(x: Any) -> Tensor:
    """A Tensor as is; a number or an array as a constant Tensor (no gradient)."""
    return x if isinstance(x, Tensor) else Tensor(x)


def _axes(axis: Axis, ndim: int) -> tuple[int, ...]:
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


def _sizes(args: tuple[Any, ...], what: str) -> tuple[int, ...]:
    """``f(3, 5)`` or ``f((3, 5))`` as a tuple of ints; NumPy integers welcome."""
    try:
        if len(args) == 1 and not isinstance(args[0], int | np.integer):
            args = tuple(args[0])
        return tuple(operator.index(n) for n in args)
    except TypeError:
        raise TypeError(f"{what} must be integers, got {args!r}") from None


class Tensor(Node):
    """A NumPy array that remembers how it was computed, so gradients can flow back to it.

    ``Tensor(data, requires_grad=False)`` copies ``data`` into a float64 array. Leaves that need
    a gradient are created with ``requires_grad=True``; an op's output requires grad when any of
    its inputs does (and grad mode is on).

    ``==`` and ``hash`` are identity, as for any Python object (torch's ``==`` is elementwise):
    ``t in visited`` and sets of tensors mean "this very node". Compare values with ``.data``.
    """

    __slots__ = ()  # the fields are declared in minitorch.node.Node
    __array_ufunc__ = None  # ndarray (op) Tensor defers to Tensor's reflected operators

    def __init__(self, data: Any, requires_grad: bool = False) -> None:
        self.data: np.ndarray = _as_array(data)
        self.grad: np.ndarray | None = None
        self.requires_grad: bool = bool(requires_grad)
        self._prev: tuple[Tensor, ...] = ()
        self._op: str = ""
        self._backward: Backward | None = None

    @staticmethod
    def _make(data: np.ndarray, parents: tuple[Tensor, ...], op: str) -> Tensor:
        """The output node of ``op``: records ``parents`` only if a gradient will be needed."""
        out = Tensor.__new__(Tensor)
        # NumPy returns a scalar, not an array, from a 0-d computation: .data is always an array
        out.data = data if type(data) is np.ndarray else np.asarray(data, dtype=np.float64)
        out.grad = None
        out._backward = None
        # a list, not a generator: for one or two parents it is the cheaper of the two
        if _grad_mode.enabled and any([p.requires_grad for p in parents]):
            out.requires_grad, out._prev, out._op = True, parents, op
        else:
            out.requires_grad, out._prev, out._op = False, (), ""
        return out

    # ------------------------------------------------------------------ basics (provided)
    @property
    def shape(self) -> tuple[int, ...]:
        """The array's shape."""
        return self.data.shape

    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return self.data.ndim

    @property
    def size(self) -> int:
        """Number of elements."""
        return self.data.size

    @property
    def dtype(self) -> np.dtype:
        """The array's dtype (float64 unless you changed ``data`` yourself)."""
        return self.data.dtype

    @property
    def T(self) -> Tensor:
        """All axes reversed, like ``ndarray.T``."""
        return self.transpose()

    def item(self) -> float:
        """The value of a one-element tensor as a Python float."""
        if self.data.size != 1:
            raise ValueError(f"item() needs a tensor with one element; this one has shape {self.shape}")
        return float(self.data.reshape(()))

    def numpy(self) -> np.ndarray:
        """The underlying array (shared, not copied)."""
        return self.data

    def detach(self) -> Tensor:
        """A new leaf sharing ``data`` with this tensor, cut off from the graph."""
        out = Tensor.__new__(Tensor)
        out.data, out.grad, out.requires_grad = self.data, None, False
        out._prev, out._op, out._backward = (), "", None
        return out

    def zero_grad(self) -> None:
        """Forget the accumulated gradient (``grad = None``)."""
        self.grad = None

    def __repr__(self) -> str:
        body = np.array2string(self.data, separator=", ", prefix="Tensor(", precision=4)
        extra = f", op='{self._op}'" if self._op else ""
        if self.requires_grad and not self._op:
            extra = ", requires_grad=True"
        return f"Tensor({body}{extra})"

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        """The sub-tensors along axis 0 (``t[0], t[1], ...``); a 0-d tensor is not iterable."""
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    def __bool__(self) -> bool:
        """The truth value of a one-element tensor; ambiguous (an error) for any other size."""
        if self.data.size != 1:
            raise RuntimeError(
                f"the truth value of a tensor of shape {self.shape} ({self.data.size} elements) "
                "is ambiguous; only a one-element tensor converts to bool (use .data.any() or "
                ".data.all())"
            )
        return bool(self.data.reshape(()))

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        """``np.asarray(t)``: the data (shared, like ``numpy()``), if ``t`` does not require grad.

        For a tensor that requires grad it raises, like torch: the array would silently leave
        the graph. Read ``t.data`` (or ``t.detach()``) to say that is what you mean.
        """
        if self.requires_grad:
            raise TypeError(
                f"cannot convert a tensor that requires grad (shape {self.shape}) to a NumPy "
                "array implicitly: the array would leave the graph; use t.data or "
                "np.asarray(t.detach())"
            )
        return np.array(self.data, dtype=dtype, copy=copy)

    # ------------------------------------------------------------------ operators (provided)
    def __add__(self, other: Any) -> Tensor:
        return self.add(other)

    def __radd__(self, other: Any) -> Tensor:
        return _as_tensor(other).add(self)

    def __sub__(self, other: Any) -> Tensor:
        return self.sub(other)

    def __rsub__(self, other: Any) -> Tensor:
        return _as_tensor(other).sub(self)

    def __mul__(self, other: Any) -> Tensor:
        return self.mul(other)

    def __rmul__(self, other: Any) -> Tensor:
        return _as_tensor(other).mul(self)

    def __truediv__(self, other: Any) -> Tensor:
        return self.div(other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return _as_tensor(other).div(self)

    def __pow__(self, other: Any) -> Tensor:
        return self.pow(other)

    def __rpow__(self, other: Any) -> Tensor:
        return _as_tensor(other).pow(self)

    def __matmul__(self, other: Any) -> Tensor:
        return self.matmul(other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return _as_tensor(other).matmul(self)

    def __neg__(self) -> Tensor:
        return self.neg()

    def __getitem__(self, index: Any) -> Tensor:
        return self.getitem(index)

    # ================================================================== the engine
    # @lab 00-tensor-skeleton

    def _topological_order(self) -> list[Tensor]:
        """Every node that needs a gradient and leads to ``self``, parents before children.

        Iterative depth-first search with an explicit stack: a recursive one overflows Python's
        call stack (limit ~1000) on a chain of 100,000 ops.
        """
        raise NotImplementedError("Tensor._topological_order: aún sin escribir / not written yet (notebooks/00-tensor-skeleton.ipynb)")

    def backward(self, grad: Any = None, retain_graph: bool = False) -> None:
        """Fill ``.grad`` of every leaf that leads here with d(self)/d(leaf).

        ``grad`` is the upstream gradient, with ``self``'s shape; it may be omitted only when
        ``self`` has one element (the seed is then 1). Leaf gradients accumulate across calls
        (call ``zero_grad``); an intermediate node's ``.grad`` holds the last pass's value.
        The graph is freed afterwards, like PyTorch's, unless ``retain_graph=True``.
        """
        if not self.requires_grad:
            raise BackwardError(
                "backward() on a tensor that does not require grad: no input of the expression "
                "was created with requires_grad=True (or it was computed under no_grad())"
            )
        if grad is None:
            if self.data.size != 1:
                raise BackwardError(
                    f"backward() on a tensor of shape {self.shape} needs an explicit grad of that "
                    "shape (the seed is only implicit for one-element outputs such as a loss), "
                    f"e.g. t.backward(np.ones({self.shape}))"
                )
            seed = np.ones_like(self.data)
        else:
            seed = _as_array(grad)
            if seed.shape != self.shape:
                raise ShapeError(
                    f"backward(grad): grad has shape {seed.shape} but the tensor has shape "
                    f"{self.shape}; they must be equal"
                )
        raise NotImplementedError("Tensor.backward: aún sin escribir / not written yet (notebooks/00-tensor-skeleton.ipynb)")

    # ================================================================== elementwise ops
    # @lab 01-elementwise-ops

    @shape_errors
    def add(self, other: Any) -> Tensor:
        """a + b, elementwise with broadcasting. (...), (...) -> broadcast shape."""
        other = _as_tensor(other)
        raise NotImplementedError("Tensor.add: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    @shape_errors
    def sub(self, other: Any) -> Tensor:
        """a - b, elementwise with broadcasting. (...), (...) -> broadcast shape."""
        other = _as_tensor(other)
        raise NotImplementedError("Tensor.sub: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    @shape_errors
    def mul(self, other: Any) -> Tensor:
        """a * b, elementwise with broadcasting. (...), (...) -> broadcast shape."""
        other = _as_tensor(other)
        raise NotImplementedError("Tensor.mul: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    @shape_errors
    def div(self, other: Any) -> Tensor:
        """a / b, elementwise with broadcasting; d/da = 1/b, d/db = -a/b². -> broadcast shape."""
        other = _as_tensor(other)
        raise NotImplementedError("Tensor.div: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    def neg(self) -> Tensor:
        """-a, elementwise. (...) -> (...)."""
        raise NotImplementedError("Tensor.neg: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    @shape_errors
    def pow(self, other: Any) -> Tensor:
        """a ** b with broadcasting; d/da = b·a^(b-1), d/db = a^b·ln a (needs a > 0)."""
        other = _as_tensor(other)
        raise NotImplementedError("Tensor.pow: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    def exp(self) -> Tensor:
        """e^a, elementwise; its derivative is its own output. (...) -> (...)."""
        raise NotImplementedError("Tensor.exp: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    def log(self) -> Tensor:
        """ln a, elementwise (a > 0); d/da = 1/a. (...) -> (...)."""
        raise NotImplementedError("Tensor.log: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    def sqrt(self) -> Tensor:
        """√a, elementwise (a > 0); d/da = 1/(2√a). (...) -> (...)."""
        raise NotImplementedError("Tensor.sqrt: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    def relu(self) -> Tensor:
        """max(a, 0), elementwise; d/da = 1 if a > 0 else 0 (0 at the kink, as torch)."""
        raise NotImplementedError("Tensor.relu: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    def gelu(self, approximate: str = "none") -> Tensor:
        """a·Φ(a), Φ the standard normal CDF; ``approximate='tanh'`` uses torch's tanh formula.

        exact: d/da = Φ(a) + a·φ(a);  tanh: 0.5·a·(1 + tanh(u)), u = √(2/π)·(a + 0.044715·a³).
        """
        if approximate not in ("none", "tanh"):
            raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
        raise NotImplementedError("Tensor.gelu: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    def tanh(self) -> Tensor:
        """tanh a, elementwise; d/da = 1 - tanh²a. (...) -> (...)."""
        raise NotImplementedError("Tensor.tanh: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    def sigmoid(self) -> Tensor:
        """σ(a) = 1/(1+e^-a), elementwise; d/da = σ(a)(1-σ(a)). (...) -> (...)."""
        raise NotImplementedError("Tensor.sigmoid: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")

    # ================================================================== reductions and shape ops
    # @lab 02-reductions-and-shapes

    @shape_errors
    def sum(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """Σ over ``axis`` (int, tuple or None = all). (...) -> reduced shape."""
        raise NotImplementedError("Tensor.sum: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")

    def mean(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """Σ over ``axis`` / number of elements summed. (...) -> reduced shape."""
        raise NotImplementedError("Tensor.mean: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")

    @shape_errors
    def max(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
        """max over ``axis``; the gradient is split evenly among tied maxima (torch.amax)."""
        raise NotImplementedError("Tensor.max: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")

    @shape_errors
    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        """The same elements in a new shape (``reshape(3, 5)`` or ``reshape((3, 5))``)."""
        shape = _sizes(shape, "reshape: sizes")
        raise NotImplementedError("Tensor.reshape: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")

    @shape_errors
    def transpose(self, *axes: int | Sequence[int]) -> Tensor:
        """Permute the axes (none given: reverse them). (d0, d1, ...) -> permuted shape."""
        axes = _permutation(_sizes(axes, "transpose: axes"), self.ndim)  # -1 -> ndim - 1
        raise NotImplementedError("Tensor.transpose: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")

    @shape_errors
    def broadcast_to(self, shape: Sequence[int]) -> Tensor:
        """Expand to ``shape`` by broadcasting; backward is unbroadcast's job."""
        raise NotImplementedError("Tensor.broadcast_to: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")

    def getitem(self, index: Any) -> Tensor:
        """``a[index]``: slices, integers, integer arrays (repeated indices accumulate)."""
        index = _own_index(index)
        try:
            selected = self.data[index]
        except IndexError as err:
            raise IndexError(f"getitem: {err} (tensor shape {self.shape}, index {index!r})") from None
        raise NotImplementedError("Tensor.getitem: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")

    # ================================================================== matmul and softmax
    # @lab 03-matmul-softmax-ce

    @shape_errors
    def matmul(self, other: Any) -> Tensor:
        """a @ b with NumPy semantics: (..., N, K) @ (..., K, M) -> (..., N, M), 1-D allowed."""
        other = _as_tensor(other)
        raise NotImplementedError("Tensor.matmul: aún sin escribir / not written yet (notebooks/03-matmul-softmax-ce.ipynb)")

    @shape_errors
    def softmax(self, axis: int = -1) -> Tensor:
        """e^a / Σ e^a along ``axis`` (the max is subtracted first). (...) -> (...)."""
        raise NotImplementedError("Tensor.softmax: aún sin escribir / not written yet (notebooks/03-matmul-softmax-ce.ipynb)")

    @shape_errors
    def log_softmax(self, axis: int = -1) -> Tensor:
        """a - log Σ e^a along ``axis``, through log-sum-exp. (...) -> (...)."""
        raise NotImplementedError("Tensor.log_softmax: aún sin escribir / not written yet (notebooks/03-matmul-softmax-ce.ipynb)")

    # ================================================================== extension
    # @lab 06-extension-silu

    def silu(self) -> Tensor:
        """a·σ(a) (a.k.a. swish); d/da = σ(a)·(1 + a·(1 - σ(a))). (...) -> (...)."""
        raise NotImplementedError("Tensor.silu: aún sin escribir / not written yet (notebooks/06-extension-silu.ipynb)")


# ====================================================================== module-level ops
# @lab 01-elementwise-ops


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` down to ``shape``: the reverse of broadcasting ``shape`` to ``grad.shape``.

    Aligned to the right, the leading axes ``grad`` has in excess are summed away, and so are
    the axes where ``shape`` has 1 and ``grad`` does not. (4, 3) -> (3,): sum over axis 0.
    Returns ``grad`` unchanged when no rule applies; the caller checks the final shape.
    """
    raise NotImplementedError("unbroadcast: aún sin escribir / not written yet (notebooks/01-elementwise-ops.ipynb)")


def _accumulate(node: Tensor, g: np.ndarray, grad_output: np.ndarray) -> None:
    """``node.grad += g``, never in place; a leaf's gradient never aliases another array."""
    if node.grad is None:
        # A leaf's .grad is the user's (an optimizer may update it in place): it must not be a
        # read-only broadcast view or the very array handed to a sibling. An intermediate
        # node's gradient is only read by its own _backward, so it can share.
        shared = g is grad_output or g.base is not None
        node.grad = g.copy() if shared and not node._prev else g
    else:
        node.grad = node.grad + g
    if type(node.grad) is not np.ndarray:  # NumPy computes 0-d results as scalars
        node.grad = np.asarray(node.grad, dtype=np.float64)


def _check_unchanged(order: Sequence[Tensor]) -> None:
    """A BackwardError naming the op if an array its backward reads changed since the forward.

    Assigning ``out._backward`` took a checksum of each array the closure captured
    (``minitorch.node``); changing one in place (``x.data *= 2``, ``y.data[0] = 7``) between the
    forward pass and ``backward()`` would otherwise give a silently wrong gradient.
    """
    for node in order:
        if node._checksums is None:
            continue
        array = saved_arrays_changed(node)
        if array is None:
            continue
        owners = [name for name, t in [("output", node)] + [
            (f"input {i}", p) for i, p in enumerate(node._prev)] if np.shares_memory(t.data, array)]
        what = f"the data of its {' / '.join(owners)}" if owners else "an array it saved"
        raise BackwardError(
            f"{node._op}: {what} (shape {array.shape}) was changed in place after the forward "
            "pass, and its backward needs the values the forward saw; recompute the forward pass "
            "after changing data (PyTorch: 'modified by an inplace operation')"
        )


# @lab 02-reductions-and-shapes


@shape_errors
def cat(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """Join tensors along an existing ``axis``: (2,5), (3,5) -> (5,5) for axis=0."""
    tensors = tuple(_as_tensor(t) for t in tensors)
    raise NotImplementedError("cat: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")


@shape_errors
def stack(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """Join equally shaped tensors along a NEW ``axis``: 3 × (4,5) -> (3,4,5) for axis=0."""
    tensors = tuple(_as_tensor(t) for t in tensors)
    raise NotImplementedError("stack: aún sin escribir / not written yet (notebooks/02-reductions-and-shapes.ipynb)")


# @lab 03-matmul-softmax-ce


def cross_entropy(logits: Tensor, targets: Any) -> Tensor:
    """Mean over the batch of -log softmax(logits)[i, targets[i]]: (N, C), (N,) ints -> ().

    Fused through log-sum-exp, so logits of ±1e4 stay finite; the gradient with respect to
    the logits is (softmax(logits) - onehot(targets)) / N.
    """
    logits = _as_tensor(logits)
    targets = _class_targets(targets, logits.shape)
    raise NotImplementedError("cross_entropy: aún sin escribir / not written yet (notebooks/03-matmul-softmax-ce.ipynb)")


# ====================================================================== helpers (provided)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """1/(1+e^-x) without overflow: e^-|x| never exceeds 1."""
    z = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + z), z / (1.0 + z))


_erf_ufunc = np.frompyfunc(math.erf, 1, 1)


def _erf(x: np.ndarray) -> np.ndarray:
    """The error function, elementwise, exact to float64 (NumPy has none; math.erf does)."""
    return np.asarray(_erf_ufunc(x), dtype=np.float64)


def _permutation(axes: tuple[int, ...], ndim: int) -> tuple[int, ...]:
    """``axes`` of ``transpose`` with negative axes made positive; () stays () (reverse all).

    The backward's inverse permutation, ``np.argsort(axes)``, needs the positive form: the
    argsort of (-1, 0) is (0, 1), not the inverse (1, 0) of the permutation (1, 0).
    """
    if axes and sorted(a % ndim if -ndim <= a < ndim else a for a in axes) != list(range(ndim)):
        raise ShapeError(
            f"transpose: axes {axes} are not a permutation of the {ndim} axes of the tensor "
            f"(each of 0..{ndim - 1}, or its negative form, exactly once)"
        )
    return tuple(a % ndim for a in axes)


def _own_index(index: Any) -> Any:
    """``index`` with its arrays and lists copied: the backward must not see later changes.

    A Tensor is refused, as torch refuses float tensors as indices: Tensors hold float64 values,
    and reading 0.0/1.0 as positions would silently mistake a mask for indices.
    """
    if isinstance(index, tuple):
        return tuple(_own_index(i) for i in index)
    if isinstance(index, Tensor):
        raise IndexError(
            f"getitem: a Tensor (float64, shape {index.shape}) cannot be used as an index; "
            "index with integers, slices or an integer array (e.g. t.data.astype(int))"
        )
    if isinstance(index, np.ndarray):
        return index.copy()
    if isinstance(index, list):  # NumPy reads a list as an array; [] as an empty integer one
        array = np.array(index)
        return array.astype(np.intp) if array.size == 0 else array
    return index


def _class_targets(targets: Any, logits_shape: tuple[int, ...]) -> np.ndarray:
    """Validate class indices for ``cross_entropy``: an integer array of shape (N,), 0 <= t < C."""
    if len(logits_shape) != 2:
        raise ShapeError(
            f"cross_entropy: logits must have shape (N, C), got {logits_shape}; "
            "reshape a single example to (1, C)"
        )
    n, c = logits_shape
    if n == 0:
        raise ShapeError("cross_entropy: an empty batch (N = 0) has no mean loss")
    t = targets.data if isinstance(targets, Tensor) else np.array(targets)  # a copy: ours
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
