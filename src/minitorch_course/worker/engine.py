"""Lab 00's hand-built graphs, run from data: the part of an engine case that touches the
learner's code, and nothing that knows the right answer.

An engine case (``minitorch_course.engine_checks``) is written down as a *program*: a list
of steps (leaves, nodes built with ``Tensor._make`` and a ``_backward`` closure from
:data:`OPS`, ``backward()`` calls, reads of ``.grad``, a call of ``unbroadcast``...) with
its arrays inline. :func:`run` executes it on an implementation and writes what it saw into
``seen`` (a dict), step by step; an exception of the learner's code propagates, and what was
seen up to then stays in ``seen``. The expected values and every comparison live with the
case, in the instructor's process (or the learner's, in a notebook): the grading worker runs
this module only, so a tensor.py has no oracle to call there.

Standard library, NumPy and ``minitorch`` only (the grading worker's rule).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def _square(k, x):
    return x**2, lambda g: (2.0 * x * g,)


def _scale(k, x):
    return k * x, lambda g: (k * g,)


def _plus(k, a, b):
    return a + b, lambda g: (g, g)


def _times(k, a, b):
    return a * b, lambda g: (g * b, g * a)


def _times_first_none(k, a, b):  # the first parent a constant: its gradient None
    return a * b, lambda g: (None, g * a)


def _pass_on(g):
    return (g,)


def _identity(k, x):
    """A link of a long chain (the deep case checks the order, not arithmetic): the link shares
    its parent's array and one module-level ``_backward``. Building 100,000 links took 0.13 s
    of CPU, against 0.28 s with a ``scale`` per link (NumPy arithmetic on a 0-d array and a
    closure each); the deep case runs about 200 times in ``make test``."""
    return x, _pass_on


def _total(k, x):
    shape = x.shape
    return x.sum(), lambda g: (np.broadcast_to(g, shape),)


# a node's op: (its name in the graph, its data and _backward from the parents' data and k)
OPS: dict[str, tuple[Callable[[float | None], str], Callable]] = {
    "square": (lambda k: "square", _square),
    "scale": (lambda k: f"scale{k:g}", _scale),
    "plus": (lambda k: "plus", _plus),
    "times": (lambda k: "times", _times),
    "times_first_none": (lambda k: "times", _times_first_none),
    "total": (lambda k: "total", _total),
    "identity": (lambda k: "identity", _identity),
}


def _copy(value):
    """What a case read, as it was then (a later step cannot change it)."""
    if value is None:
        return None
    try:
        return np.array(value, copy=True)
    except (TypeError, ValueError):
        return value


def run(program: dict, impl, seen: dict) -> None:
    """Execute ``program`` on ``impl`` (its ``Tensor`` and ``unbroadcast``); what each step
    observes goes into ``seen``. A step that observes an expected failure (a RecursionError of
    ``_topological_order``, a BackwardError of a second backward, a read-only ``.grad``)
    records it and ends the program; any other exception propagates."""
    import minitorch

    nodes: dict = {}
    arrays = {name: np.array(a, dtype=np.float64, copy=True)
              for name, a in program.get("arrays", {}).items()}

    def value(ref):
        return arrays[ref] if ref in arrays else nodes[ref]

    for step in program["steps"]:
        do = step["do"]
        if do == "leaf":
            nodes[step["name"]] = impl.Tensor(np.array(step["data"], copy=True),
                                              requires_grad=bool(step["requires_grad"]))
        elif do == "node":
            name_of, build = OPS[step["op"]]
            k, op = step.get("k"), name_of(step.get("k"))
            parents = tuple(nodes[p] for p in step["parents"])
            for _ in range(int(step.get("repeat", 1))):
                data, backward = build(k, *(p.data for p in parents))
                out = impl.Tensor._make(np.asarray(data, dtype=np.float64), parents, op)
                out._backward = backward
                parents = (out,)
            nodes[step["name"]] = out
        elif do == "order":
            root = nodes[step["root"]]
            try:
                order = root._topological_order()
            except RecursionError:
                seen[step["key"]] = {"raised": "RecursionError"}
                return
            if not isinstance(order, list):
                seen[step["key"]] = {"type": type(order).__name__}
                return
            if step.get("summary"):  # a long chain: its length and ends only
                seen[step["key"]] = {"count": len(order),
                                     "first": order[0] is nodes[step["first"]],
                                     "last": order[-1] is root}
                continue
            name_of = {id(nodes[n]): n for n in step["names"]}
            seen[step["key"]] = {"order": [
                name_of.get(id(t), f"<unexpected {getattr(t, '_op', '?') or 'leaf'}>")
                for t in order]}
        elif do == "backward":
            node = nodes[step["node"]]
            args = [value(a) for a in step.get("args", [])]
            try:
                node.backward(*args, **step.get("kwargs", {}))
            except minitorch.BackwardError as err:
                if not step.get("key"):
                    raise
                seen[step["key"]] = {"raised": "BackwardError", "message": str(err)}
                return
            if step.get("key"):
                seen[step["key"]] = None  # no BackwardError
        elif do == "grad":
            seen[f"{step['node']}.grad"] = _copy(nodes[step["node"]].grad)
        elif do == "unbroadcast":
            grad = arrays[step["grad"]]
            before = grad.copy()
            got = impl.unbroadcast(grad, tuple(step["shape"]))
            seen["unbroadcast"] = _copy(got)
            seen["kept_input"] = bool(np.array_equal(grad, before))
        elif do == "in_place":  # an optimizer's x.grad += 1 on each leaf, in turn
            others = {label: (arrays[ref] if ref in arrays else nodes[ref.split(".")[0]].grad)
                      for label, ref in step["others"].items()}
            before = {label: np.array(a, copy=True) for label, a in others.items()}
            for name in step["leaves"]:
                leaf = nodes[name]
                try:
                    leaf.grad += 1.0
                except ValueError:  # assignment destination is read-only
                    seen[f"in_place {name}"] = "read-only"
                    return
                changed = [label for label, a in others.items()
                           if a is not None and not np.array_equal(a, before[label])]
                seen[f"in_place {name}"] = changed
                if changed:
                    return
        elif do == "kept":  # which nodes still hold their graph
            seen["kept"] = [n for n in step["nodes"]
                            if nodes[n]._backward is not None or nodes[n]._prev]
        else:
            raise ValueError(f"unknown step {do!r}")
