"""Held-out learner mistake 55: mul_constant_branch_returns_bare_array (mul, constant-operand).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.mul'
OP = 'mul'
KIND = 'constant-operand'
DESCRIPTION = (
    'mul has a shortcut for a constant right operand (x * c): its backward returns g * b, a '
    'bare array, instead of a tuple (g * b, None). The engine zips the parents with the ROWS of'
    " that array: x gets the first row only (silently, when x's shape is a row of the output) "
    'or a gradient of the wrong shape.'
)
APT = (
    'Should name mul and point at the case with a constant second operand: _backward must '
    'return a tuple with one gradient per parent (g * b, None), not the bare array. With both '
    'operands requiring grad mul is correct; a swapped-operands, factor or engine claim is '
    'false.'
)

SOURCE = '''
@shape_errors
def mul(self, other: Any) -> Tensor:
    """a * b, elementwise with broadcasting. (...), (...) -> broadcast shape."""
    other = self._as_tensor(other)
    a, b = self.data, other.data
    need_b = other.requires_grad

    def _backward(g):
        if not need_b:  # multiplied by a constant: only a needs a gradient
            return g * b
        return g * b, g * a

    return Tensor._make(a * b, (self, other), "mul", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    x = np.array([0.5, -1.0, 2.0, 1.5])
    c = np.array([[1.0, 2.0, -1.0, 0.5], [3.0, -0.5, 0.25, 2.0], [-1.5, 1.0, 4.0, -2.0]])
    compare(mt, lambda m, a, b: a * b, lambda t, a, b: a * b, [x, c],
            requires_grad=[True, False])
