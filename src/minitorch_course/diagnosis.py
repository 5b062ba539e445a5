"""Name the likely mistake behind a failed check, in one or two sentences.

A checker that says only "mismatch" leaves the learner to guess. These functions compare what
minitorch produced with what PyTorch produced and classify the difference: reverse broadcasting
missing, a constant factor (double counting, mean divisor), a flipped sign, a transpose, zeros,
wrong only on ties or on repeated indices, a forward that overflows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitorch_course.catalog import Case, Op

RTOL = ATOL = 1e-7


def _close(a: np.ndarray, b: np.ndarray, rtol: float = 1e-6, atol: float = 1e-9) -> bool:
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


def _reduce_to(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """``grad`` summed down to ``shape`` by the broadcasting rule, or None if impossible."""
    extra = grad.ndim - len(shape)
    if extra < 0:
        return None
    g = grad.sum(axis=tuple(range(extra))) if extra else grad
    if any(n != 1 and n != m for n, m in zip(shape, g.shape)):
        return None
    ones = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    return g.sum(axis=ones, keepdims=True) if ones else g


def broadcast_axes(shape: tuple[int, ...], full: tuple[int, ...]) -> str:
    """The axes of ``full`` that broadcasting added to ``shape``, in words."""
    extra = len(full) - len(shape)
    lead = list(range(extra))
    ones = [i + extra for i, n in enumerate(shape) if n == 1 and full[i + extra] != 1]
    parts = []
    if lead:
        parts.append(f"the added leading axes {tuple(lead)}")
    if ones:
        parts.append(f"the axes {tuple(ones)} that were 1 (with keepdims)")
    return " and ".join(parts) or "no axes"


def explain_gradient(op: Op, case: Case, index: int, x: np.ndarray, got: np.ndarray | None,
                     want: np.ndarray) -> str:
    """The likely mistake when input ``index``'s gradient is ``got`` instead of ``want``."""
    if got is None:
        return ("No gradient reached this input: check that the op lists it in _prev and that "
                "_backward returns one gradient per parent, in the same order.")
    if got.shape != want.shape:
        if _reduce_to(got, want.shape) is not None and _close(_reduce_to(got, want.shape), want):
            return (f"Reverse broadcasting missing: the gradient has the broadcast shape "
                    f"{got.shape}; sum it over {broadcast_axes(want.shape, got.shape)} to get "
                    f"{want.shape} (that is unbroadcast's job).")
        if got.shape == want.shape[::-1]:
            return "The gradient looks transposed: its axes are in the reverse order."
        if got.size == want.size:
            return (f"Right number of elements, wrong shape: reshape the gradient back to the "
                    f"input's shape {want.shape}.")
        return f"The gradient must have the input's shape {want.shape}."
    if np.all(got == 0) and not np.all(want == 0):
        return ("The gradient is all zeros: backward never wrote it, or it was overwritten "
                "instead of accumulated.")
    if not np.all(np.isfinite(got)) and np.all(np.isfinite(want)):
        return "The gradient has inf/NaN where torch's is finite: a numerically unstable formula."
    if _close(got, -want):
        return "Sign flipped: the gradient is exactly the negative of the right one."
    if got.ndim >= 2 and got.shape[-1] == got.shape[-2] and _close(np.swapaxes(got, -1, -2), want):
        return "The gradient is transposed (the last two axes are swapped)."
    mask = np.abs(want) > 1e-12
    if mask.any():
        ratios = got[mask] / want[mask]
        r = float(np.median(ratios))
        if np.allclose(ratios, r, rtol=1e-6) and not np.isclose(r, 1.0):
            return _explain_factor(r, x, case)
    hint = _explain_special(op, case, x, got, want)
    if hint:
        return hint
    return "Wrong values: compare your local derivative with the formula in theory/02."


def _explain_factor(r: float, x: np.ndarray, case: Case) -> str:
    if np.isclose(r, 2.0):
        return ("Twice the right gradient: counted twice (accumulated once too often, or a "
                "derivative with a stray factor 2).")
    if np.isclose(r, 0.5):
        return "Half the right gradient: a factor 1/2 too many in the derivative."
    inv = 1.0 / r
    if np.isclose(inv, round(inv)) and round(inv) > 1:
        return (f"The gradient is 1/{round(inv)} of the right one: divided by {round(inv)} "
                "once too often (a mean divisor, or a batch size applied twice).")
    if np.isclose(r, round(r)) and round(r) > 1:
        return (f"The gradient is {round(r)}× the right one: a division by {round(r)} is missing "
                "(the mean's count, or cross-entropy's batch size N).")
    return f"Off by a constant factor {r:.4g}: the shape of the derivative is right, its scale is not."


def _explain_special(op: Op, case: Case, x: np.ndarray, got: np.ndarray,
                     want: np.ndarray) -> str:
    wrong = ~np.isclose(got, want, rtol=1e-6, atol=1e-9)
    if op.method == "max" and wrong.any():
        return ("Wrong on ties: when several elements share the maximum, torch.amax splits the "
                "gradient evenly among them (divide by the number of ties).")
    if op.method == "getitem" and "index" in case.kwargs:
        return ("Wrong at repeated indices: an index that appears twice must receive the sum of "
                "both gradients; use np.add.at, not assignment.")
    if op.method == "softmax":
        return "Softmax backward must include the sum term: s·(g − Σ g·s)."
    return ""


def explain_forward_shape(op: Op, case: Case, got: tuple[int, ...],
                          want: tuple[int, ...]) -> str:
    """The likely mistake when the forward output has the wrong shape."""
    if "keepdims" in case.kwargs or "axis" in case.kwargs:
        return "Check axis and keepdims: keepdims=True keeps each reduced axis as a 1."
    return "The forward output must have the shape torch gives."


def explain_forward_values(op: Op, got: np.ndarray, want: np.ndarray) -> str:
    """The likely mistake when the forward values are wrong."""
    if not np.all(np.isfinite(got)) and np.all(np.isfinite(want)):
        return ("Your forward overflows (inf/NaN) where torch's stays finite: subtract the max "
                "before exponentiating (log-sum-exp).")
    if _close(got, -want):
        return "Sign flipped in the forward pass."
    return "The forward pass is wrong; the backward was not checked."


def explain_crash(op: Op, err: BaseException, tb: Any) -> str:
    """A crash inside the learner's code: the exception and the line it came from."""
    frames = [f for f in tb if f.filename.endswith("tensor.py")] or list(tb)[-1:]
    where = ""
    if frames:
        f = frames[-1]
        where = f" at {f.filename.rsplit('/', 1)[-1]}:{f.lineno} ({f.name}: {f.line})"
    return f"{type(err).__name__}: {err}{where}"



