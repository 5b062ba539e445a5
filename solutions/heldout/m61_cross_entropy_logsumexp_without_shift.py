"""Held-out learner mistake 61: cross_entropy_logsumexp_without_shift (cross_entropy, numerical-stability).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'cross_entropy'
OP = 'cross_entropy'
KIND = 'numerical-stability'
DESCRIPTION = (
    'cross_entropy computes log Σ e^z directly on the logits, without subtracting the row max '
    'first: a logit of 1000 makes e^z inf, the loss inf and the gradient nan.'
)
APT = (
    "Should name cross_entropy and say it overflows for large logits: subtract each row's max "
    'before the exponentials (log-sum-exp). Small logits give right values and gradients; a '
    'wrong-formula, sign or scale claim is false.'
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
    z = logits.data
    log_probs = z - np.log(np.exp(z).sum(axis=1, keepdims=True))  # (N, C)
    loss = np.array(-log_probs[rows, targets].mean())

    def _backward(g):
        grad = np.exp(log_probs)  # softmax, (N, C)
        grad[rows, targets] -= 1.0
        return (grad * (g / n),)

    return Tensor._make(loss, (logits,), "cross_entropy", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    import torch

    z = np.array([[1000.0, 0.0, -3.0], [2.0, 1.0, 0.5], [0.1, -0.2, 0.3]])
    targets = np.array([0, 2, 1])
    compare(mt, lambda m, x: m.cross_entropy(x, targets),
            lambda t, x: t.nn.functional.cross_entropy(x, torch.tensor(targets)), [z])
