"""Held-out learner mistake 94: backward_resets_leaf_grads (engine, engine-reset).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import assert_close

TARGET = 'Tensor.backward'
OP = 'engine'
KIND = 'engine-reset'
DESCRIPTION = (
    'backward() starts by setting .grad = None on EVERY node of the graph, leaves included (the'
    ' reset meant for intermediate nodes): leaf gradients no longer accumulate across backward '
    'calls (two losses, two passes with retain_graph, gradient accumulation over mini-batches);'
    ' each call keeps only its own.'
)
APT = (
    "Should point at the engine's reset: only intermediate nodes are reset at each pass, leaves"
    ' keep accumulating until zero_grad. A single pass is right, reused tensors within a pass '
    "too: an 'overwritten instead of accumulated within a graph' or op claim is false."
)

SOURCE = '''
def backward(self, grad: Any = None, retain_graph: bool = False) -> None:
    """Fill ``.grad`` of every leaf that leads here with d(self)/d(leaf).

    ``grad`` is the upstream gradient, with ``self``'s shape; it may be omitted only when
    ``self`` has one element (the seed is then 1). Leaf gradients accumulate across calls
    (call ``zero_grad``); an intermediate node's ``.grad`` holds the last pass's value.
    The graph is freed afterwards, like PyTorch's, unless ``retain_graph=True``.

    Add each gradient into its node with the provided ``_accumulate``, never by hand.
    A gradient whose shape differs from its parent's goes through ``unbroadcast``, which
    lab 01 asks for (next section): lab 00's graphs never broadcast, so until then the
    call is never reached, and it stays the one place where reverse broadcasting happens.
    """
    seed = self._seed(grad)  # provided: requires_grad, and grad's shape
    order = self._topological_order()
    _check_unchanged(order)  # data changed in place since the forward pass: BackwardError
    for node in order:
        node.grad = None  # start every pass from a clean slate
    _accumulate(self, seed, seed)
    for node in reversed(order):  # children before parents
        if node._backward is None or node.grad is None:
            continue  # a leaf, or no gradient reached it
        grads = node._backward(node.grad)
        for index, (parent, g) in enumerate(zip(node._prev, grads)):
            if g is None or not parent.requires_grad:
                continue
            if g.shape != parent.data.shape:  # the one reverse-broadcast point
                reduced = unbroadcast(g, parent.data.shape)
                if reduced.shape != parent.data.shape:
                    raise GradShapeError(
                        _grad_shape_message(node._op, index, g.shape, parent.shape)
                    )
                g = reduced
            _accumulate(parent, g, node.grad)
        if not retain_graph:  # free the graph: intermediate arrays can now be released
            node._prev, node._backward = (), None
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    import torch

    data = np.array([0.5, -1.0, 2.0])
    x = mt.Tensor(data, requires_grad=True)
    (x * x).sum().backward()
    y = x.exp().sum()
    y.backward(retain_graph=True)
    y.backward()
    tx = torch.tensor(data, dtype=torch.float64, requires_grad=True)
    (tx * tx).sum().backward()
    ty = tx.exp().sum()
    ty.backward(retain_graph=True)
    ty.backward()
    assert_close(x.grad, tx.grad.numpy(), "x.grad after three backward calls")
