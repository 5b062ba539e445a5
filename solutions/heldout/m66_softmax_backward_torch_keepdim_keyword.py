"""Held-out learner mistake 66: softmax_backward_torch_keepdim_keyword (softmax, api-misuse).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.softmax'
OP = 'softmax'
KIND = 'api-misuse'
DESCRIPTION = (
    "softmax's backward sums with torch's spelling, (g * s).sum(axis=axis, keepdim=True): NumPy"
    " has keepdims, so every backward raises TypeError (unexpected keyword 'keepdim'), whatever"
    ' the shape, the empty tensor included.'
)
APT = (
    'Should name softmax and say its backward crashes on every case with a TypeError about the '
    'keyword keepdim (NumPy spells it keepdims). False: explaining it by the empty/size-0 case '
    '(initial=-np.inf) or by a wrong formula; the forward is right.'
)

SOURCE = '''
@shape_errors
def softmax(self, axis: int = -1) -> Tensor:
    """e^a / Σ e^a along ``axis`` (the max is subtracted first). (...) -> (...)."""
    e = np.exp(self.data - self.data.max(axis=axis, keepdims=True, initial=-np.inf))
    s = e / e.sum(axis=axis, keepdims=True)

    def _backward(g):
        return (s * (g - (g * s).sum(axis=axis, keepdim=True)),)

    return Tensor._make(s, (self,), "softmax", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])
    compare(mt, lambda m, x: x.softmax(axis=-1), lambda t, x: x.softmax(dim=-1), [a])
