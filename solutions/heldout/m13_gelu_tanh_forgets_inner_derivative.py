"""Held-out learner mistake 13: gelu_tanh_forgets_inner_derivative (gelu, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.gelu'
OP = 'gelu'
KIND = 'wrong-formula'
DESCRIPTION = (
    "In the approximate='tanh' backward the chain rule through u = k(a + 0.044715a³) is cut "
    'short: the factor (1 + 3·0.044715·a²) is left out, only k is kept.'
)
APT = (
    "Should name gelu with approximate='tanh' and point to the inner derivative du/da = k(1 + "
    '0.134145a²); the exact variant is right. Small near 0, grows with |a|; must not call it a '
    'constant factor.'
)

SOURCE = '''
def gelu(self, approximate: str = "none") -> Tensor:
    """a·Φ(a), Φ the standard normal CDF; ``approximate='tanh'`` uses torch's tanh formula.

    exact: d/da = Φ(a) + a·φ(a);  tanh: 0.5·a·(1 + tanh(u)), u = √(2/π)·(a + 0.044715·a³).
    """
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    ### BEGIN SOLUTION
    a = self.data
    if approximate == "tanh":
        k = math.sqrt(2.0 / math.pi)
        t = np.tanh(k * (a + 0.044715 * a**3))
        out_data = 0.5 * a * (1.0 + t)
        local = 0.5 * (1.0 + t) + 0.5 * a * (1.0 - t * t) * k
    else:
        cdf = 0.5 * (1.0 + _erf(a / math.sqrt(2.0)))
        out_data = a * cdf
        local = cdf + a * np.exp(-0.5 * a * a) / math.sqrt(2.0 * math.pi)
    out = Tensor._make(out_data, (self,), "gelu")

    def _backward(g):
        return (g * local,)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([-2.0, -0.7, 0.3, 1.1, 2.5])
    compare(mt, lambda m, x: x.gelu(approximate="tanh"),
            lambda t, x: t.nn.functional.gelu(x, approximate="tanh"), [a])
