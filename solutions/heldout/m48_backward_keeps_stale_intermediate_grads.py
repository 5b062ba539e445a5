"""Held-out learner mistake 48: backward_keeps_stale_intermediate_grads (engine, engine-reset).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import assert_close

TARGET = 'Tensor.backward'
OP = 'engine'
KIND = 'engine-reset'
DESCRIPTION = (
    'backward() does not reset the .grad of intermediate nodes before a pass, so with '
    "retain_graph=True the second pass adds onto the first pass's intermediate gradients."
)
APT = (
    'Should point to the reset of intermediate (non-leaf) gradients at the start of each '
    'backward pass; only a second backward over a retained graph shows it (leaf accumulation '
    'itself is correct, and a single pass is correct). No op formula is wrong.'
)

SOURCE = '''
def backward(self, grad: Any = None, retain_graph: bool = False) -> None:
    """Fill ``.grad`` of every leaf that leads here with d(self)/d(leaf).

    ``grad`` is the upstream gradient, with ``self``'s shape; it may be omitted only when
    ``self`` has one element (the seed is then 1). Leaf gradients accumulate across calls
    (call ``zero_grad``); an intermediate node's ``.grad`` holds the last pass's value.
    The graph is freed afterwards, like PyTorch's, unless ``retain_graph=True``.
    """
    if not self.requires_grad:
        raise BackwardError(
            "backward() on a tensor that does not require grad: no input of the expression "
            "was created with requires_grad=True (or it was computed under no_grad())"
        )
    if grad is None:
        if self.data.size != 1:
            raise BackwardError(
                f"backward() on a tensor of shape {self.shape} needs an explicit grad of that "
                "shape (the seed is only implicit for one-element outputs such as a loss), "
                f"e.g. t.backward(np.ones({self.shape}))"
            )
        seed = np.ones_like(self.data)
    else:
        seed = _as_array(grad)
        if seed.shape != self.shape:
            raise ShapeError(
                f"backward(grad): grad has shape {seed.shape} but the tensor has shape "
                f"{self.shape}; they must be equal"
            )
    ### BEGIN SOLUTION
    order = self._topological_order()
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

    a = np.array([0.5, -1.0, 2.0])
    x = mt.Tensor(a, requires_grad=True)
    h = x.exp()
    y = (h * h).sum()
    y.backward(retain_graph=True)
    y.backward()
    tx = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    th = tx.exp()
    ty = (th * th).sum()
    ty.backward(retain_graph=True)
    ty.backward()
    assert_close(x.grad, tx.grad.numpy(), "x.grad after two backward passes")
