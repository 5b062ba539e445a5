"""Bad input gets an error that names the shapes or values, never a bare NumPy traceback."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def t(shape):
    return mt.Tensor(np.ones(shape), requires_grad=True)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow"])
def test_elementwise_shape_mismatch_prints_the_aligned_table(op):
    with pytest.raises(mt.ShapeError) as err:
        getattr(t((4, 3)), op)(t((2, 3)))
    message = str(err.value)
    assert f"{op}: shapes (4, 3) and (2, 3) cannot be broadcast" in message
    assert "axis -2: sizes 4 vs 2" in message
    assert "result" in message and "✗" in message


def test_grid_mismatch_names_the_axis():
    with pytest.raises(mt.ShapeError, match=r"axis -1: sizes 5 vs 4"):
        t((20, 3, 5)) + t((3, 4))


def test_matmul_inner_dimensions():
    with pytest.raises(mt.ShapeError, match=r"\(4, 3\) @ \(2, 5\).*3.*2"):
        t((4, 3)) @ t((2, 5))


def test_matmul_batch_dimensions():
    with pytest.raises(mt.ShapeError, match=r"batch dimensions \(2,\) and \(3,\)"):
        t((2, 3, 4)) @ t((3, 4, 5))


def test_matmul_of_a_scalar():
    with pytest.raises(mt.ShapeError, match="at least 1 dimension"):
        t(()) @ t((3,))


def test_reshape_to_a_wrong_size():
    with pytest.raises(mt.ShapeError, match=r"reshape.*size 15.*\(4,4\).*\(3, 5\)"):
        t((3, 5)).reshape(4, 4)


def test_reduction_axis_out_of_range():
    with pytest.raises(mt.ShapeError, match="axis 3 is out of range.*3 dimensions"):
        t((2, 3, 4)).sum(axis=3)


def test_getitem_out_of_range():
    with pytest.raises(IndexError, match=r"getitem.*shape \(3, 5\)"):
        t((3, 5))[7]


@pytest.mark.parametrize("targets", [[0, 5], [-1, 0]])
def test_cross_entropy_out_of_range_targets(targets):
    with pytest.raises(ValueError, match=r"\[0, 5\) for 5 classes"):
        mt.cross_entropy(t((2, 5)), np.array(targets))


def test_cross_entropy_non_integer_targets():
    with pytest.raises(TypeError, match="integer class indices.*0.5"):
        mt.cross_entropy(t((2, 5)), np.array([0.5, 1.0]))


def test_cross_entropy_targets_of_the_wrong_shape():
    with pytest.raises(mt.ShapeError, match=r"targets must have shape \(2,\)"):
        mt.cross_entropy(t((2, 5)), np.array([0, 1, 2]))


def test_cross_entropy_logits_must_be_2d():
    with pytest.raises(mt.ShapeError, match=r"\(N, C\), got \(5,\)"):
        mt.cross_entropy(t((5,)), np.array([1]))


@pytest.mark.parametrize("bad", ["abc", ["a", "b"], None, {"x": 1}, [[1, 2], [3]]])
def test_non_numeric_data(bad):
    with pytest.raises(TypeError, match="Tensor data must be"):
        mt.Tensor(bad)


def test_backward_grad_shape():
    with pytest.raises(mt.ShapeError, match=r"grad has shape \(3,\) but the tensor has shape"):
        (t((2,)) * 2).backward(np.ones(3))


def test_gelu_approximate_value():
    with pytest.raises(ValueError, match="'none' or 'tanh'"):
        t((2,)).gelu(approximate="fast")


def test_cat_and_stack_mismatch_name_the_shapes():
    with pytest.raises(mt.ShapeError, match=r"cat: .*\(input shapes: \(2, 3\), \(2, 4\)\)"):
        mt.cat([t((2, 3)), t((2, 4))], axis=0)
    with pytest.raises(mt.ShapeError, match=r"stack: .*\(input shapes: \(3,\), \(4,\)\)"):
        mt.stack([t((3,)), t((4,))])


def test_broadcast_to_an_incompatible_shape():
    with pytest.raises(mt.ShapeError, match=r"cannot broadcast \(3,\) to \(4,\)"):
        t((3,)).broadcast_to((4,))


def test_an_axis_error_names_the_op():
    with pytest.raises(mt.ShapeError, match=r"^max: axis 2 is out of range"):
        t((2, 3)).max(axis=2)


def test_cross_entropy_of_an_empty_batch():
    with pytest.raises(mt.ShapeError, match="empty batch"):
        mt.cross_entropy(t((0, 3)), np.array([], dtype=int))


def test_a_numpy_error_names_the_calls_other_arguments():
    """A learner's transpose that hands NumPy the raw axes: the message names the shapes and
    what the call was given, not NumPy's bare "axes don't match array" (issue 28)."""
    from minitorch.errors import shape_errors

    class Planted:
        def __init__(self, data):
            self.data, self._prev, self.shape = data, (), data.shape

        @shape_errors
        def transpose(self, *axes):
            return self.data.transpose(axes)

        @shape_errors
        def reshape(self, *shape):
            return self.data.reshape(shape)

    x = Planted(np.zeros((3, 5)))
    with pytest.raises(mt.ShapeError, match=r"transpose: .*\(input shapes: \(3, 5\)\), called "
                                            r"with no axes: transpose\(\) reverses every axis"):
        x.transpose()
    with pytest.raises(mt.ShapeError, match=r"transpose: .*\(3, 5\)\), called with 0, 1, 2"):
        x.transpose(0, 1, 2)
    with pytest.raises(mt.ShapeError, match=r"reshape: .*\(3, 5\)\), called with 4, 4"):
        x.reshape(4, 4)


def test_transpose_without_axes_gives_the_full_reversal():
    """The provided line of transpose: every axis, positive; none given -> reversed (so a
    backward's argsort never meets an empty permutation)."""
    from minitorch.support import permutation

    assert permutation((), 3) == (2, 1, 0)
    assert permutation((-1, 0), 2) == (1, 0)
    assert permutation((), 0) == ()
