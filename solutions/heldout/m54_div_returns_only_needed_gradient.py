"""Held-out learner mistake 54: div_returns_only_needed_gradient (div, constant-operand).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.div'
OP = 'div'
KIND = 'constant-operand'
DESCRIPTION = (
    "div's backward returns only the gradients that are needed: (g / b,) when the denominator "
    'is a constant, (-g·a/b²,) when the numerator is one. The engine pairs gradients with '
    "parents by position, so for a constant numerator (1 / x, c / x) the denominator's gradient"
    ' is handed to the constant numerator and x gets none.'
)
APT = (
    'Should name div and say that with a constant numerator the denominator gets no gradient: '
    '_backward must return one entry per parent, in order (None for a constant), not only the '
    'needed ones. Formulas and the constant-denominator case are right; a wrong formula, sign '
    'or factor claim is false.'
)

SOURCE = '''
@shape_errors
def div(self, other: Any) -> Tensor:
    """a / b, elementwise with broadcasting; d/da = 1/b, d/db = -a/b². -> broadcast shape."""
    other = self._as_tensor(other)
    a, b = self.data, other.data
    need_a, need_b = self.requires_grad, other.requires_grad

    def _backward(g):
        if not need_b:  # a constant denominator: only a needs a gradient
            return (g / b,)
        if not need_a:  # a constant numerator: only b needs one
            return (-g * a / (b * b),)
        return g / b, -g * a / (b * b)

    return Tensor._make(a / b, (self, other), "div", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    c = np.array([1.0, -2.0, 3.0, 0.5])
    x = np.array([0.5, 2.0, -4.0, 1.25])
    compare(mt, lambda m, a, b: a / b, lambda t, a, b: a / b, [c, x],
            requires_grad=[False, True])
