"""Edge cases of the engine that no catalog row covers, each compared with PyTorch (float64).

Negative transpose axes, pow at base 0, reductions and softmax over an empty axis, arrays the
caller still owns (index arrays, targets, ``.data`` changed in place after the forward pass),
and the Python protocols a Tensor answers (bool, iter, ``np.asarray``, indices, axes, ``==``,
grad mode per thread). The expected values come from torch, never from minitorch.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import minitorch as mt

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(10)


def pair(values, requires_grad=True):
    """The same leaf in minitorch and in torch (float64)."""
    array = np.asarray(values, dtype=np.float64)
    return (mt.Tensor(array, requires_grad=requires_grad),
            torch.tensor(array, requires_grad=requires_grad))


def grad_of(t):
    return t.grad.numpy() if isinstance(t, torch.Tensor) else t.grad


def assert_same(ours, theirs):
    np.testing.assert_allclose(ours, theirs.detach().numpy() if isinstance(theirs, torch.Tensor)
                               else theirs, rtol=1e-7, atol=1e-7)


# ---------------------------------------------------------------- wrong results
@pytest.mark.parametrize("shape, axes", [
    ((3, 3), (-1, 0)), ((2, 2, 2), (0, -1, -2)), ((2, 3, 4), (-1, 0, 1)),
    ((2, 3, 4), (1, -3, -1)), ((2, 3, 4, 5), (-2, -1, 0, 1)),
])
def test_transpose_with_negative_axes(shape, axes):
    x, xt = pair(RNG.standard_normal(shape))
    g = RNG.standard_normal(xt.permute(axes).shape)
    y, yt = x.transpose(*axes), xt.permute(axes)
    assert_same(y.data, yt)
    y.backward(g)
    yt.backward(torch.tensor(g))
    assert_same(x.grad, xt.grad)


def test_transpose_rejects_axes_that_are_not_a_permutation():
    with pytest.raises(mt.ShapeError, match=r"transpose: axes \(0, -2\) are not a permutation"):
        mt.Tensor(np.ones((2, 3))).transpose(0, -2)


@pytest.mark.parametrize("base, exponent, wrt", [
    ([0.0, 1.0, -2.0, 0.0], [0.0, 0.0, 0.0, 0.0], "base"),       # x ** 0 at x = 0
    ([0.0, 0.0, 0.0, 0.0], [2.0, 0.5, 0.0, 1.0], "exponent"),     # 0 ** b
    ([0.0, 0.0, 0.0, 2.0, 0.0], [0.0, 1.0, 3.0, 0.0, 0.5], "both"),
    ([0.0, 0.0], [-1.0, -2.0], "both"),                           # 0 ** negative: inf, as torch
])
def test_pow_at_base_zero_gives_torchs_gradients(base, exponent, wrt):
    a, at = pair(base, requires_grad=wrt in ("base", "both"))
    b, bt = pair(exponent, requires_grad=wrt in ("exponent", "both"))
    g = RNG.uniform(0.5, 1.5, len(base))
    (a ** b).backward(g)
    (at ** bt).backward(torch.tensor(g))
    for ours, theirs in ((a, at), (b, bt)):
        if theirs.requires_grad:
            np.testing.assert_array_equal(ours.grad, grad_of(theirs))


def test_pow_by_a_number_zero_at_zero():
    x, xt = pair([0.0, 3.0])
    (x ** 0.0).sum().backward()
    (xt ** 0.0).sum().backward()
    np.testing.assert_array_equal(x.grad, grad_of(xt))


@pytest.mark.parametrize("shape, axis", [((0, 3), 0), ((0, 3), None), ((2, 0, 3), (0, 1)),
                                         ((3, 0), -1)])
def test_mean_over_an_empty_axis_is_nan_like_torch(shape, axis):
    x, xt = pair(np.zeros(shape))
    y = x.mean(axis=axis)
    yt = xt.mean() if axis is None else xt.mean(dim=axis)
    np.testing.assert_array_equal(y.data, yt.detach().numpy())
    y.backward(np.ones(y.shape))
    yt.backward(torch.ones(yt.shape, dtype=torch.float64))
    assert x.grad.shape == tuple(xt.grad.shape)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape, axis", [((2, 0), -1), ((0, 3), 0), ((3, 0, 2), 1)])
def test_softmax_over_an_empty_axis_is_empty_like_torch(op, shape, axis):
    x, xt = pair(np.zeros(shape))
    y, yt = getattr(x, op)(axis=axis), getattr(xt, op)(dim=axis)
    assert y.shape == tuple(yt.shape)
    y.backward(np.ones(y.shape))
    yt.backward(torch.ones(yt.shape, dtype=torch.float64))
    assert x.grad.shape == tuple(xt.grad.shape)


# ---------------------------------------------------------------- arrays the caller owns
def test_getitem_keeps_its_own_copy_of_the_index():
    index = np.array([0, 1, 1])
    x, xt = pair(RNG.standard_normal(4))
    y, yt = x[index], xt[torch.tensor(index)]
    index[:] = 3  # the caller reuses its array after the forward pass
    g = RNG.standard_normal(3)
    y.backward(g)
    yt.backward(torch.tensor(g))
    assert_same(x.grad, xt.grad)


def test_cross_entropy_keeps_its_own_copy_of_the_targets():
    targets = np.array([0, 2])
    z, zt = pair(RNG.standard_normal((2, 3)))
    loss, loss_t = mt.cross_entropy(z, targets), torch.nn.functional.cross_entropy(
        zt, torch.tensor(targets))
    targets[:] = 1
    loss.backward()
    loss_t.backward()
    assert_same(z.grad, zt.grad)


SAVES_OUTPUT = ["exp", "tanh", "sigmoid", "softmax", "log_softmax", "sqrt"]


def _change_output(op, size):
    """``op``'s output changed in place after the forward pass, in minitorch and in torch."""
    x, xt = pair(RNG.uniform(0.5, 1.5, size))
    y, yt = getattr(x, op)(), getattr(xt, op)(**({"dim": -1} if "softmax" in op else {}))
    y.data *= 2.0
    with torch.no_grad():
        yt.mul_(2.0)
    return y, yt


@pytest.mark.parametrize("size", [5, 2000], ids=["small", "large"])
@pytest.mark.parametrize("op", SAVES_OUTPUT)
def test_an_output_changed_in_place_is_refused_at_backward(op, size):
    y, yt = _change_output(op, size)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        yt.sum().backward()
    with pytest.raises(mt.BackwardError, match=rf"^{op}: the data of its output \(shape \({size},\)\) "
                                               "was changed in place after the forward pass"):
        y.sum().backward()


@pytest.mark.parametrize("change", ["x.data[0] = 7.0", "x.data *= 2.0", "w.data[...] = 0.0"])
def test_an_input_changed_in_place_is_refused_at_backward(change):
    (x, xt), (w, wt) = pair(RNG.standard_normal(3)), pair(RNG.standard_normal(3))
    y, yt = x * w, xt * wt
    exec(change)
    with torch.no_grad():
        exec(change.replace(".data", "").replace("x", "xt").replace("w", "wt"))
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        yt.sum().backward()
    with pytest.raises(mt.BackwardError, match=r"^mul: the data of its input \d \(shape \(3,\)\)"):
        y.sum().backward()


@pytest.mark.parametrize("shapes", [(3, 3), (100, 100), (2000, 2000), (2000, 1), (1, 100),
                                    (40_003, 40_003), (40_003, 1)],
                         ids=["bytes", "hashes", "weighted-sums", "weighted-sum-and-bytes",
                              "bytes-and-hash", "row-weighted-sums", "row-weighted-sum-and-bytes"])
@pytest.mark.parametrize("changed", [0, 1])
def test_the_input_changed_in_place_is_the_one_named(shapes, changed):
    """mul saves both inputs: each one's checksum (of whichever kind its size gets) is told
    apart from the other's, so the error names the input that changed."""
    x, w = (mt.Tensor(RNG.uniform(0.5, 1.5, n), requires_grad=True) for n in shapes)
    y = x * w
    (x, w)[changed].data[-1] += 1.0
    with pytest.raises(mt.BackwardError, match=rf"^mul: the data of its input {changed} "
                                               rf"\(shape \({shapes[changed]},\)\)"):
        y.sum().backward()


@pytest.mark.parametrize("i, j", [(0, 1), (0, 64), (64 * 700 + 5, 98_302), (98_301, 98_302)],
                         ids=["same-row", "same-column", "row-and-tail", "tail"])
def test_two_elements_swapped_in_place_are_noticed_in_a_large_array(i, j):
    """Beyond 32,768 elements the checksum weighs element (r, c) of rows of 64 by u_r * v_c,
    and the last few elements (98,303 = 1,535 rows of 64 and 63 more) by their own weights:
    a swap is a change wherever it falls (a plain sum would not see it)."""
    (x, xt), (w, wt) = pair(RNG.uniform(0.5, 1.5, 98_303)), pair(RNG.uniform(0.5, 1.5, 98_303))
    y, yt = x * w, xt * wt
    x.data[[i, j]] = x.data[[j, i]]
    with torch.no_grad():
        xt[[i, j]] = xt[[j, i]].clone()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        yt.sum().backward()
    with pytest.raises(mt.BackwardError, match=r"^mul: the data of its input 0 \(shape \(98303,\)\)"):
        y.sum().backward()


def test_a_change_the_backward_does_not_read_is_allowed_like_torch():
    """add saves nothing: torch accepts the change, and so does minitorch (no false alarm)."""
    (x, xt), (w, wt) = pair(RNG.standard_normal(3)), pair(RNG.standard_normal(3))
    y, yt = (x + 1.0) * w, (xt + 1.0) * wt
    x.data[0] = 7.0
    with torch.no_grad():
        xt[0] = 7.0
    g = RNG.standard_normal(3)
    y.backward(g)
    yt.backward(torch.tensor(g))
    assert_same(x.grad, xt.grad)
    assert_same(w.grad, wt.grad)


def _mul_by_hand(x, w):
    """x * w with its closure assigned after ``_make``, as notebook 00 and the held-out mutants
    build a node (a plain write to the slot: the engine does not see it)."""
    a, b = x.data, w.data
    out = mt.Tensor._make(a * b, (x, w), "mul")
    out._backward = lambda g: (g * b, g * a)
    return out


@pytest.mark.parametrize("size", [3, 2000], ids=["bytes", "weighted-sum"])
@pytest.mark.parametrize("changed", [0, 1])
def test_an_input_changed_in_place_is_refused_for_a_closure_assigned_by_hand(size, changed):
    (x, xt), (w, wt) = pair(RNG.uniform(0.5, 1.5, size)), pair(RNG.uniform(0.5, 1.5, size))
    y, yt = _mul_by_hand(x, w), xt * wt
    (x, w)[changed].data[-1] += 1.0
    with torch.no_grad():
        (xt, wt)[changed][-1] += 1.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        yt.sum().backward()
    with pytest.raises(mt.BackwardError, match=rf"^mul: the data of its input {changed} "
                                               rf"\(shape \({size},\)\) was changed in place"):
        y.sum().backward()


def test_an_output_changed_in_place_is_refused_for_a_closure_assigned_by_hand():
    (x, xt) = pair(RNG.uniform(0.5, 1.5, 4))
    e = np.exp(x.data)
    y, yt = mt.Tensor._make(e, (x,), "exp"), xt.exp()
    y._backward = lambda g: (g * e,)
    y.data *= 2.0
    with torch.no_grad():
        yt.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        yt.sum().backward()
    with pytest.raises(mt.BackwardError, match=r"^exp: the data of its output \(shape \(4,\)\)"):
        y.sum().backward()


def test_a_change_a_closure_assigned_by_hand_does_not_read_is_allowed_like_torch():
    (x, xt), (w, wt) = pair(RNG.standard_normal(3)), pair(RNG.standard_normal(3))
    s = mt.Tensor._make(x.data + 1.0, (x,), "add")
    s._backward = lambda g: (g,)
    y, yt = _mul_by_hand(s, w), (xt + 1.0) * wt
    x.data[0] = 7.0  # read by no backward; s.data, which mul reads, is another array
    with torch.no_grad():
        xt[0] = 7.0
    g = RNG.standard_normal(3)
    y.backward(g)
    yt.backward(torch.tensor(g))
    assert_same(x.grad, xt.grad)
    assert_same(w.grad, wt.grad)


def test_a_closure_that_replaced_the_recorded_one_raises_no_false_alarm():
    """A rule swapped in after the op (gradcheck's tests, the course's fault injection) saves
    other arrays than the one recorded: nothing changed in place, so nothing is refused."""
    x = mt.Tensor(RNG.uniform(0.5, 1.5, 5), requires_grad=True)
    y = x.exp()  # recorded: saves its output
    a = x.data
    y._backward = lambda g: (g * a,)  # a wrong rule of the same shape, assigned by hand
    y.sum().backward()
    np.testing.assert_array_equal(x.grad, a)


def test_assigning_a_new_array_to_data_is_not_an_in_place_change():
    x, xt = pair(RNG.standard_normal(3))
    y, yt = x.exp(), xt.exp()
    x.data = x.data + 1.0  # a new array: the forward's own is untouched
    with torch.no_grad():
        xt.data = xt.data + 1.0
    y.sum().backward()
    yt.sum().backward()
    assert_same(x.grad, xt.grad)


def test_an_sgd_update_after_backward_keeps_working_and_matches_torch():
    (w, wt), (x, xt) = pair(RNG.standard_normal((3, 2))), pair(RNG.standard_normal((4, 3)), False)
    for _ in range(3):
        loss, loss_t = (x @ w).tanh().sum(), (xt @ wt).tanh().sum()
        loss.backward()
        loss_t.backward()
        w.data -= 0.1 * w.grad
        w.zero_grad()
        with torch.no_grad():
            wt -= 0.1 * wt.grad
        wt.grad = None
    assert_same(w.data, wt)


def test_an_update_between_two_backwards_of_a_retained_graph_is_refused():
    w, wt = pair(RNG.standard_normal(3))
    loss, loss_t = (w * w).sum(), (wt * wt).sum()
    loss.backward(retain_graph=True)
    loss_t.backward(retain_graph=True)
    w.data -= 0.1 * w.grad
    with torch.no_grad():
        wt -= 0.1 * wt.grad
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss_t.backward()
    with pytest.raises(mt.BackwardError, match="^mul: the data of its input 0"):
        loss.backward()


# ---------------------------------------------------------------- types that leak
ZERO_D = {
    "sum": lambda x: x.sum(),
    "mean": lambda x: x.mean(),
    "mul": lambda x: x.sum() * 3.0,
    "exp": lambda x: x.sum().exp(),
    "pow": lambda x: x.sum() ** 2,
}


@pytest.mark.parametrize("name", ZERO_D)
def test_zero_d_data_and_grad_are_arrays(name):
    x = mt.Tensor(2.0, requires_grad=True)  # a 0-d leaf: every result below is 0-d too
    y = ZERO_D[name](x)
    y.backward()
    xt = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    ZERO_D[name](xt).backward()
    for array in (y.data, x.grad, y.grad):
        assert type(array) is np.ndarray and array.shape == ()
    assert_same(x.grad, xt.grad)
    x.grad[...] = 0.0  # what an optimizer does in place


def test_np_asarray_follows_torch():
    x, xt = pair([1.0, 2.0], requires_grad=False)
    np.testing.assert_array_equal(np.asarray(x), np.asarray(xt))
    assert np.asarray(x).dtype == np.float64
    w, wt = pair([1.0, 2.0])
    with pytest.raises(RuntimeError):
        np.asarray(wt)
    with pytest.raises(TypeError, match="requires grad"):
        np.asarray(w)


@pytest.mark.parametrize("values", [[0.0], [2.0], [[0.0]], 0.0, [1.0, 2.0], []])
def test_bool_follows_torch(values):
    x, xt = pair(values, requires_grad=False)
    try:
        expected = bool(xt)
    except RuntimeError:
        with pytest.raises(RuntimeError, match="ambiguous"):
            bool(x)
    else:
        assert bool(x) is expected


def test_iteration_follows_torch():
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(torch.tensor(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(mt.Tensor(1.0))
    x, xt = pair(RNG.standard_normal((3, 2)))
    rows, rows_t = list(x), list(xt)
    assert len(rows) == len(rows_t) == 3
    assert_same(np.stack([r.data for r in rows]), torch.stack(rows_t))


def test_a_tensor_is_not_an_index_like_a_float_tensor_in_torch():
    x, xt = pair(RNG.standard_normal(3), requires_grad=False)
    with pytest.raises(IndexError):
        xt[torch.tensor([0.0, 1.0], dtype=torch.float64)]
    with pytest.raises(IndexError, match=r"a Tensor \(float64, shape \(2,\)\) cannot be used"):
        x[mt.Tensor([0.0, 1.0])]
    with pytest.raises(IndexError, match="cannot be used as an index"):
        x[(mt.Tensor([0.0]),)]


@pytest.mark.parametrize("call", [
    lambda t, i: t.sum(axis=i(1)), lambda t, i: t.mean(axis=(i(0), i(-1))),
    lambda t, i: t.max(axis=i(0)), lambda t, i: t.reshape(i(6)),
    lambda t, i: t.reshape(i(3), i(2)), lambda t, i: t.transpose(i(1), i(0)),
    lambda t, i: t.softmax(axis=i(0)),
], ids=["sum", "mean", "max", "reshape1", "reshape2", "transpose", "softmax"])
def test_numpy_integers_are_axes_and_sizes(call):
    x, xt = pair(RNG.standard_normal((2, 3)))
    torch_call = {"sum": lambda t: t.sum(dim=1), "mean": lambda t: t.mean(dim=(0, -1)),
                  "max": lambda t: t.amax(dim=0), "reshape1": lambda t: t.reshape(6),
                  "reshape2": lambda t: t.reshape(3, 2), "transpose": lambda t: t.permute(1, 0),
                  "softmax": lambda t: t.softmax(dim=0)}
    expected = {name: f(xt) for name, f in torch_call.items()}
    y = call(x, np.int64)
    assert any(y.shape == tuple(e.shape) and np.allclose(y.data, e.detach().numpy())
               for e in expected.values())


@pytest.mark.parametrize("axis, ok", [(0, True), (-1, True), (5, False), (1, False), (-2, False)])
def test_axes_of_a_zero_d_tensor_follow_torch(axis, ok):
    x, xt = pair(3.0)
    if ok:
        assert_same(x.sum(axis=axis).data, xt.sum(dim=axis))
        return
    with pytest.raises(IndexError, match="Dimension out of range"):
        xt.sum(dim=axis)
    with pytest.raises(mt.ShapeError, match=rf"axis {axis} is out of range"):
        x.sum(axis=axis)


@pytest.mark.parametrize("op, torch_op", [("sum", "sum"), ("mean", "mean"), ("max", "amax")])
def test_an_empty_axis_tuple_reduces_everything_like_torch(op, torch_op):
    x, xt = pair(RNG.standard_normal((2, 3)))
    y, yt = getattr(x, op)(axis=()), getattr(xt, torch_op)(dim=())
    assert y.shape == tuple(yt.shape) == ()
    assert_same(y.data, yt)
    y.backward()
    yt.backward()
    assert_same(x.grad, xt.grad)


def _grad_mode_in_a_thread(is_enabled):
    seen = []
    thread = threading.Thread(target=lambda: seen.append(is_enabled()))
    thread.start()
    thread.join()
    return seen[0]


def test_no_grad_applies_to_the_calling_thread_only_like_torch():
    with torch.no_grad():
        expected = _grad_mode_in_a_thread(torch.is_grad_enabled)
    with mt.no_grad():
        assert not mt.is_grad_enabled()
        assert _grad_mode_in_a_thread(mt.is_grad_enabled) is expected is True
        recorded = []
        x = mt.Tensor([1.0], requires_grad=True)
        thread = threading.Thread(target=lambda: recorded.append((x * 2).requires_grad))
        thread.start()
        thread.join()
        assert recorded == [True] and not (x * 2).requires_grad
    assert mt.is_grad_enabled()


def test_no_grad_nests_and_is_restored_after_an_error_like_torch():
    x = mt.Tensor([1.0], requires_grad=True)
    seen, expected = [], []
    for no_grad, is_enabled, out in ((mt.no_grad, mt.is_grad_enabled, seen),
                                     (torch.no_grad, torch.is_grad_enabled, expected)):
        with pytest.raises(KeyError), no_grad():
            with no_grad():
                out.append(is_enabled())
            out.append(is_enabled())
            raise KeyError
        out.append(is_enabled())
    assert seen == expected == [False, False, True]
    assert (x * 2).requires_grad


# ---------------------------------------------------------------- == is identity
def test_equality_and_hash_are_identity():
    """Decided in docs/ARCHITECTURE.md: a node is a node (a topological sort uses in / sets)."""
    a, b = mt.Tensor([1.0, 2.0]), mt.Tensor([1.0, 2.0])
    assert (a == a) is True and (a == b) is False and (a != b) is True
    assert a in [a] and b not in [a] and len({a, b, a}) == 2
    assert {a: 1}[a] == 1 and hash(a) == hash(a)
    assert (a.data == b.data).all()  # values are compared through .data
