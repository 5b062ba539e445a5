"""Held-out learner mistake 64: softmax_subtracts_global_max (softmax, numerical-stability).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.softmax'
OP = 'softmax'
KIND = 'numerical-stability'
DESCRIPTION = (
    "softmax subtracts the max of the WHOLE array (self.data.max()) instead of each slice's max"
    ' along the axis: a row whose values are all far below the global max underflows to 0/0 = '
    'nan.'
)
APT = (
    'Should name softmax and say the max must be taken along the softmax axis (keepdims), per '
    'row, not over the whole tensor: rows far below the global max give nan. Backward formula '
    "right; 'no max subtraction at all' or a wrong-derivative claim is false."
)

SOURCE = '''
@shape_errors
def softmax(self, axis: int = -1) -> Tensor:
    """e^a / Σ e^a along ``axis`` (the max is subtracted first). (...) -> (...)."""
    e = np.exp(self.data - self.data.max(initial=-np.inf))
    s = e / e.sum(axis=axis, keepdims=True)

    def _backward(g):
        return (s * (g - (g * s).sum(axis=axis, keepdims=True)),)

    return Tensor._make(s, (self,), "softmax", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[0.0, 1.0, 2.0], [-1000.0, -999.0, -998.0]])
    compare(mt, lambda m, x: x.softmax(axis=-1), lambda t, x: x.softmax(dim=-1), [a])
