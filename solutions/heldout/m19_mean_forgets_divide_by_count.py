"""Held-out learner mistake 19: mean_forgets_divide_by_count (mean, wrong-scale).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.mean'
OP = 'mean'
KIND = 'wrong-scale'
DESCRIPTION = (
    "mean is written with its own backward that expands g back like sum's, but never divides by "
    'the number of averaged elements.'
)
APT = (
    'Should name mean and a missing 1/count factor in its backward (the forward is right): the '
    'gradient is count times too large, count = number of elements averaged over the given '
    'axes.'
)

SOURCE = '''
def mean(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """Σ over ``axis`` / number of elements summed. (...) -> reduced shape."""
    ### BEGIN SOLUTION
    shape, axes = self.shape, _axes(axis, self.ndim)
    out = Tensor._make(self.data.mean(axis=axes, keepdims=keepdims), (self,), "mean")

    def _backward(g):
        if not keepdims:
            g = np.expand_dims(g, axes)
        return (np.broadcast_to(g, shape),)

    out._backward = _backward
    return out
    ### END SOLUTION
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.arange(12.0).reshape(3, 4) / 3
    compare(mt, lambda m, x: x.mean(axis=0), lambda t, x: x.mean(dim=0), [a])
