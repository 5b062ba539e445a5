"""Held-out learner mistake 24: transpose_backward_same_permutation (transpose, wrong-axis).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.transpose'
OP = 'transpose'
KIND = 'wrong-axis'
DESCRIPTION = (
    "transpose's backward applies the same permutation again instead of its inverse."
)
APT = (
    'Should name transpose with a non-self-inverse permutation (3+ axes, e.g. (1, 2, 0)); for '
    '2-D transposes and swaps the permutation is its own inverse so it passes; on cubic shapes '
    'it is silently wrong, otherwise a shape error. Must point to the inverse permutation '
    '(argsort), not to reshape.'
)

SOURCE = '''
@shape_errors
def transpose(self, *axes: int | Sequence[int]) -> Tensor:
    """Permute the axes (none given: reverse them). (d0, d1, ...) -> permuted shape."""
    if len(axes) == 1 and not isinstance(axes[0], int):
        axes = tuple(axes[0])
    ### BEGIN SOLUTION
    perm = tuple(axes) if axes else tuple(reversed(range(self.ndim)))
    out = Tensor._make(self.data.transpose(perm), (self,), "transpose")
    inverse = tuple(np.argsort(perm))

    def _backward(g):
        return (g.transpose(perm),)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.arange(8.0).reshape(2, 2, 2)
    compare(mt, lambda m, x: x.transpose(1, 2, 0), lambda t, x: x.permute(1, 2, 0), [a])
