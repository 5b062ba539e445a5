"""Held-out learner mistake 27: cat_splits_at_sizes_not_offsets (cat, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'cat'
OP = 'cat'
KIND = 'wrong-formula'
DESCRIPTION = (
    "cat's backward splits the gradient at the input sizes instead of at their cumulative "
    'offsets.'
)
APT = (
    'Should name cat and the split points: they must be cumulative sums of the sizes along the '
    'axis. With two inputs the sizes and offsets coincide, so it only fails for three or more '
    'tensors. Must not blame the axis.'
)

SOURCE = '''
@shape_errors
def cat(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """Join tensors along an existing ``axis``: (2,5), (3,5) -> (5,5) for axis=0."""
    tensors = tuple(_as_tensor(t) for t in tensors)
    ### BEGIN SOLUTION
    out = Tensor._make(np.concatenate([t.data for t in tensors], axis=axis), tensors, "cat")
    splits = [t.shape[axis] for t in tensors][:-1]

    def _backward(g):
        return tuple(np.split(g, splits, axis=axis))

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    xs = [np.arange(4.0).reshape(2, 2), np.ones((3, 2)), np.full((2, 2), 2.0)]
    compare(mt, lambda m, a, b, c: m.cat([a, b, c], axis=0),
            lambda t, a, b, c: t.cat([a, b, c], dim=0), xs)
