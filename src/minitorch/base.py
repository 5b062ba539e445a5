"""What a Tensor does apart from its ops and its engine: course-provided, the learner's
``tensor.py`` subclasses it and never edits it.

``TensorBase`` holds the constructor, ``_make`` (how an op creates its output node), the
properties (``shape``, ``ndim``, ...), conversions (``item``, ``numpy``, ``detach``,
``np.asarray(t)``), the Python operators (``a + b`` calls ``a.add(b)``, the learner's method) and
the checks of ``backward``'s arguments. It also runs the learner's ``backward``:
``__init_subclass__`` renames it ``_backward_impl`` and ``TensorBase.backward`` calls it, with
the cyclic garbage collector paused (it would walk the whole live graph for nothing) and NumPy's
"output array is read-only" turned into a BackwardError naming the op: the engine hands each
``_backward`` its upstream gradient read-only (``minitorch.support.accumulate``), and a backward
that writes into it (``g *= mask``) would otherwise change a gradient others share. Every
method reaches the learner's code through ``self`` or ``cls``, never through a name bound here:
after ``%autoreload`` replaces the Tensor class, ``type(t)`` is the new one and these methods
keep working.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from threading import get_ident
from typing import Any, Self

import numpy as np
from numpy import ndarray

from minitorch.errors import BackwardError, ShapeError, upstream_written_error
from minitorch.node import EXACT, Node, checksum, digest
from minitorch.support import Backward, as_array, no_grad_threads

__all__ = ["TensorBase"]


def _writer_op(err: ValueError) -> str | None:
    """The op whose ``_backward`` raised NumPy's read-only error (None: not a read-only write).

    Read from the traceback: the innermost closure (a function defined inside another), and the
    node, among the locals of the frame that called it, whose ``_backward`` that closure is;
    its ``_op``, else the name of the function that defined the closure.
    """
    if "read-only" not in str(err):
        return None
    frames = []
    tb = err.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for i in range(len(frames) - 1, 0, -1):  # innermost first
        code = frames[i].f_code
        if ".<locals>." not in code.co_qualname:
            continue
        for value in frames[i - 1].f_locals.values():
            fn = getattr(value, "_backward", None) if isinstance(value, Node) else None
            if fn is not None and getattr(fn, "__code__", None) is code and value._op:
                return value._op
        return code.co_qualname.rsplit(".<locals>.", 1)[0].rsplit(".", 1)[-1]
    return "backward"


class TensorBase(Node):
    """The provided half of ``minitorch.tensor.Tensor`` (see the module docstring).

    ``==`` and ``hash`` are identity, as for any Python object (torch's ``==`` is elementwise):
    ``t in visited`` and sets of tensors mean "this very node". Compare values with ``.data``.
    """

    __slots__ = ()  # the fields are declared in minitorch.node.Node
    __array_ufunc__ = None  # ndarray (op) Tensor defers to Tensor's reflected operators

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """The learner's ``backward`` becomes ``_backward_impl``, which ``backward`` below calls.

        Its code is unchanged; a plain attribute renamed, so ``%autoreload`` updates it as it
        updates every other method of the class.
        """
        super().__init_subclass__(**kwargs)
        backward = cls.__dict__.get("backward")
        # only the engine class (tensor.py's Tensor): a subclass's own backward that calls
        # super().backward() must reach this one, not itself
        if callable(backward) and TensorBase in cls.__bases__:
            cls._backward_impl = backward
            del cls.backward

    def backward(self, grad: Any = None, retain_graph: bool = False) -> None:
        """Fill ``.grad`` of every leaf that leads here: the learner's ``backward`` (tensor.py).

        Around it, the engine pauses the cyclic garbage collector, and turns a write into a
        read-only upstream gradient (NumPy's "output array is read-only") into a BackwardError
        naming the op (see the module docstring).
        """
        # No cyclic collection while backward runs: it creates no cycles, and a full collection
        # would walk the whole live graph (on a 100,000-op chain ~10% of backward's time).
        # Whatever garbage it leaves is collected as usual afterwards; a collector the user
        # switched off stays off.
        collecting = gc.isenabled()
        if collecting:
            gc.disable()
        try:
            return type(self)._backward_impl(self, grad, retain_graph)
        except ValueError as err:
            op = _writer_op(err)
            if op is None:
                raise
            raise upstream_written_error(op) from err
        finally:
            if collecting:
                gc.enable()

    def __init__(self, data: Any, requires_grad: bool = False) -> None:
        self.data: np.ndarray = as_array(data)
        self.grad: np.ndarray | None = None
        self.requires_grad: bool = bool(requires_grad)
        self._prev: tuple = ()
        self._op: str = ""
        self._backward = self._code = self._checksums = None

    @classmethod
    def _make(cls, data: np.ndarray, parents: tuple, op: str,
              backward: Backward | None = None) -> Self:
        """The output node of ``op``: records ``parents`` and ``backward`` only if a gradient
        will be needed. ``backward`` is written before the output exists, so it cannot capture
        the output (no ``out -> _backward -> out`` cycle).

        Recording takes the checksums of the arrays ``backward`` captured (``minitorch.node``);
        without ``backward`` (a closure to be assigned by hand, ``out._backward = f``), digests
        of ``data`` and of each parent's data, the arrays such a closure can capture."""
        out = cls.__new__(cls)
        # NumPy returns a scalar, not an array, from a 0-d computation: .data is always an array
        out.data = data if type(data) is ndarray else np.asarray(data, dtype=np.float64)
        out.grad = None
        # This runs once per op: plain loops and direct slot writes, no comprehension (a call of
        # its own in Python 3.11) and no helper call (the loop is
        # minitorch.node.saved_checksums, inlined).
        record = False
        if not no_grad_threads or get_ident() not in no_grad_threads:  # grad mode is on
            for p in parents:
                if p.requires_grad:
                    record = True
                    break
        if not record:
            out.requires_grad, out._prev, out._op = False, (), ""
            out._backward = out._code = out._checksums = None
            return out
        out.requires_grad = True
        out._prev = parents
        out._op = op
        out._backward = backward
        if backward is None:
            out._code = None
            saved = digest(out.data)
            for p in parents:
                saved += digest(p.data) if type(p.data) is ndarray else bytes(8)
            out._checksums = saved
            return out
        out._code = backward.__code__
        saved = None
        cells = backward.__closure__
        if cells:
            for cell in cells:
                a = cell.cell_contents
                if type(a) is ndarray:
                    c = a.tobytes() if a.size <= EXACT else checksum(a)
                    saved = c if saved is None else saved + c
        out._checksums = saved
        return out

    @classmethod
    def _as_tensor(cls, x: Any) -> Any:
        """A Tensor as is; a number or an array as a constant Tensor (no gradient).

        The constant is the engine's own Tensor (the first class below TensorBase), never a
        subclass it was called from: beside chapter 09's ``Parameter``, whose constructor always
        requires grad, ``p * 2.0`` must not make 2.0 a parameter."""
        if isinstance(x, Node):
            return x
        engine = next(c for c in cls.__mro__ if TensorBase in c.__bases__)
        return engine(x)

    def _seed(self, grad: Any) -> np.ndarray:
        """``backward``'s upstream gradient, checked: ``grad`` as an array of ``self``'s shape,
        or ones for a one-element ``self``; a BackwardError or ShapeError saying why not."""
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
            return np.ones_like(self.data)
        seed = as_array(grad)
        if seed.shape != self.shape:
            raise ShapeError(
                f"backward(grad): grad has shape {seed.shape} but the tensor has shape "
                f"{self.shape}; they must be equal"
            )
        return seed

    # ------------------------------------------------------------------ properties
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
    def T(self) -> Any:
        """All axes reversed, like ``ndarray.T``."""
        return self.transpose()

    # ------------------------------------------------------------------ conversions
    def item(self) -> float:
        """The value of a one-element tensor as a Python float."""
        if self.data.size != 1:
            raise ValueError(f"item() needs a tensor with one element; this one has shape {self.shape}")
        return float(self.data.reshape(()))

    def numpy(self) -> np.ndarray:
        """The underlying array (shared, not copied)."""
        return self.data

    def detach(self) -> Any:
        """A new leaf sharing ``data`` with this tensor, cut off from the graph."""
        out = type(self).__new__(type(self))
        out.data, out.grad, out.requires_grad = self.data, None, False
        out._prev, out._op, out._backward, out._code, out._checksums = (), "", None, None, None
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

    def __iter__(self) -> Iterator[Any]:
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

    # ------------------------------------------------------------------ operators
    def __add__(self, other: Any) -> Any:
        return self.add(other)

    def __radd__(self, other: Any) -> Any:
        return self._as_tensor(other).add(self)

    def __sub__(self, other: Any) -> Any:
        return self.sub(other)

    def __rsub__(self, other: Any) -> Any:
        return self._as_tensor(other).sub(self)

    def __mul__(self, other: Any) -> Any:
        return self.mul(other)

    def __rmul__(self, other: Any) -> Any:
        return self._as_tensor(other).mul(self)

    def __truediv__(self, other: Any) -> Any:
        return self.div(other)

    def __rtruediv__(self, other: Any) -> Any:
        return self._as_tensor(other).div(self)

    def __pow__(self, other: Any) -> Any:
        return self.pow(other)

    def __rpow__(self, other: Any) -> Any:
        return self._as_tensor(other).pow(self)

    def __matmul__(self, other: Any) -> Any:
        return self.matmul(other)

    def __rmatmul__(self, other: Any) -> Any:
        return self._as_tensor(other).matmul(self)

    def __neg__(self) -> Any:
        return self.neg()

    def __getitem__(self, index: Any) -> Any:
        return self.getitem(index)
