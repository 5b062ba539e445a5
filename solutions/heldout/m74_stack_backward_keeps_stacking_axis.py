"""Held-out learner mistake 74: stack_backward_keeps_stacking_axis (stack, keepdims).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'stack'
OP = 'stack'
KIND = 'keepdims'
DESCRIPTION = (
    "stack's backward splits g with np.split(g, len(tensors), axis=axis): each piece keeps the "
    "stacking axis with size 1. For axis=0 the engine's reverse broadcasting sums it away, so "
    'it works by luck; for any other axis the gradient has the wrong shape.'
)
APT = (
    'Should name stack and say each gradient piece still has the stacking axis (size 1): '
    'squeeze it (np.squeeze(piece, axis)) or take np.moveaxis(g, axis, 0). The axis used is the'
    " right one: a 'wrong axis' claim is false."
)

SOURCE = '''
@staticmethod
@shape_errors
def stack(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """Join equally shaped tensors along a NEW ``axis``: 3 × (4,5) -> (3,4,5) for axis=0."""
    tensors = tuple(Tensor._as_tensor(t) for t in tensors)
    out_data = np.stack([t.data for t in tensors], axis=axis)

    def _backward(g):
        return tuple(np.split(g, len(tensors), axis=axis))

    return Tensor._make(out_data, tensors, "stack", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    x = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])
    y = np.array([[1.5, 0.25, -2.0], [0.3, -0.7, 1.1]])
    z = np.array([[-0.4, 0.9, 0.1], [2.0, 1.0, -1.0]])
    compare(mt, lambda m, a, b, c: m.stack([a, b, c], axis=1),
            lambda t, a, b, c: t.stack([a, b, c], dim=1), [x, y, z])
