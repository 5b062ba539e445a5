"""Held-out learner mistake 98: cross_entropy_none_upstream_not_per_row (cross_entropy,
missing-upstream).

Written after issue 25's diagnosis changes, by the engineer who made them, to test them on a
mistake they were not written for (see SCORES-2.md, "after"). Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'cross_entropy'
OP = 'cross_entropy'
KIND = 'missing-upstream'
DESCRIPTION = (
    "cross_entropy(reduction='none') returns one loss per row, so its upstream gradient g has "
    "shape (N,); the backward multiplies the (N, C) gradient by g as if it were one number "
    "(grad * g), which NumPy cannot broadcast when N != C (and lines g up with the classes "
    "when N == C)."
)
APT = (
    "Should name cross_entropy's backward with reduction='none' and point at the product of "
    "the (N, C) gradient with the (N,) upstream g: each row's g[i] scales row i (g[:, None]). "
    "A claim about the forward, the max shift or the mean's divisor is false."
)

SOURCE = '''
@staticmethod
def cross_entropy(logits: Tensor, targets: Any, reduction: str = "mean") -> Tensor:
    """per-row -log softmax(logits)[i, targets[i]], reduced by 'mean', 'sum' or 'none'."""
    logits = Tensor._as_tensor(logits)
    targets = _class_targets(targets, logits.shape)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"cross_entropy: bad reduction {reduction!r}")
    n = logits.shape[0]
    rows = np.arange(n)
    z = logits.data - logits.data.max(axis=1, keepdims=True)
    log_probs = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    losses = -log_probs[rows, targets]
    if reduction == "mean":
        losses = losses.mean()
    elif reduction == "sum":
        losses = losses.sum()

    def _backward(g):
        grad = np.exp(log_probs)
        grad[rows, targets] -= 1.0
        if reduction == "mean":
            return (grad * g / n,)
        return (grad * g,)

    return Tensor._make(losses, (logits,), "cross_entropy", _backward)
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    z = np.array([[0.5, -1.0, 2.0], [1.5, 0.2, -0.3], [0.0, 1.0, -2.0], [2.5, -0.5, 0.1]])
    targets = np.array([2, 0, 1, 0])
    compare(mt, lambda m, a: m.cross_entropy(a, targets, reduction="none"),
            lambda t, a: t.nn.functional.cross_entropy(a, t.as_tensor(targets),
                                                       reduction="none"), [z])
