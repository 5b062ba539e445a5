"""Held-out learner mistake 53: pow_need_b_from_base (pow, constant-operand).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.pow'
OP = 'pow'
KIND = 'constant-operand'
DESCRIPTION = (
    "pow computes the exponent's gradient only when need_b, and sets need_b = "
    "self.requires_grad (the base's flag) instead of other.requires_grad: with a constant base "
    '(2 ** x, c ** x) the exponent gets no gradient at all.'
)
APT = (
    "Should name pow and say the exponent's gradient is missing when the base is a constant "
    "(need_b must be the exponent's requires_grad). The formulas are right: claiming a wrong "
    'derivative, a sign, a factor or ln of the wrong operand is false.'
)

SOURCE = '''
@shape_errors
def pow(self, other: Any) -> Tensor:
    """a ** b with broadcasting; d/da = b·a^(b-1), d/db = a^b·ln a (needs a > 0)."""
    other = self._as_tensor(other)
    a, b = self.data, other.data
    out_data = a**b
    need_b = self.requires_grad  # ln a is undefined for a <= 0: only when b needs it

    def _backward(g):
        # At a = 0 the rules meet 0 · ∞ (a ** -1, ln 0); torch's convention, kept here: a ** 0
        # is constant in a (slope 0), and 0 ** b is constant in b for b >= 0 (slope 0).
        with np.errstate(divide="ignore", invalid="ignore"):
            ga = np.where(b == 0, 0.0, g * b * a ** (b - 1))
            if not need_b:
                return ga, None
            return ga, np.where((a == 0) & (b >= 0), 0.0, g * out_data * np.log(a))

    return Tensor._make(out_data, (self, other), "pow", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    base = np.array([2.0, 0.5, 3.0, 1.5])
    x = np.array([0.7, -1.2, 2.0, 0.0])
    compare(mt, lambda m, a, b: a**b, lambda t, a, b: a**b, [base, x],
            requires_grad=[False, True])
