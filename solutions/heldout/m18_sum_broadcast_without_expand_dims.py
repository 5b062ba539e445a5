"""Held-out learner mistake 18: sum_broadcast_without_expand_dims (sum, wrong-axis).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.sum'
OP = 'sum'
KIND = 'wrong-axis'
DESCRIPTION = (
    "sum's backward broadcasts g straight to the input shape without re-inserting the reduced "
    "axes, relying on NumPy's right-aligned broadcasting."
)
APT = (
    'Should name sum when reducing a non-leading axis (e.g. axis=1 or -1) without keepdims. '
    'NumPy aligns g to the right, so the gradient is expanded along the wrong axis: silently '
    'transposed on square inputs, a shape error otherwise. axis=0, axis=None and keepdims=True '
    'are correct. Must not call it a scale problem.'
)

SOURCE = '''
@shape_errors
def sum(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """Σ over ``axis`` (int, tuple or None = all). (...) -> reduced shape."""
    ### BEGIN SOLUTION
    shape, axes = self.shape, _axes(axis, self.ndim)
    out = Tensor._make(self.data.sum(axis=axes, keepdims=keepdims), (self,), "sum")

    def _backward(g):
        return (np.broadcast_to(g, shape),)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.arange(16.0).reshape(4, 4) / 5
    compare(mt, lambda m, x: x.sum(axis=1), lambda t, x: x.sum(dim=1), [a])
