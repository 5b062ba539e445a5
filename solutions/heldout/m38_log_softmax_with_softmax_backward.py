"""Held-out learner mistake 38: log_softmax_with_softmax_backward (log_softmax, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.log_softmax'
OP = 'log_softmax'
KIND = 'wrong-formula'
DESCRIPTION = (
    "log_softmax's backward reuses softmax's formula p·(g - Σ g·p) with p = exp(output), "
    'instead of g - p·Σg.'
)
APT = (
    'Should name log_softmax and say its backward is g - softmax·Σg (the derivative of log is '
    'already folded in); the softmax Jacobian formula belongs to softmax. Forward is right.'
)

SOURCE = '''
@shape_errors
def log_softmax(self, axis: int = -1) -> Tensor:
    """a - log Σ e^a along ``axis``, through log-sum-exp. (...) -> (...)."""
    ### BEGIN SOLUTION
    z = self.data - self.data.max(axis=axis, keepdims=True)
    out_data = z - np.log(np.exp(z).sum(axis=axis, keepdims=True))
    out = Tensor._make(out_data, (self,), "log_softmax")

    def _backward(g):
        p = np.exp(out_data)
        return (p * (g - (g * p).sum(axis=axis, keepdims=True)),)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]])
    compare(mt, lambda m, x: x.log_softmax(), lambda t, x: x.log_softmax(dim=-1), [a])
