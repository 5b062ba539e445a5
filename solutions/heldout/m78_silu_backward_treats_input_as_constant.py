"""Held-out learner mistake 78: silu_backward_treats_input_as_constant (silu, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.silu'
OP = 'silu'
KIND = 'wrong-formula'
DESCRIPTION = (
    "silu's backward returns g·σ(a): a·σ(a) is differentiated as if the factor a were a "
    'constant, the term a·σ(a)(1-σ(a)) is missing.'
)
APT = (
    'Should name silu and say its derivative is σ(a)·(1 + a·(1 - σ(a))) (product rule), the '
    "a·σ'(a) term is missing. Not a constant factor or missing upstream."
)

SOURCE = '''
def silu(self) -> Tensor:
    """a·σ(a) (a.k.a. swish); d/da = σ(a)·(1 + a·(1 - σ(a))). (...) -> (...)."""
    a = self.data
    s = _sigmoid(a)

    def _backward(g):
        return (g * s,)

    return Tensor._make(a * s, (self,), "silu", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([-3.0, -0.5, 0.0, 0.7, 2.0])
    compare(mt, lambda m, x: x.silu(), lambda t, x: t.nn.functional.silu(x), [a])
