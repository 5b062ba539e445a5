"""Ready for the next chapter (09, ``minimodel``): its code, written the way that chapter writes it,
trains the grid's MLP on this chapter's engine.

Chapter 09 imports ``minitorch`` and builds on ``Tensor``: a ``Parameter`` subclass whose
constructor calls ``Tensor.__init__(data, requires_grad=True)``, a ``Linear`` layer made of two
parameters, ``zero_grad`` setting ``p.grad = None``, an SGD step ``p.data -= lr * p.grad``. If an
engine change broke subclassing, ``grad = None`` as "no gradient yet", or in-place updates of
``data``, this file fails before chapter 09 does.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import minitorch as mt
from minitorch_authoring.repository import ROOT
from minitorch_course import grammar as g
from minitorch_course import mlp_checks

HIDDEN, LR, STEPS, SEED = 16, 1.0, 300, 0
mlp = mlp_checks.load(ROOT / "solutions" / "mlp.py")  # this chapter's answer to lab 05


class Parameter(mt.Tensor):
    """A tensor the model learns: always a leaf that requires grad."""

    def __init__(self, data) -> None:
        mt.Tensor.__init__(self, data, requires_grad=True)


class Module:
    def parameters(self) -> Iterator[Parameter]:
        for value in vars(self).values():
            if isinstance(value, Parameter):
                yield value
            elif isinstance(value, Module):
                yield from value.parameters()

    def zero_grad(self) -> None:
        for p in self.parameters():
            p.grad = None


class Linear(Module):
    def __init__(self, n_in: int, n_out: int, rng: np.random.Generator) -> None:
        self.weight = Parameter(rng.standard_normal((n_in, n_out)) / np.sqrt(n_in))  # (in, out)
        self.bias = Parameter(np.zeros(n_out))  # (out,)

    def __call__(self, x: mt.Tensor) -> mt.Tensor:
        return x @ self.weight + self.bias  # (N, out)


class MLP(Module):
    def __init__(self, hidden: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self.hidden = Linear(g.N_FEATURES, hidden, rng)  # draws W1, then W2: as mlp.init_params
        self.out = Linear(hidden, g.N_TENSES, rng)

    def __call__(self, x: mt.Tensor) -> mt.Tensor:
        return self.out(self.hidden(x).tanh())  # (N, 5) logits


class SGD:
    def __init__(self, params, lr: float) -> None:
        self.params, self.lr = list(params), lr

    def step(self) -> None:
        for p in self.params:
            p.data -= self.lr * p.grad


def fit(model: MLP, X: np.ndarray, y: np.ndarray, steps: int = STEPS) -> list[float]:
    opt = SGD(model.parameters(), LR)
    Xt, losses = mt.Tensor(X), []
    for _ in range(steps):
        loss = mt.cross_entropy(model(Xt), y)
        losses.append(loss.item())
        model.zero_grad()
        loss.backward()
        opt.step()
    return losses


@pytest.fixture(scope="module")
def trained():
    train, val = g.make_dataset(seed=SEED)  # the next chapter's 250 / 50
    model = MLP(HIDDEN, SEED)
    w0 = {name: p.data.copy() for name, p in zip(("W1", "b1", "W2", "b2"), model.parameters())}
    losses = fit(model, train.X, train.target)
    return model, w0, losses, train, val


def test_parameter_is_a_leaf_tensor_that_requires_grad():
    p = Parameter(np.ones((2, 3)))
    assert isinstance(p, mt.Tensor) and p.requires_grad and p.grad is None
    assert p.data.dtype == np.float64 and p.shape == (2, 3) and not p._prev
    y = (p * p).sum()
    assert type(y) is mt.Tensor  # results of ops are plain tensors, not parameters
    y.backward()
    np.testing.assert_array_equal(p.grad, 2 * np.ones((2, 3)))


def test_module_finds_its_parameters_and_zero_grad_forgets_them():
    model = MLP(4, 0)
    params = list(model.parameters())
    assert [p.shape for p in params] == [(23, 4), (4,), (4, 5), (5,)]
    mt.cross_entropy(model(mt.Tensor(np.eye(23)[:3])), np.array([0, 1, 2])).backward()
    assert all(p.grad is not None and p.grad.shape == p.shape for p in params)
    model.zero_grad()
    assert all(p.grad is None for p in params)


def test_the_mlp_trains_above_the_next_chapters_85_percent(trained):
    model, _, losses, _, val = trained
    assert losses[-1] < losses[0] / 3
    with mt.no_grad():
        acc = g.accuracy(model(mt.Tensor(val.X)), val.target)
    assert acc > 0.85, acc


def test_it_is_the_same_run_as_this_chapters_mlp(trained):
    """Same weights, data, ops and updates as ``solutions/mlp.py``'s ``train``: the same losses."""
    model, w0, losses, train, _ = trained
    np.testing.assert_array_equal(w0["W1"], mlp.init_params(SEED, HIDDEN)["W1"])
    _, reference = mlp.train(w0, train.X, train.target, lr=LR, steps=STEPS)
    np.testing.assert_allclose(losses, reference, rtol=0, atol=1e-12)


def test_a_step_without_zero_grad_would_differ():
    """The test can fail: skipping ``zero_grad`` changes the run from the second update on."""
    train, _ = g.make_dataset(seed=SEED)
    a, b = MLP(HIDDEN, SEED), MLP(HIDDEN, SEED)
    good = fit(a, train.X, train.target, steps=4)
    b.zero_grad = lambda: None  # forgets to reset: gradients accumulate
    bad = fit(b, train.X, train.target, steps=4)
    assert good[:2] == bad[:2] and abs(good[3] - bad[3]) > 1e-6


def test_a_constant_beside_a_parameter_stays_a_constant():
    p = Parameter(np.ones(3))
    for y in (p * 2.0, 2.0 * p, p + np.ones(3)):
        constant = next(q for q in y._prev if q is not p)
        assert type(constant) is mt.Tensor and not constant.requires_grad
