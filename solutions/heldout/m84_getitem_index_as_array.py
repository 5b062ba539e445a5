"""Held-out learner mistake 84: getitem_index_as_array (getitem, scatter-indexing).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.getitem'
OP = 'getitem'
KIND = 'scatter-indexing'
DESCRIPTION = (
    "getitem's backward converts the index to an array before scattering, np.add.at(full, "
    'np.asarray(index), g): a tuple index x[i, j] becomes the integer array [i, j], i.e. the '
    'ROWS i and j, so the gradient of one element is spread over two whole rows; a slice '
    'becomes an object array and the backward raises IndexError. Plain integers and integer '
    'arrays (repeated indices included) work.'
)
APT = (
    'Should name getitem and say a multi-axis (tuple) index is misread in the backward: scatter'
    ' with the index exactly as the forward used it (np.add.at(full, index, g)), never a '
    'converted copy; slices crash the backward. Repeated indices accumulate correctly; an '
    "'assign instead of add.at' claim is false."
)

SOURCE = '''
def getitem(self, index: Any) -> Tensor:
    """``a[index]``: slices, integers, integer arrays (repeated indices accumulate)."""
    index, selected = _select(self.data, index)  # provided: the index copied, or an IndexError
    shape = self.shape

    def _backward(g):
        full = np.zeros(shape)
        np.add.at(full, np.asarray(index), g)  # += for every occurrence of a repeated index
        return (full,)

    return Tensor._make(selected, (self,), "getitem", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.arange(12.0).reshape(3, 4) / 7.0
    compare(mt, lambda m, x: x[1, 2] * x[2, 0], lambda t, x: x[1, 2] * x[2, 0], [a])
