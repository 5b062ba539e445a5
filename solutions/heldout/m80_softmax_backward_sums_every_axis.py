"""Held-out learner mistake 80: softmax_backward_sums_every_axis (softmax, wrong-axis).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.softmax'
OP = 'softmax'
KIND = 'wrong-axis'
DESCRIPTION = (
    "softmax's backward computes Σ g·s over EVERY axis ((g * s).sum() with no axis) instead of "
    'along the softmax axis: every row is corrected with the total of all rows. Right only for '
    'a 1-D input.'
)
APT = (
    'Should name softmax and say the sum in its backward must run along the softmax axis '
    '(axis=axis, keepdims=True), not over the whole tensor. The forward is right; a diagonal-'
    'Jacobian or hard-coded-last-axis claim is false.'
)

SOURCE = '''
@shape_errors
def softmax(self, axis: int = -1) -> Tensor:
    """e^a / Σ e^a along ``axis`` (the max is subtracted first). (...) -> (...)."""
    e = np.exp(self.data - self.data.max(axis=axis, keepdims=True, initial=-np.inf))
    s = e / e.sum(axis=axis, keepdims=True)

    def _backward(g):
        return (s * (g - (g * s).sum()),)

    return Tensor._make(s, (self,), "softmax", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[0.5, -1.0, 2.0, 0.1], [1.0, 0.0, -0.5, 0.3], [0.2, 0.4, -0.6, 1.2]])
    compare(mt, lambda m, x: x.softmax(axis=-1), lambda t, x: x.softmax(dim=-1), [a])
