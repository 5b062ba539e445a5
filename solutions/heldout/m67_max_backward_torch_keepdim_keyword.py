"""Held-out learner mistake 67: max_backward_torch_keepdim_keyword (max, api-misuse).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.max'
OP = 'max'
KIND = 'api-misuse'
DESCRIPTION = (
    "max's backward counts the tied winners with winners.sum(axis=axes, keepdim=True), torch's "
    "spelling: NumPy raises TypeError (unexpected keyword 'keepdim') on every backward, "
    'whatever the axis.'
)
APT = (
    'Should name max and say its backward crashes on every case with a TypeError about the '
    'keyword keepdim (keepdims in NumPy). False: the empty-tensor / initial=-np.inf '
    'explanation, ties or a wrong-axis claim; the forward is right.'
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
        share = g.reshape(top.shape) / winners.sum(axis=axes, keepdim=True)
        return (winners * share,)

    return Tensor._make(out_data, (self,), "max", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[0.5, -1.0, 2.0], [1.0, 3.0, -0.5]])
    compare(mt, lambda m, x: x.max(axis=1), lambda t, x: x.amax(dim=1), [a])
