"""Held-out learner mistake 46: topo_order_preorder (engine, engine-order).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor._topological_order'
OP = 'engine'
KIND = 'engine-order'
DESCRIPTION = (
    'The topological sort appends a node when it is first reached from the output (pre-order) '
    'and returns that list reversed, so a node can be back-propagated before all of its '
    'consumers have added their gradient.'
)
APT = (
    "Should point to the engine's ordering: a node must come after ALL its consumers in the "
    'backward sweep (post-order DFS, then reversed). Chains and trees pass; only graphs where a '
    'node is reached by paths of different lengths fail. No op formula is wrong.'
)

SOURCE = '''
def _topological_order(self) -> list[Tensor]:
    """Every node that needs a gradient and leads to ``self``, parents before children.

    Iterative depth-first search with an explicit stack: a recursive one overflows Python's
    call stack (limit ~1000) on a chain of 100,000 ops.
    """
    ### BEGIN SOLUTION
    order: list[Tensor] = []
    visited: set[int] = set()
    stack: list[Tensor] = [self]
    while stack:
        node = stack.pop()
        if id(node) in visited:
            continue
        visited.add(id(node))
        if node._op and node._backward is None:
            raise BackwardError(
                f"backward through a freed graph: the graph behind this '{node._op}' node was "
                "released by an earlier backward(); pass retain_graph=True to the first "
                "backward() to run backward twice, or recompute the forward pass"
            )
        order.append(node)  # output first, then what it depends on
        for parent in node._prev:
            if parent.requires_grad:
                stack.append(parent)
    order.reverse()  # parents before children
    return order
    ### END SOLUTION
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([0.5, -1.0, 2.0])
    compare(mt, lambda m, x: (lambda h: h.exp() * h)(x.tanh()),
            lambda t, x: (lambda h: h.exp() * h)(x.tanh()), [a])
