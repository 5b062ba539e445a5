"""Held-out learner mistake 87: cat_backward_two_tensors_only (cat, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'cat'
OP = 'cat'
KIND = 'wrong-formula'
DESCRIPTION = (
    "cat's backward splits g at one offset only, [tensors[0].shape[axis]], written for two "
    'tensors: with three or more the second piece holds every tensor after the first, so the '
    'second tensor receives a gradient of the wrong shape and the rest none.'
)
APT = (
    'Should name cat and say the split offsets must be the cumulative sizes of ALL the inputs '
    '(three or more tensors). Right for two tensors and any axis; a wrong-axis claim is false.'
)

SOURCE = '''
@staticmethod
@shape_errors
def cat(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """Join tensors along an existing ``axis``: (2,5), (3,5) -> (5,5) for axis=0."""
    tensors = tuple(Tensor._as_tensor(t) for t in tensors)
    out_data = np.concatenate([t.data for t in tensors], axis=axis)
    splits = [tensors[0].shape[axis]]

    def _backward(g):
        return tuple(np.split(g, splits, axis=axis))

    return Tensor._make(out_data, tensors, "cat", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    x = np.array([[0.5], [-1.0]])
    y = np.array([[1.0, 2.0], [-0.5, 0.25]])
    z = np.array([[0.3, -0.2, 1.1], [2.0, -1.0, 0.7]])
    compare(mt, lambda m, a, b, c: m.cat([a, b, c], axis=-1),
            lambda t, a, b, c: t.cat([a, b, c], dim=-1), [x, y, z])
