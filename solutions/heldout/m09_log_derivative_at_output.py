"""Held-out learner mistake 09: log_derivative_at_output (log, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.log'
OP = 'log'
KIND = 'wrong-formula'
DESCRIPTION = (
    "log's backward divides by the output ln(a) instead of the input a (the derivative "
    'evaluated at the wrong point).'
)
APT = (
    'Should name log and say d ln a / da = 1/a uses the input, not the output; it blows up near '
    'a = 1 (ln a = 0). Must not call it a sign error or a constant factor.'
)

SOURCE = '''
def log(self) -> Tensor:
    """ln a, elementwise (a > 0); d/da = 1/a. (...) -> (...)."""
    ### BEGIN SOLUTION
    a = self.data
    out = Tensor._make(np.log(a), (self,), "log")
    out_data = out.data

    def _backward(g):
        return (g / out_data,)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([0.5, 2.0, 3.0, 7.0])
    compare(mt, lambda m, x: x.log(), lambda t, x: x.log(), [a])
