"""A weak lab 02 set: a random upstream gradient and torch, but transpose only on two axes
(a permutation that is its own inverse) and cat only of pieces of equal size."""

import numpy as np
import torch

import minitorch as mt

RNG = np.random.default_rng(5)


def compare(f_mt, f_torch, *arrays):
    xs = [mt.Tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    y, ty = f_mt(*xs), f_torch(*ts)
    g = RNG.normal(size=ty.shape)
    y.backward(g)
    ty.backward(torch.tensor(g))
    for x, t in zip(xs, ts):
        assert x.grad.shape == x.data.shape
        np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-7)


def test_reshape():
    compare(lambda x: x.reshape(2, 6), lambda t: t.reshape(2, 6), RNG.normal(size=(3, 4)))


def test_transpose_two_axes():
    compare(lambda x: x.transpose(1, 0), lambda t: t.permute(1, 0), RNG.normal(size=(3, 4)))


def test_getitem_repeated_indices():
    compare(lambda x: x[[0, 0, 2]], lambda t: t[[0, 0, 2]], RNG.normal(size=(4, 3)))


def test_cat_equal_pieces():
    a, b = RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3))
    compare(lambda x, y: mt.cat([x, y], axis=0), lambda x, y: torch.cat([x, y], 0), a, b)
