"""Held-out learner mistake 73: cross_entropy_backward_drops_upstream (cross_entropy, missing-upstream).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'cross_entropy'
OP = 'cross_entropy'
KIND = 'missing-upstream'
DESCRIPTION = (
    "cross_entropy's backward returns (softmax - onehot) / N without multiplying by the "
    'upstream gradient g: right for loss.backward() (g = 1), wrong for 3 * loss or '
    'loss.backward(grad).'
)
APT = (
    'Should name cross_entropy and say the upstream gradient g (a scalar here) is not '
    'multiplied in. The loss and the gradient at g = 1 are right; a scale claim about N or a '
    'sign/onehot claim is false.'
)

SOURCE = '''
@staticmethod
def cross_entropy(logits: Tensor, targets: Any) -> Tensor:
    """Mean over the batch of -log softmax(logits)[i, targets[i]]: (N, C), (N,) ints -> ().

    Fused through log-sum-exp, so logits of ±1e4 stay finite; the gradient with respect to
    the logits is (softmax(logits) - onehot(targets)) / N.
    """
    logits = Tensor._as_tensor(logits)
    targets = _class_targets(targets, logits.shape)
    n = logits.shape[0]
    rows = np.arange(n)
    z = logits.data - logits.data.max(axis=1, keepdims=True)  # (N, C), max 0 per row
    log_probs = z - np.log(np.exp(z).sum(axis=1, keepdims=True))  # (N, C)
    loss = np.array(-log_probs[rows, targets].mean())

    def _backward(g):
        grad = np.exp(log_probs)  # softmax, (N, C)
        grad[rows, targets] -= 1.0
        return (grad / n,)

    return Tensor._make(loss, (logits,), "cross_entropy", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    import torch

    z = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5], [0.3, 0.2, 0.1], [-1.0, 2.0, 0.0]])
    targets = np.array([2, 0, 1, 1])
    compare(mt, lambda m, x: m.cross_entropy(x, targets),
            lambda t, x: t.nn.functional.cross_entropy(x, torch.tensor(targets)), [z])
