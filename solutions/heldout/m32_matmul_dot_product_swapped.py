"""Held-out learner mistake 32: matmul_dot_product_swapped (matmul, swapped-inputs).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.matmul'
OP = 'matmul'
KIND = 'swapped-inputs'
DESCRIPTION = (
    'In the 1-D @ 1-D (dot product) branch the learner returns g*a, g*b instead of g*b, g*a.'
)
APT = (
    "Should name matmul with two 1-D operands (a dot product): each vector's gradient is the "
    'OTHER vector times g. Matrix and batched cases are correct; must not blame the 2-D '
    'formula.'
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
            return g * a, g * b
        g = np.ascontiguousarray(g)  # a broadcast view would make BLAS copy or crawl
        a2 = a[None, :] if a.ndim == 1 else a  # (1, K): NumPy's promotion of a 1-D left
        b2 = b[:, None] if b.ndim == 1 else b  # (K, 1): ... and of a 1-D right operand
        if a.ndim == 1:
            g = g[..., None, :]  # (..., 1, M)
        if b.ndim == 1:
            g = g[..., None]  # (..., N, 1)
        ga = g @ np.swapaxes(b2, -1, -2) if need_a else None  # (..., N, K)
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
    a = np.array([1.0, 2.0, -1.0])
    b = np.array([0.5, -3.0, 2.0])
    compare(mt, lambda m, x, y: x @ y, lambda t, x, y: x @ y, [a, b])
