"""minitorch.mlp: the chapter's closing MLP, trained by hand with minitorch on the grammatical grid.

Reference answer. The learner's starting point, ``src/minitorch/mlp.py``, is generated from this
file by ``make stubs`` (``python -m minitorch_authoring.stubgen``), exactly like ``tensor.py``:
every fenced solution region becomes a ``raise NotImplementedError`` naming lab 05's notebook.
Never edit the stub by hand.

The interface is fixed, because the course grades it (``minitorch_course.mlp_checks``): the
hyper-parameters ``HIDDEN``, ``LR``, ``STEPS``, and ``init_params``, ``forward``, ``train``.
Only the learner's engine is used: ``mt.Tensor``, ``@``, ``+``, ``.tanh()``,
``mt.cross_entropy``, ``zero_grad()``, ``backward()`` and ``p.data -= lr * p.grad``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import minitorch as mt

N_FEATURES = 23  # one-hot(verb, 20) ⊕ one-hot(person, 3)
N_CLASSES = 5  # the five tenses

# ================================================================== the MLP
# @lab 05-mlp-grammar

# Your hyper-parameters: the accuracy check trains with them (at most 2000 steps, 10 s of CPU).
HIDDEN = 16  # units of the hidden layer
LR = 1.0  # learning rate of p.data -= LR * p.grad
STEPS = 300  # full-batch steps


def init_params(seed: int, hidden: int = HIDDEN) -> dict[str, np.ndarray]:
    """Initial weights as float64 arrays, from ``np.random.default_rng(seed)``.

    ``hidden > 0``: ``W1 (23, hidden)``, ``b1 (hidden,)``, ``W2 (hidden, 5)``, ``b2 (5,)``;
    ``hidden == 0``: the linear baseline, ``W (23, 5)``, ``b (5,)``. Each weight matrix is drawn
    from N(0, 1/fan_in) (``W1`` before ``W2``), each bias is zero.
    """
    ### BEGIN SOLUTION
    rng = np.random.default_rng(seed)
    if hidden == 0:
        return {"W": rng.standard_normal((N_FEATURES, N_CLASSES)) / np.sqrt(N_FEATURES),
                "b": np.zeros(N_CLASSES)}
    return {
        "W1": rng.standard_normal((N_FEATURES, hidden)) / np.sqrt(N_FEATURES),
        "b1": np.zeros(hidden),
        "W2": rng.standard_normal((hidden, N_CLASSES)) / np.sqrt(hidden),
        "b2": np.zeros(N_CLASSES),
    }
    ### END SOLUTION


def forward(params: dict[str, mt.Tensor], X: mt.Tensor) -> mt.Tensor:
    """Logits ``(N, 5)`` for ``X (N, 23)``: ``tanh(X @ W1 + b1) @ W2 + b2``.

    ``params`` holds Tensors with the names ``init_params`` gives; with ``W`` and ``b`` (the
    linear baseline) the logits are ``X @ W + b``. The biases broadcast over the N rows.
    """
    ### BEGIN SOLUTION
    if "W" in params:
        return X @ params["W"] + params["b"]  # (N, 5)
    h = (X @ params["W1"] + params["b1"]).tanh()  # (N, hidden)
    return h @ params["W2"] + params["b2"]  # (N, 5)
    ### END SOLUTION


def train(
    params0: dict[str, np.ndarray],
    X: np.ndarray,
    y: np.ndarray,
    lr: float = LR,
    steps: int = STEPS,
    batches: Sequence[np.ndarray] | None = None,
) -> tuple[dict[str, np.ndarray], list[float]]:
    """Gradient descent from ``params0`` (arrays, left untouched) on ``X (N, 23)``, ``y (N,)``.

    Step ``s`` uses the rows ``batches[s]`` of ``X`` and ``y`` (every row when ``batches`` is
    None): forward, the mean cross-entropy (``mt.cross_entropy``), its value recorded BEFORE the
    update, then ``zero_grad()``, ``backward()`` and ``p.data -= lr * p.grad`` for every
    parameter. Returns the trained weights (arrays) and the ``steps`` losses (floats).
    """
    ### BEGIN SOLUTION
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
    ### END SOLUTION
