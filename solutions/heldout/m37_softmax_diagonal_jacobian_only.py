"""Held-out learner mistake 37: softmax_diagonal_jacobian_only (softmax, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.softmax'
OP = 'softmax'
KIND = 'wrong-formula'
DESCRIPTION = (
    "softmax's backward is g·s·(1-s), treating each output as a sigmoid of its own input and "
    'ignoring the off-diagonal terms -s_i·s_j of the Jacobian.'
)
APT = (
    'Should name softmax and the missing coupling between entries: the backward is s·(g - Σ '
    'g·s) (full Jacobian, not just its diagonal). Must not be called a sign or axis problem; '
    'the forward is right.'
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
        return (g * s * (1.0 - s),)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]])
    compare(mt, lambda m, x: x.softmax(), lambda t, x: x.softmax(dim=-1), [a])
