"""Held-out learner mistake 95: topological_order_recursive (engine, engine-depth).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import assert_close

TARGET = 'Tensor._topological_order'
OP = 'engine'
KIND = 'engine-depth'
DESCRIPTION = (
    "The topological sort is a recursive depth-first search: a chain deeper than Python's "
    'recursion limit (about 1000 ops, e.g. a long loop of updates or an unrolled sequence) '
    'raises RecursionError in backward(). Small graphs are right.'
)
APT = (
    "Should point at the engine's topological order: it must not recurse once per node (use an "
    'explicit stack); deep graphs raise RecursionError. Gradients of small graphs are right: an'
    ' op, accumulation or order claim is false.'
)

SOURCE = '''
def _topological_order(self) -> list[Tensor]:
    """Every node that needs a gradient and leads to ``self``, parents before children."""
    order: list[Tensor] = []
    visited: set[int] = set()

    def visit(node: Tensor) -> None:
        if id(node) in visited:
            return
        visited.add(id(node))
        if node._op and node._backward is None:
            raise BackwardError(
                f"backward through a freed graph: the graph behind this '{node._op}' node "
                "was released by an earlier backward(); pass retain_graph=True"
            )
        for parent in node._prev:
            if parent.requires_grad:
                visit(parent)
        order.append(node)

    visit(self)
    return order
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    import sys

    import torch

    depth = sys.getrecursionlimit() + 500
    data = np.array([0.5, -1.0, 2.0])
    x = mt.Tensor(data, requires_grad=True)
    h = x
    for _ in range(depth):
        h = h * 0.999 + 0.001
    h.sum().backward()
    tx = torch.tensor(data, dtype=torch.float64, requires_grad=True)
    th = tx
    for _ in range(depth):
        th = th * 0.999 + 0.001
    th.sum().backward()
    assert_close(x.grad, tx.grad.numpy(), f"x.grad through a chain of {2 * depth} ops")
