"""minitorch.mlp: el MLP que cierra el capítulo, entrenado a mano con TU minitorch.

Este es el fichero que completas en el lab 05 (notebooks/05-mlp-grammar.ipynb): los pesos
iniciales, el forward y el bucle de entrenamiento, solo con tu Tensor (sin clases de optimizador:
llegan en el capítulo siguiente). El curso califica esta interfaz: conserva los nombres HIDDEN,
LR, STEPS, init_params, forward y train, y sus argumentos. Ejecuta ``make check`` para ver tu
progreso. (Generado a partir de la referencia por ``make stubs``; los docstrings de abajo son tu
especificación.)
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
    """Pesos iniciales como arrays float64, con ``np.random.default_rng(seed)``.

    ``hidden > 0``: ``W1 (23, hidden)``, ``b1 (hidden,)``, ``W2 (hidden, 5)``, ``b2 (5,)``;
    ``hidden == 0``: el baseline lineal, ``W (23, 5)``, ``b (5,)``. Cada matriz de pesos se
    sortea de N(0, 1/fan_in) (``W1`` antes que ``W2``); cada sesgo es cero.
    """
    raise NotImplementedError("init_params: aún sin escribir / not written yet (notebooks/05-mlp-grammar.ipynb)")


def forward(params: dict[str, mt.Tensor], X: mt.Tensor) -> mt.Tensor:
    """Logits ``(N, 5)`` para ``X (N, 23)``: ``tanh(X @ W1 + b1) @ W2 + b2``.

    ``params`` contiene Tensors con los nombres que da ``init_params``; con ``W`` y ``b`` (el
    baseline lineal) los logits son ``X @ W + b``. Los sesgos se expanden sobre las N filas.
    """
    raise NotImplementedError("forward: aún sin escribir / not written yet (notebooks/05-mlp-grammar.ipynb)")


def train(
    params0: dict[str, np.ndarray],
    X: np.ndarray,
    y: np.ndarray,
    lr: float = LR,
    steps: int = STEPS,
    batches: Sequence[np.ndarray] | None = None,
) -> tuple[dict[str, np.ndarray], list[float]]:
    """Descenso por gradiente desde ``params0`` (arrays, sin tocarlos) sobre ``X (N, 23)``, ``y (N,)``.

    El paso ``s`` usa las filas ``batches[s]`` de ``X`` e ``y`` (todas cuando ``batches`` es
    None): forward, la entropía cruzada media (``mt.cross_entropy``), su valor registrado ANTES
    de la actualización, y después ``zero_grad()``, ``backward()`` y ``p.data -= lr * p.grad``
    para cada parámetro. Devuelve los pesos entrenados (arrays) y las ``steps`` pérdidas (floats).
    """
    raise NotImplementedError("train: aún sin escribir / not written yet (notebooks/05-mlp-grammar.ipynb)")
