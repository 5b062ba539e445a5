"""Held-out learner mistake 44: unbroadcast_size_one_axes_lose_keepdims (engine, keepdims).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'unbroadcast'
OP = 'engine'
KIND = 'keepdims'
DESCRIPTION = (
    'unbroadcast sums the axes where the target has size 1 without keepdims=True, so a (4, 1) '
    'parent receives a (4,) gradient.'
)
APT = (
    "Should point to unbroadcast's handling of size-1 axes ((N, 1) with (1, M) pairs, column "
    'vectors): the summed axes must be kept as 1s. Leading extra axes are fine. Surfaces as a '
    'gradient-shape error in whichever op broadcast; the op itself is not wrong.'
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
        grad = grad.sum(axis=tuple(range(extra)))
    ones = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if ones:
        grad = grad.sum(axis=ones)
    return grad
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[1.0], [2.0], [3.0], [4.0]])
    b = np.array([[0.5, -1.0, 2.0]])
    compare(mt, lambda m, x, y: x + y * x, lambda t, x, y: x + y * x, [a, b])
