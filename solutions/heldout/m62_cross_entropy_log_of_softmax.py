"""Held-out learner mistake 62: cross_entropy_log_of_softmax (cross_entropy, numerical-stability).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'cross_entropy'
OP = 'cross_entropy'
KIND = 'numerical-stability'
DESCRIPTION = (
    'cross_entropy takes np.log of the (max-shifted) softmax probabilities instead of log-sum-'
    "exp: a target probability that underflows to 0 (a logit 800 below the row's max) gives log"
    ' 0 = -inf and an infinite loss where torch has about 800.'
)
APT = (
    'Should name cross_entropy and say the forward loses the small probabilities: compute log '
    'probabilities as z - log Σ e^z, never log(softmax). The gradient (softmax - onehot)/N is '
    'right and so is every case without a tiny probability; a wrong-formula or scale claim '
    'about the gradient is false.'
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
    e = np.exp(z)
    log_probs = np.log(e / e.sum(axis=1, keepdims=True))  # (N, C)
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

    z = np.array([[0.0, -800.0, 1.0], [3.0, 0.0, -1.0]])
    targets = np.array([1, 0])
    compare(mt, lambda m, x: m.cross_entropy(x, targets),
            lambda t, x: t.nn.functional.cross_entropy(x, torch.tensor(targets)), [z])
