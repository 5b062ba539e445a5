"""The upstream gradient a ``_backward`` receives is read-only (issue 32).

A backward that writes into its ``g`` (``g *= mask; return (g,)``) used to pass every check
while changing the ``.grad`` of its output, which other backwards may share. The engine now
hands each closure a read-only upstream, and such a write raises a BackwardError naming the op,
in the learner's language. Leaves' gradients stay writable (an optimizer updates them in place).
"""

from __future__ import annotations

import gc

import numpy as np
import pytest

import minitorch as mt

Tensor = mt.Tensor  # the implementation MINITORCH_IMPL selects


def _relu_writing_into_g(self):
    a = self.data

    def _backward(g):
        g *= a > 0  # the mistake: the upstream changed in place
        return (g,)

    return Tensor._make(np.maximum(a, 0.0), (self,), "relu", _backward)


def _relu_assigning_into_g(self):
    a = self.data

    def _backward(g):
        g[a <= 0] = 0.0
        return (g,)

    return Tensor._make(np.maximum(a, 0.0), (self,), "relu", _backward)


@pytest.mark.parametrize("relu", [_relu_writing_into_g, _relu_assigning_into_g])
@pytest.mark.parametrize("lang, words", [("es", "solo lectura"), ("en", "read-only")])
def test_a_backward_writing_into_its_upstream_names_the_op(monkeypatch, relu, lang, words):
    import minitorch_course.i18n  # noqa: F401  (loaded, as in a lab notebook: it translates)

    monkeypatch.setenv("MINITORCH_LANG", lang)
    monkeypatch.setattr(Tensor, "relu", relu)
    x = mt.Tensor([-1.0, 2.0, 3.0], requires_grad=True)
    for root in (lambda: (x.relu() * 3.0).sum(), lambda: x.relu()):  # inside, and the seed
        y = root()
        with pytest.raises(mt.BackwardError, match=rf"^relu: .*{words}") as err:
            y.backward(None if y.size == 1 else np.ones(y.shape))
        assert err.value.op == "relu" and err.value.upstream_written
        assert isinstance(err.value.__cause__, ValueError)  # NumPy's own error kept as cause


def test_without_the_check_the_mistake_corrupts_a_shared_gradient(monkeypatch):
    """Why: with a writable upstream, relu's write would have changed y.grad (its own
    upstream, kept by the engine) although relu's gradient itself comes out right."""
    monkeypatch.setattr(Tensor, "relu", _relu_writing_into_g)
    x = mt.Tensor([-1.0, 2.0], requires_grad=True)
    y = x.relu()
    g = np.array([5.0, 7.0])
    with pytest.raises(mt.BackwardError):
        y.backward(g)
    np.testing.assert_array_equal(g, [5.0, 7.0])  # the caller's array is never written either


def test_gradients_stay_right_and_leaf_grads_writable():
    x = mt.Tensor([0.5, -1.0, 2.0], requires_grad=True)
    w = mt.Tensor([1.5, 2.0, -0.5], requires_grad=True)
    h = x * w
    loss = (h + h).tanh().sum()
    loss.backward(retain_graph=True)
    expected = 2.0 * (1.0 - np.tanh(2.0 * x.data * w.data) ** 2)
    np.testing.assert_allclose(x.grad, expected * w.data)
    np.testing.assert_allclose(w.grad, expected * x.data)
    assert not h.grad.flags.writeable  # an intermediate's gradient is an upstream
    for leaf in (x, w):
        assert leaf.grad.flags.writeable
        leaf.grad *= 0.5  # what an optimizer does
        leaf.data -= 0.1 * leaf.grad  # after backward: always allowed
    with pytest.raises(mt.BackwardError, match="^mul: the data of its input"):
        loss.backward()  # the retained graph after an update: refused (issue 10)


def test_backward_pauses_the_collector_and_restores_its_state():
    x = mt.Tensor([1.0, 2.0], requires_grad=True)
    assert gc.isenabled()
    seen = []

    def spy(self):
        def _backward(g):
            seen.append(gc.isenabled())
            return (g * 2.0,)

        return Tensor._make(self.data * 2.0, (self,), "double", _backward)

    spy(x).sum().backward()
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        spy(x).sum().backward()
        assert not gc.isenabled()  # a collector the user switched off stays off
    finally:
        gc.enable()
