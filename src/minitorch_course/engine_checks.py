"""Checks for the engine rows, what is not a catalog op: lab 00's engine and ``unbroadcast``.

The catalog rows check ops through ``+``, ``exp`` and friends, which need the engine already.
These checks build their graphs BY HAND, with ``Tensor._make`` and a ``_backward`` closure per
node, so lab 00 can be graded before a single op of lab 01 exists. A failing case raises
``CheckFailed`` with a ``Fact`` (message id and parameters, worded by
``minitorch_course.messages``) and the diagnosis' kind; ``minitorch_course.runner`` runs them.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from minitorch_course.catalog import MISTAKES
from minitorch_course.diagnosis import explain_grad_shape
from minitorch_course.outcomes import CheckFailed, Diagnosis, Fact


def _mt():
    import minitorch

    return minitorch


# ---------------------------------------------------------------- hand-built graphs
def node(op: str, parents: tuple, data: np.ndarray, backward: Callable):
    """An op's output built by hand: ``Tensor._make`` plus its ``_backward`` closure."""
    out = _mt().Tensor._make(np.asarray(data, dtype=np.float64), tuple(parents), op)
    out._backward = backward
    return out


def square(x):
    """y = x² by hand: dy/dx = 2x."""
    return node("square", (x,), x.data**2, lambda g: (2.0 * x.data * g,))


def scale(x, k: float):
    """y = k·x by hand."""
    return node(f"scale{k:g}", (x,), k * x.data, lambda g: (k * g,))


def plus(a, b):
    """y = a + b by hand, same shapes only (no broadcasting in lab 00)."""
    return node("plus", (a, b), a.data + b.data, lambda g: (g, g))


def times_const(x, c):
    """y = x·c with c a constant tensor (requires_grad=False): only x gets a gradient."""
    return node("times", (x, c), x.data * c.data, lambda g: (g * c.data, g * x.data))


def total(x):
    """s = Σ x by hand: ds/dx = 1 everywhere, at x's shape."""
    return node("total", (x,), x.data.sum(), lambda g: (np.broadcast_to(g, x.shape),))


def chain(x, n: int):
    """x -> scale1 -> scale1 -> ... n times (the deep-graph test)."""
    y = x
    for _ in range(n):
        y = scale(y, 1.0)
    return y


SEED = 0  # the grading seed (0: the values make check has always used); see _rng
OBSERVED: list | None = None  # set by the grading worker: what each case observes, in order


def _rng(k: int) -> np.random.Generator:
    """The ``k``-th random stream of a case: fixed shapes, values drawn from ``SEED``."""
    return np.random.default_rng(k if not SEED else (SEED, k))


def observe(where: str, value) -> None:
    """Record what a case observed of the implementation (the grading worker sends it to the
    instructor's process, which judges it against the reference's observation)."""
    if OBSERVED is not None:
        OBSERVED.append((where, value))


def _leaf(shape, seed: int = 0):
    rng = _rng(seed)
    return _mt().Tensor(rng.uniform(-2.0, 2.0, size=shape), requires_grad=True)


def _fail(fact_id: str, kind: str, diagnosis_id: str = "", **params) -> CheckFailed:
    return CheckFailed(Fact(fact_id, params), Diagnosis(kind, diagnosis_id))


def _compare(where: str, got, want: np.ndarray, kind: str = "engine", hint: dict | None = None
             ) -> None:
    """Raise CheckFailed unless ``got`` (an array or None) equals ``want`` to 1e-12.

    ``where`` names the case (its words are ``messages.ENGINE_WHERE[where]``); ``kind`` is the
    diagnosis when nothing more telling shows: a constant ratio of 1/2 says a gradient was
    overwritten instead of accumulated, of 2 that a node was counted twice.
    """
    observe(where, got)
    params = {"where": where, "want_shape": want.shape, **(hint or {})}
    if got is None:
        raise _fail("engine-grad-none", kind, **params)
    got = np.asarray(got)
    if got.shape != want.shape:
        raise _fail("engine-grad-shape", kind, **params, got=got.shape)
    diff = np.abs(got - want)
    if diff.size and not np.all(diff <= 1e-12 + 1e-12 * np.abs(want)):
        j = np.unravel_index(int(np.argmax(diff)), diff.shape)
        ratio = None
        nonzero = np.abs(want) > 1e-12
        if nonzero.any():
            r = got[nonzero] / want[nonzero]
            if np.allclose(r, r.flat[0]) and not np.isclose(r.flat[0], 1.0):
                ratio = float(r.flat[0])
        diagnosis_id = ""
        if ratio is not None and np.isclose(ratio, 0.5):
            kind, diagnosis_id = "accumulate", "engine-half"
        elif ratio is not None and np.isclose(ratio, 2.0) and where == "retain_twice":
            # the order is the topological_order row's business: 2x after a second pass over a
            # retained graph says the pass started from the first pass's intermediate .grad
            kind, diagnosis_id = "stale-grad", "engine-stale"
        elif ratio is not None and np.isclose(ratio, 2.0):
            kind = "double-counting"
        elif ratio is not None and where == "unbroadcast":
            kind = "factor"
        raise _fail("engine-grad-values", kind, diagnosis_id, **params,
                    element=tuple(int(i) for i in j), got=float(got[j]), want=float(want[j]),
                    diff=float(diff[j]), ratio=ratio)


def _known(where: str, got, want: np.ndarray, mistake: str, wrong: np.ndarray) -> None:
    """Raise the catalog's ``mistake`` when ``got`` is exactly what it produces (``wrong``)
    and not the right ``want``: its hint then replaces the case's general one."""
    if got is None or np.shape(got) != want.shape or np.allclose(got, want, 1e-12, 1e-12):
        return
    if np.allclose(got, wrong, 1e-12, 1e-12):
        diff = np.abs(np.asarray(got) - want)
        j = np.unravel_index(int(np.argmax(diff)), diff.shape)
        raise _fail("engine-grad-values", MISTAKES[mistake].kind, mistake, where=where,
                    want_shape=want.shape, element=tuple(int(i) for i in j),
                    got=float(np.asarray(got)[j]), want=float(want[j]), diff=float(diff[j]),
                    ratio=None, mistake=True)


def _seed_ignored(where: str, got, want: np.ndarray, ones: np.ndarray) -> None:
    """Raise when ``got`` is the gradient for an upstream of ones (``ones``) instead of the
    seed that was passed to backward(grad) (``want``)."""
    if got is None or np.shape(got) != want.shape or np.allclose(got, want, 1e-12, 1e-12):
        return
    if np.allclose(got, ones, 1e-12, 1e-12):
        observe(where, got)
        diff = np.abs(np.asarray(got) - want)
        j = np.unravel_index(int(np.argmax(diff)), diff.shape)
        raise _fail("engine-grad-values", "missing-upstream", "engine-seed-ignored", where=where,
                    want_shape=want.shape, element=tuple(int(i) for i in j),
                    got=float(np.asarray(got)[j]), want=float(want[j]), diff=float(diff[j]),
                    ratio=None, mistake=True)


# ---------------------------------------------------------------- lab 00: topological order
def _order_of(root, graph: str) -> list:
    try:
        order = root._topological_order()
    except RecursionError:
        raise _fail("topo-recursion", "recursion", graph=graph) from None
    if not isinstance(order, list):
        raise _fail("topo-not-list", "topological-order", graph=graph,
                    type=type(order).__name__)
    return order


def _assert_topological(order: list, root, expected: dict, graph: str) -> None:
    """``expected`` names every node that must appear, exactly once, parents first."""
    name_of = {id(t): name for name, t in expected.items()}
    seen = [name_of.get(id(t), f"<unexpected {getattr(t, '_op', '?') or 'leaf'}>") for t in order]
    observe(graph, {"order": seen, "root": name_of[id(root)], "parents": {
        name: [name_of[id(p)] for p in t._prev if id(p) in name_of]
        for name, t in expected.items()}})
    counts = {n: seen.count(n) for n in seen}
    twice = [n for n, c in counts.items() if c > 1]
    if twice:
        raise _fail("topo-twice", "double-counting", graph=graph, twice=twice, order=seen)
    missing = [n for n in expected if n not in counts]
    if missing:
        raise _fail("topo-missing", "topological-order", graph=graph, missing=missing,
                    order=seen)
    if any(n.startswith("<unexpected") for n in seen):
        raise _fail("topo-unexpected", "topological-order", graph=graph, order=seen)
    position = {n: i for i, n in enumerate(seen)}
    for name, t in expected.items():
        for parent in t._prev:
            pname = name_of.get(id(parent))
            if pname in position and position[pname] > position[name]:
                raise _fail("topo-parent-after", "topological-order", graph=graph,
                            parent=pname, child=name, order=seen)
    if seen[-1] != name_of[id(root)]:
        raise _fail("topo-last", "topological-order", graph=graph, root=name_of[id(root)],
                    order=seen)


def _topo_cases():
    def chain3():
        x = _leaf((3, 5))
        a = square(x)
        b = scale(a, 3.0)
        _assert_topological(_order_of(b, "chain3"), b, {"x": x, "a": a, "b": b}, "chain3")

    def diamond():
        x = _leaf((3, 5))
        a, b = square(x), scale(x, 2.0)
        c = plus(a, b)
        _assert_topological(_order_of(c, "diamond"), c, {"x": x, "a": a, "b": b, "c": c},
                            "diamond")

    def residual():
        # a reaches c directly and through b: a depth-first search meets a twice
        x = _leaf((3, 5))
        a = square(x)
        b = scale(a, 2.0)
        c = plus(a, b)
        _assert_topological(_order_of(c, "residual"), c, {"x": x, "a": a, "b": b, "c": c},
                            "residual")

    def constant_parent():
        x = _leaf((20, 3, 5))
        k = _mt().Tensor(np.full((20, 3, 5), 0.5))
        y = times_const(x, k)
        _assert_topological(_order_of(y, "constant"), y, {"x": x, "y": y}, "constant")

    def deep():
        x = _mt().Tensor(np.ones(()), requires_grad=True)
        y = chain(x, 100_000)
        order = _order_of(y, "deep")
        observe("deep", [len(order), order[0] is x, order[-1] is y])
        if len(order) != 100_001 or order[0] is not x or order[-1] is not y:
            raise _fail("topo-deep-count", "topological-order", count=len(order))

    return [chain3, diamond, residual, constant_parent, deep]


# ---------------------------------------------------------------- lab 00: backward
def _backward_cases():
    def square_then_sum():
        x = _leaf((3, 5))
        a = square(x)
        s = total(a)
        s.backward()
        if x.grad is None and s.grad is not None:
            raise _fail("engine-grad-stopped", "topological-order", want_shape=x.shape,
                        a_got=a.grad is not None)
        _compare("square_then_sum", x.grad, 2.0 * x.data)

    def diamond_accumulates():
        x = _leaf((3, 5))
        c = plus(square(x), scale(x, 2.0))
        up = _rng(7).standard_normal((3, 5))
        c.backward(up)
        want = up * (2.0 * x.data + 2.0)
        _seed_ignored("diamond_accumulates", x.grad, want, 2.0 * x.data + 2.0)
        # "overwritten" only when x.grad is exactly one path's contribution
        paths = (up * 2.0 * x.data, up * 2.0)
        one_path = x.grad is not None and np.shape(x.grad) == want.shape and any(
            np.allclose(x.grad, path, 1e-12, 1e-12) for path in paths)
        _compare("diamond_accumulates", x.grad, want, "accumulate" if one_path else "engine")

    def grid_constant():
        x = _leaf((20, 3, 5))
        k = _mt().Tensor(_rng(3).uniform(0.5, 1.5, (20, 3, 5)))
        y = times_const(x, k)
        up = _rng(8).standard_normal((20, 3, 5))
        y.backward(up)
        _compare("grid_constant", x.grad, up * k.data)
        observe("grid_constant_k", k.grad is None)
        if k.grad is not None:
            raise _fail("engine-constant-got-grad", "engine", shape=np.shape(k.grad))

    def two_leaves():
        # separate branches: meeting one leaf in the reversed order must not end the pass
        x, y = _leaf((3, 5)), _leaf((3, 5), 1)
        c = plus(square(x), scale(y, 3.0))
        up = _rng(12).standard_normal((3, 5))
        c.backward(up)
        _compare("two_leaves_x", x.grad, 2.0 * x.data * up)
        _compare("two_leaves_y", y.grad, 3.0 * up)

    def constant_first():
        # the first parent needs no gradient (and its closure returns None for it)
        x = _leaf((3, 5))
        k = _mt().Tensor(_rng(13).uniform(0.5, 1.5, (3, 5)))
        y = node("times", (k, x), k.data * x.data, lambda g: (None, g * k.data))
        up = _rng(14).standard_normal((3, 5))
        y.backward(up)
        _compare("constant_first", x.grad, up * k.data)

    def same_parent_twice():
        # y = x·x: x is both parents (x * x, the commonest reuse). A depth-first search pushes x
        # twice before visiting it, and the two gradients g·x must both reach x.grad
        x = _leaf((3, 5))
        y = node("times", (x, x), x.data * x.data, lambda g: (g * x.data, g * x.data))
        up = _rng(15).standard_normal((3, 5))
        y.backward(up)
        _compare("same_parent_twice", x.grad, 2.0 * x.data * up, "accumulate")

    def intermediate_grads():
        x = _leaf((3, 5))
        a = square(x)
        b = scale(a, 3.0)
        up = _rng(9).standard_normal((3, 5))
        b.backward(up)
        _compare("intermediate_a", a.grad, 3.0 * up)
        _compare("intermediate_b", b.grad, up)

    def leaves_accumulate_across_calls():
        x = _leaf((3, 5))
        total(square(x)).backward()
        total(scale(x, 3.0)).backward()
        want = 2.0 * x.data + 3.0
        # the diamond passed, so within a pass it accumulates: the leaf was reset in between
        _known("leaves_accumulate", x.grad, want, "backward_resets_leaf_grads",
               np.full(x.shape, 3.0))
        _compare("leaves_accumulate", x.grad, want, "accumulate")

    def leaf_grads_are_their_own():
        x, y = _leaf((3, 5)), _leaf((3, 5), 1)
        c = plus(x, y)  # its _backward hands the very same array g to both parents
        up = _rng(10).standard_normal((3, 5))
        c.backward(up)
        _compare("aliasing_x", x.grad, up)
        _compare("aliasing_y", y.grad, up)
        z = _leaf((3, 5), 2)
        total(z).backward()  # its _backward returns a read-only broadcast view
        _compare("aliasing_z", z.grad, np.ones((3, 5)))
        others = {"y.grad": y.grad, "c.grad": c.grad, "the upstream array": up}
        before = {name: np.array(a, copy=True) for name, a in others.items()}
        for name, leaf in (("x", x), ("z", z)):
            try:
                leaf.grad += 1.0  # an optimizer's in-place update
            except ValueError:  # assignment destination is read-only
                raise _fail("engine-grad-read-only", "aliasing", "leaf_grads_alias",
                            leaf=name) from None
            changed = [name for name, a in others.items()
                       if a is not None and not np.array_equal(a, before[name])]
            observe(f"aliasing_{name}_changed", changed)
            if changed:
                raise _fail("engine-grad-aliased", "aliasing", "leaf_grads_alias",
                            changed=changed)

    return [square_then_sum, diamond_accumulates, grid_constant, two_leaves, constant_first,
            same_parent_twice,
            intermediate_grads,
            leaves_accumulate_across_calls, leaf_grads_are_their_own]


def _retain_graph_cases():
    def second_backward(node, grad=None) -> None:
        """A backward after one with retain_graph=True: a freed graph means it was ignored."""
        try:
            node.backward() if grad is None else node.backward(grad)
        except _mt().BackwardError as err:
            raise _fail("engine-retain-ignored", "freed-graph", message=str(err)) from None

    def intermediate_grads_reset():
        x = _leaf((3, 5))
        a = square(x)
        b = scale(a, 3.0)
        rng = _rng(11)
        up1, up2 = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
        b.backward(up1, retain_graph=True)
        second_backward(b, up2)
        for where, node_, first, want in (("reset_b", b, up1, up2),
                                          ("reset_a", a, 3.0 * up1, 3.0 * up2)):
            _known(where, node_.grad, want, "intermediate_grads_not_reset", first + want)
            _compare(where, node_.grad, want)
        _compare("reset_x", x.grad, 6.0 * x.data * (up1 + up2), "accumulate")

    def retain_twice():
        x = _leaf((3, 5))
        s = total(square(x))
        s.backward(retain_graph=True)
        second_backward(s)
        _compare("retain_twice", x.grad, 4.0 * x.data, "freed-graph")

    def freed_after_backward():
        x = _leaf((3, 5))
        a = square(x)
        s = total(a)
        s.backward()
        kept = [name for name, t in (("s", s), ("a", a)) if t._backward is not None or t._prev]
        observe("freed", kept)
        if kept:
            raise _fail("engine-graph-kept", "freed-graph", kept=kept)

    def second_backward_raises():
        # the graph is freed (the case above): running through it again must say so, like
        # PyTorch, not hand back the first pass's gradients as if it had run
        x = _leaf((3, 5))
        s = total(square(x))
        s.backward()
        try:
            s.backward()
        except _mt().BackwardError:
            observe("second_backward_raised", True)
            return
        observe("second_backward_raised", False)
        raise _fail("engine-freed-silent", "freed-graph")

    return [intermediate_grads_reset, retain_twice, freed_after_backward, second_backward_raises]


# ---------------------------------------------------------------- lab 01: unbroadcast
UNBROADCAST_PAIRS: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (
    ((3, 5), (3, 5)),
    ((4, 3), (3,)),
    ((4, 3), (4, 1)),
    ((4, 3), (1, 3)),
    ((4, 3), ()),
    ((2, 5), (5,)),  # grad's shape sorts before the target's: only equality means "done"
    ((0, 3), (1, 3)),  # a size-1 axis broadcast to size 0: its gradient is a sum of nothing
    ((20, 3, 5), (3, 5)),
    ((20, 3, 5), (5,)),
    ((20, 3, 5), (3, 1)),
    ((20, 3, 5), (20, 1, 5)),
    ((20, 3, 5), (1, 3, 1)),
    ((20, 3, 5), ()),
)


def _sum_to(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The oracle, written differently from the reference: g·J where J is broadcast_to's Jacobian."""
    out = np.zeros(shape)
    view = np.broadcast_to(np.arange(out.size).reshape(shape), grad.shape)
    np.add.at(out.reshape(-1), view.reshape(-1), grad.reshape(-1))
    return out


def _unbroadcast_hint(grad_shape, shape, got: np.ndarray, want: np.ndarray) -> dict:
    """Which unbroadcast mistake the returned array shows (``messages.UNBROADCAST_HINTS``)."""
    extra = len(grad_shape) - len(shape)
    ones = [i for i, n in enumerate(shape) if n == 1 and grad_shape[i + extra] != 1]
    p = {"grad_shape": grad_shape, "shape": shape, "extra": extra, "ones": ones}
    if got.shape == tuple(grad_shape) and tuple(grad_shape) != tuple(shape):
        return {**p, "hint": "unchanged"}
    if got.shape == tuple(n for n in shape if n != 1) and ones:
        return {**p, "hint": "size1-dropped"}
    if got.ndim == len(grad_shape) and extra:
        return {**p, "hint": "leading-kept"}
    if got.shape == want.shape:
        n = int(np.prod(grad_shape) / max(1, np.prod(shape)))
        if n > 1 and np.allclose(got * n, want):
            return {**p, "hint": "mean-not-sum", "n": n}
        return {**p, "hint": "sum-broadcast-axes"}
    return {**p, "hint": "aligned"}


def _unbroadcast_cases():
    cases = []
    for k, (grad_shape, shape) in enumerate(UNBROADCAST_PAIRS):
        def case(grad_shape=grad_shape, shape=shape, k=k):
            grad = _rng(100 + k).standard_normal(grad_shape)
            before = grad.copy()
            got = _mt().unbroadcast(grad, shape)
            want = _sum_to(before, shape)
            where = {"grad_shape": grad_shape, "shape": shape}
            observe("unbroadcast_kept_input", bool(np.array_equal(grad, before)))
            observe("unbroadcast", got)
            if not np.array_equal(grad, before):
                raise _fail("unbroadcast-modified", "reverse-broadcast", **where)
            got_arr = np.asarray(got)
            if got_arr.shape != want.shape or not np.allclose(got_arr, want, rtol=1e-12,
                                                              atol=1e-12):
                hint = _unbroadcast_hint(grad_shape, shape, got_arr, want)
                if got_arr.shape != want.shape:
                    d = explain_grad_shape(got_arr.shape, want.shape,
                                           subject={"unbroadcast": True})
                    raise CheckFailed(
                        Fact("unbroadcast-shape", {**hint, "got": got_arr.shape,
                                                   "want": want.shape}),
                        Diagnosis(d.kind, "engine-unbroadcast-shape",
                                  {**d.params, "shape_id": d.id}))
                _compare("unbroadcast", got_arr, want, "reverse-broadcast", hint)
        case.__name__ = f"unbroadcast {grad_shape} -> {shape}"
        cases.append(case)
    return cases


CHECKS: dict[str, Callable[[], list[Callable[[], None]]]] = {
    "topological_order": _topo_cases,
    "backward": _backward_cases,
    "retain_graph": _retain_graph_cases,
    "unbroadcast": _unbroadcast_cases,
}
