"""Held-out learner mistake 45: topo_order_visits_reused_node_twice (engine, engine-order).

Written without seeing the course's mistake catalog or diagnosis code. Do not edit after commit.
"""

import numpy as np

from ._witness import compare

TARGET = 'Tensor._topological_order'
OP = 'engine'
KIND = 'engine-order'
DESCRIPTION = (
    "The learner's topological sort has no visited set: a node reachable along two paths is "
    'appended (and later back-propagated) more than once.'
)
APT = (
    "Should point to the engine's topological order (a visited set is needed) on graphs where "
    'an intermediate node is reused (diamonds such as h + exp(h)): a duplicate can be '
    'back-propagated before all consumers have contributed, and with retain_graph=True it is '
    'counted twice. Trees and reused leaves are fine, and because the graph is freed some '
    "diamonds pass (operand order matters). Every op's formula is correct; must not name any "
    'single op as the culprit.'
)

SOURCE = '''
def _topological_order(self) -> list[Tensor]:
    """Every node that needs a gradient and leads to ``self``, parents before children.

    Iterative depth-first search with an explicit stack: a recursive one overflows Python's
    call stack (limit ~1000) on a chain of 100,000 ops.
    """
    ### BEGIN SOLUTION
    order: list[Tensor] = []
    stack: list[tuple[Tensor, bool]] = [(self, False)]
    while stack:
        node, children_done = stack.pop()
        if children_done:  # all its parents are already in `order`
            order.append(node)
            continue
        if node._op and node._backward is None:
            raise BackwardError(
                f"backward through a freed graph: the graph behind this '{node._op}' node was "
                "released by an earlier backward(); pass retain_graph=True to the first "
                "backward() to run backward twice, or recompute the forward pass"
            )
        stack.append((node, True))
        for parent in node._prev:
            if parent.requires_grad:
                stack.append((parent, False))
    return order
'''


def WITNESS(mt) -> None:
    """Differs from torch float64 with this mistake; the reference agrees."""
    a = np.array([0.5, -1.0, 2.0])
    compare(mt, lambda m, x: (lambda h: h + h.exp())(x.tanh()),
            lambda t, x: (lambda h: h + h.exp())(x.tanh()), [a])
