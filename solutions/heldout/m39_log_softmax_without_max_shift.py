"""Held-out learner mistake 39: log_softmax_without_max_shift (log_softmax, numerical-stability).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.log_softmax'
OP = 'log_softmax'
KIND = 'numerical-stability'
DESCRIPTION = (
    'log_softmax computes a - log Σ e^a without subtracting the max, so large logits overflow '
    '(inf, then -inf/nan outputs and gradients).'
)
APT = (
    'Should name log_softmax and numerical stability (log-sum-exp needs the max subtracted); '
    'moderate inputs are exact. Must not call the backward formula wrong.'
)

SOURCE = '''
@shape_errors
def log_softmax(self, axis: int = -1) -> Tensor:
    """a - log Σ e^a along ``axis``, through log-sum-exp. (...) -> (...)."""
    ### BEGIN SOLUTION
    z = self.data
    out_data = z - np.log(np.exp(z).sum(axis=axis, keepdims=True))
    out = Tensor._make(out_data, (self,), "log_softmax")

    def _backward(g):
        return (g - np.exp(out_data) * g.sum(axis=axis, keepdims=True),)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[800.0, 0.0, -5.0], [1.0, 2.0, 3.0]])
    compare(mt, lambda m, x: x.log_softmax(), lambda t, x: x.log_softmax(dim=-1), [a])
