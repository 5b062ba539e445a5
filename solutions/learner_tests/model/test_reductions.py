"""Laboratorio 02 · test_reductions.py: tus tests de sum, mean y max.

Compara con torch (float64, 1e-7) el forward y el gradiente, con un gradiente de arriba
aleatorio, reduciendo sobre TODOS los ejes y sobre UNO (axis=0, axis=-1, una tupla de ejes),
con ``keepdims=False`` y ``keepdims=True``. Para max, un caso con máximos empatados (torch
reparte el gradiente a partes iguales entre ellos). Y un ``mt.gradcheck`` por reducción.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

### BEGIN SOLUTION
RNG = np.random.default_rng(2)
AXES = [None, 0, -1, (0, 2)]


def torch_reduce(name, t, axis, keepdims):
    dims = tuple(range(t.ndim)) if axis is None else axis
    if name == "max":
        return t.amax(dim=dims, keepdim=keepdims)
    return getattr(t, name)(dim=dims, keepdim=keepdims)


@pytest.mark.parametrize("name", ["sum", "mean", "max"])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_against_torch(name, axis, keepdims):
    a = RNG.normal(size=(2, 3, 4))
    x, t = mt.Tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    y = getattr(x, name)(axis=axis, keepdims=keepdims)
    ty = torch_reduce(name, t, axis, keepdims)
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-7, atol=1e-7)
    g = RNG.normal(size=ty.shape)
    y.backward(g)
    ty.backward(torch.tensor(g))
    assert x.grad.shape == x.data.shape
    np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-7, atol=1e-7)


def test_max_splits_ties():
    a = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    x, t = mt.Tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    x.max(axis=1).backward(np.array([1.0, 3.0]))
    t.amax(dim=1).backward(torch.tensor([1.0, 3.0], dtype=torch.float64))
    np.testing.assert_allclose(x.grad, t.grad.numpy())


@pytest.mark.parametrize("name", ["sum", "mean"])
def test_reduction_gradcheck(name):
    mt.gradcheck(lambda x: getattr(x, name)(axis=1), [RNG.normal(size=(3, 4))])
### END SOLUTION
