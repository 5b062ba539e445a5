"""Errors raised by minitorch, and the messages that explain them.

Course-provided: the learner does not edit this file. Every message names the op and the
shapes involved, so a shape bug is read in one glance instead of in a NumPy traceback.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

__all__ = [
    "BackwardError",
    "GradShapeError",
    "ShapeError",
    "broadcast_table",
    "shape_errors",
]

Shape = tuple[int, ...]
F = TypeVar("F", bound=Callable[..., Any])


class _Message(str):
    """A message that keeps the facts it was written from (``op``, ``shapes``, ...), so an
    exception built from it carries them as fields and nobody has to read them back."""

    facts: dict

    def __new__(cls, text: str, **facts) -> _Message:
        message = super().__new__(cls, text)
        message.facts = facts
        return message


class ShapeError(ValueError):
    """Operands whose shapes do not fit the op (broadcasting, matmul, reshape, ...).

    Fields (None when the message was written by hand): ``op``, ``shapes`` (the operands'
    shapes), ``target`` (broadcast_to's target shape).
    """

    def __init__(self, message: str = "", *, op: str | None = None,
                 shapes: Sequence[Shape] | None = None, target: Shape | None = None) -> None:
        super().__init__(message)
        facts = getattr(message, "facts", {})
        self.op = op if op is not None else facts.get("op")
        self.shapes = shapes if shapes is not None else facts.get("shapes")
        self.target = target if target is not None else facts.get("target")


class GradShapeError(RuntimeError):
    """A backward rule returned a gradient that cannot be reduced to its input's shape.

    Fields: ``op``, ``index`` (which input), ``grad_shape`` (what backward returned) and
    ``expected`` (the input's shape); None when the message was written by hand.
    """

    def __init__(self, message: str = "", *, op: str | None = None, index: int | None = None,
                 grad_shape: Shape | None = None, expected: Shape | None = None) -> None:
        super().__init__(message)
        facts = getattr(message, "facts", {})
        self.op = op if op is not None else facts.get("op")
        self.index = index if index is not None else facts.get("index")
        self.grad_shape = grad_shape if grad_shape is not None else facts.get("grad_shape")
        self.expected = expected if expected is not None else facts.get("expected")


class BackwardError(RuntimeError):
    """backward() cannot run: no seed for a non-scalar output, a freed graph, no grad needed."""


def _fmt(shape: Sequence[int]) -> str:
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def broadcast_table(shapes: Sequence[Shape], names: Sequence[str] | None = None, *,
                    axis_label: str = "axis", result_label: str = "result") -> str:
    """The shapes aligned to the right, one column per axis, with the verdict per axis.

    >>> print(broadcast_table([(4, 3), (2, 3)]))
    axis      -2  -1
    a          4   3
    b          2   3
    result     ✗   3
    """
    names = list(names) if names is not None else ["a", "b", "c", "d"][: len(shapes)]
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(None,) * (ndim - len(s)) + tuple(s) for s in shapes]
    width = max([4] + [len(str(n)) for s in shapes for n in s]) + 1
    label = max(6, len(axis_label), len(result_label), *(len(n) for n in names)) + 2

    def row(title: str, cells: Sequence[str]) -> str:
        return title.ljust(label) + "".join(c.rjust(width) for c in cells)

    lines = [row(axis_label, [str(i - ndim) for i in range(ndim)])]
    for name, s in zip(names, padded):
        lines.append(row(name, ["·" if n is None else str(n) for n in s]))
    verdict = []
    for column in zip(*padded):
        sizes = {n for n in column if n is not None and n != 1}
        if len(sizes) > 1:
            verdict.append("✗")
        else:
            verdict.append(str(sizes.pop() if sizes else 1))
    lines.append(row(result_label, verdict))
    return "\n".join(lines)


def broadcast_message(op: str, shapes: Sequence[Shape]) -> str:
    """Explain why ``shapes`` cannot be broadcast together in ``op``."""
    ndim = max(len(s) for s in shapes)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    bad = [
        f"axis {i - ndim}: sizes {' vs '.join(str(p[i]) for p in padded)}"
        for i in range(ndim)
        if len({p[i] for p in padded if p[i] != 1}) > 1
    ]
    return _Message(
        f"{op}: shapes {' and '.join(_fmt(s) for s in shapes)} cannot be broadcast together "
        f"({'; '.join(bad)}: two axes broadcast only if they are equal or one of them is 1).\n"
        "Shapes aligned to the right:\n" + broadcast_table(shapes),
        op=op, shapes=[tuple(s) for s in shapes])


def matmul_message(a: Shape, b: Shape) -> str:
    """Explain why ``a @ b`` is undefined, naming both shapes and the clashing axes."""
    facts = {"op": "matmul", "shapes": [tuple(a), tuple(b)]}
    if len(a) == 0 or len(b) == 0:
        return _Message(f"matmul: operands must have at least 1 dimension, got {_fmt(a)} @ "
                        f"{_fmt(b)}", **facts)
    k_a = a[-1]
    k_b = b[0] if len(b) == 1 else b[-2]
    if k_a != k_b:
        return _Message(
            f"matmul: {_fmt(a)} @ {_fmt(b)}: the contracted dimensions differ "
            f"(last axis of the left operand is {k_a}, "
            f"{'the only' if len(b) == 1 else 'second-to-last'} axis of the right one is {k_b})",
            **facts)
    batch_a, batch_b = a[:-2], b[:-2]
    return _Message(
        f"matmul: {_fmt(a)} @ {_fmt(b)}: batch dimensions {_fmt(batch_a)} and {_fmt(batch_b)} "
        "cannot be broadcast together.\n" + broadcast_table([batch_a, batch_b]), **facts)


def broadcast_to_message(shape: Shape, target: Shape) -> str:
    """Explain why ``shape`` cannot be broadcast to ``target``."""
    return _Message(
        f"broadcast_to: cannot broadcast {_fmt(shape)} to {_fmt(target)}: aligned to the right, "
        "each axis of the input must equal the target's or be 1, and the input cannot have "
        "more axes than the target.\n" + broadcast_table([shape, target], ["input", "target"]),
        op="broadcast_to", shapes=[tuple(shape)], target=tuple(target))


def _called_with(op: str, args: tuple, kwargs: dict) -> str:
    """The call's arguments other than its tensors (axes, sizes, ...), for a NumPy message that
    names none: ``, called with (1, 0)`` or, for ``transpose()``, that no axes were given."""
    def is_tensor(a) -> bool:
        return hasattr(a, "_prev") or (isinstance(a, list | tuple) and bool(a)
                                       and all(hasattr(t, "_prev") for t in a))

    others = [repr(a) for a in args if not is_tensor(a)] + [f"{k}={v!r}"
                                                            for k, v in kwargs.items()]
    if others:
        return f", called with {', '.join(others)}"
    if op == "transpose":
        return ", called with no axes: transpose() reverses every axis"
    return ""


def shape_errors(method: F) -> F:
    """Decorate an op so NumPy's shape errors come out as a ShapeError naming the shapes.

    The op's name is the method's name; every Tensor argument's shape goes into the message.
    Costs one Python call per op and nothing else on the happy path.

    The op is looked up at each call as ``wrapper.__wrapped__``, never taken from the closure:
    ``%autoreload 2`` patches this function object in place after a save of tensor.py (its code
    and its ``__dict__``, which holds ``__wrapped__``) but keeps its closure, so a closure would
    go on running the op's body as it was when the kernel started.
    """
    op = method.__name__.strip("_")

    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        try:
            return wrapper.__wrapped__(*args, **kwargs)
        except ValueError as err:
            if isinstance(err, ShapeError):
                if str(err).startswith(f"{op}:"):
                    raise
                raise ShapeError(f"{op}: {err}") from None
            shapes = [t.shape for a in args for t in (a if isinstance(a, list | tuple) else [a])
                      if hasattr(t, "_prev") and hasattr(t, "shape")]  # cat/stack take a list
            if op == "broadcast_to" and len(args) > 1 and shapes:
                message = broadcast_to_message(shapes[0], tuple(args[1]))
            elif op == "matmul" and len(shapes) == 2:
                message = matmul_message(*shapes)
            elif "broadcast" in str(err) and len(shapes) >= 2:
                message = broadcast_message(op, shapes)
            else:
                message = (f"{op}: {err} (input shapes: {', '.join(_fmt(s) for s in shapes)})"
                           + _called_with(op, args, kwargs))
            raise ShapeError(message) from None

    return wrapper  # type: ignore[return-value]


def grad_shape_message(op: str, index: int, grad: Shape, expected: Shape) -> str:
    """Explain a backward rule that returned a gradient of the wrong shape."""
    return _Message(
        f"{op}: backward returned a gradient of shape {_fmt(grad)} for input {index}, "
        f"whose shape is {_fmt(expected)}; unbroadcast cannot reduce one to the other. "
        "A backward rule must return each gradient at the output's shape (or the input's).",
        op=op, index=index, grad_shape=tuple(grad), expected=tuple(expected))


def N_(message: str) -> str:
    """Mark ``message`` for the course's gettext catalog; translated where it is shown."""
    return message


UPSTREAM_WRITTEN = N_(
    "{op}: its backward wrote into the upstream gradient g it received (or into a view of it), "
    "in place (g *= mask, g[...] = 0, g += ...). That array is shared: it is the output's .grad "
    "and other backwards may read it, so the engine hands it read-only. Compute a new array "
    "instead of changing g."
)


def upstream_written_error(op: str) -> BackwardError:
    """The error for a backward that wrote into its (read-only) upstream gradient, in the
    learner's language when the course is loaded: Spanish by default, English with
    ``MINITORCH_LANG=en``.

    The text is a msgid of the course's gettext catalog. minitorch never imports the course:
    if ``minitorch_course.i18n`` is already loaded (a lab notebook, the checks) its ``t``
    translates; else the English text is used. The error keeps its facts as fields: ``op``
    and ``upstream_written`` (True).
    """
    i18n = sys.modules.get("minitorch_course.i18n")
    try:
        text = str(i18n.t(UPSTREAM_WRITTEN, op=op)) if i18n is not None else None
    except Exception:  # a broken catalog must not hide the error itself
        text = None
    err = BackwardError(text or UPSTREAM_WRITTEN.format(op=op))
    err.op, err.upstream_written = op, True
    return err
