"""Held-out learner mistake 76: gelu_exact_backward_forgets_product_rule (gelu, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.gelu'
OP = 'gelu'
KIND = 'wrong-formula'
DESCRIPTION = (
    "For the exact gelu a·Φ(a) the backward uses Φ(a) only: the product rule's second term "
    'a·φ(a) is forgotten (as if a·Φ(a) were linear in a).'
)
APT = (
    'Should name gelu (the exact form) and say its derivative is Φ(a) + a·φ(a) (product rule), '
    'the a·φ(a) term is missing. The tanh form is right; not a constant factor.'
)

SOURCE = '''
def gelu(self, approximate: str = "none") -> Tensor:
    """a·Φ(a), Φ the standard normal CDF; ``approximate='tanh'`` uses torch's tanh formula.

    exact: d/da = Φ(a) + a·φ(a);  tanh: 0.5·a·(1 + tanh(u)), u = √(2/π)·(a + 0.044715·a³).
    """
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    a = self.data
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        t = np.tanh(k * (a + 0.044715 * a**3))
        out_data = 0.5 * a * (1.0 + t)
        local = 0.5 * (1.0 + t) + 0.5 * a * (1.0 - t * t) * k * (1.0 + 3 * 0.044715 * a * a)
    else:
        cdf = 0.5 * (1.0 + _erf(a / math.sqrt(2.0)))
        out_data = a * cdf
        local = cdf

    def _backward(g):
        return (g * local,)

    return Tensor._make(out_data, (self,), "gelu", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([-2.0, -0.5, 0.3, 1.0, 2.5])
    compare(mt, lambda m, x: x.gelu(), lambda t, x: t.nn.functional.gelu(x), [a])
