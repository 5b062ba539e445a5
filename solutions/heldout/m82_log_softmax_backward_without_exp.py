"""Held-out learner mistake 82: log_softmax_backward_without_exp (log_softmax, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.log_softmax'
OP = 'log_softmax'
KIND = 'wrong-formula'
DESCRIPTION = (
    "log_softmax's backward is g - out·Σg: it multiplies by the log-probabilities themselves "
    'instead of the probabilities exp(out).'
)
APT = (
    'Should name log_softmax and say its backward needs the softmax, exp(output), in g - '
    'softmax·Σg (the exp is missing). Forward right; not a constant factor or an axis slip.'
)

SOURCE = '''
@shape_errors
def log_softmax(self, axis: int = -1) -> Tensor:
    """a - log Σ e^a along ``axis``, through log-sum-exp. (...) -> (...)."""
    z = self.data - self.data.max(axis=axis, keepdims=True, initial=-np.inf)
    out_data = z - np.log(np.exp(z).sum(axis=axis, keepdims=True))

    def _backward(g):
        return (g - out_data * g.sum(axis=axis, keepdims=True),)

    return Tensor._make(out_data, (self,), "log_softmax", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])
    compare(mt, lambda m, x: x.log_softmax(axis=-1), lambda t, x: x.log_softmax(dim=-1), [a])
