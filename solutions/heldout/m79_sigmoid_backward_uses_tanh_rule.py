"""Held-out learner mistake 79: sigmoid_backward_uses_tanh_rule (sigmoid, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.sigmoid'
OP = 'sigmoid'
KIND = 'wrong-formula'
DESCRIPTION = (
    "sigmoid's backward is written 1 - σ², by analogy with tanh's 1 - tanh², instead of σ(1 - "
    'σ).'
)
APT = (
    "Should name sigmoid and say its derivative is σ(a)(1 - σ(a)), not 1 - σ(a)² (tanh's rule)."
    ' Not a constant factor.'
)

SOURCE = '''
def sigmoid(self) -> Tensor:
    """σ(a) = 1/(1+e^-a), elementwise; d/da = σ(a)(1-σ(a)). (...) -> (...)."""
    s = _sigmoid(self.data)

    def _backward(g):
        return (g * (1.0 - s * s),)

    return Tensor._make(s, (self,), "sigmoid", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([-2.0, -0.5, 0.0, 1.0, 3.0])
    compare(mt, lambda m, x: x.sigmoid(), lambda t, x: x.sigmoid(), [a])
