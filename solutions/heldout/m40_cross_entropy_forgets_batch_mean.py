"""Held-out learner mistake 40: cross_entropy_forgets_batch_mean (cross_entropy, wrong-scale).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'cross_entropy'
OP = 'cross_entropy'
KIND = 'wrong-scale'
DESCRIPTION = (
    "cross_entropy's forward takes the mean over the batch but its backward returns softmax - "
    'onehot without dividing by N.'
)
APT = (
    'Should name cross_entropy and the missing 1/N (batch size) in the gradient; with N = 1 it '
    'is correct. The forward value is right. It is a constant factor N here, which is fine to '
    'say.'
)

SOURCE = '''
def cross_entropy(logits: Tensor, targets: Any) -> Tensor:
    """Mean over the batch of -log softmax(logits)[i, targets[i]]: (N, C), (N,) ints -> ().

    Fused through log-sum-exp, so logits of ±1e4 stay finite; the gradient with respect to
    the logits is (softmax(logits) - onehot(targets)) / N.
    """
    logits = _as_tensor(logits)
    targets = _class_targets(targets, logits.shape)
    ### BEGIN SOLUTION
    n = logits.shape[0]
    rows = np.arange(n)
    z = logits.data - logits.data.max(axis=1, keepdims=True)  # (N, C), max 0 per row
    log_probs = z - np.log(np.exp(z).sum(axis=1, keepdims=True))  # (N, C)
    out = Tensor._make(np.array(-log_probs[rows, targets].mean()), (logits,), "cross_entropy")

    def _backward(g):
        grad = np.exp(log_probs)  # softmax, (N, C)
        grad[rows, targets] -= 1.0
        return (grad * g,)

    out._backward = _backward
    return out
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    logits = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 2.0], [0.3, 0.3, 0.1], [2.0, 1.0, 0.0]])
    y = np.array([1, 2, 0, 0])
    compare(mt, lambda m, x: m.cross_entropy(x, y),
            lambda t, x: t.nn.functional.cross_entropy(x, t.tensor(y)), [logits])
