"""What lab 05 shows about a training run of the learner's MLP file: curves, gradient norms.

The learner's ``train(params0, X, y, lr, steps)`` returns only the final weights and the losses.
:func:`history` replays the same run one step at a time (``train(..., steps=1)`` from the weights
the previous step returned: full-batch gradient descent keeps no other state, so the losses are
exactly those of one long run) and measures, at each step's weights BEFORE its update, the
accuracies, the validation loss, each parameter's gradient norm and how saturated the tanh units
are. Nothing here trains a model itself: every update is the learner's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

from minitorch_course import grammar as g


@dataclass
class History:
    """Per-step metrics, each measured BEFORE that step's update (step 0 = initial weights)."""

    loss: list[float] = field(default_factory=list)
    acc: list[float] = field(default_factory=list)
    val_loss: list[float] = field(default_factory=list)
    val_acc: list[float] = field(default_factory=list)
    grad_norm: dict[str, list[float]] = field(default_factory=dict)  # parameter -> per step
    saturated: list[float] = field(default_factory=list)  # fraction of |tanh| > SATURATED
    params: dict[str, np.ndarray] = field(default_factory=dict)  # final weights, as arrays


SATURATED = 0.99  # |tanh(a)| above this: tanh'(a) = 1 - tanh² < 0.02, the unit barely learns


def _tensors(params: dict[str, np.ndarray], requires_grad: bool = False) -> dict:
    import minitorch as mt

    return {k: mt.Tensor(np.array(v, dtype=np.float64), requires_grad=requires_grad)
            for k, v in params.items()}


def gradients(module: ModuleType, params: dict[str, np.ndarray], X: np.ndarray,
              y: np.ndarray) -> dict[str, np.ndarray]:
    """d(mean cross-entropy)/d(each parameter) at ``params``, through the learner's forward."""
    import minitorch as mt

    tensors = _tensors(params, requires_grad=True)
    mt.cross_entropy(module.forward(tensors, mt.Tensor(X)), y).backward()
    return {k: np.zeros_like(p.data) if p.grad is None else p.grad.copy()
            for k, p in tensors.items()}


def history(module: ModuleType, params0: dict[str, np.ndarray], X: np.ndarray, y: np.ndarray,
            X_val: np.ndarray, y_val: np.ndarray, lr: float, steps: int,
            grads: bool = True) -> History:
    """The learner's run of ``steps`` full-batch steps from ``params0``, measured step by step.

    ``grads``: also each parameter's gradient norm and the hidden layer's saturation (an extra
    forward and backward per step).
    """
    import minitorch as mt

    hist = History()
    params = {k: np.array(v, dtype=np.float64) for k, v in params0.items()}
    Xt, Xv = mt.Tensor(X), mt.Tensor(X_val)
    for _ in range(steps):
        with mt.no_grad():
            logits = module.forward(_tensors(params), Xt)
            val_logits = module.forward(_tensors(params), Xv)
            hist.val_loss.append(mt.cross_entropy(val_logits, y_val).item())
        hist.acc.append(g.accuracy(logits, y))
        hist.val_acc.append(g.accuracy(val_logits, y_val))
        if grads:
            for name, grad in gradients(module, params, X, y).items():
                hist.grad_norm.setdefault(name, []).append(float(np.linalg.norm(grad)))
            if "W1" in params:
                h = np.tanh(X @ params["W1"] + params["b1"])  # (N, hidden): a measurement only
                hist.saturated.append(float((np.abs(h) > SATURATED).mean()))
        params, losses = module.train(params, X, y, lr=lr, steps=1)
        hist.loss.extend(float(v) for v in losses)
    hist.params = params
    return hist


def cells_right(module: ModuleType, params: dict[str, np.ndarray]) -> np.ndarray:
    """(20, 3) bool: which of the grid's 60 cells the trained model labels as the rule does."""
    import minitorch as mt

    verb, person = np.divmod(np.arange(g.N_VERBS * g.N_PERSONS), g.N_PERSONS)
    with mt.no_grad():
        logits = module.forward(_tensors(params), mt.Tensor(g.encode(verb, person)))
    right = g.predict(logits) == g.label_table()[verb, person]
    return right.reshape(g.N_VERBS, g.N_PERSONS)
