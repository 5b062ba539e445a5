"""Laboratorio 03 · test_grammar_gradient.py: un test de extremo a extremo con la rejilla
gramatical.

Persona en one-hot (N, 3) @ pesos (3, 5) -> logits de tiempo verbal (N, 5) -> cross_entropy con
los tiempos objetivo (0..4): la pérdida y los gradientes de los pesos deben ser los de torch
(float64, 1e-7). Usa un lote de varias filas y pesos aleatorios con semilla.
"""

import numpy as np
import torch

import minitorch as mt

### BEGIN SOLUTION


def test_person_to_tense_end_to_end():
    rng = np.random.default_rng(7)
    persons = np.array([0, 1, 2, 2, 0, 1])
    tenses = np.array([2, 4, 1, 0, 3, 2])
    onehot = np.eye(3)[persons]
    w = rng.normal(size=(3, 5))
    wm = mt.Tensor(w, requires_grad=True)
    loss = mt.cross_entropy(mt.Tensor(onehot) @ wm, tenses)
    wt = torch.tensor(w, requires_grad=True)
    tloss = torch.nn.functional.cross_entropy(torch.tensor(onehot) @ wt, torch.tensor(tenses))
    loss.backward()
    tloss.backward()
    np.testing.assert_allclose(loss.data, tloss.detach().numpy(), rtol=1e-7)
    np.testing.assert_allclose(wm.grad, wt.grad.numpy(), rtol=1e-7, atol=1e-12)
### END SOLUTION
