"""Laboratorio 03 · test_cross_entropy.py: tus tests de ``mt.cross_entropy``.

Compara con ``torch.nn.functional.cross_entropy`` (float64, 1e-7) la pérdida y el gradiente de
los logits para un lote de VARIAS filas (N > 1: la media divide el gradiente entre N), con
clases objetivo distintas, en las tres reducciones: ``reduction='mean'`` (la de por defecto),
``'sum'`` y ``'none'`` (una pérdida por fila: su backward con un gradiente de arriba no
uniforme). Logits grandes (±1e4): la pérdida y el gradiente son finitos. Un ``mt.gradcheck``.
"""

import numpy as np
import pytest
import torch

import minitorch as mt

### BEGIN SOLUTION
RNG = np.random.default_rng(6)


def compare(logits, targets, reduction="mean"):
    x, t = mt.Tensor(logits, requires_grad=True), torch.tensor(logits, requires_grad=True)
    loss = mt.cross_entropy(x, targets, reduction=reduction)
    tloss = torch.nn.functional.cross_entropy(t, torch.tensor(targets), reduction=reduction)
    np.testing.assert_allclose(loss.data, tloss.detach().numpy(), rtol=1e-7)
    up = RNG.normal(size=loss.shape)  # 'none': a different weight per row
    loss.backward(up)
    tloss.backward(torch.tensor(up))
    assert np.all(np.isfinite(x.grad))
    np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-7, atol=1e-12)


def test_a_batch_against_torch():
    compare(RNG.normal(size=(4, 5)), np.array([0, 3, 4, 1]))


@pytest.mark.parametrize("reduction", ["sum", "none"])
def test_the_other_reductions(reduction):
    compare(RNG.normal(size=(4, 5)), np.array([0, 3, 4, 1]), reduction)


def test_large_logits():
    compare(np.array([[1e4, 0.0, -1e4], [0.0, 1e4, 2.0]]), np.array([1, 1]))


def test_gradcheck():
    targets = np.array([2, 0, 1])
    mt.gradcheck(lambda x: mt.cross_entropy(x, targets), [RNG.normal(size=(3, 4))])
### END SOLUTION
