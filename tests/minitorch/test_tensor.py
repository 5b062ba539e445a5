"""The Tensor node and the backward engine: fields, operators, accumulation, lifecycle.

Expected values are worked out by hand (or by the chain rule on paper), never read back from
the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def leaf(values, requires_grad=True):
    return mt.Tensor(np.asarray(values, dtype=float), requires_grad=requires_grad)


# ---------------------------------------------------------------- the node
def test_fields_of_a_node():
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    c = a * b
    assert isinstance(c.data, np.ndarray) and c.data.dtype == np.float64
    assert c._prev == (a, b) and c._op == "mul" and callable(c._backward)
    assert c.requires_grad and c.grad is None
    assert a._prev == () and a._op == "" and a._backward is None


def test_basics():
    t = mt.Tensor([[1, 2, 3], [4, 5, 6]])
    assert t.shape == (2, 3) and t.ndim == 2 and t.size == 6 and t.dtype == np.float64
    assert mt.Tensor(3.5).item() == 3.5
    assert t.T.shape == (3, 2) and len(t) == 2
    assert not t.requires_grad
    assert "requires_grad=True" in repr(leaf([1.0]))
    assert "op='add'" in repr(leaf([1.0]) + 1)


def test_constructor_copies_its_data():
    source = np.ones(3)
    t = mt.Tensor(source)
    source[0] = 5.0
    assert t.data[0] == 1.0


def test_python_operators_and_reflected_forms():
    a = leaf([2.0, 4.0])
    arr = np.array([1.0, 2.0])
    cases = {
        "add": (a + 1, [3, 5]), "radd": (1 + a, [3, 5]), "sub": (a - 1, [1, 3]),
        "rsub": (10 - a, [8, 6]), "mul": (a * 3, [6, 12]), "rmul": (3 * a, [6, 12]),
        "div": (a / 2, [1, 2]), "rdiv": (8 / a, [4, 2]), "pow": (a**2, [4, 16]),
        "rpow": (2**a, [4, 16]), "neg": (-a, [-2, -4]), "array-left": (arr * a, [2, 8]),
        "array-right": (a - arr, [1, 2]), "matmul": (a @ arr, 10.0), "rmatmul": (arr @ a, 10.0),
    }
    for name, (t, expected) in cases.items():
        assert isinstance(t, mt.Tensor), name
        np.testing.assert_allclose(t.data, expected, err_msg=name)


# ---------------------------------------------------------------- backward
def test_scalar_seed_is_one():
    x = leaf(3.0)
    (x * x).backward()
    assert x.grad == pytest.approx(6.0)


def test_non_scalar_needs_explicit_grad():
    x = leaf([1.0, 2.0])
    y = x * 3
    with pytest.raises(mt.BackwardError, match=r"shape \(2,\).*explicit grad"):
        y.backward()
    y.backward(np.array([1.0, 10.0]))
    np.testing.assert_allclose(x.grad, [3.0, 30.0])


def test_grad_of_the_wrong_shape_is_refused():
    y = leaf([1.0, 2.0]) * 2
    with pytest.raises(mt.ShapeError, match=r"\(3,\).*\(2,\)"):
        y.backward(np.ones(3))


def test_backward_on_a_constant_is_refused():
    with pytest.raises(mt.BackwardError, match="does not require grad"):
        (mt.Tensor([1.0]) * 2).sum().backward()


def test_reused_leaf_accumulates():
    x = leaf(2.0)
    y = x * x + x  # dy/dx = 2x + 1 = 5
    y.backward()
    assert x.grad == pytest.approx(5.0)


def test_reused_intermediate_node_accumulates():
    x = leaf([1.0, 2.0])
    h = x.exp()  # used three times
    y = (h * h + h).sum()  # dy/dx = (2 e^{2x} + e^x)
    y.backward()
    np.testing.assert_allclose(x.grad, 2 * np.exp(2 * x.data) + np.exp(x.data))


def test_diamond_graph():
    x = leaf(0.5)
    a, b = x * 3, x.tanh()
    (a * b).backward()  # d/dx (3x tanh x) = 3 tanh x + 3x (1 - tanh² x)
    t = np.tanh(0.5)
    assert x.grad == pytest.approx(3 * t + 1.5 * (1 - t * t))


def test_leaf_gradients_accumulate_across_calls_until_zero_grad():
    x = leaf([1.0, 2.0])
    (x * 2).sum().backward()
    (x * 3).sum().backward()
    np.testing.assert_allclose(x.grad, [5.0, 5.0])
    x.zero_grad()
    assert x.grad is None


def test_gradients_never_alias_each_other():
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    (a + b).sum().backward()
    assert a.grad is not b.grad and not np.shares_memory(a.grad, b.grad)
    a.grad += 1.0  # an optimizer may update a gradient in place
    np.testing.assert_allclose(b.grad, [1.0, 1.0])


def test_backward_twice_raises_a_clear_error():
    x = leaf([1.0, 2.0])
    y = (x * 2).sum()
    y.backward()
    with pytest.raises(mt.BackwardError, match="freed graph.*retain_graph=True"):
        y.backward()


def test_retain_graph_allows_a_second_backward():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad, 2 * (2 * x.data))  # accumulated twice


def test_no_grad_records_nothing():
    x = leaf([1.0, 2.0])
    with mt.no_grad():
        assert not mt.is_grad_enabled()
        y = x * 2
    assert mt.is_grad_enabled()
    assert not y.requires_grad and y._prev == ()


def test_detach_cuts_the_graph_but_shares_data():
    x = leaf([1.0, 2.0])
    d = (x * 2).detach()
    assert not d.requires_grad and d._prev == ()
    z = (d * x).sum()
    z.backward()
    np.testing.assert_allclose(x.grad, [2.0, 4.0])  # d counted as a constant


def test_unbroadcast_is_the_reverse_of_broadcasting():
    g = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_allclose(mt.unbroadcast(g, (4,)), g.sum(axis=(0, 1)))
    np.testing.assert_allclose(mt.unbroadcast(g, (3, 1)), g.sum(axis=(0, 2))[:, None])
    np.testing.assert_allclose(mt.unbroadcast(g, (1, 1, 1)), g.sum(keepdims=True))
    np.testing.assert_allclose(mt.unbroadcast(g, ()), g.sum())
    assert mt.unbroadcast(g, (2, 3, 4)) is g


def test_backward_rule_returning_a_wrong_shape_names_the_op():
    x = leaf(np.ones(3))
    y = x.exp()
    y._backward = lambda g: (np.ones((2, 2)),)  # a broken rule
    with pytest.raises(mt.GradShapeError, match=r"exp.*\(2, 2\).*input 0.*\(3,\)"):
        y.backward(np.ones(3))


def test_matmul_does_not_compute_gradients_nobody_needs():
    w = leaf(np.ones((3, 2)))
    x = mt.Tensor(np.ones((4, 3)))  # data: no gradient wanted
    out = x @ w
    grads = out._backward(np.ones((4, 2)))
    assert grads[0] is None and grads[1].shape == (3, 2)
