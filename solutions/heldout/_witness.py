"""Shared helper for the WITNESS functions: run a small graph in minitorch and in torch float64.

``compare`` builds one leaf per array (requires_grad=True, or as ``requires_grad`` says: a
constant operand), applies ``f_mt(mt, *leaves)`` and ``f_torch(torch, *leaves)``, seeds backward
with a fixed random upstream gradient (so a forgotten upstream multiply shows), and asserts
forward values and every leaf gradient agree to 1e-7 (a constant's ``.grad`` stays None).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

RTOL = 1e-7
ATOL = 1e-7


def assert_close(actual: Any, expected: Any, what: str) -> None:
    """Raise AssertionError unless ``actual`` equals ``expected`` (shape and values, 1e-7)."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    if actual.shape != expected.shape:
        raise AssertionError(f"{what}: shape {actual.shape} != torch {expected.shape}")
    if not np.allclose(actual, expected, rtol=RTOL, atol=ATOL):
        worst = np.nanmax(np.abs(actual - expected)) if actual.size else 0.0
        raise AssertionError(f"{what}: differs from torch (max |diff| {worst})\n{actual}\n{expected}")


def upstream(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """A fixed, non-constant upstream gradient of ``shape``."""
    return np.random.default_rng(seed).standard_normal(shape)


def compare(
    mt: Any,
    f_mt: Callable[..., Any],
    f_torch: Callable[..., Any],
    arrays: Sequence[Any],
    seed: int = 0,
    requires_grad: Sequence[bool] | None = None,
) -> None:
    """Forward and backward of ``f_mt`` in module ``mt`` must match ``f_torch`` in torch.

    ``requires_grad``: one flag per array (default: all True); False makes that leaf a constant.
    """
    import torch

    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    flags = [True] * len(arrays) if requires_grad is None else [bool(r) for r in requires_grad]
    with np.errstate(all="ignore"):
        leaves = [mt.Tensor(a, requires_grad=r) for a, r in zip(arrays, flags)]
        out = f_mt(mt, *leaves)
        up = upstream(out.shape, seed)
        out.backward(up)
    tleaves = [torch.tensor(a, dtype=torch.float64, requires_grad=r) for a, r in zip(arrays, flags)]
    tout = f_torch(torch, *tleaves)
    tout.backward(torch.tensor(up, dtype=torch.float64))
    assert_close(out.data, tout.detach().numpy(), "forward")
    for i, (leaf, tleaf) in enumerate(zip(leaves, tleaves)):
        if not tleaf.requires_grad:
            if leaf.grad is not None:
                raise AssertionError(f"input {i} is a constant: its grad must stay None")
            continue
        if leaf.grad is None:
            raise AssertionError(f"input {i}: grad is None, torch has one")
        assert_close(leaf.grad, tleaf.grad.numpy(), f"grad of input {i}")
