"""Held-out learner mistake 85: transpose_backward_always_reverses (transpose, wrong-axis).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.transpose'
OP = 'transpose'
KIND = 'wrong-axis'
DESCRIPTION = (
    "transpose's backward returns g.transpose() (all axes reversed) whatever permutation the "
    'forward used: right for the default reversal and for any 2-D transpose, wrong for an '
    'explicit permutation of 3 or more axes such as (1, 2, 0).'
)
APT = (
    'Should name transpose and say the backward must apply the INVERSE of the given permutation'
    ' (np.argsort(axes)), not a reversal of all axes. Right with no axes or 2-D; a claim that '
    'it applies the same permutation again is not what happens.'
)

SOURCE = '''
@shape_errors
def transpose(self, *axes: int | Sequence[int]) -> Tensor:
    """Permute the axes (none given: reverse them). (d0, d1, ...) -> permuted shape."""
    axes = _permutation(_sizes(axes, "transpose: axes"), self.ndim)  # -1 -> ndim - 1
    perm = tuple(axes) if axes else tuple(reversed(range(self.ndim)))
    inverse = tuple(np.argsort(perm))

    def _backward(g):
        return (g.transpose(),)

    return Tensor._make(self.data.transpose(perm), (self,), "transpose", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.arange(27.0).reshape(3, 3, 3) / 5.0 - 2.0
    compare(mt, lambda m, x: x.transpose(1, 2, 0) * x, lambda t, x: x.permute(1, 2, 0) * x, [a])
