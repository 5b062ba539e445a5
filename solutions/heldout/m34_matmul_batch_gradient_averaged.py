"""Held-out learner mistake 34: matmul_batch_gradient_averaged (matmul, reverse-broadcast).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.matmul'
OP = 'matmul'
KIND = 'reverse-broadcast'
DESCRIPTION = (
    'When a 2-D right operand is broadcast over a batch of left matrices, the learner reduces '
    'its gradient over the batch axis with mean instead of sum.'
)
APT = (
    'Should name matmul with broadcast batch dimensions (e.g. (B, N, K) @ (K, M)): the shared '
    "operand's gradient must be SUMMED over the batch axes; averaging divides it by B. "
    "Equal-batch and 2-D cases are correct; the left operand's gradient is correct."
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
        ga = g @ np.swapaxes(b2, -1, -2) if need_a else None  # (..., N, K)
        gb = np.swapaxes(a2, -1, -2) @ g if need_b else None  # (..., K, M)
        if a.ndim == 1 and ga is not None:
            ga = ga[..., 0, :]  # drop the promoted axis; the engine sums the batch axes
        if b.ndim == 1 and gb is not None:
            gb = gb[..., 0]
        while gb is not None and gb.ndim > b.ndim:
            gb = gb.mean(axis=0)
        return ga, gb

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.arange(24.0).reshape(2, 3, 4) / 10
    b = np.arange(20.0).reshape(4, 5) / 20 - 0.5
    compare(mt, lambda m, x, y: x @ y, lambda t, x, y: x @ y, [a, b])
