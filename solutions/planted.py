"""The planted mistakes: the catalog's classic mistakes planted into the reference, keyed by
mistake id (``minitorch_authoring.mutants`` plants and runs them).

They hold reference lines verbatim, so they live in solutions/, hidden with the reference by the
README's sparse-checkout step, and never ship.
"""

from __future__ import annotations

from dataclasses import dataclass

from minitorch_course.catalog import NEEDS_UNBROADCAST


@dataclass(frozen=True)
class Plant:
    """The mistake planted into the reference: edits located by function (``Tensor.div``,
    ``unbroadcast``), matched on code with comments removed, or a replacement ``body``."""

    function: str
    affects: tuple[str, ...]  # rows (ops and engine rows) that must fail, and only those
    edits: tuple[tuple[str, str], ...] = ()
    body: str | None = None  # the function's whole new body, indented like the original
    needs_property: bool = False  # only the Hypothesis suite can catch it
    what: str = ""  # what the learner did, in one line


# a correct but recursive topological sort: it dies on a deep chain
_RECURSIVE_SORT = """\
order: list[Tensor] = []
visited: set[int] = set()

def visit(node):
    if id(node) in visited:
        return
    visited.add(id(node))
    if node._op and node._backward is None:
        raise BackwardError("backward through a freed graph; pass retain_graph=True")
    for parent in node._prev:
        if parent.requires_grad:
            visit(parent)
    order.append(node)

visit(self)
return order
"""

_POWER_RULE_PLANT = Plant("Tensor.pow", ("pow", "pow_scalar"), ((
    "ga = np.where(b == 0, 0.0, g * b * a ** (b - 1))",
    "ga = np.where(b == 0, 0.0, g * b * a ** b)"),),
    what="power rule written as b·a^b instead of b·a^(b-1)")

# softmax and log_softmax exponentiating the raw logits (whole bodies: robust to how the
# reference writes its max shift)
_SOFTMAX_UNSHIFTED = """\
e = np.exp(self.data)
s = e / e.sum(axis=axis, keepdims=True)
out = Tensor._make(s, (self,), "softmax")

def _backward(g):
    return (s * (g - (g * s).sum(axis=axis, keepdims=True)),)

out._backward = _backward
return out
"""

_LOG_SOFTMAX_UNSHIFTED = """\
a = self.data
out_data = a - np.log(np.exp(a).sum(axis=axis, keepdims=True))
out = Tensor._make(out_data, (self,), "log_softmax")

def _backward(g):
    return (g - np.exp(out_data) * g.sum(axis=axis, keepdims=True),)

out._backward = _backward
return out
"""

_LOG_SOFTMAX_BACKWARD_UNSHIFTED = """\
a = self.data
z = a - a.max(axis=axis, keepdims=True, initial=-np.inf)
out_data = z - np.log(np.exp(z).sum(axis=axis, keepdims=True))
out = Tensor._make(out_data, (self,), "log_softmax")

def _backward(g):
    e = np.exp(a)
    return (g - e / e.sum(axis=axis, keepdims=True) * g.sum(axis=axis, keepdims=True),)

out._backward = _backward
return out
"""

# Planted versions of catalog mistakes, by mistake id. They hold reference lines verbatim, so
# they live here (instructor-only: never in a class release), not in the catalog.
PLANTS: dict[str, Plant] = {
    "mul_forgets_second_parent": Plant(
        "Tensor.mul", ("mul",), (("return g * b, g * a", "return (g * b,)"),),
        what="mul's backward returns a gradient for the first parent only"),
    "div_quotient_rule_sign": Plant("Tensor.div", ("div",), ((
        "return g / b, -g * a / (b * b)", "return g / b, g * a / (b * b)"),),
        what="d(a/b)/db written as +a/b² (the quotient rule's minus sign lost)"),
    "div_gradients_swapped": Plant("Tensor.div", ("div",), ((
        "return g / b, -g * a / (b * b)", "return -g * a / (b * b), g / b"),),
        what="div's backward returns the divisor's gradient first and the numerator's second"),
    "sub_second_forgets_upstream": Plant("Tensor.sub", ("sub",), ((
        "return g, -g", "return g, -np.ones_like(g)"),),
        what="sub's backward gives b its local derivative -1, not multiplied by g"),
    "pow_power_rule_off_by_one": _POWER_RULE_PLANT,
    "exp_backward_uses_input": Plant("Tensor.exp", ("exp",), ((
        "out_data = np.exp(self.data)\n\n"
        "        def _backward(g):\n            return (g * out_data,)\n\n"
        '        return Tensor._make(out_data, (self,), "exp", _backward)',
        "a = self.data\n\n"
        "        def _backward(g):\n            return (g * a,)\n\n"
        '        return Tensor._make(np.exp(a), (self,), "exp", _backward)'),),
        what="exp's backward multiplies by the input a instead of the output e^a"),
    "exp_backward_exponentiates_output": Plant("Tensor.exp", ("exp",), ((
        "return (g * out_data,)", "return (g * np.exp(out_data),)"),),
        what="exp's backward exponentiates the output again: e^(e^a) instead of e^a"),
    "sqrt_forgets_one_half": Plant("Tensor.sqrt", ("sqrt",), ((
        "return (g * 0.5 / out_data,)", "return (g / out_data,)"),),
        what="sqrt's derivative written 1/√a, without the 1/2"),
    "tanh_derivative_sign": Plant("Tensor.tanh", ("tanh",), ((
        "return (g * (1.0 - t * t),)", "return (g * (t * t - 1.0),)"),),
        what="tanh's derivative written tanh²(a) - 1"),
    "sigmoid_forgets_upstream": Plant("Tensor.sigmoid", ("sigmoid",), ((
        "return (g * s * (1.0 - s),)", "return (s * (1.0 - s),)"),),
        what="sigmoid's backward returns σ(1 - σ) without multiplying by g"),
    "reshape_backward_flattens": Plant("Tensor.reshape", ("reshape",), ((
        "return (g.reshape(in_shape),)", "return (g.reshape(-1),)"),),
        what="reshape's backward flattens g instead of restoring the input's shape"),
    "matmul_grad_b_not_transposed": Plant("Tensor.matmul", ("matmul",), ((
        "gb = np.swapaxes(a2, -1, -2) @ g if need_b else None",
        "gb = a2 @ g if need_b else None"),),
        what="matmul's gradient for b written a @ g instead of aᵀ @ g"),
    "log_softmax_sum_along_other_axis": Plant("Tensor.log_softmax", ("log_softmax",), ((
        "return (g - np.exp(out_data) * g.sum(axis=axis, keepdims=True),)",
        "return (g - np.exp(out_data) * g.sum(axis=0, keepdims=True),)"),),
        what="log_softmax's backward sums g along axis 0 whatever the op's axis"),
    "cross_entropy_onehot_added": Plant("Tensor.cross_entropy", ("cross_entropy",), ((
        "grad[rows, targets] -= 1.0", "grad[rows, targets] += 1.0"),),
        what="cross-entropy's backward adds the one-hot instead of subtracting it"),
    # every op row with a constant operand beside one that requires grad sees it too
    "backward_gives_constants_a_grad": Plant("Tensor.backward", (
        "backward", "add", "sub", "mul", "div", "pow", "cat", "stack"), ((
        "if g is None or not parent.requires_grad:", "if g is None:"),),
        what="backward() hands gradients to parents that do not require grad"),
    "relu_backward_uses_output": Plant("Tensor.relu", ("relu",), ((
        "return (g * (a > 0),)", "return (g * np.maximum(a, 0.0),)"),),
        what="relu's derivative written as relu(a) (the output) instead of the "
             "step 1[a > 0]"),
    # passed every check while the engine handed closures a writable upstream (issue 32)
    "relu_backward_writes_upstream": Plant("Tensor.relu", ("relu",), ((
        "return (g * (a > 0),)", "g *= a > 0\n            return (g,)"),),
        what="relu's backward masks the upstream in place (g *= mask) and returns it"),
    "relu_gradient_one_at_zero": Plant("Tensor.relu", ("relu",), ((
        "return (g * (a > 0),)", "return (g * (a >= 0),)"),),
        what="relu's step written as a >= 0: a gradient of 1 at the kink a = 0 (torch: 0)"),
    "gelu_forgets_product_rule": Plant("Tensor.gelu", ("gelu",), ((
        "local = cdf + a * np.exp(-0.5 * a * a) / math.sqrt(2.0 * math.pi)",
        "local = cdf"),),
        what="gelu's derivative written as Φ(a), forgetting the a·φ(a) term of "
             "the product rule"),
    "tanh_derivative_not_squared": Plant("Tensor.tanh", ("tanh",), ((
        "return (g * (1.0 - t * t),)", "return (g * (1.0 - t),)"),),
        what="tanh's derivative written as 1 - tanh(a) instead of 1 - tanh²(a)"),
    "transpose_inverse_is_perm": Plant(
        "Tensor.transpose", ("transpose",), ((
            "inverse = tuple(np.argsort(perm))", "inverse = perm"),),
            what="transpose's backward applies the same permutation instead of its "
                 "inverse"),
    "cat_pieces_cut_at_wrong_offsets": Plant("Tensor.cat", ("cat",), ((
        "return tuple(np.split(g, splits, axis=axis))",
        "return tuple(np.array_split(g, len(tensors), axis=axis))"),),
        what="cat's backward cuts g into pieces of equal size instead of at the inputs' "
             "offsets"),
    "getitem_assigns_repeated_indices": Plant("Tensor.getitem", ("getitem",), ((
        "np.add.at(full, index, g)", "full[index] = g"),),
        what="getitem's backward assigns full[index] = g: repeated indices keep "
             "one gradient"),
    "matmul_T_reverses_batch_axes": Plant("Tensor.matmul", ("matmul",), ((
        "ga = g @ np.swapaxes(b2, -1, -2) if need_a else None\n"
        "            gb = np.swapaxes(a2, -1, -2) @ g if need_b else None",
        "ga = g @ b2.T if need_a else None\n"
        "            gb = a2.T @ g if need_b else None"),),
        what="matmul's backward transposes with .T, which reverses the batch "
             "axes too"),
    "softmax_without_sum_term": Plant("Tensor.softmax", ("softmax",), ((
        "return (s * (g - (g * s).sum(axis=axis, keepdims=True)),)",
        "return (s * g,)"),),
        what="softmax's backward returns s·g, without the sum term"),
    "softmax_sum_term_keepdims_lost": Plant("Tensor.softmax", ("softmax",), ((
        "return (s * (g - (g * s).sum(axis=axis, keepdims=True)),)",
        "return (s * (g - (g * s).sum(axis=axis)),)"),),
        what="softmax's backward computes the sum term without keepdims: the per-slice sums "
             "line up with the wrong axis"),
    "softmax_without_max_shift": Plant(
        "Tensor.softmax", ("softmax",), body=_SOFTMAX_UNSHIFTED,
        what="softmax exponentiates the raw logits (no max subtracted): overflows at 1e4"),
    "log_softmax_without_sum_term": Plant("Tensor.log_softmax", ("log_softmax",), ((
        "return (g - np.exp(out_data) * g.sum(axis=axis, keepdims=True),)",
        "return (g,)"),),
        what="log_softmax's backward returns g, forgetting that log Σ e^a "
             "depends on a"),
    "log_softmax_sum_term_keepdims_lost": Plant("Tensor.log_softmax", ("log_softmax",), ((
        "return (g - np.exp(out_data) * g.sum(axis=axis, keepdims=True),)",
        "return (g - np.exp(out_data) * g.sum(axis=axis),)"),),
        what="log_softmax's backward sums g without keepdims: the per-slice sums line up "
             "with the wrong axis"),
    "log_softmax_without_max_shift": Plant(
        "Tensor.log_softmax", ("log_softmax",), body=_LOG_SOFTMAX_UNSHIFTED,
        what="log_softmax takes log Σ e^a of the raw logits: inf/-inf at ±1e4"),
    "log_softmax_backward_unstable": Plant(
        "Tensor.log_softmax", ("log_softmax",), body=_LOG_SOFTMAX_BACKWARD_UNSHIFTED,
        what="log_softmax's backward recomputes e^a / Σ e^a from the raw logits: NaN at "
             "1e4"),
    "cross_entropy_not_divided_by_batch": Plant("Tensor.cross_entropy", ("cross_entropy",), ((
        "return (grad * (g / n if reduction == \"mean\" else g),)", "return (grad * g,)"),),
        what="cross-entropy's gradient not divided by the batch size N"),
    "cross_entropy_without_logsumexp": Plant("Tensor.cross_entropy", ("cross_entropy",), ((
        "z = logits.data - logits.data.max(axis=1, keepdims=True)",
        "z = logits.data"),),
        what="cross-entropy exponentiates the raw logits (no max subtracted): "
             "overflows at 1e4"),
    "recursive_topological_sort": Plant(
        "Tensor._topological_order", ("topological_order",),
        body=_RECURSIVE_SORT,
        what="a recursive depth-first search: dies on a 100,000-op chain"),
    "topological_sort_without_visited": Plant(
        "Tensor._topological_order", ("topological_order",), (
            ("            if id(node) in visited:\n                continue\n", ""),
            ("if parent.requires_grad and id(parent) not in visited:",
             "if parent.requires_grad:")),
             what="no visited set: a node reached along two paths is listed (and "
                  "processed) twice"),
    "accumulate_overwrites": Plant(
        "_accumulate", ("backward", "retain_graph"), ((
            "node.grad = node.grad + g", "node.grad = g"),),
            what="a gradient reaching a node twice overwrites the first instead "
                 "of adding to it"),
    "leaf_grads_alias": Plant(
        "Tensor.backward", ("backward",), ((
            "_accumulate(parent, g, node.grad)",
            "parent.grad = g if parent.grad is None else parent.grad + g"),),
            what="backward() stores each gradient as it comes: leaves share arrays "
                 "with siblings and the upstream (no _accumulate)"),
    "backward_resets_leaf_grads": Plant(
        "Tensor.backward", ("backward", "retain_graph"), ((
            "if node._prev:\n                node.grad = None", "node.grad = None"),),
            what="backward() starts by resetting every node's .grad, leaves too: "
                 "nothing accumulates across calls"),
    "intermediate_grads_not_reset": Plant(
        "Tensor.backward", ("retain_graph",), ((
            "if node._prev:\n                node.grad = None", "pass"),),
            what="backward() never resets intermediate nodes' .grad: a second pass adds "
                 "the first one's"),
    "backward_skips_unbroadcast": Plant(
        "Tensor.backward", NEEDS_UNBROADCAST, ((
            "if g.shape != parent.data.shape:\n", "if False:\n"),),
            what="backward() hands broadcast-shaped gradients to the parents (no "
                 "unbroadcast, no check)"),
    "graph_never_freed": Plant(
        "Tensor.backward", ("retain_graph",), ((
            "            if not retain_graph:\n"
            "                node._prev, node._backward = (), None\n", ""),),
            what="backward() never frees the graph (retain_graph ignored)"),
    "freed_graph_backward_silent": Plant(
        "Tensor._topological_order", ("retain_graph",), ((
            "            if node._op and node._backward is None:\n"
            "                raise BackwardError(\n", "            if False:\n"
            "                raise BackwardError(\n"),),
            what="a second backward() on a freed graph returns without error (the freed "
                 "node is taken for a leaf)"),
    "freed_graph_wrong_error": Plant(
        "Tensor._topological_order", ("retain_graph",), ((
            "                raise BackwardError(\n", "                raise RuntimeError(\n"),),
            what="a second backward() on a freed graph raises RuntimeError, not the course's "
                 "BackwardError"),
    "unbroadcast_returns_grad": Plant(
        "Tensor.unbroadcast", NEEDS_UNBROADCAST + ("unbroadcast",), ((
            "        if grad.shape == shape:\n            return grad\n",
            "        return grad\n"),),
            what="unbroadcast returns the gradient unchanged: no reverse "
                 "broadcasting at all"),
    "unbroadcast_forgets_size1_axes": Plant(
        "Tensor.unbroadcast", NEEDS_UNBROADCAST + ("unbroadcast",), ((
            "ones = tuple(i for i, n in enumerate(shape) if n == 1 and "
            "grad.shape[i] != 1)", "ones = ()"),),
            what="unbroadcast sums the leading axes but not the axes where the "
                 "input has size 1"),
    "unbroadcast_forgets_leading_axes": Plant(
        "Tensor.unbroadcast", NEEDS_UNBROADCAST + ("unbroadcast",), ((
            "        if extra:\n            grad = grad.sum(axis=tuple(range(extra)))\n",
            ""),),
            what="batch matmul (and every binary op) not reduced over the "
                 "broadcast leading/batch axes"),
    "unbroadcast_drops_size1_axes": Plant(
        "Tensor.unbroadcast", NEEDS_UNBROADCAST + ("unbroadcast",), ((
            "grad = grad.sum(axis=ones, keepdims=True)",
            "grad = grad.sum(axis=ones)"),),
            what="unbroadcast sums the size-1 axes without keepdims=True "
                 "(keepdims lost)"),
    "sum_backward_keepdims_lost": Plant("Tensor.sum", ("sum", "mean"), ((
        "            if not keepdims:\n"
        "                g = np.expand_dims(g, axes)\n", ""),),
        what="sum's backward broadcasts g without putting the reduced axes back "
             "(keepdims lost)"),
    "mean_divides_by_total_size": Plant("Tensor.mean", ("mean",), ((
        "count = math.prod(self.shape[a] for a in _axes(axis, self.ndim))",
        "count = self.size"),),
        what="mean divides by the tensor's total size instead of the number of "
             "elements reduced"),
    "max_ties_not_split": Plant("Tensor.max", ("max",), ((
        "share = g.reshape(top.shape) / winners.sum(axis=axes, keepdims=True)",
        "share = g.reshape(top.shape)"),),
        what="max gives the whole gradient to every tied maximum instead of "
             "splitting it"),
}
