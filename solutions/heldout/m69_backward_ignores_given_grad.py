"""Held-out learner mistake 69: backward_ignores_given_grad (engine, missing-upstream).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor.backward'
OP = 'engine'
KIND = 'missing-upstream'
DESCRIPTION = (
    'backward() always seeds the output with ones (as for a scalar loss) and ignores the grad '
    'passed to backward(grad): y.backward(v) computes the gradient of y.sum() instead of '
    'v·dy/dx.'
)
APT = (
    'Should point at the engine: backward(grad) must start from the given grad (the checked '
    'seed), not from ones. Every op is right and so is a scalar output seeded implicitly; '
    "claims of overwritten/lost accumulation, order, or an op's formula are false."
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
    ones = np.ones_like(self.data)  # d(out)/d(out) = 1
    _accumulate(self, ones, ones)
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
    a = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    compare(mt, lambda m, x: x * x + x.exp(), lambda t, x: x * x + x.exp(), [a])
