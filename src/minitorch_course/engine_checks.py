"""Checks for the engine rows, what is not a catalog op: lab 00's engine and ``unbroadcast``.

The catalog rows check ops through ``+``, ``exp`` and friends, which need the engine already.
These checks build their graphs BY HAND, with ``Tensor._make`` and a ``_backward`` closure per
node, so lab 00 can be graded before a single op of lab 01 exists.

Each case is one function beside its words: it writes its graph down as data on a
:class:`Graph` (leaves, nodes, ``backward()`` calls, what to read back: a *program*) and
returns its judge. ``minitorch_course.worker.engine.run`` executes the program on an
implementation and fills a :class:`Seen` with what it observed; the judge then compares that
with the expected values it computes from the program's own inputs, and raises
``CheckFailed`` with a ``Fact`` (message id and parameters, worded by
``minitorch_course.messages``) and the diagnosis' kind. The notebook runs both halves in one
process (``minitorch_course.runner``); the scores of record send only the program to the
grading worker and judge its observations in the instructor's process, so the worker holds
no expected value.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from minitorch_course.catalog import MISTAKES
from minitorch_course.diagnosis import crash_params, explain_grad_shape
from minitorch_course.i18n import N_
from minitorch_course.outcomes import CheckFailed, Diagnosis, Fact, StandIn


# ---------------------------------------------------------------- cases as data
class Seen(dict):
    """What a program observed, by key. Reading what the program never reached (the
    learner's code raised first) raises that exception (``error``), where the case would have
    read it: a case reports its first failure in its own order."""

    error: BaseException | None = None

    def __missing__(self, key):
        if self.error is not None:
            raise self.error
        raise KeyError(key)


Judge = Callable[[Seen], None]


class Graph:
    """A case's program, written down step by step (``worker.engine.run`` executes it), and
    the seed its values are drawn from."""

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.arrays: dict[str, np.ndarray] = {}
        self.steps: list[dict] = []

    def rng(self, k: int) -> np.random.Generator:
        """The ``k``-th random stream of a case: fixed shapes, values drawn from the seed (0:
        the values make check has always used)."""
        return np.random.default_rng(k if not self.seed else (self.seed, k))

    def leaf(self, name: str, shape, k: int = 0) -> np.ndarray:
        """A leaf that requires grad, uniform in [-2, 2) from stream ``k``: its data."""
        return self.constant(name, self.rng(k).uniform(-2.0, 2.0, size=shape), True)

    def constant(self, name: str, data: np.ndarray, requires_grad: bool = False) -> np.ndarray:
        data = np.asarray(data, dtype=np.float64)
        self.steps.append({"do": "leaf", "name": name, "data": data,
                           "requires_grad": requires_grad})
        return data

    def node(self, name: str, op: str, *parents: str, k: float | None = None,
             repeat: int = 1) -> None:
        """An op's output built by hand (``worker.engine.OPS[op]``), ``repeat`` times over."""
        self.steps.append({"do": "node", "name": name, "op": op, "parents": list(parents),
                           "k": k, "repeat": repeat})

    def array(self, name: str, data: np.ndarray) -> np.ndarray:
        """An array the program passes by name (an upstream gradient)."""
        self.arrays[name] = np.asarray(data, dtype=np.float64)
        return self.arrays[name]

    def do(self, what: str, **fields) -> None:
        self.steps.append({"do": what, **fields})

    def backward(self, node: str, *args: str, key: str = "", **kwargs) -> None:
        """``node.backward(*args, **kwargs)`` (args name arrays); with ``key``, a BackwardError
        is observed there instead of raised."""
        self.do("backward", node=node, args=list(args), kwargs=kwargs, key=key)

    def grads(self, *nodes: str) -> None:
        for node in nodes:
            self.do("grad", node=node)

    def program(self) -> dict:
        return {"arrays": dict(self.arrays), "steps": list(self.steps)}


# ---------------------------------------------------------------- each case's words
# Declared on each case (``@words``) and shown, translated, by ``minitorch_course.messages``.
LABELS: dict[str, str] = {}  # case -> its name in a report (an unbroadcast case names its call)
READS: dict[str, str] = {}  # where (one comparison of a case) -> what it reads
HINTS: dict[str, str] = {}  # where -> what to do when it differs (none: the diagnosis says)
GRAPHS: dict[str, str] = {}  # a topological-order case's graph -> the graph
NAMED: dict[str, str] = {}  # what engine-grad-aliased may name, beyond a node's .grad


def words(label: str, graph: tuple[str, str] | None = None,
          reads: dict[str, str | tuple[str, str]] | None = None):
    """A case's words, declared on it: its label, its graph (key, words), and for each
    comparison (``where``) what it reads, with a hint when there is one (a pair)."""
    def register(build):
        LABELS[build.__name__] = label
        if graph:
            GRAPHS[graph[0]] = graph[1]
        for where, said in (reads or {}).items():
            READS[where], HINTS[where] = (said, "") if isinstance(said, str) else said
        return build
    return register


_SKIP_LEAF = N_("Every node in the reversed order gets its turn: skip a leaf (no _backward) with "
                "continue, do not end the loop there.")


@dataclass(frozen=True)
class EngineCase:
    """One case: its name (``LABELS``' key), its program and its judge."""

    name: str
    program: dict
    judge: Judge


def _fail(fact_id: str, kind: str, diagnosis_id: str = "", **params) -> CheckFailed:
    return CheckFailed(Fact(fact_id, params), Diagnosis(kind, diagnosis_id))


def _compare(where: str, got, want: np.ndarray, kind: str = "engine", hint: dict | None = None
             ) -> None:
    """Raise CheckFailed unless ``got`` (an array or None) equals ``want`` to 1e-12.

    ``where`` names the case (its words are ``READS[where]``); ``kind`` is the
    diagnosis when nothing more telling shows: a constant ratio of 1/2 says a gradient was
    overwritten instead of accumulated, of 2 that a node was counted twice.
    """
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
        diff = np.abs(np.asarray(got) - want)
        j = np.unravel_index(int(np.argmax(diff)), diff.shape)
        raise _fail("engine-grad-values", "missing-upstream", "engine-seed-ignored", where=where,
                    want_shape=want.shape, element=tuple(int(i) for i in j),
                    got=float(np.asarray(got)[j]), want=float(want[j]), diff=float(diff[j]),
                    ratio=None, mistake=True)




# ---------------------------------------------------------------- lab 00: topological order
def _topological(seen: Seen, graph: str, root: str, parents: dict[str, list[str]]) -> None:
    """The one topological-order validator: the order ``seen[graph]`` (node names) lists every
    node of ``parents`` (name -> its parents' names) exactly once, parents first, ``root``
    last. The order itself may differ from the reference's."""
    observed = seen[graph]
    if "raised" in observed:
        raise _fail("topo-recursion", "recursion", graph=graph)
    if "type" in observed:
        raise _fail("topo-not-list", "topological-order", graph=graph, type=observed["type"])
    order = list(observed["order"])
    counts = {n: order.count(n) for n in order}
    twice = [n for n, c in counts.items() if c > 1]
    if twice:
        raise _fail("topo-twice", "double-counting", graph=graph, twice=twice, order=order)
    missing = [n for n in parents if n not in counts]
    if missing:
        raise _fail("topo-missing", "topological-order", graph=graph, missing=missing,
                    order=order)
    if any(n.startswith("<unexpected") for n in order):
        raise _fail("topo-unexpected", "topological-order", graph=graph, order=order)
    position = {n: i for i, n in enumerate(order)}
    for name, mine in parents.items():
        for parent in mine:
            if parent in position and position[parent] > position[name]:
                raise _fail("topo-parent-after", "topological-order", graph=graph,
                            parent=parent, child=name, order=order)
    if order[-1] != root:
        raise _fail("topo-last", "topological-order", graph=graph, root=root, order=order)


def _order(g: Graph, graph: str, root: str, parents: dict[str, list[str]]) -> Judge:
    g.do("order", root=root, key=graph, names=list(parents))
    return lambda seen: _topological(seen, graph, root, parents)


@words(N_("chain3"),
       graph=("chain3", N_("x -> a -> b, shapes (3, 5)")))
def chain3(g: Graph) -> Judge:
    g.leaf("x", (3, 5))
    g.node("a", "square", "x")
    g.node("b", "scale", "a", k=3.0)
    return _order(g, "chain3", "b", {"x": [], "a": ["x"], "b": ["a"]})


@words(N_("diamond"),
       graph=("diamond", N_("the diamond a = x², b = 2x, c = a + b, shapes (3, 5)")))
def diamond(g: Graph) -> Judge:
    g.leaf("x", (3, 5))
    g.node("a", "square", "x")
    g.node("b", "scale", "x", k=2.0)
    g.node("c", "plus", "a", "b")
    return _order(g, "diamond", "c", {"x": [], "a": ["x"], "b": ["x"], "c": ["a", "b"]})


@words(N_("residual"),
       graph=("residual", N_("a = x², b = 2a, c = a + b (a reaches c twice), shapes (3, 5)")))
def residual(g: Graph) -> Judge:
    # a reaches c directly and through b: a depth-first search meets a twice
    g.leaf("x", (3, 5))
    g.node("a", "square", "x")
    g.node("b", "scale", "a", k=2.0)
    g.node("c", "plus", "a", "b")
    return _order(g, "residual", "c", {"x": [], "a": ["x"], "b": ["a"], "c": ["a", "b"]})


@words(N_("constant parent"),
       graph=("constant", N_("y = x·k with k a constant, shapes (20, 3, 5)")))
def constant_parent(g: Graph) -> Judge:
    g.leaf("x", (20, 3, 5))
    g.constant("k", np.full((20, 3, 5), 0.5))
    g.node("y", "times", "x", "k")
    return _order(g, "constant", "y", {"x": [], "y": ["x"]})


@words(N_("deep"),
       graph=("deep", N_("a chain of 100,000 ops")))
def deep(g: Graph) -> Judge:
    g.constant("x", np.ones(()), requires_grad=True)
    g.node("y", "identity", "x", repeat=100_000)  # the order is checked, not arithmetic
    g.do("order", root="y", key="deep", summary=True, first="x")

    def judge(seen: Seen) -> None:
        observed = seen["deep"]
        if "raised" in observed:
            raise _fail("topo-recursion", "recursion", graph="deep")
        if "type" in observed:
            raise _fail("topo-not-list", "topological-order", graph="deep",
                        type=observed["type"])
        if observed["count"] != 100_001 or not observed["first"] or not observed["last"]:
            raise _fail("topo-deep-count", "topological-order", count=observed["count"])
    return judge


# ---------------------------------------------------------------- lab 00: backward
@words(N_("square then sum"), reads={
    "square_then_sum": (
        N_("backward of s = Σ x², x of shape (3, 5): x.grad"),
        N_("ds/dx = 2x: the seed is 1 for a one-element output, then each node's "
           "_backward(node.grad) gives its parents' gradients.")),
})
def square_then_sum(g: Graph) -> Judge:
    x = g.leaf("x", (3, 5))
    g.node("a", "square", "x")
    g.node("s", "total", "a")
    g.backward("s")
    g.grads("x", "s", "a")

    def judge(seen: Seen) -> None:
        if seen["x.grad"] is None and seen["s.grad"] is not None:
            raise _fail("engine-grad-stopped", "topological-order", want_shape=x.shape,
                        a_got=seen["a.grad"] is not None)
        if seen["x.grad"] is None:
            raise _fail("engine-seed-lost", "engine", every=seen["a.grad"] is None)
        _compare("square_then_sum", seen["x.grad"], 2.0 * x)
    return judge


@words(N_("diamond accumulates"), reads={
    "diamond_accumulates": (
        N_("backward of c = x² + 2x with a random upstream (3, 5): x.grad"),
        N_("x feeds two nodes: its gradient is the SUM over both paths. Accumulate (grad = grad + "
           "g) instead of overwriting, and visit children before parents (the reversed "
           "topological order).")),
})
def diamond_accumulates(g: Graph) -> Judge:
    x = g.leaf("x", (3, 5))
    g.node("a", "square", "x")
    g.node("b", "scale", "x", k=2.0)
    g.node("c", "plus", "a", "b")
    up = g.array("up", g.rng(7).standard_normal((3, 5)))
    g.backward("c", "up")
    g.grads("x")

    def judge(seen: Seen) -> None:
        got = seen["x.grad"]
        want = up * (2.0 * x + 2.0)
        _seed_ignored("diamond_accumulates", got, want, 2.0 * x + 2.0)
        # "overwritten" only when x.grad is exactly one path's contribution
        paths = (up * 2.0 * x, up * 2.0)
        one_path = got is not None and np.shape(got) == want.shape and any(
            np.allclose(got, path, 1e-12, 1e-12) for path in paths)
        _compare("diamond_accumulates", got, want, "accumulate" if one_path else "engine")
    return judge


@words(N_("grid constant"), reads={
    "grid_constant": (
        N_("backward of y = x·k on the grid (20, 3, 5): x.grad"),
        N_("x.grad must be the upstream gradient times k.")),
})
def grid_constant(g: Graph) -> Judge:
    g.leaf("x", (20, 3, 5))
    k = g.constant("k", g.rng(3).uniform(0.5, 1.5, (20, 3, 5)))
    g.node("y", "times", "x", "k")
    up = g.array("up", g.rng(8).standard_normal((20, 3, 5)))
    g.backward("y", "up")
    g.grads("x", "k")

    def judge(seen: Seen) -> None:
        _compare("grid_constant", seen["x.grad"], up * k)
        if seen["k.grad"] is not None:
            raise _fail("engine-constant-got-grad", "engine", shape=np.shape(seen["k.grad"]))
    return judge


@words(N_("two leaves"), reads={
    "two_leaves_x": (
        N_("backward of c = x² + 3y with a random upstream (3, 5): x.grad"),
        _SKIP_LEAF),
    "two_leaves_y": (
        N_("backward of c = x² + 3y with a random upstream (3, 5): y.grad"),
        _SKIP_LEAF),
})
def two_leaves(g: Graph) -> Judge:
    # separate branches: meeting one leaf in the reversed order must not end the pass
    x, _ = g.leaf("x", (3, 5)), g.leaf("y", (3, 5), 1)
    g.node("a", "square", "x")
    g.node("b", "scale", "y", k=3.0)
    g.node("c", "plus", "a", "b")
    up = g.array("up", g.rng(12).standard_normal((3, 5)))
    g.backward("c", "up")
    g.grads("x", "y")

    def judge(seen: Seen) -> None:
        _compare("two_leaves_x", seen["x.grad"], 2.0 * x * up)
        _compare("two_leaves_y", seen["y.grad"], 3.0 * up)
    return judge


@words(N_("constant first"), reads={
    "constant_first": (
        N_("backward of y = k·x, k a constant and the FIRST parent, shapes (3, 5): x.grad"),
        N_("A parent that needs no gradient (or a None from _backward) is skipped, and the loop "
           "goes on to the next parent.")),
})
def constant_first(g: Graph) -> Judge:
    # the first parent needs no gradient (and its closure returns None for it)
    g.leaf("x", (3, 5))
    k = g.constant("k", g.rng(13).uniform(0.5, 1.5, (3, 5)))
    g.node("y", "times_first_none", "k", "x")
    up = g.array("up", g.rng(14).standard_normal((3, 5)))
    g.backward("y", "up")
    g.grads("x")
    return lambda seen: _compare("constant_first", seen["x.grad"], up * k)


@words(N_("same parent twice"), reads={
    "same_parent_twice": (
        N_("backward of y = x·x (x is both parents) with a random upstream (3, 5): x.grad"),
        N_("x is both parents of y = x·x: each of its two gradients g·x is added to x.grad (2x·g "
           "in all), and x enters the order once even though it is pushed twice.")),
})
def same_parent_twice(g: Graph) -> Judge:
    # y = x·x: x is both parents (x * x, the commonest reuse). A depth-first search pushes x
    # twice before visiting it, and the two gradients g·x must both reach x.grad
    x = g.leaf("x", (3, 5))
    g.node("y", "times", "x", "x")
    up = g.array("up", g.rng(15).standard_normal((3, 5)))
    g.backward("y", "up")
    g.grads("x")
    return lambda seen: _compare("same_parent_twice", seen["x.grad"], 2.0 * x * up,
                                 "accumulate")


@words(N_("intermediate grads"), reads={
    "intermediate_a": (
        N_("backward of b = 3·x²: a.grad (the intermediate node a = x²)"),
        N_("Every node on the way keeps its gradient in .grad (db/da = 3).")),
    "intermediate_b": (
        N_("backward of b = 3·x²: b.grad (the output)"),
        N_("The output's .grad is the seed you passed to backward().")),
})
def intermediate_grads(g: Graph) -> Judge:
    g.leaf("x", (3, 5))
    g.node("a", "square", "x")
    g.node("b", "scale", "a", k=3.0)
    up = g.array("up", g.rng(9).standard_normal((3, 5)))
    g.backward("b", "up")
    g.grads("a", "b")

    def judge(seen: Seen) -> None:
        _compare("intermediate_a", seen["a.grad"], 3.0 * up)
        _compare("intermediate_b", seen["b.grad"], up)
    return judge


@words(N_("leaves accumulate across calls"), reads={
    "leaves_accumulate": (
        N_("two backward() calls on two graphs sharing the leaf x: x.grad"),
        N_("A leaf's .grad accumulates across backward() calls (like PyTorch) until zero_grad(); "
           "do not reset leaves at the start of backward().")),
})
def leaves_accumulate_across_calls(g: Graph) -> Judge:
    x = g.leaf("x", (3, 5))
    g.node("a", "square", "x")
    g.node("s", "total", "a")
    g.backward("s")
    g.node("b", "scale", "x", k=3.0)
    g.node("t", "total", "b")
    g.backward("t")
    g.grads("x")

    def judge(seen: Seen) -> None:
        want = 2.0 * x + 3.0
        # the diamond passed, so within a pass it accumulates: the leaf was reset in between
        _known("leaves_accumulate", seen["x.grad"], want, "backward_resets_leaf_grads",
               np.full(x.shape, 3.0))
        _compare("leaves_accumulate", seen["x.grad"], want, "accumulate")
    return judge


@words(N_("leaf grads are their own"), reads={
    "aliasing_x": N_("backward of c = x + y with a random upstream (3, 5): x.grad"),
    "aliasing_y": N_("backward of c = x + y with a random upstream (3, 5): y.grad"),
    "aliasing_z": N_("backward of s = Σ z, z of shape (3, 5): z.grad"),
})
def leaf_grads_are_their_own(g: Graph) -> Judge:
    g.leaf("x", (3, 5))
    g.leaf("y", (3, 5), 1)
    g.node("c", "plus", "x", "y")  # its _backward hands the very same array g to both parents
    up = g.array("up", g.rng(10).standard_normal((3, 5)))
    g.backward("c", "up")
    g.grads("x", "y")
    g.leaf("z", (3, 5), 2)
    g.node("s", "total", "z")  # its _backward returns a read-only broadcast view
    g.backward("s")
    g.grads("z")
    # an optimizer's in-place update of each leaf's .grad: nothing else may change
    g.do("in_place", leaves=["x", "z"],
         others={"y.grad": "y.grad", "c.grad": "c.grad", UPSTREAM_ARRAY: "up"})

    def judge(seen: Seen) -> None:
        _compare("aliasing_x", seen["x.grad"], up)
        _compare("aliasing_y", seen["y.grad"], up)
        _compare("aliasing_z", seen["z.grad"], np.ones((3, 5)))
        for name in ("x", "z"):
            changed = seen[f"in_place {name}"]
            if changed == "read-only":
                raise _fail("engine-grad-read-only", "aliasing", "leaf_grads_alias", leaf=name)
            if changed:
                raise _fail("engine-grad-aliased", "aliasing", "leaf_grads_alias",
                            changed=list(changed))
    return judge


UPSTREAM_ARRAY = NAMED["the upstream array"] = N_("the upstream array")


# ---------------------------------------------------------------- lab 00: retain_graph
def _second_backward(seen: Seen, key: str) -> None:
    """A backward after one with retain_graph=True: a freed graph means it was ignored."""
    raised = seen[key]
    if raised:
        raise _fail("engine-retain-ignored", "freed-graph", message=raised["message"])


@words(N_("intermediate grads reset"), reads={
    "reset_b": (
        N_("b = 3·x², b.backward(g1, retain_graph=True) then b.backward(g2): b.grad (the output)"),
        N_("The output's .grad is the seed of THIS backward() call: g2.")),
    "reset_a": (
        N_("b = 3·x², b.backward(g1, retain_graph=True) then b.backward(g2): a.grad (a = x²)"),
        N_("An intermediate node's .grad holds the last pass's gradient only: 3·g2.")),
    "reset_x": (
        N_("b = 3·x², b.backward(g1, retain_graph=True) then b.backward(g2): x.grad"),
        N_("A leaf's .grad accumulates over both calls: 2x·3·(g1 + g2).")),
})
def intermediate_grads_reset(g: Graph) -> Judge:
    x = g.leaf("x", (3, 5))
    g.node("a", "square", "x")
    g.node("b", "scale", "a", k=3.0)
    rng = g.rng(11)
    up1 = g.array("up1", rng.standard_normal((3, 5)))
    up2 = g.array("up2", rng.standard_normal((3, 5)))
    g.backward("b", "up1", retain_graph=True)
    g.backward("b", "up2", key="second")
    g.grads("b", "a", "x")

    def judge(seen: Seen) -> None:
        _second_backward(seen, "second")
        if seen["b.grad"] is None:  # the output itself: no seed to start from
            raise _fail("engine-seed-lost", "engine", every=seen["x.grad"] is None)
        for where, node, first, want in (("reset_b", "b", up1, up2),
                                         ("reset_a", "a", 3.0 * up1, 3.0 * up2)):
            got = seen[f"{node}.grad"]
            _known(where, got, want, "intermediate_grads_not_reset", first + want)
            _compare(where, got, want)
        _compare("reset_x", seen["x.grad"], 6.0 * x * (up1 + up2), "accumulate")
    return judge


@words(N_("retain twice"), reads={
    "retain_twice": (
        N_("s = Σ x², s.backward(retain_graph=True) then s.backward(): x.grad"),
        N_("With retain_graph=True the graph survives the first backward(), so the second one "
           "adds 2x again: 4x in total.")),
})
def retain_twice(g: Graph) -> Judge:
    x = g.leaf("x", (3, 5))
    g.node("a", "square", "x")
    g.node("s", "total", "a")
    g.backward("s", retain_graph=True)
    g.backward("s", key="second")
    g.grads("x")

    def judge(seen: Seen) -> None:
        _second_backward(seen, "second")
        _compare("retain_twice", seen["x.grad"], 4.0 * x, "freed-graph")
    return judge


@words(N_("freed after backward"))
def freed_after_backward(g: Graph) -> Judge:
    g.leaf("x", (3, 5))
    g.node("a", "square", "x")
    g.node("s", "total", "a")
    g.backward("s")
    g.do("kept", nodes=["s", "a"])

    def judge(seen: Seen) -> None:
        if seen["kept"]:
            raise _fail("engine-graph-kept", "freed-graph", kept=list(seen["kept"]))
    return judge


@words(N_("second backward raises"))
def second_backward_raises(g: Graph) -> Judge:
    # the graph is freed (the case above): running through it again must say so, like
    # PyTorch, not hand back the first pass's gradients as if it had run
    g.leaf("x", (3, 5))
    g.node("a", "square", "x")
    g.node("s", "total", "a")
    g.backward("s")
    g.grads("x")  # the first backward() ran: a crash of its own is reported as a crash
    g.backward("s", key="second")

    def judge(seen: Seen) -> None:
        seen["x.grad"]
        try:
            second = seen["second"]
        except (NotImplementedError, RecursionError):
            raise
        except Exception as err:  # noqa: BLE001 - it raised, but not the course's error
            # an exception of another class (RuntimeError, an assert, a TypeError calling
            # the freed None closure): the learner's test and theory 01 expect BackwardError
            frames = (err.frames if isinstance(err, StandIn)
                      else traceback.extract_tb(err.__traceback__))
            raise _fail("engine-freed-wrong-error", "freed-graph",
                        **crash_params(err, frames)) from None
        if not second:
            raise _fail("engine-freed-silent", "freed-graph")
    return judge


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


def _unbroadcast_case(k: int, grad_shape: tuple[int, ...], shape: tuple[int, ...]
                      ) -> Callable[[Graph], Judge]:
    def case(g: Graph) -> Judge:
        grad = g.array("grad", g.rng(100 + k).standard_normal(grad_shape))
        g.do("unbroadcast", grad="grad", shape=list(shape))

        def judge(seen: Seen) -> None:
            got = seen["unbroadcast"]
            want = _sum_to(grad, shape)
            where = {"grad_shape": grad_shape, "shape": shape}
            if not seen["kept_input"]:
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
        return judge
    case.__name__ = f"unbroadcast {grad_shape} -> {shape}"
    return case


READS["unbroadcast"] = N_("unbroadcast(grad of shape {grad_shape}, {shape})")


# ---------------------------------------------------------------- the rows
CASES_BY_ROW: dict[str, tuple[Callable[[Graph], Judge], ...]] = {
    "topological_order": (chain3, diamond, residual, constant_parent, deep),
    "backward": (square_then_sum, diamond_accumulates, grid_constant, two_leaves,
                 constant_first, same_parent_twice, intermediate_grads,
                 leaves_accumulate_across_calls, leaf_grads_are_their_own),
    "retain_graph": (intermediate_grads_reset, retain_twice, freed_after_backward,
                     second_backward_raises),
    "unbroadcast": tuple(_unbroadcast_case(k, grad_shape, shape)
                         for k, (grad_shape, shape) in enumerate(UNBROADCAST_PAIRS)),
}


def cases(row: str, seed: int = 0) -> list[EngineCase]:
    """The cases of an engine row, their values drawn from ``seed``: programs and judges."""
    out = []
    for build in CASES_BY_ROW[row]:
        g = Graph(seed)
        judge = build(g)
        out.append(EngineCase(build.__name__, g.program(), judge))
    return out
