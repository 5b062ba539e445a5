"""Held-out learner mistake 29: stack_unstacks_along_axis_0 (stack, wrong-axis).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'stack'
OP = 'stack'
KIND = 'wrong-axis'
DESCRIPTION = (
    "stack's backward unstacks the gradient along axis 0 (tuple(g)) instead of along the axis "
    'the tensors were stacked on.'
)
APT = (
    'Should name stack with axis != 0: the per-input gradients are the slices along the '
    'stacking axis (moveaxis to front). When the number of tensors equals the size of the '
    "inputs' first axis it is silently wrong, otherwise a shape error. axis=0 works."
)

SOURCE = '''
@shape_errors
def stack(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """Join equally shaped tensors along a NEW ``axis``: 3 × (4,5) -> (3,4,5) for axis=0."""
    tensors = tuple(_as_tensor(t) for t in tensors)
    ### BEGIN SOLUTION
    out = Tensor._make(np.stack([t.data for t in tensors], axis=axis), tensors, "stack")

    def _backward(g):
        return tuple(g)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    xs = [np.arange(6.0).reshape(3, 2) + k for k in range(3)]
    compare(mt, lambda m, a, b, c: m.stack([a, b, c], axis=1),
            lambda t, a, b, c: t.stack([a, b, c], dim=1), xs)
