"""Held-out learner mistake 26: getitem_assign_instead_of_add_at (getitem, scatter-indexing).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.getitem'
OP = 'getitem'
KIND = 'scatter-indexing'
DESCRIPTION = (
    "getitem's backward scatters with full[index] = g, so a repeated index keeps only the last "
    'gradient instead of accumulating all of them (np.add.at).'
)
APT = (
    'Should name getitem with repeated integer indices (e.g. x[[0, 2, 0]] or embedding '
    'lookups): the scatter must accumulate. Slices and unique indices are correct; must not '
    'call it a scale factor.'
)

SOURCE = '''
def getitem(self, index: Any) -> Tensor:
    """``a[index]``: slices, integers, integer arrays (repeated indices accumulate)."""
    if isinstance(index, Tensor):
        index = _integer_index(index)
    elif isinstance(index, tuple):
        index = tuple(_integer_index(i) if isinstance(i, Tensor) else i for i in index)
    try:
        selected = self.data[index]
    except IndexError as err:
        raise IndexError(f"getitem: {err} (tensor shape {self.shape}, index {index!r})") from None
    ### BEGIN SOLUTION
    shape = self.shape
    out = Tensor._make(selected, (self,), "getitem")

    def _backward(g):
        full = np.zeros(shape)
        full[index] = g
        return (full,)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    idx = np.array([0, 2, 0, 0])
    compare(mt, lambda m, x: x[idx], lambda t, x: x[t.tensor(idx)], [a])
