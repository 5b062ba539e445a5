"""Held-out learner mistake 28: cat_splits_along_axis_0 (cat, wrong-axis).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'cat'
OP = 'cat'
KIND = 'wrong-axis'
DESCRIPTION = (
    "cat's backward calls np.split(g, splits) without axis=, so it always splits along axis 0 "
    'whatever axis the tensors were joined on.'
)
APT = (
    'Should name cat with axis != 0: the gradient must be split along the same axis as the '
    'concatenation; axis=0 works. Must not blame the split offsets.'
)

SOURCE = '''
@shape_errors
def cat(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """Join tensors along an existing ``axis``: (2,5), (3,5) -> (5,5) for axis=0."""
    tensors = tuple(_as_tensor(t) for t in tensors)
    ### BEGIN SOLUTION
    out = Tensor._make(np.concatenate([t.data for t in tensors], axis=axis), tensors, "cat")
    splits = np.cumsum([t.shape[axis] for t in tensors])[:-1]

    def _backward(g):
        return tuple(np.split(g, splits))

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    xs = [np.arange(6.0).reshape(3, 2), np.ones((3, 1))]
    compare(mt, lambda m, a, b: m.cat([a, b], axis=1), lambda t, a, b: t.cat([a, b], dim=1), xs)
