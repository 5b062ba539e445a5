"""Draw a computation graph with matplotlib: one box per node, its op, shape and gradient shape.

No Graphviz binary needed, and no topological order either: this module ships to learners, and
ordering a graph is lab 00's exercise (``Tensor._topological_order``). It collects the nodes in the
order it first meets them (not an order the engine could use) and finds each node's column by
relaxation, so a graph can be drawn before ``_topological_order`` exists.

    from minitorch_course.viz import draw_graph
    draw_graph(loss, names={"x": x, "W": W})
"""

from __future__ import annotations

from collections.abc import Mapping


def _fmt(shape) -> str:
    return "(" + ",".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def reachable(root) -> list:
    """Every node reachable from ``root`` through ``_prev``, each once, in the order first met.

    The output comes first, so this is NOT a topological order, and reversed it is not one
    either: for ``s = a + a * b`` it lists ``s, a, mul, b``; reversed, ``mul`` comes before its
    parent ``a``.
    """
    found, seen, frontier = [], set(), [root]
    while frontier:
        node = frontier.pop()
        if id(node) not in seen:
            seen.add(id(node))
            found.append(node)
            frontier.extend(reversed(node._prev))
    return found


def _depths(nodes: list) -> dict[int, int]:
    """The column of each node: longest path from a leaf; leaves next to their first user.

    Found by relaxation (repeat "one more than the deepest parent" until nothing changes), which
    needs no order of the nodes.
    """
    depth = {id(node): 0 for node in nodes}
    changed = True
    while changed:
        changed = False
        for node in nodes:
            d = 1 + max((depth[id(p)] for p in node._prev), default=-1)
            if d != depth[id(node)]:
                depth[id(node)], changed = d, True
    for node in nodes:  # a leaf sits just left of its first consumer
        if not node._prev:
            users = [depth[id(c)] for c in nodes if any(p is node for p in c._prev)]
            if users:
                depth[id(node)] = min(users) - 1
    return depth


def node_label(node, name: str | None = None) -> str:
    """The text in a node's box: name or op, shape, gradient shape."""
    title = name or (node._op or ("leaf" if node.requires_grad else "const"))
    if name and node._op:
        title = f"{name} = {node._op}"
    grad = "—" if node.grad is None else _fmt(node.grad.shape)
    return f"{title}\nshape {_fmt(node.shape)}\ngrad {grad}"


def draw_graph(root, names: Mapping[str, object] | None = None, ax=None,
               title: str | None = None):
    """Draw ``root``'s graph left (leaves) to right (output); returns the matplotlib Axes.

    ``names`` maps a label to a tensor of the graph (``{"x": x}``); unnamed nodes show their op.
    Leaves that need a gradient are blue, constants grey, ops orange; a box whose ``grad``
    shape differs from its ``shape`` is drawn in red (a gradient of the wrong shape).
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    by_id = {id(t): n for n, t in (names or {}).items()}
    order = reachable(root)
    depth = _depths(order)
    columns: dict[int, list] = {}
    for node in order:
        columns.setdefault(depth[id(node)], []).append(node)
    width = max(columns) + 1
    height = max(len(c) for c in columns.values())
    if ax is None:
        _, ax = plt.subplots(figsize=(2.6 * width + 0.6, 1.5 * height + 0.8))
    pos = {}
    for col, nodes in columns.items():
        for row, node in enumerate(nodes):
            pos[id(node)] = (col * 2.6, (len(nodes) - 1) / 2 * 1.5 - row * 1.5)
    for node in order:  # edges first, under the boxes
        x1, y1 = pos[id(node)]
        for parent in node._prev:
            x0, y0 = pos[id(parent)]
            ax.annotate("", xy=(x1 - 0.95, y1), xytext=(x0 + 0.95, y0),
                        arrowprops={"arrowstyle": "->", "color": "0.35", "lw": 1.2})
    for node in order:
        x, y = pos[id(node)]
        if node._op:
            face = "#fde2c4"
        elif node.requires_grad:
            face = "#cfe3f7"
        else:
            face = "#e6e6e6"
        bad = node.grad is not None and node.grad.shape != node.shape
        ax.add_patch(FancyBboxPatch((x - 0.95, y - 0.5), 1.9, 1.0,
                                    boxstyle="round,pad=0.04", facecolor=face,
                                    edgecolor="#c0392b" if bad else "0.3",
                                    linewidth=2.0 if bad else 1.0))
        ax.text(x, y, node_label(node, by_id.get(id(node))), ha="center", va="center",
                fontsize=9, family="monospace")
    ax.set_xlim(-1.2, (width - 1) * 2.6 + 1.2)
    ax.set_ylim(-(height - 1) / 2 * 1.5 - 0.8, (height - 1) / 2 * 1.5 + 0.8)
    ax.set_axis_off()
    if title:
        ax.set_title(title)
    return ax
