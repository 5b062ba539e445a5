"""Held-out learner mistake 06: pow_base_forgets_minus_one (pow, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.pow'
OP = 'pow'
KIND = 'wrong-formula'
DESCRIPTION = (
    'The gradient of a**b with respect to the base is written b*a**b instead of b*a**(b-1).'
)
APT = (
    "Should point at pow's gradient with respect to the base (first operand): the exponent must "
    'be b-1. The error factor is a (varies per element), so must not call it a constant factor; '
    "the exponent's gradient is right."
)

SOURCE = '''
@shape_errors
def pow(self, other: Any) -> Tensor:
    """a ** b with broadcasting; d/da = b·a^(b-1), d/db = a^b·ln a (needs a > 0)."""
    other = _as_tensor(other)
    ### BEGIN SOLUTION
    a, b = self.data, other.data
    out_data = a**b
    out = Tensor._make(out_data, (self, other), "pow")
    need_b = other.requires_grad  # ln a is undefined for a <= 0: only when b needs it

    def _backward(g):
        return g * b * a**b, (g * out_data * np.log(a) if need_b else None)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([0.5, 1.5, 2.0, 3.0])
    compare(mt, lambda m, x: x ** 3.0, lambda t, x: x ** 3.0, [a])
