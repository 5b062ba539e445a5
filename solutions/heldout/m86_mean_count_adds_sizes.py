"""Held-out learner mistake 86: mean_count_adds_sizes (mean, wrong-scale).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.mean'
OP = 'mean'
KIND = 'wrong-scale'
DESCRIPTION = (
    'mean counts the averaged elements with self.shape[axis] for one axis, self.size for None, '
    'and sum(self.shape[a] for a in axis) for a tuple of axes: the sizes are ADDED instead of '
    'multiplied, so a mean over two or more axes divides by the wrong number (forward and '
    'backward).'
)
APT = (
    'Should name mean and say that over several axes the count is the PRODUCT of their sizes. '
    'Single-axis and full means are right; a keepdims or engine claim is false.'
)

SOURCE = '''
def mean(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """Σ over ``axis`` / number of elements summed. (...) -> reduced shape."""
    if axis is None:
        count = self.size
    elif isinstance(axis, int):
        count = self.shape[axis]
    else:  # several axes
        count = sum(self.shape[a] for a in axis)
    return self.sum(axis=axis, keepdims=keepdims) * (1.0 / count if count else math.nan)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.arange(24.0).reshape(2, 3, 4) / 3.0 - 4.0
    compare(mt, lambda m, x: x.mean(axis=(0, 2), keepdims=True),
            lambda t, x: x.mean(dim=(0, 2), keepdim=True), [a])
