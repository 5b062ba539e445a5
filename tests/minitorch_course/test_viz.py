"""viz draws a graph without ordering it: ordering is lab 00's exercise, and viz ships to learners."""

from __future__ import annotations

import random

import numpy as np
import pytest

import minitorch as mt
from minitorch_course import viz


def _is_topological(order: list) -> bool:
    """Every node after all its parents (what Tensor._topological_order must return)."""
    seen: set[int] = set()
    for node in order:
        if any(id(p) not in seen for p in node._prev):
            return False
        seen.add(id(node))
    return True


def _random_graph(rng: random.Random):
    nodes = [mt.Tensor(np.ones(3), requires_grad=True) for _ in range(rng.randint(1, 4))]
    for _ in range(rng.randint(1, 12)):
        a, b = rng.choice(nodes), rng.choice(nodes)
        op = rng.choice(["add", "mul", "sub", "tanh"])
        nodes.append(a.tanh() if op == "tanh" else getattr(a, op)(b))
    return nodes[-1].sum()


def test_reachable_is_no_topological_order():
    a = mt.Tensor(np.ones(3), requires_grad=True)
    b = mt.Tensor(np.ones(3), requires_grad=True)
    s = a + a * b
    found = viz.reachable(s)
    assert len(found) == len({id(n) for n in found}) == 4
    assert not _is_topological(found) and not _is_topological(found[::-1])


@pytest.mark.parametrize("seed", range(50))
def test_columns_put_every_node_right_of_its_parents(seed):
    root = _random_graph(random.Random(seed))
    nodes = viz.reachable(root)
    depth = viz._depths(nodes)
    for node in nodes:
        for parent in node._prev:
            assert depth[id(parent)] < depth[id(node)]
        if node._prev:  # an op sits one column right of its deepest parent
            assert depth[id(node)] == 1 + max(depth[id(p)] for p in node._prev)


def test_draw_graph_draws_one_box_per_node():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    root = _random_graph(random.Random(7))
    ax = viz.draw_graph(root, title="t")
    assert len(ax.patches) == len(viz.reachable(root))
    plt.close("all")
