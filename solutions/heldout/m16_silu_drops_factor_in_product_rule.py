"""Held-out learner mistake 16: silu_drops_factor_in_product_rule (silu, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.silu'
OP = 'silu'
KIND = 'wrong-formula'
DESCRIPTION = (
    "silu's backward is written σ(a) + a·(1-σ(a)): the second product-rule term lost its σ(a) "
    "factor (a·σ'(a) needs σ(a)(1-σ(a)))."
)
APT = (
    'Should name silu and point to the product rule term a·σ(a)(1-σ(a)); correct at a = 0 only. '
    'Must not call it a sign error or blame sigmoid.'
)

SOURCE = '''
def silu(self) -> Tensor:
    """a·σ(a) (a.k.a. swish); d/da = σ(a)·(1 + a·(1 - σ(a))). (...) -> (...)."""
    ### BEGIN SOLUTION
    a = self.data
    s = _sigmoid(a)
    out = Tensor._make(a * s, (self,), "silu")

    def _backward(g):
        return (g * (s + a * (1.0 - s)),)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([-2.0, -0.5, 0.5, 1.5, 3.0])
    compare(mt, lambda m, x: x.silu(), lambda t, x: t.nn.functional.silu(x), [a])
