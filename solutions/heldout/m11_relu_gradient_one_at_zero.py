"""Held-out learner mistake 11: relu_gradient_one_at_zero (relu, kink-convention).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.relu'
OP = 'relu'
KIND = 'kink-convention'
DESCRIPTION = (
    "relu's backward uses a >= 0, so an input exactly 0 gets gradient 1 instead of torch's 0."
)
APT = (
    "Should point to relu's convention at the kink a == 0 (torch uses 0); everywhere else the "
    'gradient is right, so it only shows on inputs containing exact zeros. Must not call the '
    'relu derivative wrong in general.'
)

SOURCE = '''
def relu(self) -> Tensor:
    """max(a, 0), elementwise; d/da = 1 if a > 0 else 0 (0 at the kink, as torch)."""
    ### BEGIN SOLUTION
    a = self.data
    out = Tensor._make(np.maximum(a, 0.0), (self,), "relu")

    def _backward(g):
        return (g * (a >= 0),)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[-1.0, 0.0, 2.0], [0.0, 3.0, -0.5]])
    compare(mt, lambda m, x: x.relu(), lambda t, x: x.relu(), [a])
