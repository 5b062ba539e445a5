"""Held-out learner mistake 03: mul_swapped_operands (mul, swapped-inputs).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.mul'
OP = 'mul'
KIND = 'swapped-inputs'
DESCRIPTION = (
    "mul's backward returns g*a for a and g*b for b: each operand gets multiplied by itself "
    'instead of by the other operand.'
)
APT = (
    'Should name mul and say the two gradients are swapped (d(ab)/da = b, d(ab)/db = a). It is '
    'invisible when a == b (x*x); must not call it a sign error or a constant factor.'
)

SOURCE = '''
@shape_errors
def mul(self, other: Any) -> Tensor:
    """a * b, elementwise with broadcasting. (...), (...) -> broadcast shape."""
    other = _as_tensor(other)
    ### BEGIN SOLUTION
    a, b = self.data, other.data
    out = Tensor._make(a * b, (self, other), "mul")

    def _backward(g):
        return g * a, g * b

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[1.0, 2.0, -3.0], [0.5, 4.0, 1.5]])
    b = np.array([[2.0, -1.0, 0.25], [3.0, 1.0, -2.0]])
    compare(mt, lambda m, x, y: x * y, lambda t, x, y: x * y, [a, b])
