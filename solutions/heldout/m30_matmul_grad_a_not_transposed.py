"""Held-out learner mistake 30: matmul_grad_a_not_transposed (matmul, transposed).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.matmul'
OP = 'matmul'
KIND = 'transposed'
DESCRIPTION = (
    "matmul's gradient for the left operand is g @ B instead of g @ Bᵀ."
)
APT = (
    "Should name matmul, the left operand's gradient: B must be transposed (g @ Bᵀ). With "
    "square B it is silently wrong, otherwise a shape error; the right operand's gradient is "
    'correct.'
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
        if a.ndim == 1 and b.ndim == 1:  # dot product: g is a scalar
            return g * b, g * a
        g = np.ascontiguousarray(g)  # a broadcast view would make BLAS copy or crawl
        a2 = a[None, :] if a.ndim == 1 else a  # (1, K): NumPy's promotion of a 1-D left
        b2 = b[:, None] if b.ndim == 1 else b  # (K, 1): ... and of a 1-D right operand
        if a.ndim == 1:
            g = g[..., None, :]  # (..., 1, M)
        if b.ndim == 1:
            g = g[..., None]  # (..., N, 1)
        ga = g @ b2 if need_a else None  # (..., N, K)
        gb = np.swapaxes(a2, -1, -2) @ g if need_b else None  # (..., K, M)
        if a.ndim == 1 and ga is not None:
            ga = ga[..., 0, :]  # drop the promoted axis; the engine sums the batch axes
        if b.ndim == 1 and gb is not None:
            gb = gb[..., 0]
        return ga, gb

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[1.0, 2.0, 0.5], [-1.0, 0.0, 3.0]])
    b = np.array([[0.5, -1.0, 2.0], [1.0, 0.25, 0.0], [2.0, 1.0, -1.5]])
    compare(mt, lambda m, x, y: x @ y, lambda t, x, y: x @ y, [a, b])
