"""The planted mistakes: catalog mistakes with a ``Plant`` (here, by mistake id), planted into
the reference.

A mutant is located by FUNCTION (``Tensor.div``, ``unbroadcast``) with ``ast``, and its edits
are matched on that function's code with the comments removed (so rewording a comment cannot
break one), or it replaces the function's whole body. An edit must occur exactly once in its
function, so a mutant whose target changed fails loudly (``MutantRotted``) instead of silently
testing nothing. ``tests/test_mutants.py`` plants each one and asserts that the checks catch it,
that exactly the rows in ``affects`` fail, and that the diagnosis names its kind.

    python -m minitorch_course.mutants            # caught / correctly diagnosed, per mutant
    python -m minitorch_course.check_cli --mutant div_quotient_rule_sign   # the learner's view
"""

from __future__ import annotations

import argparse
import ast
import importlib
import io
import sys
import time
import tokenize
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

from minitorch_course import i18n, runner
from minitorch_course.catalog import ENGINE_ROWS, NEEDS_UNBROADCAST, OPS

REFERENCE = runner.REFERENCE_FILE


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
    "backward_gives_constants_a_grad": Plant("Tensor.backward", ("backward",), ((
        "if g is None or not parent.requires_grad:", "if g is None:"),),
        what="backward() hands gradients to parents that do not require grad"),
    "relu_backward_uses_output": Plant("Tensor.relu", ("relu",), ((
        "return (g * (a > 0),)", "return (g * np.maximum(a, 0.0),)"),),
        what="relu's derivative written as relu(a) (the output) instead of the "
             "step 1[a > 0]"),
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
    "softmax_without_max_shift": Plant(
        "Tensor.softmax", ("softmax",), body=_SOFTMAX_UNSHIFTED,
        what="softmax exponentiates the raw logits (no max subtracted): overflows at 1e4"),
    "log_softmax_without_sum_term": Plant("Tensor.log_softmax", ("log_softmax",), ((
        "return (g - np.exp(out_data) * g.sum(axis=axis, keepdims=True),)",
        "return (g,)"),),
        what="log_softmax's backward returns g, forgetting that log Σ e^a "
             "depends on a"),
    "log_softmax_without_max_shift": Plant(
        "Tensor.log_softmax", ("log_softmax",), body=_LOG_SOFTMAX_UNSHIFTED,
        what="log_softmax takes log Σ e^a of the raw logits: inf/-inf at ±1e4"),
    "log_softmax_backward_unstable": Plant(
        "Tensor.log_softmax", ("log_softmax",), body=_LOG_SOFTMAX_BACKWARD_UNSHIFTED,
        what="log_softmax's backward recomputes e^a / Σ e^a from the raw logits: NaN at "
             "1e4"),
    "cross_entropy_not_divided_by_batch": Plant("Tensor.cross_entropy", ("cross_entropy",), ((
        "return (grad * (g / n),)", "return (grad * g,)"),),
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


class MutantRotted(AssertionError):
    """A mutant's function is gone, or an edit no longer occurs exactly once in it."""


@dataclass(frozen=True)
class Mutant:
    """One planted mistake: a catalog mistake's id, kind and plant."""

    name: str
    diagnosis: str  # the kind the diagnosis must name (catalog.KINDS)
    plant: Plant

    @property
    def mistake(self) -> str:
        return self.plant.what

    @property
    def affects(self) -> tuple[str, ...]:
        return self.plant.affects

    @property
    def needs_property(self) -> bool:
        return self.plant.needs_property

    def apply(self, source: str) -> str:
        """``source`` with the mistake planted; MutantRotted if it does not apply once."""
        return plant(source, self.plant, self.name)


def _function(tree: ast.Module, qualname: str) -> ast.FunctionDef | None:
    """The function ``name`` or ``Class.name`` at the top level of ``tree``."""
    scope: list[ast.stmt] = tree.body
    *owners, name = qualname.split(".")
    for owner in owners:
        cls = next((n for n in scope if isinstance(n, ast.ClassDef) and n.name == owner), None)
        if cls is None:
            return None
        scope = cls.body
    return next((n for n in scope if isinstance(n, ast.FunctionDef) and n.name == name), None)


def _without_comments(code: str) -> str:
    """``code`` with every comment removed and trailing spaces stripped; lines stay in place."""
    drop = [t for t in tokenize.generate_tokens(io.StringIO(code).readline)
            if t.type == tokenize.COMMENT]
    lines = code.splitlines(keepends=True)
    for t in reversed(drop):
        row, col = t.start
        line = lines[row - 1]
        lines[row - 1] = line[:col].rstrip() + ("\n" if line.endswith("\n") else "")
    return "".join(lines)


def _provided(tree: ast.Module, name: str) -> str | None:
    """The def of a course-provided helper that ``tree`` imports as ``name`` (``from
    minitorch.support import accumulate as _accumulate``), renamed ``name``; None if none."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("minitorch."):
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    text = Path(importlib.import_module(node.module).__file__).read_text(
                        encoding="utf-8")
                    found = _function(ast.parse(text), alias.name)
                    if found is None:
                        return None
                    lines = text.splitlines(keepends=True)[found.lineno - 1:found.end_lineno]
                    return "".join(lines).replace(f"def {alias.name}(", f"def {name}(", 1)
    return None


def plant(source: str, p: Plant, name: str = "mutant") -> str:
    """``source`` with ``p`` applied to its function (comments of that function removed).

    A course-provided helper the reference imports (``_accumulate``) is planted as a def of the
    same name appended to ``source``, which replaces the imported one in that module only.
    """
    tree = ast.parse(source)
    node = _function(tree, p.function)
    if node is None and "." not in p.function:
        helper = _provided(tree, p.function)
        if helper is not None:
            return source + "\n\n" + plant(helper, p, name)
    if node is None:
        raise MutantRotted(f"mutant {name}: no function {p.function} in the reference")
    lines = source.splitlines(keepends=True)
    first, last = node.lineno - 1, node.end_lineno
    code = _without_comments("".join(lines[first:last]))
    if p.body is not None:
        body_start = node.body[0].lineno - node.lineno
        if ast.get_docstring(node) is not None:  # keep the docstring
            body_start = node.body[0].end_lineno - node.lineno + 1
        indent = " " * node.body[0].col_offset
        head = "".join(code.splitlines(keepends=True)[:body_start])
        code = head + "".join(indent + line if line.strip() else line
                              for line in p.body.splitlines(keepends=True))
    for old, new in p.edits:
        count = code.count(old)
        if count != 1:
            raise MutantRotted(
                f"mutant {name}: the code to replace occurs {count} times in {p.function} "
                f"(expected exactly 1; comments are ignored); update the mutant:\n{old}")
        code = code.replace(old, new)
    return "".join(lines[:first]) + code + "".join(lines[last:])


_KINDS = {m.id: m.kind for row in ENGINE_ROWS + OPS for m in row.mistakes}
assert set(PLANTS) <= set(_KINDS), f"plants without a catalog mistake: {set(PLANTS) - set(_KINDS)}"
MUTANTS: tuple[Mutant, ...] = tuple(Mutant(id_, _KINDS[id_], p) for id_, p in PLANTS.items())
BY_NAME: dict[str, Mutant] = {m.name: m for m in MUTANTS}
assert len(BY_NAME) == len(MUTANTS), "planted mistakes must have distinct ids"


def reference_source() -> str:
    return REFERENCE.read_text(encoding="utf-8")


@cache
def load(name: str) -> ModuleType:
    """The reference with mutant ``name`` planted, as a tensor module (see runner.using)."""
    mutant = BY_NAME[name]
    return runner.load_impl(source=mutant.apply(reference_source()), name=f"mutant_{name}")


def load_labelled(name: str) -> tuple[ModuleType, str]:
    """``load(name)`` and how ``make check`` names it."""
    if name not in BY_NAME:
        raise KeyError(f"no mutant {name!r}; the planted mistakes are {sorted(BY_NAME)}")
    return load(name), i18n.t("the reference with the planted mistake '{name}' ({mistake})",
                              name=name, mistake=BY_NAME[name].mistake)


# ---------------------------------------------------------------- running the catalog
@dataclass
class Verdict:
    """What the checks made of one mutant."""

    mutant: Mutant
    failing: dict[str, str]  # failing row -> the kind of its first failure
    seconds: float

    @property
    def caught(self) -> bool:
        return bool(self.failing)

    @property
    def exact(self) -> bool:
        """Exactly the affected rows fail."""
        return set(self.failing) == set(self.mutant.affects)

    @property
    def diagnosed(self) -> bool:
        """Every affected row fails with the expected diagnosis."""
        return all(self.failing.get(row) == self.mutant.diagnosis for row in self.mutant.affects)


GRADCHECK_MAX_SIZE = 60  # central differences only on the small fixed cases: 10× faster


def run(mutant: Mutant, max_examples: int = 25) -> Verdict:
    """Every row's fixed suites (and the property suite where the mutant needs it).

    Forward, backward and broadcasting pairs run on every fixed case; gradcheck on the cases
    with at most GRADCHECK_MAX_SIZE input elements (the big grid cases cost 90% of its time and
    the torch cross-check covers them).
    """
    start = time.perf_counter()
    impl = load(mutant.name)
    suites = runner.GRADED_SUITES + (("property",) if mutant.needs_property else ())
    failing: dict[str, str] = {}
    for report in runner.run(None, impl, suites, max_examples, GRADCHECK_MAX_SIZE):
        first = report.first_failure
        if first is not None:
            failing[report.row] = first.kind or first.status
        elif report.status == runner.NOT_STARTED:
            failing[report.row] = runner.NOT_STARTED
    return Verdict(mutant, failing, time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutants to run (default: all)")
    args = parser.parse_args(argv)
    chosen = [BY_NAME[n] for n in args.names] if args.names else list(MUTANTS)
    caught = diagnosed = exact = 0
    for mutant in chosen:
        v = run(mutant)
        caught += v.caught
        diagnosed += v.diagnosed
        exact += v.exact
        mark = "✓" if v.caught and v.exact and v.diagnosed else "✗"
        kinds = ", ".join(f"{row}: {kind}" for row, kind in v.failing.items())
        print(f"{mark} {mutant.name:36s} {v.seconds:5.1f}s  expected {mutant.diagnosis} on "
              f"{', '.join(mutant.affects)}\n      got {kinds or 'nothing failed'}")
    total = len(chosen)
    print(f"\ncaught {caught}/{total} · exactly the affected rows {exact}/{total} · "
          f"correctly diagnosed {diagnosed}/{total}")
    return 0 if caught == diagnosed == exact == total else 1


if __name__ == "__main__":
    sys.exit(main())
