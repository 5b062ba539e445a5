"""A catalog of classic mistakes, each planted into the reference as an exact text edit.

Every ``Mutant`` is a mistake learners really make, written as (old, new) replacements on
``solutions/tensor.py``; ``old`` must occur exactly once, so a mutant whose target text changed
fails loudly (``MutantRotted``) instead of silently testing nothing. ``tests/test_mutants.py``
applies each one and asserts that the checks catch it, that exactly the rows in ``affects`` fail,
and that the diagnosis names the mistake (``diagnosis`` is a kind of
``minitorch_course.diagnosis.KINDS``).

    python -m minitorch_course.mutants            # caught / correctly diagnosed, per mutant
    python -m minitorch_course.check --mutant div_quotient_rule_sign   # the learner's view
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import ModuleType

REFERENCE = Path(__file__).resolve().parents[2] / "solutions" / "tensor.py"

BINARY = ("add", "sub", "mul", "div", "pow")
BROADCASTING = BINARY + ("matmul", "broadcast_to")  # every row whose gradients need unbroadcast


class MutantRotted(AssertionError):
    """A mutant's ``old`` text no longer occurs exactly once in the reference."""


@dataclass(frozen=True)
class Mutant:
    """One planted mistake."""

    name: str
    mistake: str  # what the learner did, in one line
    affects: tuple[str, ...]  # catalog ops and engine rows that must fail, and only those
    diagnosis: str  # the kind the diagnosis must name (diagnosis.KINDS)
    edits: tuple[tuple[str, str], ...]  # exact (old, new) replacements on solutions/tensor.py
    needs_property: bool = False  # only the Hypothesis suite can catch it

    def apply(self, source: str) -> str:
        """``source`` with the mistake planted; MutantRotted if an edit does not apply once."""
        for old, new in self.edits:
            count = source.count(old)
            if count != 1:
                raise MutantRotted(
                    f"mutant {self.name}: the text to replace occurs {count} times in the "
                    f"reference (expected exactly 1); update the mutant:\n{old}")
            source = source.replace(old, new)
        return source


_RECURSIVE_SORT = '''        order: list[Tensor] = []
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
'''

def _solution_of(function: str) -> str:
    """The fenced solution body of ``function`` in the reference (fences excluded)."""
    text = REFERENCE.read_text(encoding="utf-8")
    after = text[text.index(f"def {function}("):]
    begin = after.index("### BEGIN SOLUTION\n") + len("### BEGIN SOLUTION\n")
    return after[begin:after.index("        ### END SOLUTION")]


_ITERATIVE_SORT = _solution_of("_topological_order")  # replaced whole by the recursive one

MUTANTS: tuple[Mutant, ...] = (
    # ------------------------------------------------ reverse broadcasting (the engine's helper)
    Mutant("unbroadcast_returns_grad",
           "unbroadcast returns the gradient unchanged: no reverse broadcasting at all",
           BROADCASTING + ("unbroadcast",), "reverse-broadcast",
           (("    if grad.shape == shape:\n        return grad\n", "    return grad\n"),)),
    Mutant("unbroadcast_forgets_size1_axes",
           "unbroadcast sums the leading axes but not the axes where the input has size 1",
           BROADCASTING + ("unbroadcast",), "reverse-broadcast",
           (("    ones = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)",
             "    ones = ()"),)),
    Mutant("unbroadcast_forgets_leading_axes",
           "batch matmul (and every binary op) not reduced over the broadcast leading/batch axes",
           BROADCASTING + ("unbroadcast",), "reverse-broadcast",
           (("    if extra:\n        grad = grad.sum(axis=tuple(range(extra)))\n", ""),)),
    Mutant("unbroadcast_drops_size1_axes",
           "unbroadcast sums the size-1 axes without keepdims=True (keepdims lost)",
           BROADCASTING + ("unbroadcast",), "keepdims",
           (("        grad = grad.sum(axis=ones, keepdims=True)",
             "        grad = grad.sum(axis=ones)"),)),
    Mutant("backward_skips_unbroadcast",
           "backward() hands broadcast-shaped gradients to the parents (no unbroadcast, no check)",
           BROADCASTING, "reverse-broadcast",
           (("                if g.shape != parent.data.shape:  # the one reverse-broadcast "
             "point\n",
             "                if False:\n"),)),
    # ------------------------------------------------ reductions and shapes
    Mutant("sum_backward_keepdims_lost",
           "sum's backward broadcasts g without putting the reduced axes back (keepdims lost)",
           ("sum", "mean"), "keepdims",
           (("            if not keepdims:  # put the reduced axes back as 1s, then broadcast\n"
             "                g = np.expand_dims(g, axes)\n", ""),)),
    Mutant("mean_divides_by_total_size",
           "mean divides by the tensor's total size instead of the number of elements reduced",
           ("mean",), "factor",
           (("        count = math.prod(self.shape[a] for a in _axes(axis, self.ndim))",
             "        count = self.size"),)),
    Mutant("max_ties_not_split",
           "max gives the whole gradient to every tied maximum instead of splitting it",
           ("max",), "ties",
           (("            share = g.reshape(top.shape) / winners.sum(axis=axes, keepdims=True)",
             "            share = g.reshape(top.shape)"),)),
    Mutant("transpose_inverse_is_perm",
           "transpose's backward applies the same permutation instead of its inverse",
           ("transpose",), "transpose",
           (("        inverse = tuple(np.argsort(perm))", "        inverse = perm"),)),
    Mutant("getitem_assigns_repeated_indices",
           "getitem's backward assigns full[index] = g: repeated indices keep one gradient",
           ("getitem",), "repeated-indices",
           (("            np.add.at(full, index, g)  # += for every occurrence of a repeated index",
             "            full[index] = g"),)),
    # ------------------------------------------------ elementwise derivatives
    Mutant("div_quotient_rule_sign",
           "d(a/b)/db written as +a/b² (the quotient rule's minus sign lost)",
           ("div",), "sign",
           (("            return g / b, -g * a / (b * b)",
             "            return g / b, g * a / (b * b)"),)),
    Mutant("mul_forgets_second_parent",
           "mul's backward returns a gradient for the first parent only",
           ("mul",), "missing-grad",
           (('        out = Tensor._make(a * b, (self, other), "mul")\n\n'
             "        def _backward(g):\n            return g * b, g * a",
             '        out = Tensor._make(a * b, (self, other), "mul")\n\n'
             "        def _backward(g):\n            return (g * b,)"),)),
    Mutant("exp_backward_uses_input",
           "exp's backward multiplies by the input a instead of the output e^a",
           ("exp",), "exp-uses-input",
           (("        out_data = np.exp(self.data)\n"
             '        out = Tensor._make(out_data, (self,), "exp")\n\n'
             "        def _backward(g):\n            return (g * out_data,)",
             "        a = self.data\n"
             '        out = Tensor._make(np.exp(a), (self,), "exp")\n\n'
             "        def _backward(g):\n            return (g * a,)"),)),
    Mutant("relu_backward_uses_output",
           "relu's derivative written as relu(a) (the output) instead of the step 1[a > 0]",
           ("relu",), "local-derivative",
           (("            return (g * (a > 0),)",
             "            return (g * np.maximum(a, 0.0),)"),)),
    Mutant("gelu_forgets_product_rule",
           "gelu's derivative written as Φ(a), forgetting the a·φ(a) term of the product rule",
           ("gelu",), "local-derivative",
           (("            local = cdf + a * np.exp(-0.5 * a * a) / math.sqrt(2.0 * math.pi)",
             "            local = cdf"),)),
    Mutant("tanh_derivative_not_squared",
           "tanh's derivative written as 1 - tanh(a) instead of 1 - tanh²(a)",
           ("tanh",), "local-derivative",
           (("            return (g * (1.0 - t * t),)", "            return (g * (1.0 - t),)"),)),
    Mutant("pow_power_rule_off_by_one",
           "power rule written as b·a^b instead of b·a^(b-1)",
           ("pow", "pow_scalar"), "local-derivative",
           (("            return g * b * a ** (b - 1), (g * out_data * np.log(a) if need_b "
             "else None)",
             "            return g * b * a ** b, (g * out_data * np.log(a) if need_b else None)"),)),
    # ------------------------------------------------ matmul, softmax, cross-entropy
    Mutant("matmul_T_reverses_batch_axes",
           "matmul's backward transposes with .T, which reverses the batch axes too",
           ("matmul",), "transpose",
           (("            ga = g @ np.swapaxes(b2, -1, -2) if need_a else None  # (..., N, K)\n"
             "            gb = np.swapaxes(a2, -1, -2) @ g if need_b else None  # (..., K, M)",
             "            ga = g @ b2.T if need_a else None\n"
             "            gb = a2.T @ g if need_b else None"),)),
    Mutant("softmax_without_sum_term",
           "softmax's backward returns s·g, without the sum term",
           ("softmax",), "softmax-sum-term",
           (("            return (s * (g - (g * s).sum(axis=axis, keepdims=True)),)",
             "            return (s * g,)"),)),
    Mutant("log_softmax_without_sum_term",
           "log_softmax's backward returns g, forgetting that log Σ e^a depends on a",
           ("log_softmax",), "softmax-sum-term",
           (("            return (g - np.exp(out_data) * g.sum(axis=axis, keepdims=True),)",
             "            return (g,)"),)),
    Mutant("cross_entropy_not_divided_by_batch",
           "cross-entropy's gradient not divided by the batch size N",
           ("cross_entropy",), "factor",
           (("        return (grad * (g / n),)", "        return (grad * g,)"),)),
    Mutant("cross_entropy_without_logsumexp",
           "cross-entropy exponentiates the raw logits (no max subtracted): overflows at 1e4",
           ("cross_entropy",), "unstable-forward",
           (("    z = logits.data - logits.data.max(axis=1, keepdims=True)  # (N, C), max 0 per row",
             "    z = logits.data"),)),
    # ------------------------------------------------ the engine
    Mutant("accumulate_overwrites",
           "a gradient reaching a node twice overwrites the first instead of adding to it",
           ("backward", "retain_graph"), "accumulate",
           (("        node.grad = node.grad + g", "        node.grad = g"),)),
    Mutant("recursive_topological_sort",
           "a recursive depth-first search: dies on a 100,000-op chain",
           ("topological_order",), "recursion",
           ((_ITERATIVE_SORT, _RECURSIVE_SORT),)),
    Mutant("topological_sort_without_visited",
           "no visited set: a node reached along two paths is listed (and processed) twice",
           ("topological_order",), "double-counting",
           (("            if id(node) in visited:\n                continue\n", ""),
            ("                if parent.requires_grad and id(parent) not in visited:",
             "                if parent.requires_grad:"))),
    Mutant("graph_never_freed",
           "backward() never frees the graph (retain_graph ignored)",
           ("retain_graph",), "freed-graph",
           (("            if not retain_graph:  # free the graph: intermediate arrays can now be "
             "released\n                node._prev, node._backward = (), None\n", ""),)),
)

BY_NAME: dict[str, Mutant] = {m.name: m for m in MUTANTS}
assert len(BY_NAME) == len(MUTANTS), "mutant names must be unique"


def reference_source() -> str:
    return REFERENCE.read_text(encoding="utf-8")


@cache
def load(name: str) -> ModuleType:
    """The reference with mutant ``name`` planted, as a tensor module (see checks.using)."""
    from minitorch_course.checks import load_impl

    mutant = BY_NAME[name]
    return load_impl(source=mutant.apply(reference_source()), name=f"mutant_{name}")


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
    from minitorch_course import checks
    from minitorch_course.catalog import ENGINE_ROWS, OPS

    start = time.perf_counter()
    impl = load(mutant.name)
    suites = ("forward", "backward", "gradcheck", "broadcast")
    if mutant.needs_property:
        suites += ("property",)
    failing: dict[str, str] = {}
    for row in ENGINE_ROWS:
        outcome = checks.check_engine_row(row.name, impl)
        if not outcome.passed:
            failing[row.name] = outcome.kind or outcome.status
    for op in OPS:
        report = checks.check_op(op, impl, suites, max_examples, GRADCHECK_MAX_SIZE)
        first = checks.first_failure(report)
        if first is not None:
            failing[op.name] = first.kind or first.status
        elif any(o.status == checks.NOT_STARTED for outs in report.values() for o in outs):
            failing[op.name] = checks.NOT_STARTED
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
