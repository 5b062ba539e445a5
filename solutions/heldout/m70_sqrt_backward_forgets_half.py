"""Held-out learner mistake 70: sqrt_backward_forgets_half (sqrt, wrong-scale).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.sqrt'
OP = 'sqrt'
KIND = 'wrong-scale'
DESCRIPTION = (
    "sqrt's backward returns g / √a: the ½ of d√a/da = 1/(2√a) is forgotten, so every gradient "
    "is twice torch's."
)
APT = (
    'Should name sqrt and say its derivative lacks the factor ½ (1/(2√a)). A constant factor 2 '
    "it is, but inside sqrt's own derivative: calling it double counting, an accumulation or "
    'engine fault is false.'
)

SOURCE = '''
def sqrt(self) -> Tensor:
    """√a, elementwise (a > 0); d/da = 1/(2√a). (...) -> (...)."""
    out_data = np.sqrt(self.data)

    def _backward(g):
        return (g / out_data,)

    return Tensor._make(out_data, (self,), "sqrt", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([0.25, 2.0, 4.0, 9.0, 0.5])
    compare(mt, lambda m, x: x.sqrt(), lambda t, x: x.sqrt(), [a])
