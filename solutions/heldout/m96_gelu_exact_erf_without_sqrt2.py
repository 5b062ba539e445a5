"""Held-out learner mistake 96: gelu_exact_erf_without_sqrt2 (gelu, wrong-formula).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.gelu'
OP = 'gelu'
KIND = 'wrong-formula'
DESCRIPTION = (
    'The exact gelu uses Φ(a) = ½(1 + erf(a)), forgetting to divide by √2 inside erf (that is '
    'the CDF of a normal with variance ½): forward and backward are both off.'
)
APT = (
    'Should name gelu (the exact form) and say Φ(a) = ½(1 + erf(a/√2)): the /√2 is missing. The'
    ' forward is wrong (not only the backward); the tanh form is right.'
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
        cdf = 0.5 * (1.0 + _erf(a))
        out_data = a * cdf
        local = cdf + a * np.exp(-0.5 * a * a) / math.sqrt(2.0 * math.pi)

    def _backward(g):
        return (g * local,)

    return Tensor._make(out_data, (self,), "gelu", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([-2.0, -0.5, 0.3, 1.0, 2.5])
    compare(mt, lambda m, x: x.gelu(), lambda t, x: t.nn.functional.gelu(x), [a])
