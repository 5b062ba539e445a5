"""Held-out learner mistake 88: pow_via_exp_log_negative_base (pow, domain).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.pow'
OP = 'pow'
KIND = 'domain'
DESCRIPTION = (
    "pow's forward is computed as exp(b·ln a), the textbook identity, which holds only for a > "
    '0: a negative base gives nan even for an integer exponent ((-1.5)**2 is nan instead of '
    '2.25), and so do the gradients.'
)
APT = (
    'Should name pow and say the forward fails (nan) for a negative base: a**b must be computed'
    ' directly (np.power), exp(b ln a) is valid only for a > 0. The derivative formulas and '
    'positive bases are right.'
)

SOURCE = '''
@shape_errors
def pow(self, other: Any) -> Tensor:
    """a ** b with broadcasting; d/da = b·a^(b-1), d/db = a^b·ln a (needs a > 0)."""
    other = self._as_tensor(other)
    a, b = self.data, other.data
    out_data = np.exp(b * np.log(a))
    need_b = other.requires_grad  # ln a is undefined for a <= 0: only when b needs it

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
    a = np.array([-1.5, 0.5, 2.0, -3.0])
    compare(mt, lambda m, x: x**2.0, lambda t, x: x**2.0, [a])
