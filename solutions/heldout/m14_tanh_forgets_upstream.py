"""Held-out learner mistake 14: tanh_forgets_upstream (tanh, missing-upstream).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.tanh'
OP = 'tanh'
KIND = 'missing-upstream'
DESCRIPTION = (
    "tanh's backward returns 1 - tanh² without multiplying by the upstream gradient."
)
APT = (
    'Should name tanh and a missing multiplication by the upstream gradient g; the local '
    'derivative is right and it passes under a plain .sum(). Must not say the tanh derivative '
    'formula is wrong.'
)

SOURCE = '''
def tanh(self) -> Tensor:
    """tanh a, elementwise; d/da = 1 - tanh²a. (...) -> (...)."""
    ### BEGIN SOLUTION
    t = np.tanh(self.data)
    out = Tensor._make(t, (self,), "tanh")

    def _backward(g):
        return (1.0 - t * t,)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([[0.2, -1.0, 0.5], [1.5, 0.0, -0.3]])
    compare(mt, lambda m, x: (x.tanh() * x).sum(axis=1),
            lambda t, x: (x.tanh() * x).sum(dim=1), [a])
