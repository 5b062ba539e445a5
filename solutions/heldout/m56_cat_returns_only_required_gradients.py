"""Held-out learner mistake 56: cat_returns_only_required_gradients (cat, constant-operand).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'cat'
OP = 'cat'
KIND = 'constant-operand'
DESCRIPTION = (
    "cat's backward returns the gradient pieces only for the tensors that require grad, "
    'skipping the constants. The engine pairs gradients with parents by position, so after a '
    'constant every tensor receives the piece of the tensor before it (silently wrong when the '
    'pieces have the same shape).'
)
APT = (
    'Should name cat and say the gradients are shifted when one of the joined tensors is a '
    "constant: _backward must return one piece per input, in order (the constant's may be "
    'None). Splits, offsets and axis are right; a wrong-axis or wrong-split claim is false.'
)

SOURCE = '''
@shape_errors
def cat(tensors: Sequence[Tensor], axis: int = 0) -> Tensor:
    """Join tensors along an existing ``axis``: (2,5), (3,5) -> (5,5) for axis=0."""
    tensors = tuple(Tensor._as_tensor(t) for t in tensors)
    out_data = np.concatenate([t.data for t in tensors], axis=axis)
    splits = np.cumsum([t.shape[axis] for t in tensors])[:-1]
    needs = [t.requires_grad for t in tensors]

    def _backward(g):
        pieces = np.split(g, splits, axis=axis)
        return tuple(p for p, need in zip(pieces, needs) if need)  # constants need none

    return Tensor._make(out_data, tensors, "cat", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    c = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -2.0]])
    y = np.array([[-0.3, 0.8, 1.1], [2.2, -1.4, 0.6]])
    compare(mt, lambda m, a, b, d: m.cat([a, b, d], axis=0),
            lambda t, a, b, d: t.cat([a, b, d], dim=0), [c, x, y],
            requires_grad=[False, True, True])
