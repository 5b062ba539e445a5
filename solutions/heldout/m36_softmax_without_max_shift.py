"""Held-out learner mistake 36: softmax_without_max_shift (softmax, numerical-stability).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.softmax'
OP = 'softmax'
KIND = 'numerical-stability'
DESCRIPTION = (
    'softmax computes e^a / Σe^a directly, without subtracting the max first, so large logits '
    'overflow to inf and the result is nan.'
)
APT = (
    'Should name softmax and numerical stability: subtract the max along the axis before exp. '
    'Correct for moderate inputs; only large logits (hundreds) fail. Must not call the backward '
    'formula wrong.'
)

SOURCE = '''
@shape_errors
def softmax(self, axis: int = -1) -> Tensor:
    """e^a / Σ e^a along ``axis`` (the max is subtracted first). (...) -> (...)."""
    ### BEGIN SOLUTION
    e = np.exp(self.data)
    s = e / e.sum(axis=axis, keepdims=True)
    out = Tensor._make(s, (self,), "softmax")

    def _backward(g):
        return (s * (g - (g * s).sum(axis=axis, keepdims=True)),)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[1000.0, 999.0, 0.0], [1.0, 2.0, 3.0]])
    compare(mt, lambda m, x: x.softmax(), lambda t, x: x.softmax(dim=-1), [a])
