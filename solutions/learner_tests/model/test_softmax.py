"""Laboratorio 03 · test_softmax.py: tus tests de softmax y log_softmax.

Compara con torch (float64, 1e-7) el forward y el gradiente, con un gradiente de arriba
aleatorio (con ``.sum()`` el gradiente de softmax es cero y no prueba nada), a lo largo de
axis=-1 y axis=0. Con logits grandes (±1e4) la salida debe ser finita. Un ``mt.gradcheck``.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

### BEGIN SOLUTION
RNG = np.random.default_rng(5)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("axis", [-1, 0])
def test_against_torch(name, axis):
    a = RNG.normal(size=(3, 4))
    x, t = mt.Tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    y, ty = getattr(x, name)(axis=axis), getattr(t, name)(dim=axis)
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-7, atol=1e-12)
    g = RNG.normal(size=ty.shape)
    y.backward(g)
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-7, atol=1e-12)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_large_logits_stay_finite(name):
    a = np.array([[1e4, 0.0, -1e4], [-1e4, -1e4, 3.0]])
    x = mt.Tensor(a, requires_grad=True)
    y = getattr(x, name)(axis=-1)
    y.backward(RNG.normal(size=a.shape))
    assert np.all(np.isfinite(y.data)) and np.all(np.isfinite(x.grad))
    want = getattr(torch.tensor(a), name)(dim=-1).numpy()
    np.testing.assert_allclose(y.data, want, rtol=1e-7)


def test_softmax_gradcheck():
    mt.gradcheck(lambda x: x.softmax(axis=-1), [RNG.normal(size=(3, 4))])
### END SOLUTION
