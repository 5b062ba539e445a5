"""Held-out learner mistake 91: unbroadcast_forgets_size_one_axes (engine, reverse-broadcast).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'unbroadcast'
OP = 'engine'
KIND = 'reverse-broadcast'
DESCRIPTION = (
    'unbroadcast sums away the leading axes grad has in excess but forgets the axes where the '
    'target shape has size 1: a (4, 1) operand of a (4, 3) result gets a (4, 3) gradient (a '
    'gradient shape error); (3,) with (4, 3) works.'
)
APT = (
    'Should point at reverse broadcasting (unbroadcast): axes where the parent has size 1 must '
    'be summed with keepdims=True as well as the missing leading ones. Ops are right; blaming '
    "add/mul's formula is false."
)

SOURCE = '''
@staticmethod
def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` down to ``shape``: the reverse of broadcasting ``shape`` to ``grad.shape``."""
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra > 0:  # broadcasting added these leading axes
        grad = grad.sum(axis=tuple(range(extra)))
    return grad
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    x = np.array([[0.5], [-1.0], [2.0], [1.5]])
    y = np.array([[1.0, 2.0, -0.5], [0.3, -0.2, 0.1], [1.1, 0.0, -2.0], [0.4, 0.9, -0.6]])
    compare(mt, lambda m, a, b: a * b, lambda t, a, b: a * b, [x, y])
