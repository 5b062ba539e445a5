"""Held-out learner mistake 02: sub_second_grad_positive (sub, sign).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.sub'
OP = 'sub'
KIND = 'sign'
DESCRIPTION = (
    "sub's backward returns +g for the subtrahend instead of -g (copied from add)."
)
APT = (
    'Should say the gradient of sub with respect to its second operand has the wrong sign (must '
    "be -g); the first operand's gradient is right. Must not call it a scale or broadcasting "
    'problem.'
)

SOURCE = '''
@shape_errors
def sub(self, other: Any) -> Tensor:
    """a - b, elementwise with broadcasting. (...), (...) -> broadcast shape."""
    other = _as_tensor(other)
    ### BEGIN SOLUTION
    out = Tensor._make(self.data - other.data, (self, other), "sub")

    def _backward(g):
        return g, g

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    b = np.array([[0.5, -1.0], [2.0, 0.0]])
    compare(mt, lambda m, x, y: x - y, lambda t, x, y: x - y, [a, b])
