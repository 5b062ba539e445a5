"""Held-out learner mistake 89: pow_zero_exponent_at_zero_base (pow, kink-convention).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.pow'
OP = 'pow'
KIND = 'kink-convention'
DESCRIPTION = (
    "pow's base gradient is the textbook g·b·a^(b-1) with no special case: for the exponent 0 "
    'at a base of 0 it evaluates 0·0^(-1) = 0·inf = nan, where torch (a**0 is constant in a) '
    'gives 0.'
)
APT = (
    'Should name pow and say the base gradient at b = 0 must be 0 (a**0 is constant), also at a'
    ' = 0 where the formula gives 0·inf = nan. Everything else is right.'
)

SOURCE = '''
@shape_errors
def pow(self, other: Any) -> Tensor:
    """a ** b with broadcasting; d/da = b·a^(b-1), d/db = a^b·ln a (needs a > 0)."""
    other = self._as_tensor(other)
    a, b = self.data, other.data
    out_data = a**b
    need_b = other.requires_grad  # ln a is undefined for a <= 0: only when b needs it

    def _backward(g):
        # At a = 0 the rules meet 0 · ∞ (a ** -1, ln 0); torch's convention, kept here: a ** 0
        # is constant in a (slope 0), and 0 ** b is constant in b for b >= 0 (slope 0).
        with np.errstate(divide="ignore", invalid="ignore"):
            ga = g * b * a ** (b - 1)
            if not need_b:
                return ga, None
            return ga, np.where((a == 0) & (b >= 0), 0.0, g * out_data * np.log(a))

    return Tensor._make(out_data, (self, other), "pow", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([0.0, 1.5, -2.0, 0.25])
    compare(mt, lambda m, x: x**0.0 + x * x, lambda t, x: x**0.0 + x * x, [a])
