"""Laboratorio 02 · test_shape_ops.py: tus tests de reshape, transpose, broadcast_to, x[idx],
cat y stack.

Cada operación de forma invierte su transformación en el backward: comprueba la ida y vuelta
(el gradiente vuelve a la forma de la entrada, ``grad.shape == data.shape``) con un gradiente
de arriba aleatorio y compara con torch. Casos que separan errores: reshape entre formas
distintas ((3, 4) -> (2, 6)), una permutación que no es su propia inversa ((1, 2, 0)), índices
repetidos (``x[[0, 0, 2]]``: sus gradientes se suman), cat de piezas de tamaños distintos.
Y un ``mt.gradcheck`` por operación.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

### BEGIN SOLUTION
RNG = np.random.default_rng(3)


def compare(f_mt, f_torch, *arrays):
    xs = [mt.Tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    y, ty = f_mt(*xs), f_torch(*ts)
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-7)
    g = RNG.normal(size=ty.shape)
    y.backward(g)
    ty.backward(torch.tensor(g))
    for x, t in zip(xs, ts):
        assert x.grad.shape == x.data.shape
        np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-7)


def test_reshape():
    compare(lambda x: x.reshape(2, 6), lambda t: t.reshape(2, 6), RNG.normal(size=(3, 4)))


@pytest.mark.parametrize("perm", [(1, 2, 0), (2, 0, 1), (0, 2, 1)])
def test_transpose(perm):
    compare(lambda x: x.transpose(*perm), lambda t: t.permute(*perm), RNG.normal(size=(2, 3, 4)))


def test_broadcast_to():
    compare(lambda x: x.broadcast_to((2, 4, 3)), lambda t: t.expand(2, 4, 3),
            RNG.normal(size=(4, 1)))


def test_getitem_repeated_indices():
    idx = [0, 0, 2]
    compare(lambda x: x[idx], lambda t: t[idx], RNG.normal(size=(4, 3)))


def test_cat_and_stack():
    a, b = RNG.normal(size=(2, 3)), RNG.normal(size=(4, 3))
    compare(lambda x, y: mt.cat([x, y], axis=0), lambda x, y: torch.cat([x, y], 0), a, b)
    c = RNG.normal(size=(2, 3))
    compare(lambda x, y: mt.stack([x, y], axis=1), lambda x, y: torch.stack([x, y], 1), a, c)


def test_shape_ops_gradcheck():
    mt.gradcheck(lambda x: x.transpose(1, 2, 0).reshape(4, 6), [RNG.normal(size=(2, 3, 4))])
### END SOLUTION
