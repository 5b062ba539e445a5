"""Held-out learner mistake 20: mean_divides_by_total_size (mean, wrong-scale).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.mean'
OP = 'mean'
KIND = 'wrong-scale'
DESCRIPTION = (
    "mean's own backward divides g by the total number of elements of the input instead of the "
    'number of elements reduced over the given axis.'
)
APT = (
    'Should name mean with an explicit axis: the divisor must be the product of the reduced '
    "axes' sizes, not input.size. With axis=None (all axes) it is correct, so a full-mean test "
    'passes. Must not blame the forward.'
)

SOURCE = '''
def mean(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """Σ over ``axis`` / number of elements summed. (...) -> reduced shape."""
    ### BEGIN SOLUTION
    shape, axes, size = self.shape, _axes(axis, self.ndim), self.size
    out = Tensor._make(self.data.mean(axis=axes, keepdims=keepdims), (self,), "mean")

    def _backward(g):
        if not keepdims:
            g = np.expand_dims(g, axes)
        return (np.broadcast_to(g / size, shape),)

    out._backward = _backward
    return out
    ### END SOLUTION
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.arange(12.0).reshape(3, 4) / 3
    compare(mt, lambda m, x: x.mean(axis=1), lambda t, x: x.mean(dim=1), [a])
