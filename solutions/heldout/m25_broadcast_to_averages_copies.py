"""Held-out learner mistake 25: broadcast_to_averages_copies (broadcast_to, wrong-scale).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.broadcast_to'
OP = 'broadcast_to'
KIND = 'wrong-scale'
DESCRIPTION = (
    "broadcast_to's backward averages the gradient over the broadcast copies instead of summing "
    'it.'
)
APT = (
    "Should name broadcast_to and say the copies' gradients must be summed (each copy "
    'contributes); averaging divides by the number of copies. Must not blame unbroadcast, which '
    'is correct.'
)

SOURCE = '''
@shape_errors
def broadcast_to(self, shape: Sequence[int]) -> Tensor:
    """Expand to ``shape`` by broadcasting; backward is unbroadcast's job."""
    ### BEGIN SOLUTION
    in_shape = self.shape
    out = Tensor._make(np.broadcast_to(self.data, tuple(shape)), (self,), "broadcast_to")

    def _backward(g):
        extra = g.ndim - len(in_shape)
        g = g.mean(axis=tuple(range(extra)))
        ones = tuple(i for i, n in enumerate(in_shape) if n == 1 and g.shape[i] != 1)
        return (g.mean(axis=ones, keepdims=True),)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[1.0], [2.0], [3.0]])
    compare(mt, lambda m, x: x.broadcast_to((2, 3, 4)),
            lambda t, x: x.broadcast_to((2, 3, 4)), [a])
