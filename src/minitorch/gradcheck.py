"""Numerical gradient checking by central differences (course-provided).

``gradcheck(fn, inputs)`` compares the gradients that ``backward()`` computes with
``(f(x + eps) - f(x - eps)) / (2 eps)``, element by element, for every input. When the output
is not a scalar it checks ``<u, fn(x)>`` for a random upstream gradient ``u``: with an all-ones
upstream (``.sum().backward()``) a gradient that is summed or permuted wrongly can still pass.

Defaults, float64 throughout:
- ``eps = 1e-6``: the error of a central difference is ~ eps²·|f'''|/6 (truncation) plus
  ~ u·|f|/eps (rounding, u ≈ 1.1e-16), smallest near eps ≈ u^(1/3) ≈ 5e-6. See ``eps_sweep``.
- ``atol = 1e-5``, ``rtol = 1e-3``, as PyTorch's ``torch.autograd.gradcheck``: an element passes
  when ``|analytical - numerical| <= atol + rtol·|numerical|``. Loose next to the 1e-7 of the
  PyTorch cross-check, because the numerical gradient itself is only good to ~1e-9-1e-7;
  tight enough that any wrong backward rule fails by orders of magnitude.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["DEFAULT_ATOL", "DEFAULT_EPS", "DEFAULT_RTOL", "EpsSweep", "GradcheckError",
           "GradcheckResult", "compare", "default_upstream", "eps_sweep", "gradcheck",
           "tolerance"]

# The one place of gradcheck's rule: the course's checks (minitorch_course.op_checks) and the
# scores of record (minitorch_grading.record) import these, never restate them.
DEFAULT_EPS = 1e-6
DEFAULT_ATOL = 1e-5
DEFAULT_RTOL = 1e-3


class GradcheckError(AssertionError):
    """The analytical gradient disagrees with the numerical one (the message says where)."""


@dataclass
class GradcheckResult:
    """What ``gradcheck`` compared: per input, the analytical and numerical gradients."""

    name: str
    analytical: list[np.ndarray]
    numerical: list[np.ndarray]
    passed: bool
    message: str
    max_abs_diff: float
    failing_input: int | None = None
    worst_index: tuple[int, ...] | None = None
    upstream: np.ndarray | None = field(default=None, repr=False)
    missing_grad: bool = False  # the failing input's .grad stayed None (analytical shows zeros)


@dataclass
class EpsSweep:
    """The error of the central difference as a function of eps (the U-curve)."""

    name: str
    eps: np.ndarray  # (E,) step sizes, decreasing
    error: np.ndarray  # (E,) max |numerical - analytical| over every input element

    @property
    def best_eps(self) -> float:
        """The eps with the smallest error."""
        return float(self.eps[int(np.nanargmin(self.error))])


def _tensor_type() -> type:
    from minitorch.tensor import Tensor  # the implementation selected by MINITORCH_IMPL

    return Tensor


def _as_arrays(inputs: Sequence[Any]) -> list[np.ndarray]:
    Tensor = _tensor_type()
    arrays = [np.array(x.data if isinstance(x, Tensor) else x, dtype=np.float64) for x in inputs]
    return arrays


def _forward(fn: Callable[..., Any], arrays: Sequence[np.ndarray], requires_grad: bool) -> tuple:
    Tensor = _tensor_type()
    leaves = [Tensor(a, requires_grad=requires_grad) for a in arrays]
    out = fn(*leaves)
    if not isinstance(out, Tensor):
        raise TypeError(f"gradcheck: fn must return a Tensor, got {type(out).__name__}")
    return leaves, out


def default_upstream(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """The upstream gradient gradcheck seeds backward with for an output of ``shape``: ones
    for a single element, else standard normal draws from ``seed``."""
    if int(np.prod(shape)) == 1:
        return np.ones(shape)
    return np.random.default_rng(seed).standard_normal(shape)


def tolerance(numerical: np.ndarray, atol: float = DEFAULT_ATOL,
              rtol: float = DEFAULT_RTOL) -> np.ndarray:
    """How far each analytical element may be from ``numerical``: ``atol + rtol·|numerical|``
    (an element passes when ``|analytical - numerical| <= tolerance``)."""
    return atol + rtol * np.abs(numerical)


def analytical_gradients(
    fn: Callable[..., Any], arrays: Sequence[np.ndarray], upstream: np.ndarray | None = None,
    seed: int = 0,
) -> tuple[np.ndarray, list[np.ndarray | None]]:
    """Run ``fn`` forward and ``backward(upstream)``; returns (upstream, one gradient per input)."""
    leaves, out = _forward(fn, arrays, requires_grad=True)
    if upstream is None:
        upstream = default_upstream(out.shape, seed)
    out.backward(upstream)
    return upstream, [leaf.grad for leaf in leaves]


def numerical_gradients(
    fn: Callable[..., Any], arrays: Sequence[np.ndarray], upstream: np.ndarray, eps: float
) -> list[np.ndarray]:
    """Central differences of ``<upstream, fn(*arrays)>`` with respect to every element."""
    from minitorch.tensor import no_grad

    arrays = [np.array(a, dtype=np.float64) for a in arrays]

    def f() -> float:
        with no_grad():
            _, out = _forward(fn, arrays, requires_grad=False)
        return float(np.sum(upstream * out.data))

    grads = []
    for x in arrays:
        grad = np.zeros_like(x)
        flat, gflat = x.reshape(-1), grad.reshape(-1)  # views: perturb x in place
        for j in range(flat.size):
            saved = flat[j]
            flat[j] = saved + eps
            f_plus = f()
            flat[j] = saved - eps
            f_minus = f()
            flat[j] = saved
            gflat[j] = (f_plus - f_minus) / (2 * eps)
        grads.append(grad)
    return grads


def _fmt_index(index: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(i) for i in index) + ("," if len(index) == 1 else "") + ")"


def gradcheck(
    fn: Callable[..., Any],
    inputs: Sequence[Any],
    *,
    eps: float = DEFAULT_EPS,
    atol: float = DEFAULT_ATOL,
    rtol: float = DEFAULT_RTOL,
    seed: int = 0,
    name: str | None = None,
    raise_exception: bool = True,
) -> GradcheckResult:
    """Check ``fn``'s backward against central differences at ``inputs`` (arrays or Tensors).

    ``fn`` takes one Tensor per input and returns a Tensor. Raises ``GradcheckError`` naming
    the op, the input, the worst element, numerical vs analytical values, the worst difference
    and the tolerance; with ``raise_exception=False`` returns the result instead.
    """
    arrays = _as_arrays(inputs)
    upstream, analytical = analytical_gradients(fn, arrays, seed=seed)
    if name is None:
        _, out = _forward(fn, arrays, requires_grad=True)
        name = out._op or getattr(fn, "__name__", "fn")
    numerical = numerical_gradients(fn, arrays, upstream, eps)
    return compare(name, arrays, analytical, numerical, upstream, eps=eps, atol=atol, rtol=rtol,
                   raise_exception=raise_exception)


def compare(
    name: str,
    arrays: Sequence[np.ndarray],
    analytical: Sequence[np.ndarray | None],
    numerical: Sequence[np.ndarray],
    upstream: np.ndarray,
    *,
    eps: float = DEFAULT_EPS,
    atol: float = DEFAULT_ATOL,
    rtol: float = DEFAULT_RTOL,
    raise_exception: bool = True,
) -> GradcheckResult:
    """gradcheck's verdict on gradients already computed (by :func:`gradcheck`, or by the
    course's grading worker, which sends them as data): each input's analytical gradient
    against its central differences, within ``atol + rtol·|numerical|``."""
    analytical, numerical = list(analytical), list(numerical)

    def fail(index: int, message: str, worst: float = float("inf"), where=None) -> GradcheckResult:
        result = GradcheckResult(
            name, [a if a is not None else np.zeros_like(n) for a, n in zip(analytical, numerical)],
            numerical, False, message, worst, index, where, upstream, analytical[index] is None,
        )
        if raise_exception:
            raise GradcheckError(message)
        return result

    worst_overall = 0.0
    k = len(arrays)
    for i, (x, a, n) in enumerate(zip(arrays, analytical, numerical)):
        where = f"'{name}' with respect to input {i} (of {k}, shape {x.shape})"
        if a is None:
            if np.all(np.abs(n) <= atol):
                continue
            return fail(i, f"gradcheck failed for {where}: backward left its .grad as None, "
                           f"but the numerical gradient is not zero (max |numerical| = "
                           f"{np.abs(n).max():.3g}). Does the op list this input in _prev and "
                           "return a gradient for it?")
        if a.shape != x.shape:
            return fail(i, f"gradcheck failed for {where}: the analytical gradient has shape "
                           f"{a.shape} but the input has shape {x.shape}")
        diff = np.abs(a - n)
        tol = tolerance(n, atol, rtol)
        excess = np.where(np.isnan(diff), np.inf, diff - tol)
        if a.size:
            worst_overall = max(worst_overall, float(np.nanmax(diff)) if diff.size else 0.0)
        if a.size and excess.max() > 0:
            j = np.unravel_index(int(np.argmax(excess)), a.shape)
            bad = int((excess > 0).sum())
            message = (
                f"gradcheck failed for {where}:\n"
                f"  element {_fmt_index(j)}: numerical {n[j]:.10g}, analytical {a[j]:.10g}\n"
                f"  worst |analytical - numerical| = {diff[j]:.3g} > tolerance "
                f"atol + rtol·|numerical| = {atol:g} + {rtol:g}·{abs(n[j]):.3g} = {tol[j]:.3g}\n"
                f"  {bad} of {a.size} elements outside the tolerance "
                f"(central differences, eps={eps:g}"
                + (", random upstream gradient" if upstream.size > 1 else "")
                + ")"
            )
            return fail(i, message, float(diff[j]), tuple(int(v) for v in j))
    return GradcheckResult(
        name, analytical, numerical, True, f"gradcheck passed for '{name}'", worst_overall,
        upstream=upstream,
    )


def eps_sweep(
    fn: Callable[..., Any],
    inputs: Sequence[Any],
    eps_values: Sequence[float] | None = None,
    *,
    seed: int = 0,
    name: str | None = None,
) -> EpsSweep:
    """The worst |numerical - analytical| gradient element for each eps (1e-1 ... 1e-12).

    Large eps: truncation error ~ eps²; small eps: rounding error ~ u/eps. Plot it on log-log
    axes to see the U and its minimum near the cube root of machine epsilon.
    """
    arrays = _as_arrays(inputs)
    if eps_values is None:
        eps_values = np.logspace(-1, -12, 45)
    eps_arr = np.asarray(eps_values, dtype=np.float64)
    upstream, analytical = analytical_gradients(fn, arrays, seed=seed)
    if name is None:
        name = getattr(fn, "__name__", "fn")
    errors = []
    for eps in eps_arr:
        numerical = numerical_gradients(fn, arrays, upstream, float(eps))
        errors.append(max(
            float(np.max(np.abs((a if a is not None else 0.0) - n))) if n.size else 0.0
            for a, n in zip(analytical, numerical)
        ))
    return EpsSweep(name, eps_arr, np.array(errors))
