"""Held-out learner mistake 07: pow_exponent_log_of_exponent (pow, swapped-inputs).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.pow'
OP = 'pow'
KIND = 'swapped-inputs'
DESCRIPTION = (
    'The gradient of a**b with respect to the exponent is written a**b * ln(b) instead of a**b '
    '* ln(a): the log is taken of the wrong operand.'
)
APT = (
    "Should point at pow's gradient with respect to the exponent (second operand), ln of the "
    'base a is required, the learner used ln b. Only visible when the exponent requires grad '
    '(e.g. 2 ** x or x ** y); the base gradient is fine.'
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
        return g * b * a ** (b - 1), (g * out_data * np.log(b) if need_b else None)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([1.5, 2.0, 3.0])
    b = np.array([0.5, 2.0, 1.5])
    compare(mt, lambda m, x, y: x**y, lambda t, x, y: x**y, [a, b])
