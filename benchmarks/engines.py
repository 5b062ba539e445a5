"""One adapter per autograd engine: the few things the benchmark's workloads need from it.

Every workload in ``bench.py`` is written once, over an ``Engine``. What all three engines already
share is used directly on their tensors and needs no adapter: ``+``, ``*``, ``@``,
``.sum(axis=...)``, ``.mean()``, ``.backward()``, ``.item()``. The adapter holds the rest: how to
make a tensor from an ndarray, the functions with engine-specific names, how gradients are read
and forgotten, and one SGD update. Its fields are the engines' own functions wherever they exist,
so a workload that binds them once per step adds no Python call per op.

An engine's module is imported when its adapter is first asked for (``adapter(name)``), never at
import time: PyTorch alone takes seconds to import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from operator import attrgetter
from typing import Any

import numpy as np

Tensor = Any  # an engine's tensor type


@dataclass(frozen=True)
class Engine:
    """What a workload needs from an autograd engine beyond its tensors' common operators."""

    name: str
    leaf: Callable[[np.ndarray], Tensor]  # a float64 tensor that requires grad
    constant: Callable[[np.ndarray], Tensor]  # input data: no gradient wanted
    labels: Callable[[np.ndarray], Any]  # integer class indices, as cross_entropy takes them
    tanh: Callable[[Tensor], Tensor]
    exp: Callable[[Tensor], Tensor]
    relu: Callable[[Tensor], Tensor]
    cross_entropy: Callable[[Tensor, Any], Tensor]  # (logits (N, C), labels (N,)) -> mean loss
    grad: Callable[[Tensor], np.ndarray]  # a leaf's gradient after backward, as an ndarray
    forget_grads: Callable[[list[Tensor]], None]  # before a backward, so grads do not accumulate
    sgd: Callable[[list[Tensor], float], None]  # p <- p - lr * grad, in place


def _set_grads_to_none(tensors: list[Tensor]) -> None:
    for t in tensors:
        t.grad = None


def _minitorch() -> Engine:
    import minitorch as mt

    def sgd(params: list[Tensor], lr: float) -> None:
        for p in params:
            p.data -= lr * p.grad
            p.grad = None

    return Engine(
        name="minitorch",
        leaf=lambda a: mt.Tensor(a, requires_grad=True),
        constant=mt.Tensor,
        labels=lambda a: a,  # cross_entropy takes an ndarray of class indices
        tanh=mt.Tensor.tanh,
        exp=mt.Tensor.exp,
        relu=mt.Tensor.relu,
        cross_entropy=mt.cross_entropy,
        grad=attrgetter("grad"),  # already an ndarray
        forget_grads=_set_grads_to_none,
        sgd=sgd,
    )


def _torch() -> Engine:
    import torch

    def sgd(params: list[Tensor], lr: float) -> None:
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None

    return Engine(
        name="torch",
        leaf=lambda a: torch.tensor(a, requires_grad=True),
        constant=torch.tensor,
        labels=torch.tensor,  # int64, what cross_entropy wants
        tanh=torch.tanh,
        exp=torch.exp,
        relu=torch.relu,
        cross_entropy=torch.nn.functional.cross_entropy,
        grad=lambda t: t.grad.numpy(),
        forget_grads=_set_grads_to_none,
        sgd=sgd,
    )


def _mygrad() -> Engine:
    import mygrad as mg
    from mygrad.nnet.activations import relu
    from mygrad.nnet.losses import softmax_crossentropy

    def sgd(params: list[Tensor], lr: float) -> None:
        for p in params:
            p.data[...] -= lr * p.grad

    return Engine(
        name="mygrad",
        leaf=mg.tensor,  # float tensors take gradients by default
        constant=lambda a: mg.Tensor(a, constant=True),
        labels=lambda a: a,
        tanh=mg.tanh,
        exp=mg.exp,
        relu=relu,
        cross_entropy=softmax_crossentropy,
        grad=attrgetter("grad"),
        # a MyGrad tensor drops its old gradient when it enters a new graph
        forget_grads=lambda tensors: None,
        sgd=sgd,
    )


ADAPTERS: dict[str, Callable[[], Engine]] = {
    "minitorch": _minitorch,
    "torch": _torch,
    "mygrad": _mygrad,
}


@cache
def adapter(name: str) -> Engine:
    """The adapter of engine ``name`` (``minitorch``, ``torch`` or ``mygrad``); imports it."""
    if name not in ADAPTERS:
        raise KeyError(f"no adapter for engine {name!r}; known: {sorted(ADAPTERS)}")
    return ADAPTERS[name]()
