"""A weak lab 02 set's reductions: along one axis, with ties (these kinds it catches)."""

import numpy as np
import pytest
import torch

import minitorch as mt

RNG = np.random.default_rng(6)


@pytest.mark.parametrize("name", ["sum", "mean", "max"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduce_one_axis(name, keepdims):
    a = RNG.normal(size=(3, 4))
    x, t = mt.Tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    y = getattr(x, name)(axis=1, keepdims=keepdims)
    ty = t.amax(dim=1, keepdim=keepdims) if name == "max" else getattr(t, name)(
        dim=1, keepdim=keepdims)
    g = RNG.normal(size=ty.shape)
    y.backward(g)
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-7)


def test_max_ties():
    a = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]])
    x, t = mt.Tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    x.max(axis=1).backward(np.array([1.0, 2.0]))
    t.amax(dim=1).backward(torch.tensor([1.0, 2.0], dtype=torch.float64))
    np.testing.assert_allclose(x.grad, t.grad.numpy())
