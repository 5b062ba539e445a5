"""Held-out learner mistake 97: stack_backward_squeezes_every_unit_axis (stack, keepdims).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'stack'
OP = 'stack'
KIND = 'keepdims'
DESCRIPTION = (
    "stack's backward splits g along the stacking axis and calls np.squeeze(piece) without an "
    'axis: every size-1 axis goes, not only the stacking one, so tensors that have a size-1 '
    'axis of their own ((3, 1) columns, (1, 4) rows) get a gradient of the wrong shape.'
)
APT = (
    'Should name stack and say only the stacking axis may be squeezed (np.squeeze(piece, '
    "axis=axis)), the inputs' own size-1 axes must stay. Right for inputs without size-1 axes; "
    'a wrong-axis claim is false.'
)

SOURCE = '''
@staticmethod
@shape_errors
def stack(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """Join equally shaped tensors along a NEW ``axis``: 3 × (4,5) -> (3,4,5) for axis=0."""
    tensors = tuple(Tensor._as_tensor(t) for t in tensors)
    out_data = np.stack([t.data for t in tensors], axis=axis)

    def _backward(g):
        return tuple(np.squeeze(p) for p in np.split(g, len(tensors), axis=axis))

    return Tensor._make(out_data, tensors, "stack", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    x = np.array([[0.5], [-1.0], [2.0]])
    y = np.array([[1.5], [0.25], [-2.0]])
    compare(mt, lambda m, a, b: m.stack([a, b], axis=0),
            lambda t, a, b: t.stack([a, b], dim=0), [x, y])
