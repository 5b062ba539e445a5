"""Held-out learner mistake 33: matmul_dot_T_two_dims_only (matmul, transposed).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.matmul'
OP = 'matmul'
KIND = 'transposed'
DESCRIPTION = (
    "matmul's backward is the 2-D textbook version, g @ b.T and a.T @ g, with .T (which "
    'reverses ALL axes) and no handling of 1-D operands.'
)
APT = (
    'Should name matmul for batched (3-D) or 1-D operands: .T reverses every axis, only the '
    'last two must be swapped (swapaxes(-1, -2)), and 1-D operands must be promoted and the '
    'promoted axis dropped. Plain 2-D matrices are correct.'
)

SOURCE = '''
@shape_errors
def matmul(self, other: Any) -> Tensor:
    """a @ b with NumPy semantics: (..., N, K) @ (..., K, M) -> (..., N, M), 1-D allowed."""
    other = _as_tensor(other)
    ### BEGIN SOLUTION
    a, b = self.data, other.data
    out = Tensor._make(np.matmul(a, b), (self, other), "matmul")
    need_a, need_b = self.requires_grad, other.requires_grad  # skip unneeded products

    def _backward(g):
        ga = g @ b.T if need_a else None
        gb = a.T @ g if need_b else None
        return ga, gb

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.arange(24.0).reshape(2, 3, 4) / 10
    b = np.arange(40.0).reshape(2, 4, 5) / 20 - 1
    compare(mt, lambda m, x, y: x @ y, lambda t, x, y: x @ y, [a, b])
