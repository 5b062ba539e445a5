"""Held-out learner mistake 35: softmax_backward_ignores_axis (softmax, wrong-axis).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.softmax'
OP = 'softmax'
KIND = 'wrong-axis'
DESCRIPTION = (
    "softmax's backward sums g·s over the last axis (axis=-1 hard-coded) instead of the axis "
    'softmax was taken over.'
)
APT = (
    'Should name softmax with axis other than the last (e.g. axis=0): the Jacobian-vector '
    "product's sum must run over the softmax axis. With the default axis=-1 it is correct; the "
    'forward is correct.'
)

SOURCE = '''
@shape_errors
def softmax(self, axis: int = -1) -> Tensor:
    """e^a / Σ e^a along ``axis`` (the max is subtracted first). (...) -> (...)."""
    ### BEGIN SOLUTION
    e = np.exp(self.data - self.data.max(axis=axis, keepdims=True))
    s = e / e.sum(axis=axis, keepdims=True)
    out = Tensor._make(s, (self,), "softmax")

    def _backward(g):
        return (s * (g - (g * s).sum(axis=-1, keepdims=True)),)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]])
    compare(mt, lambda m, x: x.softmax(axis=0), lambda t, x: x.softmax(dim=0), [a])
