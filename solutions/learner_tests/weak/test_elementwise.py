"""A weak set: .sum() as the upstream gradient, same-shape operands only."""

import numpy as np
import pytest
import torch

import minitorch as mt

OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
       "mul": lambda a, b: a * b, "div": lambda a, b: a / b}
UNARY = {"exp": (lambda x: x.exp(), torch.exp), "tanh": (lambda x: x.tanh(), torch.tanh),
         "sigmoid": (lambda x: x.sigmoid(), torch.sigmoid), "relu": (lambda x: x.relu(), torch.relu)}


@pytest.mark.parametrize("name", sorted(OPS))
def test_binary(name):
    a, b = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.5, 2.0])
    xs = [mt.Tensor(v, requires_grad=True) for v in (a, b)]
    ts = [torch.tensor(v, requires_grad=True) for v in (a, b)]
    OPS[name](*xs).sum().backward()
    OPS[name](*ts).sum().backward()
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-7)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    a = np.array([-1.5, 0.5, 2.0])
    x, t = mt.Tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    UNARY[name][0](x).sum().backward()
    UNARY[name][1](t).sum().backward()
    np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-7)
