"""Held-out learner mistake 99: mean_count_of_empty_axis_tuple (mean, wrong-scale).

Written after issue 25's diagnosis changes, by the engineer who made them, to test them on a
mistake they were not written for (see SCORES-2.md, "after"). Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.mean'
OP = 'mean'
KIND = 'wrong-scale'
DESCRIPTION = (
    "mean counts the averaged elements itself: the whole size for axis=None, shape[axis] for "
    "an int, the product over a tuple. axis=() reduces EVERY axis (like torch's dim=() and the "
    "chapter's sum), but the product over an empty tuple is 1: the mean over () is the sum."
)
APT = (
    "Should name mean and the divisor for axis=(): every axis is reduced, so the count is the "
    "whole size (the empty product 1 is wrong). A claim about keepdims, the backward's "
    "broadcasting or a batch size is false."
)

SOURCE = '''
def mean(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """sum over axis / number of elements summed."""
    if axis is None:
        count = self.size
    elif isinstance(axis, tuple):
        count = math.prod(self.shape[a] for a in axis)
    else:
        count = self.shape[axis]
    return self.sum(axis=axis, keepdims=keepdims) * (1.0 / count if count else math.nan)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    x = np.array([[1.0, -2.0, 0.5], [0.3, 1.5, -1.0]])
    compare(mt, lambda m, a: a.mean(axis=()), lambda t, a: a.mean(dim=()), [x])
