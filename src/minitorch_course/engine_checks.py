"""Graded checks for what is not a catalog op: the engine (lab 00) and ``unbroadcast`` (lab 01).

The catalog rows check ops through ``+``, ``exp`` and friends, which need the engine already.
These checks build their graphs BY HAND, with ``Tensor._make`` and a ``_backward`` closure per
node, so lab 00 can be graded before a single op of lab 01 exists. Same contract as
``grading.check_ops``: one line ``✓ name: N checks passed`` per passing check, else
``checks.CheckFailure`` with the case, the shapes, the worst element and the likely mistake.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from minitorch_course.checks import CheckFailure
from minitorch_course.grading import refuse_foreign_code


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


def _leaf(shape, seed: int = 0):
    rng = np.random.default_rng(seed)
    return _mt().Tensor(rng.uniform(-2.0, 2.0, size=shape), requires_grad=True)


def _fmt(shape) -> str:
    return "(" + ",".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _compare(where: str, got, want: np.ndarray, hint: str = "") -> None:
    """Raise CheckFailure unless ``got`` (an array or None) equals ``want`` to 1e-12."""
    if got is None:
        raise CheckFailure(f"{where}: .grad is None, expected an array of shape {want.shape}. "
                           + (hint or "backward() never reached this node."))
    got = np.asarray(got)
    if got.shape != want.shape:
        raise CheckFailure(f"{where}: gradient shape {got.shape}, expected {want.shape}. {hint}")
    diff = np.abs(got - want)
    if diff.size and not np.all(diff <= 1e-12 + 1e-12 * np.abs(want)):
        j = np.unravel_index(int(np.argmax(diff)), diff.shape)
        ratio = ""
        nonzero = np.abs(want) > 1e-12
        if nonzero.any():
            r = got[nonzero] / want[nonzero]
            if np.allclose(r, r.flat[0]) and not np.isclose(r.flat[0], 1.0):
                ratio = f" Every element is {r.flat[0]:g}× the right one."
        raise CheckFailure(
            f"{where}: element {tuple(int(i) for i in j)}: got {float(got[j])!r}, expected "
            f"{float(want[j])!r} (|difference| {diff[j]:.3g}).{ratio} {hint}".rstrip())


# ---------------------------------------------------------------- lab 00: topological order
def _order_of(root, label: str) -> list:
    try:
        order = root._topological_order()
    except RecursionError:
        raise CheckFailure(
            f"_topological_order on {label}: RecursionError. A recursive depth-first search "
            "overflows Python's call stack (about 1000 frames); use a while loop over an explicit "
            "stack of (node, children_done) pairs.") from None
    if not isinstance(order, list):
        raise CheckFailure(f"_topological_order on {label}: returned {type(order).__name__}, "
                           "expected a list of Tensors")
    return order


def _assert_topological(order: list, root, expected: dict, label: str) -> None:
    """``expected`` names every node that must appear, exactly once, parents first."""
    name_of = {id(t): name for name, t in expected.items()}
    seen = [name_of.get(id(t), f"<unexpected {getattr(t, '_op', '?') or 'leaf'}>") for t in order]
    counts = {n: seen.count(n) for n in seen}
    twice = [n for n, c in counts.items() if c > 1]
    if twice:
        raise CheckFailure(
            f"_topological_order on {label}: {', '.join(twice)} appear(s) more than once "
            f"(order: {seen}). Mark a node visited the first time you reach it and skip it "
            "afterwards; a node reached along two paths must be listed once.")
    missing = [n for n in expected if n not in counts]
    if missing:
        raise CheckFailure(
            f"_topological_order on {label}: {', '.join(missing)} missing (order: {seen}). "
            "Follow every parent in node._prev that requires grad, all the way to the leaves.")
    unexpected = [n for n in seen if n.startswith("<unexpected")]
    if unexpected:
        raise CheckFailure(
            f"_topological_order on {label}: the order contains a node that needs no gradient "
            f"(order: {seen}). Skip parents with requires_grad=False (constants).")
    position = {n: i for i, n in enumerate(seen)}
    for name, t in expected.items():
        for parent in t._prev:
            pname = name_of.get(id(parent))
            if pname in position and position[pname] > position[name]:
                raise CheckFailure(
                    f"_topological_order on {label}: {pname} comes after its child {name} "
                    f"(order: {seen}). Append a node only after all its parents are in the "
                    "list (post-order), and return parents before children.")
    if seen[-1] != name_of[id(root)]:
        raise CheckFailure(f"_topological_order on {label}: the last node must be the one "
                           f"backward() starts from ({name_of[id(root)]}); order: {seen}")


def _topo_cases():
    def chain3():
        x = _leaf((3, 5))
        a = square(x)
        b = scale(a, 3.0)
        _assert_topological(_order_of(b, "x -> a -> b"), b, {"x": x, "a": a, "b": b},
                            "x -> a -> b, shapes (3,5)")

    def diamond():
        x = _leaf((3, 5))
        a, b = square(x), scale(x, 2.0)
        c = plus(a, b)
        _assert_topological(_order_of(c, "diamond"), c, {"x": x, "a": a, "b": b, "c": c},
                            "the diamond a = x², b = 2x, c = a + b, shapes (3,5)")

    def constant_parent():
        x = _leaf((20, 3, 5))
        k = _mt().Tensor(np.full((20, 3, 5), 0.5))
        y = times_const(x, k)
        _assert_topological(_order_of(y, "y = x·k"), y, {"x": x, "y": y},
                            "y = x·k with k a constant, shapes (20,3,5)")

    def deep():
        x = _mt().Tensor(np.ones(()), requires_grad=True)
        y = chain(x, 100_000)
        order = _order_of(y, "a chain of 100,000 ops")
        if len(order) != 100_001 or order[0] is not x or order[-1] is not y:
            raise CheckFailure(
                f"_topological_order on a chain of 100,000 ops: {len(order)} nodes, expected "
                "100001 with the leaf first and the output last")

    return [chain3, diamond, constant_parent, deep]


# ---------------------------------------------------------------- lab 00: backward
def _backward_cases():
    def square_then_sum():
        x = _leaf((3, 5))
        s = total(square(x))
        s.backward()
        _compare("backward of s = Σ x², x of shape (3,5): x.grad", x.grad, 2.0 * x.data,
                 "ds/dx = 2x: the seed is 1 for a one-element output, then each node's "
                 "_backward(node.grad) gives its parents' gradients.")

    def diamond_accumulates():
        x = _leaf((3, 5))
        c = plus(square(x), scale(x, 2.0))
        up = np.random.default_rng(7).standard_normal((3, 5))
        c.backward(up)
        _compare("backward of c = x² + 2x with a random upstream (3,5): x.grad", x.grad,
                 up * (2.0 * x.data + 2.0),
                 "x feeds two nodes: its gradient is the SUM over both paths. Accumulate "
                 "(grad = grad + g) instead of overwriting, and visit children before parents "
                 "(the reversed topological order).")

    def grid_constant():
        x = _leaf((20, 3, 5))
        k = _mt().Tensor(np.random.default_rng(3).uniform(0.5, 1.5, (20, 3, 5)))
        y = times_const(x, k)
        up = np.random.default_rng(8).standard_normal((20, 3, 5))
        y.backward(up)
        _compare("backward of y = x·k on the grid (20,3,5): x.grad", x.grad, up * k.data,
                 "x.grad must be the upstream gradient times k.")
        if k.grad is not None:
            raise CheckFailure("backward of y = x·k: the constant k (requires_grad=False) got a "
                               f".grad of shape {np.shape(k.grad)}; it must stay None. Skip "
                               "parents that do not require grad.")

    def intermediate_grads():
        x = _leaf((3, 5))
        a = square(x)
        b = scale(a, 3.0)
        up = np.random.default_rng(9).standard_normal((3, 5))
        b.backward(up)
        _compare("backward of b = 3·x²: a.grad (the intermediate node a = x²)", a.grad,
                 3.0 * up, "Every node on the way keeps its gradient in .grad (db/da = 3).")
        _compare("backward of b = 3·x²: b.grad (the output)", b.grad, up,
                 "The output's .grad is the seed you passed to backward().")

    def leaves_accumulate_across_calls():
        x = _leaf((3, 5))
        total(square(x)).backward()
        total(scale(x, 3.0)).backward()
        _compare("two backward() calls on two graphs sharing the leaf x: x.grad", x.grad,
                 2.0 * x.data + 3.0,
                 "A leaf's .grad accumulates across backward() calls (like PyTorch) until "
                 "zero_grad(); do not reset leaves at the start of backward().")

    return [square_then_sum, diamond_accumulates, grid_constant, intermediate_grads,
            leaves_accumulate_across_calls]


def _retain_graph_cases():
    def retain_twice():
        x = _leaf((3, 5))
        s = total(square(x))
        s.backward(retain_graph=True)
        s.backward()
        _compare("s = Σ x², s.backward(retain_graph=True) then s.backward(): x.grad", x.grad,
                 4.0 * x.data, "With retain_graph=True the graph survives the first backward(), "
                 "so the second one adds 2x again: 4x in total.")

    def freed_after_backward():
        x = _leaf((3, 5))
        a = square(x)
        s = total(a)
        s.backward()
        kept = [name for name, t in (("s", s), ("a", a)) if t._backward is not None or t._prev]
        if kept:
            raise CheckFailure(
                f"after s.backward() without retain_graph, node(s) {', '.join(kept)} still hold "
                "their _prev / _backward. Free the graph like PyTorch: once a node's _backward "
                "has run, set node._prev = () and node._backward = None (unless retain_graph), "
                "so its saved arrays can be released.")

    return [retain_twice, freed_after_backward]


# ---------------------------------------------------------------- lab 01: unbroadcast
UNBROADCAST_PAIRS: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = (
    ((3, 5), (3, 5)),
    ((4, 3), (3,)),
    ((4, 3), (4, 1)),
    ((4, 3), (1, 3)),
    ((4, 3), ()),
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


def _unbroadcast_hint(grad_shape, shape, got: np.ndarray, want: np.ndarray) -> str:
    extra = len(grad_shape) - len(shape)
    ones = [i for i, n in enumerate(shape) if n == 1 and grad_shape[i + extra] != 1]
    if got.shape == tuple(grad_shape) and tuple(grad_shape) != tuple(shape):
        return ("You returned grad unchanged: sum away the leading axes grad has in excess "
                f"({extra} here) and the axes where the target has 1.")
    if got.shape == tuple(n for n in shape if n != 1) and ones:
        return (f"Right sums, but the size-1 axes {ones} of the target were dropped: sum them "
                "with keepdims=True.")
    if got.ndim == len(grad_shape) and extra:
        return ("The leading axes must disappear (sum them WITHOUT keepdims); only the target's "
                "own size-1 axes keep keepdims=True.")
    if got.shape == want.shape:
        n = int(np.prod(grad_shape) / max(1, np.prod(shape)))
        if n > 1 and np.allclose(got * n, want):
            return f"Every element is 1/{n} of the right one: use sum, not mean."
        return "Sum over the broadcast axes; each element of the target collects every copy of it."
    return (f"Aligned to the right, (grad {_fmt(grad_shape)} vs target {_fmt(shape)}): sum the "
            f"first {extra} axes away, then the axes where the target has 1, keepdims.")


def _unbroadcast_cases():
    cases = []
    for k, (grad_shape, shape) in enumerate(UNBROADCAST_PAIRS):
        def case(grad_shape=grad_shape, shape=shape, k=k):
            grad = np.random.default_rng(100 + k).standard_normal(grad_shape)
            before = grad.copy()
            got = _mt().unbroadcast(grad, shape)
            want = _sum_to(before, shape)
            where = f"unbroadcast(grad of shape {_fmt(grad_shape)}, {_fmt(shape)})"
            if not np.array_equal(grad, before):
                raise CheckFailure(f"{where} modified the grad it was given; return a new array "
                                   "(the caller may still need it).")
            got_arr = np.asarray(got)
            if got_arr.shape != want.shape or not np.allclose(got_arr, want, rtol=1e-12,
                                                              atol=1e-12):
                hint = _unbroadcast_hint(grad_shape, shape, got_arr, want)
                if got_arr.shape != want.shape:
                    raise CheckFailure(f"{where}: returned shape {got_arr.shape}, expected "
                                       f"{want.shape}. {hint}")
                _compare(where, got_arr, want, hint)
        case.__name__ = f"unbroadcast {grad_shape} -> {shape}"
        cases.append(case)
    return cases


CHECKS: dict[str, Callable[[], list[Callable[[], None]]]] = {
    "topological_order": _topo_cases,
    "backward": _backward_cases,
    "retain_graph": _retain_graph_cases,
    "unbroadcast": _unbroadcast_cases,
}


def check_engine(*names: str) -> None:
    """Run these engine checks; print ``✓ name: N checks passed`` or raise CheckFailure.

    A check whose code still raises NotImplementedError fails as ``[not started]`` with the
    stub's message (which names the lab notebook), like ``grading.check_ops``.
    """
    refuse_foreign_code()
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise KeyError(f"unknown engine check(s) {unknown}; available: {sorted(CHECKS)}")
    problems = []
    for name in names:
        cases = CHECKS[name]()
        failure = None
        for case in cases:
            try:
                case()
            except NotImplementedError as err:
                failure = f"[not started] {name}\n{err}"
                if "unbroadcast" in str(err) and name != "unbroadcast":
                    failure += ("\nYour backward() calls unbroadcast, which lab 01 asks for. "
                                "Until then call it only when g.shape != parent.shape.")
            except CheckFailure as err:
                failure = f"[fail] {name} · {case.__name__}\n{err}"
            except Exception as err:  # the learner's code crashed: say where
                failure = (f"[fail] {name} · {case.__name__}\n{type(err).__name__}: {err} "
                           f"(raised inside your {name} code)")
            if failure:
                problems.append(failure)
                break
        if failure is None:
            print(f"✓ {name}: {len(cases)} checks passed")
    if problems:
        raise CheckFailure("\n\n".join(problems))
