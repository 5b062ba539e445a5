"""Held-out learner mistake 12: gelu_exact_uses_tanh_derivative (gelu, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.gelu'
OP = 'gelu'
KIND = 'wrong-formula'
DESCRIPTION = (
    "For approximate='none' the forward is the exact a·Φ(a) but the backward uses the "
    "tanh-approximation's derivative (mixed the two formulas)."
)
APT = (
    "Should name gelu (approximate='none') and say the exact derivative Φ(a) + a·φ(a) is "
    'needed; the error is small (around 1e-4) but far above the 1e-7 torch tolerance, and '
    "approximate='tanh' is correct. Must not blame the forward or the tanh variant."
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
        local = 0.5 * (1.0 + t) + 0.5 * a * (1.0 - t * t) * k * (1.0 + 3 * 0.044715 * a * a)
    else:
        cdf = 0.5 * (1.0 + _erf(a / math.sqrt(2.0)))
        out_data = a * cdf
        k = math.sqrt(2.0 / math.pi)
        t = np.tanh(k * (a + 0.044715 * a**3))
        local = 0.5 * (1.0 + t) + 0.5 * a * (1.0 - t * t) * k * (1.0 + 3 * 0.044715 * a * a)
    out = Tensor._make(out_data, (self,), "gelu")

    def _backward(g):
        return (g * local,)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([-2.0, -0.7, 0.3, 1.1, 2.5])
    compare(mt, lambda m, x: x.gelu(), lambda t, x: t.nn.functional.gelu(x), [a])
