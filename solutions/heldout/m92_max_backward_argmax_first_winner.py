"""Held-out learner mistake 92: max_backward_argmax_first_winner (max, kink-convention).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.max'
OP = 'max'
KIND = 'kink-convention'
DESCRIPTION = (
    "max's backward sends the whole gradient to the FIRST maximum of each slice (found with "
    'argmax, as torch.max(dim) returns its index) instead of splitting it evenly among tied '
    'maxima as torch.amax does. Right whenever there are no ties.'
)
APT = (
    'Should name max and say tied maxima must share the gradient evenly (g / number of ties), '
    'not give it all to the first. Without ties it is right; a factor or axis claim is false.'
)

SOURCE = '''
@shape_errors
def max(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """max over ``axis``; the gradient goes to the maximum (the first one, as argmax)."""
    a, axes = self.data, _axes(axis, self.ndim)
    top = a.max(axis=axes, keepdims=True)
    out_data = top if keepdims else np.squeeze(top, axis=axes)
    last = tuple(range(a.ndim - len(axes), a.ndim))

    def _backward(g):
        moved = np.moveaxis(a, axes, last)  # the reduced axes at the end
        flat = moved.reshape(moved.shape[: a.ndim - len(axes)] + (-1,))
        mask = np.zeros_like(flat)
        np.put_along_axis(mask, flat.argmax(axis=-1)[..., None], 1.0, axis=-1)
        mask = np.moveaxis(mask.reshape(moved.shape), last, axes)
        return (mask * g.reshape(top.shape),)

    return Tensor._make(out_data, (self,), "max", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[2.0, -1.0, 2.0, 0.5], [0.3, 1.7, -2.0, 1.0], [4.0, 4.0, 4.0, -3.0]])
    compare(mt, lambda m, x: x.max(axis=1), lambda t, x: x.amax(dim=1), [a])
