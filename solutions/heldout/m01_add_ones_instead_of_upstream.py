"""Held-out learner mistake 01: add_ones_instead_of_upstream (add, missing-upstream).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.add'
OP = 'add'
KIND = 'missing-upstream'
DESCRIPTION = (
    "In add's backward the learner returns the local derivative 1 for the second operand "
    '(np.ones_like(g)) instead of the upstream gradient g.'
)
APT = (
    "Should point at add's gradient for the second operand (b / other) ignoring the upstream "
    'gradient; it is only visible when the upstream is not all ones (e.g. not after a plain '
    ".sum()). The first operand's gradient is correct; must not blame broadcasting or the first "
    'operand, and it is not a constant scale factor.'
)

SOURCE = '''
@shape_errors
def add(self, other: Any) -> Tensor:
    """a + b, elementwise with broadcasting. (...), (...) -> broadcast shape."""
    other = _as_tensor(other)
    ### BEGIN SOLUTION
    out = Tensor._make(self.data + other.data, (self, other), "add")

    def _backward(g):
        return g, np.ones_like(g)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.5]])
    b = np.array([0.5, 1.5, -2.0])
    compare(mt, lambda m, x, y: (x + y) * x, lambda t, x, y: (x + y) * x, [a, b])
