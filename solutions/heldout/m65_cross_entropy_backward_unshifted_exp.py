"""Held-out learner mistake 65: cross_entropy_backward_unshifted_exp (cross_entropy, numerical-stability).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'cross_entropy'
OP = 'cross_entropy'
KIND = 'numerical-stability'
DESCRIPTION = (
    "cross_entropy's forward is stable, but its backward recomputes the softmax as e^logits / Σ"
    ' e^logits from the raw logits: a logit of 800 gives inf/inf = nan in the gradient while '
    'the loss is finite.'
)
APT = (
    'Should name cross_entropy and say the backward overflows for large logits (the gradient is'
    ' nan although the loss is right): reuse the stable log-probabilities, exp(log_probs). '
    'Small logits are right; a forward or scale claim is false.'
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
    raw = logits.data
    z = logits.data - logits.data.max(axis=1, keepdims=True)  # (N, C), max 0 per row
    log_probs = z - np.log(np.exp(z).sum(axis=1, keepdims=True))  # (N, C)
    loss = np.array(-log_probs[rows, targets].mean())

    def _backward(g):
        e = np.exp(raw)
        grad = e / e.sum(axis=1, keepdims=True)  # softmax, (N, C)
        grad[rows, targets] -= 1.0
        return (grad * (g / n),)

    return Tensor._make(loss, (logits,), "cross_entropy", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    import torch

    z = np.array([[800.0, 0.0, -1.0], [1.0, 2.0, 3.0]])
    targets = np.array([0, 1])
    compare(mt, lambda m, x: m.cross_entropy(x, targets),
            lambda t, x: t.nn.functional.cross_entropy(x, torch.tensor(targets)), [z])
