"""Held-out learner mistake 10: sqrt_forgets_reciprocal (sqrt, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.sqrt'
OP = 'sqrt'
KIND = 'wrong-formula'
DESCRIPTION = (
    "sqrt's backward multiplies by 0.5*sqrt(a) instead of dividing: d√a/da written as √a/2."
)
APT = (
    'Should name sqrt and say the derivative is 1/(2√a) (a reciprocal), not √a/2. Correct only '
    'at a = 1; must not call it a constant factor.'
)

SOURCE = '''
def sqrt(self) -> Tensor:
    """√a, elementwise (a > 0); d/da = 1/(2√a). (...) -> (...)."""
    ### BEGIN SOLUTION
    out_data = np.sqrt(self.data)
    out = Tensor._make(out_data, (self,), "sqrt")

    def _backward(g):
        return (g * 0.5 * out_data,)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([0.25, 2.0, 4.0, 9.0])
    compare(mt, lambda m, x: x.sqrt(), lambda t, x: x.sqrt(), [a])
