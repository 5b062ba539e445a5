"""Held-out learner mistake 81: softmax_backward_sums_g_not_g_times_s (softmax, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.softmax'
OP = 'softmax'
KIND = 'wrong-formula'
DESCRIPTION = (
    "softmax's backward is s·(g - Σ g) instead of s·(g - Σ g·s): the sum of the vector-Jacobian"
    ' product lost its factor s.'
)
APT = (
    'Should name softmax and say the sum in its backward is Σ g·s (weighted by the output), not'
    ' Σ g. Axis and forward right; not a constant factor.'
)

SOURCE = '''
@shape_errors
def softmax(self, axis: int = -1) -> Tensor:
    """e^a / Σ e^a along ``axis`` (the max is subtracted first). (...) -> (...)."""
    e = np.exp(self.data - self.data.max(axis=axis, keepdims=True, initial=-np.inf))
    s = e / e.sum(axis=axis, keepdims=True)

    def _backward(g):
        return (s * (g - g.sum(axis=axis, keepdims=True)),)

    return Tensor._make(s, (self,), "softmax", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])
    compare(mt, lambda m, x: x.softmax(axis=-1), lambda t, x: x.softmax(dim=-1), [a])
