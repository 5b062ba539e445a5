"""minitorch.mlp: the chapter's closing MLP, trained by hand with YOUR minitorch.

This is the file you fill in in lab 05 (notebooks/en/05-mlp-grammar.ipynb): the initial weights,
the forward pass and the training loop, with nothing but your Tensor (no optimizer classes: they
come in the next chapter). The course grades this interface: keep the names HIDDEN, LR, STEPS,
init_params, forward and train, and their arguments. Run ``make check`` to see your progress.
(Generated from the reference by ``make stubs``; the docstrings below are your specification.)
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
    raise NotImplementedError("init_params: not written yet (notebooks/en/05-mlp-grammar.ipynb)")


def forward(params: dict[str, mt.Tensor], X: mt.Tensor) -> mt.Tensor:
    """Logits ``(N, 5)`` for ``X (N, 23)``: ``tanh(X @ W1 + b1) @ W2 + b2``.

    ``params`` holds Tensors with the names ``init_params`` gives; with ``W`` and ``b`` (the
    linear baseline) the logits are ``X @ W + b``. The biases broadcast over the N rows.
    """
    raise NotImplementedError("forward: not written yet (notebooks/en/05-mlp-grammar.ipynb)")


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
    raise NotImplementedError("train: not written yet (notebooks/en/05-mlp-grammar.ipynb)")
