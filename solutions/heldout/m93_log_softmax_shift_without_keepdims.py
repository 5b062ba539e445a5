"""Held-out learner mistake 93: log_softmax_shift_without_keepdims (log_softmax, keepdims).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.log_softmax'
OP = 'log_softmax'
KIND = 'keepdims'
DESCRIPTION = (
    'log_softmax subtracts the max taken WITHOUT keepdims: along the last axis of an (N, C) '
    'input the (N,) maxima broadcast along the wrong axis, so each entry is shifted by another '
    "row's max and the output is no longer a log-softmax (a shape error when N != C; right by "
    'luck for axis=0).'
)
APT = (
    'Should name log_softmax and say the max must keep the reduced axis (keepdims=True) so each'
    " row is shifted by its own max. Backward formula right; 'no max subtraction' is false."
)

SOURCE = '''
@shape_errors
def log_softmax(self, axis: int = -1) -> Tensor:
    """a - log Σ e^a along ``axis``, through log-sum-exp. (...) -> (...)."""
    z = self.data - self.data.max(axis=axis, initial=-np.inf)
    out_data = z - np.log(np.exp(z).sum(axis=axis, keepdims=True))

    def _backward(g):
        return (g - np.exp(out_data) * g.sum(axis=axis, keepdims=True),)

    return Tensor._make(out_data, (self,), "log_softmax", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[0.5, -1.0, 2.0], [1.0, 4.0, -0.5], [0.2, 0.3, -3.0]])
    compare(mt, lambda m, x: x.log_softmax(axis=-1), lambda t, x: x.log_softmax(dim=-1), [a])
