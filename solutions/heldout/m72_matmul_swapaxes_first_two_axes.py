"""Held-out learner mistake 72: matmul_swapaxes_first_two_axes (matmul, transposed).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.matmul'
OP = 'matmul'
KIND = 'transposed'
DESCRIPTION = (
    "matmul's backward transposes the operands with np.swapaxes(x, 0, 1) instead of "
    'np.swapaxes(x, -1, -2): right for 2-D operands, but on a batch it swaps the batch axis '
    'with the rows (a wrong gradient on cubic shapes, a matmul shape error otherwise).'
)
APT = (
    'Should name matmul and say the transposes in the backward must swap the LAST two axes (-1,'
    ' -2) for batched operands. 2-D and 1-D cases are right; advising against .T is beside the '
    'point (no .T is used) and a formula/operand-order claim is false.'
)

SOURCE = '''
@shape_errors
def matmul(self, other: Any) -> Tensor:
    """a @ b with NumPy semantics: (..., N, K) @ (..., K, M) -> (..., N, M), 1-D allowed."""
    other = self._as_tensor(other)
    a, b = self.data, other.data
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
        ga = g @ np.swapaxes(b2, 0, 1) if need_a else None  # (..., N, K)
        gb = np.swapaxes(a2, 0, 1) @ g if need_b else None  # (..., K, M)
        if a.ndim == 1 and ga is not None:
            ga = ga[..., 0, :]  # drop the promoted axis; the engine sums the batch axes
        if b.ndim == 1 and gb is not None:
            gb = gb[..., 0]
        return ga, gb

    return Tensor._make(np.matmul(a, b), (self, other), "matmul", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    rng = np.random.default_rng(72)
    a = rng.standard_normal((3, 3, 3))
    b = rng.standard_normal((3, 3, 3))
    compare(mt, lambda m, x, y: x @ y, lambda t, x, y: x @ y, [a, b])
