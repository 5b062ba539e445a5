"""Held-out learner mistake 83: log_softmax_backward_diagonal_only (log_softmax, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.log_softmax'
OP = 'log_softmax'
KIND = 'wrong-formula'
DESCRIPTION = (
    "log_softmax's backward is g·(1 - softmax): only the diagonal of the Jacobian, each output "
    'treated as depending on its own input only; the cross terms -softmax_j·g_i are dropped (no'
    ' sum along the axis).'
)
APT = (
    'Should name log_softmax and say its backward is g - softmax·Σg (a sum along the axis), not'
    ' g·(1 - softmax) (diagonal only). Forward right.'
)

SOURCE = '''
@shape_errors
def log_softmax(self, axis: int = -1) -> Tensor:
    """a - log Σ e^a along ``axis``, through log-sum-exp. (...) -> (...)."""
    z = self.data - self.data.max(axis=axis, keepdims=True, initial=-np.inf)
    out_data = z - np.log(np.exp(z).sum(axis=axis, keepdims=True))

    def _backward(g):
        return (g * (1.0 - np.exp(out_data)),)

    return Tensor._make(out_data, (self,), "log_softmax", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])
    compare(mt, lambda m, x: x.log_softmax(axis=-1), lambda t, x: x.log_softmax(dim=-1), [a])
