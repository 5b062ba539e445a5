"""Held-out learner mistake 52: matmul_need_b_from_left_operand (matmul, constant-operand).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.matmul'
OP = 'matmul'
KIND = 'constant-operand'
DESCRIPTION = (
    'matmul decides which products to skip with need_a, need_b = self.requires_grad, '
    "self.requires_grad (copy-paste): the right operand's gradient is computed only when the "
    'LEFT operand requires grad. X @ W with a constant input X leaves W.grad at None.'
)
APT = (
    'Should name matmul and say the gradient of the right operand is missing (None) when the '
    'left operand is a constant: need_b must come from other.requires_grad. Every case where '
    'both operands require grad is correct, so a claim of a wrong formula, a transpose, a '
    'factor or an engine/accumulation fault is false.'
)

SOURCE = '''
@shape_errors
def matmul(self, other: Any) -> Tensor:
    """a @ b with NumPy semantics: (..., N, K) @ (..., K, M) -> (..., N, M), 1-D allowed."""
    other = self._as_tensor(other)
    a, b = self.data, other.data
    need_a, need_b = self.requires_grad, self.requires_grad  # skip unneeded products

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
        return ga, gb

    return Tensor._make(np.matmul(a, b), (self, other), "matmul", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    x = np.array([[1.0, -2.0, 0.5], [0.3, 1.5, -1.0], [2.0, 0.0, 1.0], [-0.7, 0.4, 2.5]])
    w = np.array([[0.2, -1.0], [1.3, 0.6], [-0.4, 0.9]])
    compare(mt, lambda m, a, b: a @ b, lambda t, a, b: a @ b, [x, w],
            requires_grad=[False, True])
