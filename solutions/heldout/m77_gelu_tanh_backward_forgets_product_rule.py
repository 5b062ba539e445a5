"""Held-out learner mistake 77: gelu_tanh_backward_forgets_product_rule (gelu, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.gelu'
OP = 'gelu'
KIND = 'wrong-formula'
DESCRIPTION = (
    "For gelu's tanh form 0.5·a·(1 + tanh u) the backward is 0.5·(1 + tanh u) only: the term "
    "0.5·a·(1 - tanh² u)·u' of the product rule is missing."
)
APT = (
    "Should name gelu (the tanh form) and say the product rule's second term 0.5·a·(1 - "
    'tanh²u)·du/da is missing. The exact form is right; not a constant factor.'
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
        local = 0.5 * (1.0 + t)
    else:
        cdf = 0.5 * (1.0 + _erf(a / math.sqrt(2.0)))
        out_data = a * cdf
        local = cdf + a * np.exp(-0.5 * a * a) / math.sqrt(2.0 * math.pi)

    def _backward(g):
        return (g * local,)

    return Tensor._make(out_data, (self,), "gelu", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([-2.0, -0.5, 0.3, 1.0, 2.5])
    compare(mt, lambda m, x: x.gelu(approximate="tanh"),
            lambda t, x: t.nn.functional.gelu(x, approximate="tanh"), [a])
