"""Held-out learner mistake 05: neg_forgets_sign (neg, sign).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.neg'
OP = 'neg'
KIND = 'sign'
DESCRIPTION = (
    "neg's backward passes the upstream gradient through unchanged (returns g instead of -g)."
)
APT = (
    'Should name neg and a sign error in its backward (the gradient must be -g). The forward is '
    'correct; must not call it a scale factor other than -1 or blame sub.'
)

SOURCE = '''
def neg(self) -> Tensor:
    """-a, elementwise. (...) -> (...)."""
    ### BEGIN SOLUTION
    out = Tensor._make(-self.data, (self,), "neg")

    def _backward(g):
        return (g,)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([1.0, -2.0, 3.0])
    compare(mt, lambda m, x: -x * x.exp(), lambda t, x: -x * x.exp(), [a])
