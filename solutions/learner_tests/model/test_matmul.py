"""Laboratorio 03 · test_matmul.py: tus tests de matmul (``@``).

Compara con torch (float64, 1e-7) el forward y los gradientes de AMBOS operandos, con un
gradiente de arriba aleatorio, en matrices NO cuadradas ((4, 5) @ (5, 3)), con ejes de lote
((2, 4, 5) @ (5, 3) y (2, 4, 5) @ (2, 5, 3)) y con operandos 1-D. Un ``mt.gradcheck`` en
tensores pequeños (unos 100 elementos).
"""

import numpy as np
import pytest
import torch

import minitorch as mt

### BEGIN SOLUTION
RNG = np.random.default_rng(4)
SHAPES = [((4, 5), (5, 3)), ((2, 4, 5), (5, 3)), ((2, 4, 5), (2, 5, 3)), ((5,), (5, 3)),
          ((4, 5), (5,))]


@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_matmul_against_torch(shapes):
    a, b = (RNG.normal(size=s) for s in shapes)
    x, y = mt.Tensor(a, requires_grad=True), mt.Tensor(b, requires_grad=True)
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    out, tout = x @ y, tx @ ty
    np.testing.assert_allclose(out.data, tout.detach().numpy(), rtol=1e-7, atol=1e-12)
    g = RNG.normal(size=tout.shape)
    out.backward(g)
    tout.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(y.grad, ty.grad.numpy(), rtol=1e-7, atol=1e-12)


def test_matmul_gradcheck():
    mt.gradcheck(lambda a, b: a @ b, [RNG.normal(size=(4, 5)), RNG.normal(size=(5, 3))])
### END SOLUTION
