"""Held-out learner mistake 17: sum_expand_dims_even_with_keepdims (sum, keepdims).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.sum'
OP = 'sum'
KIND = 'keepdims'
DESCRIPTION = (
    "sum's backward always re-inserts the reduced axes with expand_dims, even when "
    'keepdims=True already kept them, so the gradient gets extra axes.'
)
APT = (
    'Should name sum and keepdims=True: the reduced axes are already size 1 there; only '
    'keepdims=False needs expand_dims. Without keepdims it is correct. Must not blame '
    'broadcasting of the inputs or the forward.'
)

SOURCE = '''
@shape_errors
def sum(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """Σ over ``axis`` (int, tuple or None = all). (...) -> reduced shape."""
    ### BEGIN SOLUTION
    shape, axes = self.shape, _axes(axis, self.ndim)
    out = Tensor._make(self.data.sum(axis=axes, keepdims=keepdims), (self,), "sum")

    def _backward(g):
        g = np.expand_dims(g, axes)  # put the reduced axes back as 1s, then broadcast
        return (np.broadcast_to(g, shape),)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.arange(12.0).reshape(3, 4) / 7
    compare(mt, lambda m, x: x.sum(axis=1, keepdims=True),
            lambda t, x: x.sum(dim=1, keepdim=True), [a])
