"""Held-out learner mistake 57: backward_stops_at_constant_parent (engine, constant-operand).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.backward'
OP = 'engine'
KIND = 'constant-operand'
DESCRIPTION = (
    "In backward()'s loop over a node's parents the learner writes break instead of continue "
    'when a parent is a constant (or its gradient is None): the parents AFTER a constant one '
    "get nothing, so c * x, c @ W or c + x with a constant c leaves x's gradient at None."
)
APT = (
    "Should point at the engine's backward loop: a constant parent (or a None gradient) must be"
    " skipped, not end the loop over the node's parents; gradients stop after a constant in the"
    " first position. No op formula is wrong: blaming mul/matmul/add's derivative, "
    'accumulation, order or reverse broadcasting is false.'
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
        if node._prev:  # intermediate nodes hold this pass's gradient only
            node.grad = None
    _accumulate(self, seed, seed)
    for node in reversed(order):  # children before parents
        if node._backward is None or node.grad is None:
            continue  # a leaf, or no gradient reached it
        grads = node._backward(node.grad)
        for index, (parent, g) in enumerate(zip(node._prev, grads)):
            if g is None or not parent.requires_grad:
                break
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
    c = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]])
    x = np.array([[0.4, 1.5, -0.6], [2.0, -1.0, 0.8]])
    compare(mt, lambda m, a, b: a * b + b, lambda t, a, b: a * b + b, [c, x],
            requires_grad=[False, True])
