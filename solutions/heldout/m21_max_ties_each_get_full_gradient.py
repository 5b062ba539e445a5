"""Held-out learner mistake 21: max_ties_each_get_full_gradient (max, kink-convention).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.max'
OP = 'max'
KIND = 'kink-convention'
DESCRIPTION = (
    "max's backward sends the full upstream gradient to every element equal to the maximum, "
    'instead of splitting it evenly among tied maxima.'
)
APT = (
    'Should name max and ties: with several equal maxima the gradient must be shared '
    '(torch.amax divides by the number of ties); without ties it is right. Must not claim max '
    'is wrong on inputs with a unique maximum.'
)

SOURCE = '''
@shape_errors
def max(self, axis: Axis = None, keepdims: bool = False) -> Tensor:
    """max over ``axis``; the gradient is split evenly among tied maxima (torch.amax)."""
    ### BEGIN SOLUTION
    a, axes = self.data, _axes(axis, self.ndim)
    top = a.max(axis=axes, keepdims=True)
    out_data = top if keepdims else np.squeeze(top, axis=axes)
    out = Tensor._make(out_data, (self,), "max")

    def _backward(g):
        winners = a == top
        share = g.reshape(top.shape)
        return (winners * share,)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[1.0, 3.0, 3.0], [2.0, 0.5, -1.0]])
    compare(mt, lambda m, x: x.max(axis=1), lambda t, x: t.amax(x, dim=1), [a])
