"""Held-out learner mistake 43: unbroadcast_sums_trailing_axes (engine, reverse-broadcast).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'unbroadcast'
OP = 'engine'
KIND = 'reverse-broadcast'
DESCRIPTION = (
    'unbroadcast aligns shapes on the left: it sums the LAST extra axes of grad instead of the '
    'leading ones.'
)
APT = (
    'Should point to reverse broadcasting (unbroadcast): shapes are aligned on the right, so '
    'the extra LEADING axes must be summed. Silently wrong when the sizes coincide (e.g. (3,) '
    'broadcast into (3, 3)), a shape error otherwise. Size-1 axes are handled correctly. Any op '
    'that broadcasts (add, mul, ...) shows it; the op formulas are not at fault.'
)

SOURCE = '''
def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` down to ``shape``: the reverse of broadcasting ``shape`` to ``grad.shape``.

    Aligned to the right, the leading axes ``grad`` has in excess are summed away, and so are
    the axes where ``shape`` has 1 and ``grad`` does not. (4, 3) -> (3,): sum over axis 0.
    Returns ``grad`` unchanged when no rule applies; the caller checks the final shape.
    """
    ### BEGIN SOLUTION
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra < 0:
        return grad
    if extra:
        grad = grad.sum(axis=tuple(range(len(shape), grad.ndim)))
    ones = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if ones:
        grad = grad.sum(axis=ones, keepdims=True)
    return grad
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    b = np.array([0.5, -1.0, 2.0])
    compare(mt, lambda m, x, y: x * y, lambda t, x, y: x * y, [a, b])
