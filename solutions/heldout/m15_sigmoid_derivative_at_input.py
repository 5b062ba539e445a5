"""Held-out learner mistake 15: sigmoid_derivative_at_input (sigmoid, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.sigmoid'
OP = 'sigmoid'
KIND = 'wrong-formula'
DESCRIPTION = (
    "sigmoid's backward uses a(1-a) with the INPUT a instead of σ(a)(1-σ(a)) with the output."
)
APT = (
    "Should name sigmoid and say σ'(a) = σ(a)(1-σ(a)) is written in terms of the output, the "
    'learner plugged in the input. Must not call it a sign error or a scale factor.'
)

SOURCE = '''
def sigmoid(self) -> Tensor:
    """σ(a) = 1/(1+e^-a), elementwise; d/da = σ(a)(1-σ(a)). (...) -> (...)."""
    ### BEGIN SOLUTION
    a = self.data
    s = _sigmoid(a)
    out = Tensor._make(s, (self,), "sigmoid")

    def _backward(g):
        return (g * a * (1.0 - a),)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([-1.5, -0.2, 0.4, 2.0])
    compare(mt, lambda m, x: x.sigmoid(), lambda t, x: x.sigmoid(), [a])
