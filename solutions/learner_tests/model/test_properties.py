"""Laboratorio 04 · test_properties.py: tus tests de propiedades con Hypothesis.

Al menos una propiedad sobre formas aleatorias que se emiten por broadcasting, generadas con
``hypothesis.extra.numpy.mutually_broadcastable_shapes``: para add, sub, mul y div, tras
``backward`` con un gradiente de arriba aleatorio, cada gradiente tiene la forma de su entrada
y el valor de torch. Fija las semillas: el test debe dar lo mismo cada vez.
"""

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import minitorch as mt

### BEGIN SOLUTION
OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b,
       "mul": lambda a, b: a * b, "div": lambda a, b: a / b}


@settings(max_examples=15, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4),
       name=st.sampled_from(sorted(OPS)), seed=st.integers(0, 2**16))
def test_binary_ops_reverse_broadcast(shapes, name, seed):
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(0.5, 2.0, size=s) * rng.choice([-1.0, 1.0], size=s)
              for s in shapes.input_shapes]
    xs = [mt.Tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    y, ty = OPS[name](*xs), OPS[name](*ts)
    g = rng.normal(size=shapes.result_shape)
    y.backward(g)
    ty.backward(torch.tensor(g))
    for x, t in zip(xs, ts):
        assert x.grad.shape == x.data.shape
        np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-7, atol=1e-12)
### END SOLUTION
