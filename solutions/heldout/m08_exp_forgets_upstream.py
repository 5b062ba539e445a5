"""Held-out learner mistake 08: exp_forgets_upstream (exp, missing-upstream).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.exp'
OP = 'exp'
KIND = 'missing-upstream'
DESCRIPTION = (
    "exp's backward returns the local derivative e^a alone, without multiplying by the upstream "
    'gradient g.'
)
APT = (
    'Should name exp and a missing multiplication by the upstream gradient; passes whenever the '
    'upstream is all ones (exp(x).sum()). The local derivative itself is right; must not claim '
    'the derivative formula of exp is wrong.'
)

SOURCE = '''
def exp(self) -> Tensor:
    """e^a, elementwise; its derivative is its own output. (...) -> (...)."""
    ### BEGIN SOLUTION
    out_data = np.exp(self.data)
    out = Tensor._make(out_data, (self,), "exp")

    def _backward(g):
        return (out_data,)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[0.1, -0.5], [1.0, 0.3]])
    compare(mt, lambda m, x: x.exp(), lambda t, x: x.exp(), [a])
