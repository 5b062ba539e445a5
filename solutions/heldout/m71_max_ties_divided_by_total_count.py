"""Held-out learner mistake 71: max_ties_divided_by_total_count (max, wrong-scale).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.max'
OP = 'max'
KIND = 'wrong-scale'
DESCRIPTION = (
    "max's backward splits the gradient by winners.sum() over the WHOLE array (the total number"
    ' of maxima) instead of per reduced slice (axis=axes, keepdims): with axis=1 on N rows each'
    ' gradient is divided by about N. Correct for axis=None.'
)
APT = (
    'Should name max and say the tied-maxima count must be taken per slice along the reduced '
    'axes, not over the whole tensor. A factor 1/N is not a lost accumulation or an engine '
    'fault; saying ties get the full gradient is false.'
)

SOURCE = '''
@shape_errors
def max(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """max over ``axis``; the gradient is split evenly among tied maxima (torch.amax)."""
    a, axes = self.data, _axes(axis, self.ndim)
    top = a.max(axis=axes, keepdims=True)
    out_data = top if keepdims else np.squeeze(top, axis=axes)

    def _backward(g):
        winners = a == top
        share = g.reshape(top.shape) / winners.sum()
        return (winners * share,)

    return Tensor._make(out_data, (self,), "max", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[2.0, 2.0, -1.0, 0.5], [0.3, 1.7, -2.0, 1.0], [-0.5, -0.1, -3.0, -0.2]])
    compare(mt, lambda m, x: x.max(axis=1), lambda t, x: x.amax(dim=1), [a])
