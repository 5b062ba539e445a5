"""Held-out learner mistake 04: div_denominator_forgets_numerator (div, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.div'
OP = 'div'
KIND = 'wrong-formula'
DESCRIPTION = (
    'For the denominator of a/b the learner writes -g / b**2, dropping the numerator a (the '
    'derivative of 1/b, not of a/b).'
)
APT = (
    "Should point at div's gradient with respect to the divisor (second operand): it must be "
    '-g*a/b². Correct when a == 1 (e.g. 1/x), so the mistake shows only with a non-unit '
    'numerator. The gradient for the numerator is right; must not blame the first operand or '
    'call it a sign error.'
)

SOURCE = '''
@shape_errors
def div(self, other: Any) -> Tensor:
    """a / b, elementwise with broadcasting; d/da = 1/b, d/db = -a/b². -> broadcast shape."""
    other = _as_tensor(other)
    ### BEGIN SOLUTION
    a, b = self.data, other.data
    out = Tensor._make(a / b, (self, other), "div")

    def _backward(g):
        return g / b, -g / (b * b)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[2.0, -3.0], [0.5, 4.0]])
    b = np.array([[1.5, 2.0], [-0.5, 3.0]])
    compare(mt, lambda m, x, y: x / y, lambda t, x, y: x / y, [a, b])
