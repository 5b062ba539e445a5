"""Held-out learner mistake 51: accumulate_aliases_and_adds_in_place (engine, engine-aliasing).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import assert_close

TARGET = '_accumulate'
OP = 'engine'
KIND = 'engine-aliasing'
DESCRIPTION = (
    "_accumulate stores the incoming array itself as a tensor's first gradient and adds later "
    'ones in place (+=): two leaves of an add share one gradient array (and broadcast views are '
    'read-only), so a later accumulation into one silently changes the other.'
)
APT = (
    "Should point to gradient aliasing / in-place accumulation in the engine: a leaf's .grad "
    'must be its own array (copy the first one, accumulate out of place). Single backward '
    'passes usually look right; it shows on a later accumulation. No op formula is wrong.'
)

SOURCE = '''
def _accumulate(node: Tensor, g: np.ndarray, grad_output: np.ndarray) -> None:
    """``node.grad += g``, never in place; a leaf's gradient never aliases another array."""
    if node.grad is None:
        node.grad = g
    else:
        node.grad += g
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    import torch

    a0, b0 = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 4.0])
    up = np.array([1.0, -2.0, 0.5])
    a = mt.Tensor(a0, requires_grad=True)
    b = mt.Tensor(b0, requires_grad=True)
    (a + b).backward(up)
    (a * 3.0).sum().backward()
    ta = torch.tensor(a0, requires_grad=True)
    tb = torch.tensor(b0, requires_grad=True)
    (ta + tb).backward(torch.tensor(up))
    (ta * 3.0).sum().backward()
    assert_close(a.grad, ta.grad.numpy(), "a.grad")
    assert_close(b.grad, tb.grad.numpy(), "b.grad")
