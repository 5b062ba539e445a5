"""Held-out learner mistake 60: gelu_tanh_form_tanh_from_exponentials (gelu, numerical-stability).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.gelu'
OP = 'gelu'
KIND = 'numerical-stability'
DESCRIPTION = (
    "In gelu's approximate='tanh' branch the learner writes tanh(u) as (e^(2u) - 1)/(e^(2u) + "
    '1); u grows like a³, so from a ≈ 10 on e^(2u) overflows and the output (and gradient) is '
    'nan instead of a.'
)
APT = (
    'Should name gelu (the tanh form) and say it overflows for large positive a (nan): use '
    'np.tanh. The exact form, moderate values and the derivative formula are right; a wrong-'
    'formula claim is false.'
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
        e2u = np.exp(2.0 * k * (a + 0.044715 * a**3))
        t = (e2u - 1.0) / (e2u + 1.0)  # tanh u from its definition
        out_data = 0.5 * a * (1.0 + t)
        local = 0.5 * (1.0 + t) + 0.5 * a * (1.0 - t * t) * k * (1.0 + 3 * 0.044715 * a * a)
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
    a = np.array([-30.0, -2.0, 0.5, 3.0, 12.0, 30.0])
    compare(mt, lambda m, x: x.gelu(approximate="tanh"),
            lambda t, x: t.nn.functional.gelu(x, approximate="tanh"), [a])
