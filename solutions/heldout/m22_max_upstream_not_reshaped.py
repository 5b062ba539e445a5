"""Held-out learner mistake 22: max_upstream_not_reshaped (max, keepdims).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.max'
OP = 'max'
KIND = 'keepdims'
DESCRIPTION = (
    "max's backward uses g as it comes (reduced axes dropped) instead of reshaping it to the "
    'keepdims shape, so g broadcasts along the wrong axis against the winners mask.'
)
APT = (
    'Should name max over a non-leading axis without keepdims: the upstream gradient needs the '
    'reduced axis re-inserted (reshape to the keepdims shape). On square inputs it is silently '
    "wrong (rows get other rows' gradients); axis=0, axis=None and keepdims=True work."
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
        share = g / winners.sum(axis=axes, keepdims=True)
        return (winners * share,)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[1.0, 4.0, 2.0], [5.0, 0.0, 1.0], [0.5, 1.5, 3.0]])
    compare(mt, lambda m, x: x.max(axis=1), lambda t, x: t.amax(x, dim=1), [a])
