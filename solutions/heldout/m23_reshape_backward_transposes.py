"""Held-out learner mistake 23: reshape_backward_transposes (reshape, transposed).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.reshape'
OP = 'reshape'
KIND = 'transposed'
DESCRIPTION = (
    'The learner thinks reshape(n, m) of an (m, n) matrix is a transpose and returns g.T as the '
    'gradient.'
)
APT = (
    'Should name reshape and say its backward must reshape g back to the input shape (same '
    'element order), not transpose it. The shape check passes for 2-D swaps such as (2, 3) -> '
    '(3, 2), so it is silently wrong there, and a shape error in most other cases.'
)

SOURCE = '''
@shape_errors
def reshape(self, *shape: int | Sequence[int]) -> Tensor:
    """The same elements in a new shape (``reshape(3, 5)`` or ``reshape((3, 5))``)."""
    if len(shape) == 1 and not isinstance(shape[0], int):
        shape = tuple(shape[0])
    ### BEGIN SOLUTION
    in_shape = self.shape
    out = Tensor._make(self.data.reshape(shape), (self,), "reshape")

    def _backward(g):
        return (g.T,)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.arange(6.0).reshape(2, 3)
    compare(mt, lambda m, x: x.reshape(3, 2), lambda t, x: x.reshape(3, 2), [a])
