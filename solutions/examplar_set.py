"""Wheats and chaffs for grading the learner's tests (``minitorch_course.examplar``).

WHEATS are correct implementations that differ in FORM from solutions/tensor.py (another
algorithm for the topological order, loops in unbroadcast, other but equivalent expressions
of a derivative), so a test that fingerprints the reference instead of testing behaviour fails
on one of them and is dropped. CHAFFS are the catalog's planted mistakes (solutions/planted.py)
and a few more, each planted into a wheat (rotating, so chaffs vary in form too), labelled with
the kind of test it takes to catch them (``examplar.TEST_KINDS``) and the labs whose tests are
graded by them.

They reveal the reference, so they live here (hidden with solutions/ by the README's
sparse-checkout step) and never ship. The score of record uses an instructor's private file of
the same form (``implementations() -> ImplSet``), named by ``MINITORCH_CHAFFS``; see
docs/INSTRUCTOR.md.
"""

from __future__ import annotations

import importlib.util
import sys
from functools import cache
from pathlib import Path

from minitorch_course.examplar import Impl, ImplSet

HERE = Path(__file__).resolve().parent
L00, L01, L02, L03, L04 = ("00-tensor-skeleton", "01-elementwise-ops",
                           "02-reductions-and-shapes", "03-matmul-softmax-ce",
                           "04-gradcheck-and-properties")


def _planted():
    if "minitorch_planted" in sys.modules:
        return sys.modules["minitorch_planted"]
    spec = importlib.util.spec_from_file_location("minitorch_planted", HERE / "planted.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


Plant = _planted().Plant
PLANTS = _planted().PLANTS

_UNBROADCAST_LOOPS = """\
if grad.shape == shape or grad.ndim < len(shape):
    return grad
while grad.ndim > len(shape):
    grad = grad.sum(axis=0)
for axis, size in enumerate(shape):
    if size == 1 and grad.shape[axis] != 1:
        grad = grad.sum(axis=axis, keepdims=True)
return grad
"""

# Kahn's algorithm on the children counts, instead of a depth-first search
_TOPOLOGICAL_KAHN = """\
nodes: list[Tensor] = []
seen: set[int] = {id(self)}
frontier = [self]
while frontier:
    node = frontier.pop()
    if node._op and node._backward is None:
        raise BackwardError(
            f"backward through a freed graph: the graph behind this '{node._op}' node was "
            "released by an earlier backward(); pass retain_graph=True to the first "
            "backward() to run backward twice, or recompute the forward pass"
        )
    nodes.append(node)
    for parent in node._prev:
        if parent.requires_grad and id(parent) not in seen:
            seen.add(id(parent))
            frontier.append(parent)
children = {id(n): 0 for n in nodes}
for node in nodes:
    for parent in node._prev:
        if id(parent) in children:
            children[id(parent)] += 1
ready, backwards = [self], []
while ready:
    node = ready.pop()
    backwards.append(node)
    for parent in node._prev:
        if id(parent) in children:
            children[id(parent)] -= 1
            if children[id(parent)] == 0:
                ready.append(parent)
return backwards[::-1]
"""

# Each wheat: the reference with these behaviour-preserving rewrites (located like the planted
# mistakes: by function, on code without comments).
WHEATS: dict[str, tuple[Plant, ...]] = {
    "wheat_loops": (
        Plant("Tensor.unbroadcast", (), body=_UNBROADCAST_LOOPS),
        Plant("Tensor.sub", (), (("return g, -g", "return g, np.negative(g)"),)),
        Plant("Tensor.tanh", (), (("return (g * (1.0 - t * t),)",
                                   "return (g - g * np.square(t),)"),)),
        Plant("Tensor.exp", (), (("return (g * out_data,)",
                                  "return (np.multiply(out_data, g),)"),)),
        Plant("Tensor.max", (), ((
            "share = g.reshape(top.shape) / winners.sum(axis=axes, keepdims=True)",
            "count = np.count_nonzero(winners, axis=axes, keepdims=True)\n"
            "            share = g.reshape(top.shape) / count"),)),
    ),
    "wheat_kahn": (
        Plant("Tensor._topological_order", (), body=_TOPOLOGICAL_KAHN),
        Plant("Tensor.div", (), (("return g / b, -g * a / (b * b)",
                                  "inv = 1.0 / b\n            return g * inv, -(g * a) * inv * inv"),)),
        Plant("Tensor.relu", (), (("return (g * (a > 0),)",
                                   "return (np.where(a > 0, g, 0.0),)"),)),
        Plant("Tensor.sigmoid", (), (("return (g * s * (1.0 - s),)",
                                      "return ((s - s * s) * g,)"),)),
        Plant("Tensor.transpose", (), (("inverse = tuple(np.argsort(perm))",
                                        "inverse = tuple(perm.index(i) for i in range(len(perm)))"),)),
    ),
    "wheat_views": (
        Plant("Tensor.mul", (), (("return g * b, g * a",
                                  "return np.multiply(g, b), np.multiply(a, g)"),)),
        Plant("Tensor.softmax", (), ((
            "return (s * (g - (g * s).sum(axis=axis, keepdims=True)),)",
            "dot = np.sum(g * s, axis=axis, keepdims=True)\n            return (s * g - s * dot,)"),)),
        Plant("Tensor.cross_entropy", (), (("grad[rows, targets] -= 1.0",
                                            "grad = grad - np.eye(grad.shape[1])[targets]"),)),
        Plant("Tensor.sum", (), (("return (np.broadcast_to(g, shape),)",
                                  "return (g * np.ones(shape),)"),)),
        Plant("Tensor.reshape", (), (("return (g.reshape(in_shape),)",
                                      "return (np.reshape(g, in_shape),)"),)),
    ),
}

# chaffs: (planted mistake id, the test kind that catches it, the labs graded by it)
CHAFFS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("accumulate_overwrites", "paths", (L00,)),
    ("topological_sort_without_visited", "paths", (L00,)),
    ("recursive_topological_sort", "deep-graph", (L00,)),
    ("backward_resets_leaf_grads", "accumulate-calls", (L00,)),
    ("graph_never_freed", "freed-graph", (L00,)),
    ("backward_gives_constants_a_grad", "constants", (L00,)),
    ("sub_second_forgets_upstream", "upstream", (L01, L04)),
    ("sigmoid_forgets_upstream", "upstream", (L01, L04)),
    ("div_quotient_rule_sign", "local-derivative", (L01, L04)),
    ("tanh_derivative_not_squared", "local-derivative", (L01, L04)),
    ("exp_backward_uses_input", "local-derivative", (L01,)),
    ("mul_forgets_second_parent", "every-input", (L01,)),
    ("div_gradients_swapped", "every-input", (L01,)),
    ("relu_gradient_one_at_zero", "kink", (L01,)),
    ("unbroadcast_forgets_leading_axes", "broadcast-leading", (L01, L04)),
    ("unbroadcast_forgets_size1_axes", "broadcast-inner", (L01, L04)),
    ("unbroadcast_drops_size1_axes", "broadcast-inner", (L01,)),
    ("sum_backward_keepdims_lost", "axis", (L02,)),
    ("mean_divides_by_total_size", "axis", (L02,)),
    ("max_ties_not_split", "ties", (L02,)),
    ("reshape_backward_flattens", "grad-shape", (L02,)),
    ("transpose_inverse_is_perm", "permutation", (L02,)),
    ("getitem_assigns_repeated_indices", "repeated-indices", (L02,)),
    ("cat_pieces_cut_at_wrong_offsets", "uneven-pieces", (L02,)),
    ("matmul_grad_b_not_transposed", "non-square", (L03,)),
    ("matmul_T_reverses_batch_axes", "batch-axes", (L03,)),
    ("softmax_without_sum_term", "local-derivative", (L03,)),
    ("log_softmax_sum_along_other_axis", "axis", (L03,)),
    ("cross_entropy_onehot_added", "local-derivative", (L03,)),
    ("softmax_without_max_shift", "edge-values", (L03,)),
    ("cross_entropy_without_logsumexp", "edge-values", (L03,)),
    ("cross_entropy_not_divided_by_batch", "batch", (L03,)),
)


def _reference() -> str:
    return (HERE / "tensor.py").read_text(encoding="utf-8")


def _apply(source: str, plants: tuple[Plant, ...], name: str) -> str:
    from minitorch_authoring.mutants import plant

    for p in plants:
        source = plant(source, p, name)
    return source


@cache
def wheat_sources() -> dict[str, str]:
    return {name: _apply(_reference(), plants, name) for name, plants in WHEATS.items()}


def chaff_source(index: int, mistake: str) -> tuple[str, str]:
    """(the wheat it was planted into, the chaff's source): the wheats in rotation from
    ``index``, the first one whose code the mistake's edits still match."""
    from minitorch_authoring.mutants import MutantRotted, plant

    wheats = list(wheat_sources().items())
    for k in range(len(wheats)):
        name, source = wheats[(index + k) % len(wheats)]
        try:
            return name, plant(source, PLANTS[mistake], mistake)
        except MutantRotted:
            continue
    return "reference", plant(_reference(), PLANTS[mistake], mistake)


@cache
def implementations() -> ImplSet:
    wheats = [Impl(name, "wheat", source=src) for name, src in wheat_sources().items()]
    chaffs = []
    for i, (mistake, kind, labs) in enumerate(CHAFFS):
        _base, source = chaff_source(i, mistake)
        chaffs.append(Impl(mistake, "chaff", kind, labs, source=source))
    return ImplSet("solutions", wheats, chaffs)
