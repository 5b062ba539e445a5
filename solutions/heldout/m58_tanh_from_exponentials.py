"""Held-out learner mistake 58: tanh_from_exponentials (tanh, numerical-stability).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.tanh'
OP = 'tanh'
KIND = 'numerical-stability'
DESCRIPTION = (
    "tanh's forward is written from its definition, (e^a - e^-a) / (e^a + e^-a): for |a| above "
    'about 710 the exponentials overflow and the output is nan (inf/inf) instead of ±1.'
)
APT = (
    'Should name tanh and say the forward overflows for large |a| (nan for |a| ≳ 710): use '
    'np.tanh, or a form without e^|a|. Values for moderate a and the backward are right; a '
    'wrong-derivative claim is false.'
)

SOURCE = '''
def tanh(self) -> Tensor:
    """tanh a, elementwise; d/da = 1 - tanh²a. (...) -> (...)."""
    a = self.data
    up, down = np.exp(a), np.exp(-a)
    t = (up - down) / (up + down)

    def _backward(g):
        return (g * (1.0 - t * t),)

    return Tensor._make(t, (self,), "tanh", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([-800.0, -20.0, -0.5, 0.0, 1.5, 30.0, 800.0])
    compare(mt, lambda m, x: x.tanh(), lambda t, x: x.tanh(), [a])
