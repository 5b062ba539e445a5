"""The chapter's closing MLP, as helpers for the tests (the notebook writes its loop in full).

It is also the reference answer of the learner's MLP file (``HIDDEN``, ``LR``, ``STEPS``,
``init_params``, ``forward``, ``train``: the interface ``minitorch_course.mlp_checks`` grades).

Only the learner's engine is used: ``mt.Tensor``, ``@``, ``.tanh()``, ``mt.cross_entropy``,
``backward()``, ``p.data -= lr * p.grad`` and ``zero_grad()``. ``train_torch`` replays the same
run in PyTorch float64 for the end-to-end cross-check; torch is imported there and only there.

``hidden=0`` gives the linear baseline (23 -> 5, no hidden layer), trained the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import minitorch as mt
from minitorch_course.grammar import accuracy

HIDDEN = 32
STEPS = 500
LR = 1.0


def init_params(seed: int = 0, hidden: int = HIDDEN, n_in: int = 23, n_out: int = 5) -> dict:
    """Initial weights as float64 arrays: W ~ N(0, 1/fan_in), biases 0.

    ``hidden > 0``: ``W1 (n_in, hidden), b1 (hidden,), W2 (hidden, n_out), b2 (n_out,)``;
    ``hidden == 0``: the linear baseline, ``W (n_in, n_out), b (n_out,)``.
    """
    rng = np.random.default_rng(seed)
    if hidden == 0:
        return {"W": rng.standard_normal((n_in, n_out)) / np.sqrt(n_in), "b": np.zeros(n_out)}
    return {
        "W1": rng.standard_normal((n_in, hidden)) / np.sqrt(n_in),
        "b1": np.zeros(hidden),
        "W2": rng.standard_normal((hidden, n_out)) / np.sqrt(hidden),
        "b2": np.zeros(n_out),
    }


def forward(params: dict, X):
    """Logits (N, 5) from minitorch tensors (or torch tensors: the same expression works)."""
    if "W" in params:
        return X @ params["W"] + params["b"]  # (N, 5)
    h = (X @ params["W1"] + params["b1"]).tanh()  # (N, hidden)
    return h @ params["W2"] + params["b2"]  # (N, 5)


@dataclass
class History:
    """Per-step metrics, each measured BEFORE that step's update (step 0 = initial weights)."""

    loss: list[float] = field(default_factory=list)
    val_loss: list[float] = field(default_factory=list)
    acc: list[float] = field(default_factory=list)
    val_acc: list[float] = field(default_factory=list)
    params: dict = field(default_factory=dict)  # final weights, as arrays


def train_minitorch(
    params0: dict,
    X: np.ndarray,
    y: np.ndarray,
    steps: int = STEPS,
    lr: float = LR,
    X_val: np.ndarray | None = None,
    y_val: np.ndarray | None = None,
) -> History:
    """Full-batch gradient descent written by hand with minitorch; returns the History."""
    params = {k: mt.Tensor(v.copy(), requires_grad=True) for k, v in params0.items()}
    Xt = mt.Tensor(X)
    Xv = None if X_val is None else mt.Tensor(X_val)
    hist = History()
    for _ in range(steps):
        logits = forward(params, Xt)
        loss = mt.cross_entropy(logits, y)
        hist.loss.append(loss.item())
        hist.acc.append(accuracy(logits, y))
        if Xv is not None:
            with mt.no_grad():
                val_logits = forward(params, Xv)
                hist.val_loss.append(mt.cross_entropy(val_logits, y_val).item())
            hist.val_acc.append(accuracy(val_logits, y_val))
        for p in params.values():
            p.zero_grad()
        loss.backward()
        for p in params.values():
            p.data -= lr * p.grad
    hist.params = {k: p.data.copy() for k, p in params.items()}
    return hist


def train(
    params0: dict, X: np.ndarray, y: np.ndarray, lr: float = LR, steps: int = STEPS,
    batches=None,
) -> tuple[dict, list[float]]:
    """The learner's interface (``mlp_checks``): train from ``params0`` (arrays, left untouched).

    Step ``s`` uses the rows ``batches[s]`` of ``X`` and ``y`` (every row when ``batches`` is
    None); its loss is recorded before its update. Returns the trained weights (arrays) and the
    ``steps`` losses.
    """
    params = {k: mt.Tensor(np.array(v, dtype=np.float64), requires_grad=True)
              for k, v in params0.items()}
    losses = []
    for step in range(steps):
        rows = slice(None) if batches is None else batches[step]
        loss = mt.cross_entropy(forward(params, mt.Tensor(X[rows])), y[rows])
        losses.append(loss.item())
        for p in params.values():
            p.zero_grad()
        loss.backward()
        for p in params.values():
            p.data -= lr * p.grad
    return {k: p.data.copy() for k, p in params.items()}, losses


def train_torch(
    params0: dict, X: np.ndarray, y: np.ndarray, steps: int = STEPS, lr: float = LR
) -> list[float]:
    """The same run in PyTorch float64 (same weights, data and updates): per-step losses."""
    import torch  # lazy: minitorch never needs torch

    params = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in params0.items()}
    Xt = torch.tensor(X, dtype=torch.float64)
    yt = torch.tensor(y, dtype=torch.int64)
    losses = []
    # Tensors this small gain nothing from threads; on a busy 2-core machine the thread pool made
    # this loop 20x slower (7.5 s vs 0.4 s). Restored on exit.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for _ in range(steps):
            loss = torch.nn.functional.cross_entropy(forward(params, Xt), yt)
            losses.append(loss.item())
            for p in params.values():
                p.grad = None
            loss.backward()
            with torch.no_grad():
                for p in params.values():
                    p -= lr * p.grad
    finally:
        torch.set_num_threads(threads)
    return losses
