"""Held-out learner mistake 90: relu_half_gradient_at_zero (relu, kink-convention).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.relu'
OP = 'relu'
KIND = 'kink-convention'
DESCRIPTION = (
    "relu's backward uses np.heaviside(a, 0.5): an input exactly 0 gets gradient ½·g (a "
    "subgradient midpoint) instead of torch's 0."
)
APT = (
    "Should name relu and say the gradient at exactly 0 must be 0 (torch's convention), not ½. "
    'Every nonzero input is right; not a constant factor.'
)

SOURCE = '''
def relu(self) -> Tensor:
    """max(a, 0), elementwise; d/da = 1 if a > 0 else 0 (0 at the kink, as torch)."""
    a = self.data

    def _backward(g):
        return (g * np.heaviside(a, 0.5),)

    return Tensor._make(np.maximum(a, 0.0), (self,), "relu", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([-1.0, 0.0, 0.5, 0.0, 2.0])
    compare(mt, lambda m, x: x.relu(), lambda t, x: x.relu(), [a])
