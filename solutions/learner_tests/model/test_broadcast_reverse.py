"""Laboratorio 01 · test_broadcast_reverse.py: tus tests del broadcasting inverso.

Para las operaciones binarias (add, sub, mul, div) y los pares de formas que más se usan,
comprueba que el gradiente de cada entrada tiene la forma de esa entrada
(``grad.shape == data.shape``) y el valor de torch (float64, 1e-7), con un gradiente de arriba
aleatorio. Los pares deben ampliar la forma en un eje INICIAL ((3,) con (4, 3); (5,) con
(2, 3, 5)) y en un eje INTERIOR de tamaño 1 ((4, 1) con (4, 3); (2, 1, 5) con (2, 3, 5)),
y en los dos a la vez ((1, 3) con (4, 1)). Prueba también ``mt.unbroadcast`` directamente.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

### BEGIN SOLUTION
RNG = np.random.default_rng(1)
PAIRS = [((3,), (4, 3)), ((4, 3), (3,)), ((5,), (2, 3, 5)), ((4, 1), (4, 3)),
         ((2, 1, 5), (2, 3, 5)), ((1, 3), (4, 1)), ((), (2, 3))]
OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
       "mul": lambda a, b: a * b, "div": lambda a, b: a / b}


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("shapes", PAIRS, ids=str)
def test_gradients_have_their_input_shapes(name, shapes):
    arrays = [RNG.normal(size=s) + (3.0 if name == "div" else 0.0) for s in shapes]
    xs = [mt.Tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    y, ty = OPS[name](*xs), OPS[name](*ts)
    g = RNG.normal(size=ty.shape)
    y.backward(g)
    ty.backward(torch.tensor(g))
    for x, t in zip(xs, ts):
        assert x.grad.shape == x.data.shape
        np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("shape, big", [((3,), (4, 3)), ((4, 1), (4, 3)), ((1, 3), (2, 4, 3))])
def test_unbroadcast(shape, big):
    g = RNG.normal(size=big)
    want = torch.tensor(g).sum_to_size(shape).numpy()
    np.testing.assert_allclose(mt.unbroadcast(g, shape), want.reshape(shape), rtol=1e-12)
### END SOLUTION
