"""Laboratorio 01 · test_elementwise.py: tus tests de las operaciones elemento a elemento.

Para cada operación (add, sub, mul, div, neg, exp, log, sqrt, relu, gelu, tanh, sigmoid)
escribe un test que compare con torch en float64 (tolerancia 1e-7) el forward y el gradiente de
CADA entrada, con un gradiente de arriba (upstream) aleatorio ``g``: ``y.backward(g)``, no
``y.sum().backward()``. Y otro que pase ``mt.gradcheck``. Añade los casos que separan un
error de otro: relu exactamente en 0 (torch da gradiente 0), entradas negativas y positivas,
dominios válidos (log y sqrt con entradas positivas). Comprueba ``grad.shape == data.shape``
tras cada backward.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

### BEGIN SOLUTION
RNG = np.random.default_rng(0)
UNARY = {
    "neg": (lambda x: -x, lambda x: -x),
    "exp": (lambda x: x.exp(), torch.exp),
    "log": (lambda x: x.log(), torch.log),
    "sqrt": (lambda x: x.sqrt(), torch.sqrt),
    "relu": (lambda x: x.relu(), torch.relu),
    "gelu": (lambda x: x.gelu(), torch.nn.functional.gelu),
    "tanh": (lambda x: x.tanh(), torch.tanh),
    "sigmoid": (lambda x: x.sigmoid(), torch.sigmoid),
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
}
POSITIVE = {"log", "sqrt"}


def compare(f_mt, f_torch, *arrays, upstream=None):
    xs = [mt.Tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    y, ty = f_mt(*xs), f_torch(*ts)
    np.testing.assert_allclose(y.data, ty.detach().numpy(), rtol=1e-7, atol=1e-7)
    g = RNG.normal(size=ty.shape) if upstream is None else upstream
    y.backward(g)
    ty.backward(torch.tensor(g))
    for x, t in zip(xs, ts):
        assert x.grad.shape == x.data.shape
        np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_against_torch(name):
    x = RNG.normal(size=(3, 4))
    if name in POSITIVE:
        x = np.abs(x) + 0.5
    compare(*UNARY[name], x)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_against_torch(name):
    a, b = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    if name == "div":
        b = np.sign(b) * (np.abs(b) + 0.5)
    compare(BINARY[name], BINARY[name], a, b)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradcheck(name):
    x = RNG.normal(size=(2, 3))
    if name in POSITIVE:
        x = np.abs(x) + 0.5
    if name == "relu":
        x = x + np.sign(x) * 0.1  # away from the kink
    mt.gradcheck(UNARY[name][0], [x])


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradcheck(name):
    a, b = RNG.normal(size=(2, 3)), np.abs(RNG.normal(size=(2, 3))) + 0.5
    mt.gradcheck(BINARY[name], [a, b])


def test_relu_at_its_kink():
    compare(*UNARY["relu"], np.array([-1.0, 0.0, 2.0]), upstream=np.array([1.0, 1.0, 1.0]))
### END SOLUTION
