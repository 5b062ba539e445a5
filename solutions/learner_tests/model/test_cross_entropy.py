"""Laboratorio 03 · test_cross_entropy.py: tus tests de ``mt.cross_entropy``.

Compara con ``torch.nn.functional.cross_entropy`` (float64, 1e-7) la pérdida y el gradiente de
los logits para un lote de VARIAS filas (N > 1: la media divide el gradiente entre N), con
clases objetivo distintas. Logits grandes (±1e4): la pérdida y el gradiente son finitos. Un
``mt.gradcheck``.
"""

import numpy as np
import torch

import minitorch as mt

### BEGIN SOLUTION
RNG = np.random.default_rng(6)


def compare(logits, targets):
    x, t = mt.Tensor(logits, requires_grad=True), torch.tensor(logits, requires_grad=True)
    loss = mt.cross_entropy(x, targets)
    tloss = torch.nn.functional.cross_entropy(t, torch.tensor(targets))
    np.testing.assert_allclose(loss.data, tloss.detach().numpy(), rtol=1e-7)
    loss.backward()
    tloss.backward()
    assert np.all(np.isfinite(x.grad))
    np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-7, atol=1e-12)


def test_a_batch_against_torch():
    compare(RNG.normal(size=(4, 5)), np.array([0, 3, 4, 1]))


def test_large_logits():
    compare(np.array([[1e4, 0.0, -1e4], [0.0, 1e4, 2.0]]), np.array([1, 1]))


def test_gradcheck():
    targets = np.array([2, 0, 1])
    mt.gradcheck(lambda x: mt.cross_entropy(x, targets), [RNG.normal(size=(3, 4))])
### END SOLUTION
