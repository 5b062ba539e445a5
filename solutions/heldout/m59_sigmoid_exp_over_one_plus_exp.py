"""Held-out learner mistake 59: sigmoid_exp_over_one_plus_exp (sigmoid, numerical-stability).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.sigmoid'
OP = 'sigmoid'
KIND = 'numerical-stability'
DESCRIPTION = (
    "sigmoid's forward is written e^a / (1 + e^a) instead of using the provided stable sigmoid:"
    ' for a above about 710 it is inf/inf = nan instead of 1.'
)
APT = (
    'Should name sigmoid and say the forward overflows for large positive a (nan): use the '
    'provided _sigmoid or 1/(1+e^-a) for a ≥ 0. The derivative formula is right; a wrong-'
    'derivative claim is false.'
)

SOURCE = '''
def sigmoid(self) -> Tensor:
    """σ(a) = 1/(1+e^-a), elementwise; d/da = σ(a)(1-σ(a)). (...) -> (...)."""
    e = np.exp(self.data)
    s = e / (1.0 + e)

    def _backward(g):
        return (g * s * (1.0 - s),)

    return Tensor._make(s, (self,), "sigmoid", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([-800.0, -5.0, 0.0, 2.0, 40.0, 750.0])
    compare(mt, lambda m, x: x.sigmoid(), lambda t, x: x.sigmoid(), [a])
