"""Held-out learner mistake 75: tanh_backward_at_input (tanh, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.tanh'
OP = 'tanh'
KIND = 'wrong-formula'
DESCRIPTION = (
    "tanh's backward uses 1 - a² with the INPUT a instead of 1 - tanh²(a) with the output."
)
APT = (
    'Should name tanh and say the derivative 1 - tanh² must use the output tanh(a), not the '
    'input. Not a constant factor, sign or missing upstream.'
)

SOURCE = '''
def tanh(self) -> Tensor:
    """tanh a, elementwise; d/da = 1 - tanh²a. (...) -> (...)."""
    a = self.data
    t = np.tanh(a)

    def _backward(g):
        return (g * (1.0 - a * a),)

    return Tensor._make(t, (self,), "tanh", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([-1.5, -0.3, 0.0, 0.8, 2.0])
    compare(mt, lambda m, x: x.tanh(), lambda t, x: x.tanh(), [a])
