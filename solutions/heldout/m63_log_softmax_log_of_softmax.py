"""Held-out learner mistake 63: log_softmax_log_of_softmax (log_softmax, numerical-stability).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.log_softmax'
OP = 'log_softmax'
KIND = 'numerical-stability'
DESCRIPTION = (
    "log_softmax is written as np.log of a (max-shifted) softmax: an entry 800 below its row's "
    'max has a probability that underflows to 0, so its log-probability is -inf instead of '
    'about -800.'
)
APT = (
    'Should name log_softmax and say the forward underflows for entries far below the max: '
    'compute z - log Σ e^z (log-sum-exp), not log(softmax). The backward is right; a wrong-'
    "formula claim about it, or 'no max subtraction', is false."
)

SOURCE = '''
@shape_errors
def log_softmax(self, axis: int = -1) -> Tensor:
    """a - log Σ e^a along ``axis``, through log-sum-exp. (...) -> (...)."""
    z = self.data - self.data.max(axis=axis, keepdims=True, initial=-np.inf)
    e = np.exp(z)
    out_data = np.log(e / e.sum(axis=axis, keepdims=True))

    def _backward(g):
        return (g - np.exp(out_data) * g.sum(axis=axis, keepdims=True),)

    return Tensor._make(out_data, (self,), "log_softmax", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[0.0, -800.0, 2.0], [1.0, 2.0, 3.0]])
    compare(mt, lambda m, x: x.log_softmax(axis=-1), lambda t, x: x.log_softmax(dim=-1), [a])
