"""Held-out learner mistake 50: accumulate_assigns_instead_of_adding (engine, engine-accumulation).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = '_accumulate'
OP = 'engine'
KIND = 'engine-accumulation'
DESCRIPTION = (
    '_accumulate writes node.grad = g instead of adding g to an existing gradient, so a tensor '
    'used twice keeps only the last contribution (and leaf grads do not accumulate across '
    'backward calls).'
)
APT = (
    'Should point to gradient accumulation (+= across uses of a tensor in one graph and across '
    'backward calls). Graphs where every tensor is used once pass. Must not blame the op that '
    'reuses the tensor (x * x looks like a mul bug but is not).'
)

SOURCE = '''
def _accumulate(node: Tensor, g: np.ndarray, grad_output: np.ndarray) -> None:
    """``node.grad += g``, never in place; a leaf's gradient never aliases another array."""
    if node.grad is None:
        # A leaf's .grad is the user's (an optimizer may update it in place): it must not be a
        # read-only broadcast view or the very array handed to a sibling. An intermediate
        # node's gradient is only read by its own _backward, so it can share.
        shared = g is grad_output or g.base is not None
        node.grad = g.copy() if shared and not node._prev else g
    else:
        node.grad = g
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([0.5, -1.0, 2.0])
    compare(mt, lambda m, x: x * x.tanh(), lambda t, x: x * x.tanh(), [a])
