"""The ONE place where check outcomes become prose (later translated: one table per language).

Checks, the diagnosis and the engine checks return data (``minitorch_course.outcomes``): a
message id and its parameters. This module turns them into the sentences a learner reads, for
the graded notebook cells and for ``make check`` alike, so both print the same words.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Sequence

from minitorch_course.catalog import MISTAKES
from minitorch_course.outcomes import PASS, Diagnosis, Fact, Outcome, RowReport

BLOCK_WIDTH = 94  # a failure block fits make check's 100 columns with its 6-space indent

# kind -> what the table and the summaries call it
KIND_LABELS: dict[str, str] = {
    "reverse-broadcast": "reverse broadcasting missing",
    "keepdims": "keepdims lost",
    "transposed": "transposed",
    "reshaped": "right elements, wrong shape",
    "shape": "wrong gradient shape",
    "missing-grad": "no gradient reached the input",
    "zero": "zero where it should not be",
    "sign": "sign flipped",
    "factor": "off by a constant factor",
    "ties": "wrong on ties",
    "repeated-indices": "wrong at repeated indices",
    "softmax-sum-term": "softmax backward without the sum term",
    "exp-uses-input": "exp's backward uses the input",
    "local-derivative": "wrong local derivative",
    "unstable-forward": "numerically unstable forward",
    "unstable-backward": "numerically unstable backward",
    "forward": "forward wrong",
    "forward-shape": "forward has the wrong shape",
    "recursion": "recursive topological sort",
    "double-counting": "a node visited twice (double counting)",
    "topological-order": "wrong topological order",
    "accumulate": "gradient overwritten instead of accumulated",
    "freed-graph": "graph not freed / retain_graph ignored",
    "engine": "engine bug",
    "shape-error": "shape error",
    "crash": "crash",
    "values": "wrong values",
    "swapped-inputs": "another input's gradient (swapped or copied)",
    "missing-upstream": "upstream gradient g not multiplied in",
    "at-output": "derivative taken at the output",
    "wrong-axis": "along the wrong axis",
    "stale-grad": "stale intermediate gradients (kept from the previous pass)",
    "aliasing": "gradients share memory (aliasing)",
}


# ---------------------------------------------------------------- small pieces
def fmt(shape: Sequence[int]) -> str:
    """(3,) and (4, 3) written like NumPy."""
    return "(" + ", ".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def broadcast_report(shapes: list[Sequence[int]], names: list[str] | None = None) -> str:
    """The shapes aligned to the right (a dimension table) and what happens on every axis."""
    from minitorch.errors import broadcast_table  # imported late: loading minitorch runs tensor.py

    names = names or [f"shape {i}" for i in range(len(shapes))]
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(None,) * (ndim - len(s)) + tuple(s) for s in shapes]
    words = []
    for i, column in enumerate(zip(*padded)):
        sizes = [n for n in column if n is not None]
        big = {n for n in sizes if n != 1}
        axis = i - ndim
        if len(big) > 1:
            words.append(f"axis {axis}: {' vs '.join(map(str, sizes))} clash")
        elif len(set(sizes)) > 1 or len(sizes) < len(column):
            size = big.pop() if big else 1
            words.append(f"axis {axis}: broadcast to {size}")
    table = broadcast_table([tuple(s) for s in shapes], names)
    return table + ("\n" + "; ".join(words) if words else "")


def raised(p: dict) -> str:
    """'ValueError: ... at tensor.py:123 (add: <line>)' from a crash's parameters."""
    at = p.get("at")
    where = ""
    if at:
        code = f": {at['code']}" if at.get("code") else ""
        where = f" at {at['file']}:{at['line']} ({at['function']}{code})"
    return f"{p['error']}: {p['message']}{where}"


def _ratio(r: float) -> str:
    if r != 0 and abs(r) < 1 and abs(1.0 / r - round(1.0 / r)) < 1e-6 * abs(1.0 / r):
        return f"1/{round(1.0 / r)} of"
    return f"{r:.4g}×"


def _subject(p: dict) -> str:
    s = p.get("subject") or {}
    if "call" in s:
        return (f"unbroadcast(g of shape {fmt(s['call'])}, {fmt(p['want'])}) returns shape "
                f"{fmt(p['got'])}")
    if s.get("unbroadcast"):
        return f"unbroadcast returns shape {fmt(p['got'])}"
    return f"the gradient has shape {fmt(p['got'])}"


def _reverse_broadcast(p: dict) -> str:
    lead, ones = p["lead"], p["ones"]
    parts = []
    if lead:
        parts.append(f"{fmt(lead)} added in front by broadcasting")
    if ones:
        parts.append(f"{fmt(ones)} where the input has size 1, with keepdims=True")
    same = " Once summed, its values are exactly right." if p.get("same") else ""
    return (f"Reverse broadcasting missing: sum over axes {fmt(lead + ones)} "
            f"({'; '.join(parts)}). Here {_subject(p)}, but the input is {fmt(p['want'])}: "
            f"summing the gradient back down to the input's shape is unbroadcast's job.{same}")


def _factor_head(p: dict) -> str:
    return (f"Off by a constant factor: every element of the {p['what']} is "
            f"{_ratio(p['ratio'])} the right one")


def _table(shapes: list, limit: int = 3) -> str:
    if len(shapes) < 2:
        return ""
    return "\nShapes aligned to the right:\n" + broadcast_report(shapes[:limit])


# ---------------------------------------------------------------- diagnoses
DIAGNOSES: dict[str, Callable[[dict], str]] = {
    "reverse-broadcast": _reverse_broadcast,
    "keepdims-lost": lambda p: (
        f"keepdims lost: {_subject(p)} but the input is {fmt(p['want'])}: its size-1 axes were "
        "summed away. Sum over them with keepdims=True (or np.expand_dims them back) so the "
        "gradient keeps the input's shape."),
    "transposed-shape": lambda p: (
        f"Transposed: {_subject(p)}, a permutation of the input's {fmt(p['want'])}. A "
        "transpose's backward applies the INVERSE permutation (np.argsort(axes)); on a batched "
        "array .T reverses every axis, swap only the last two (np.swapaxes(x, -1, -2))."),
    "reshaped": lambda p: (
        f"Right number of elements, wrong shape: {_subject(p)} but the input is "
        f"{fmt(p['want'])}; reshape it back to the input's shape."),
    "shape": lambda p: (
        f"Wrong gradient shape: {_subject(p)} but it must have the input's shape "
        f"{fmt(p['want'])}. Shapes aligned to the right:\n"
        + broadcast_report([p["want"], p["got"]], ["input", "gradient"])),
    "unbroadcast-raised": lambda p: (
        f"Reverse broadcasting failed: unbroadcast(grad of shape {fmt(p['got'])}, "
        f"{fmt(p['want'])}) raised {p['error']}: {p['message']}."),
    "missing-grad": lambda p: (
        f"No gradient reached input {p['index']}: its .grad is None. The op must list it in "
        "_prev and its _backward must return one gradient per parent, in the same order."),
    "unstable-backward": lambda p: (
        "The gradient has inf/NaN where the right one is finite: a numerically unstable "
        "backward (a division by a tiny number, an exponential of a large one); reuse the "
        "forward's stable values (e.g. the softmax) instead of recomputing them."),
    "all-zero": lambda p: (
        "The gradient is all zeros where it should not be: backward never wrote it, returned "
        "zeros, or a later write overwrote it."),
    "sign": lambda p: (
        "Sign flipped: the gradient is exactly the negative of the right one. Check the minus "
        f"signs in {p['method']}'s derivative ({p['formula']})."),
    "transposed-values": lambda p: (
        "Transposed: the gradient equals the right one with its last two axes swapped (for "
        "a @ b: grad_a = g @ bᵀ, grad_b = aᵀ @ g)."),
    "factor-double": lambda p: (
        f"{_factor_head(p)}: double counting. A contribution was added twice (accumulated once "
        "too often, a node processed twice, or a stray 2)."),
    "factor-half": lambda p: (
        f"{_factor_head(p)}: half of it. A factor 1/2 too many, or one of two equal "
        "contributions was lost (overwritten instead of accumulated)."),
    "factor-divided": lambda p: (
        f"{_factor_head(p)}: divided by {p['k']} once too often (a mean divisor or a batch size "
        "applied twice)."),
    "factor-division-missing": lambda p: (
        f"{_factor_head(p)}: a division by {p['k']} is missing (a mean's count or a batch size "
        "N)."),
    "factor-averaged-copies": lambda p: (
        f"{_factor_head(p)}, and {p['k']} is the number of copies broadcasting made of input "
        f"{p.get('index', 0)}: each copy contributes, so their gradients must be SUMMED, not "
        "averaged."),
    "factor-scale": lambda p: f"{_factor_head(p)}: the derivative's form is right, its scale is not.",
    "zero-where": lambda p: (
        f"Zero where it should not be: {p['count']} of {p['size']} elements are 0 but should not "
        f"be (first at {fmt(p['first'])}); everything else is right. A mask or a condition is "
        "too strict."),
    "values": lambda p: (
        (f"{p['count']} of {p['size']} elements of the gradient are wrong, in no pattern the "
         "checks recognise" if p.get("count") else "Wrong gradient values, in no pattern the "
         "checks recognise")
        + " (not a sign, a constant factor, a transpose, two inputs' gradients swapped, a "
        "missing upstream g, the derivative taken at the output). Re-derive "
        f"{p['method']}'s local derivative ({p['formula']}) for input {p.get('index', 0)} and "
        "multiply it by the upstream gradient g."),
    "values-same-every-row": lambda p: (
        f"{p['count']} of {p['size']} elements of input {p.get('index', 0)}'s gradient are "
        "wrong, and the error is the same in every row: it depends on the column only. Check "
        f"the term of {p['method']}'s backward that is indexed by column: x[:, idx] selects "
        "whole columns; one element per row is x[np.arange(N), idx]."),
    "values-degenerate": lambda p: (
        f"{p['method']}'s gradient for input {p.get('index', 0)} is wrong, on a case with a "
        "single non-zero element: one number cannot tell a wrong factor from a wrong formula. "
        f"Re-derive {p['method']}'s local derivative ({p['formula']}) and multiply it by g."),
    "swapped-shape": lambda p: (
        f"Gradients swapped? input {p['index']}'s gradient has shape {fmt(p['got'])}, the "
        f"shape of input {p['other']}, not its own {fmt(p['want'])}. {p['method']}'s backward "
        "must return one gradient per parent, in the order of _prev (a, then b)."),
    "factor-of-input": lambda p: (
        "Off by a factor that varies per element: every element of the gradient is the right "
        + ("one times " if p["power"] == 1 else "one divided by ") + f"{p['factor']}. "
        + (f"{p['method']}'s local derivative has a factor {p['factor']} too many"
           if p["power"] == 1 else
           f"{p['method']}'s local derivative is missing a factor {p['factor']}")
        + f" (input {p.get('index', 0)}'s gradient; {p['formula']})."),
    "nonfinite-backward": lambda p: (
        f"{p['count']} of {p['size']} elements of input {p['index']}'s gradient are inf/NaN "
        "where the right ones are finite"
        + (f", exactly where input {p['negative']} is negative: a log or a square root of "
           f"input {p['negative']} in the backward (is it the right operand?)"
           if p.get("negative", -1) >= 0 else
           ": a log or square root of a negative number, a division by zero or an overflow "
           "in the backward formula") + "."),
    "swapped-inputs": lambda p: (
        f"Input {p['index']}'s gradient is exactly the one input {p['other']} should get: "
        "the two gradients are swapped, or one was written in place of the other. "
        f"{p['method']}'s backward must return one gradient per "
        "parent, in the order of _prev, and each uses the OTHER operand where the derivative "
        "says so (d(ab)/da = b)."),
    "missing-upstream": lambda p: (
        f"Upstream gradient missing: input {p['index']}'s gradient is exactly {p['method']}'s "
        "local derivative, not multiplied by the upstream gradient g (the chain rule: "
        "return g * local). It passes only when g is all ones, as after a plain .sum()."),
    "at-output": lambda p: (
        f"Derivative taken at the wrong point: the gradient is exactly {p['method']}'s right "
        "derivative evaluated at the OUTPUT y instead of at the input a. Write the derivative "
        "as a function of a (or, if you write it with y, do not apply it to y's own "
        "function again)."),
    "unstable-forward": lambda p: (
        "Numerically unstable forward: it overflows to inf/NaN"
        + (f" (inputs up to |{p['big']:g}|)" if p.get("big") else "")
        + " where torch's stays finite. exp of a large logit overflows: subtract the max first "
        "(log-sum-exp: log Σ e^z = m + log Σ e^(z - m))."),
    "forward-sign": lambda p: "Sign flipped in the forward pass.",
    "forward": lambda p: f"The forward values are wrong: compare with the formula {p['formula']}.",
    "keepdims-ignored": lambda p: (
        "keepdims ignored: with keepdims=True each reduced axis stays in the output as a 1."),
    "forward-axes": lambda p: (
        "Check axis and keepdims: the output drops each reduced axis, or keeps it as a 1 with "
        "keepdims=True."),
    "forward-permuted": lambda p: (
        "The output's axes are permuted: check the order of the axes (transpose/matmul)."),
    "forward-shape": lambda p: (
        f"The forward output must have the shape torch gives, {fmt(p['want'])}."),
    "recursion": lambda p: (
        f"{raised(p)}. A recursive depth-first search overflows Python's call stack (about 1000 "
        "frames) on a deep graph; walk it with a while loop over an explicit stack."),
    "shape-error": lambda p: (
        f"A shape error{' in the backward' if p['backward'] else ''}: {raised(p)}."
        + _table(p["shapes"])),
    "crash": raised,
    "crash-empty-axis": lambda p: (
        "This case has a size-0 axis (an empty tensor), where torch returns an empty result "
        "(nan for a mean over nothing) instead of raising. A reduction with no identity raises "
        "on an empty axis unless given one (x.max(axis=..., keepdims=True, initial=-np.inf)); "
        "an empty sum is 0 and needs nothing. Raised: " + raised(p)),
    "numpy-crash": lambda p: (
        f"NumPy refused an operation in {p['where']}: {p['error']}: {p['message']}. NumPy "
        "raised it, not the course: the arrays combined at that line do not have the shapes "
        "the code assumes (print g.shape and the shapes of the arrays saved by the forward)."
        + (f"\nAt {p['at']['file']}:{p['at']['line']} ({p['at']['function']}: "
           f"{p['at']['code']})" if p.get("at") else "")),
    # the engine checks' own diagnoses complete their fact's text
    "engine-stale": lambda p: (
        " Twice the right value after the second pass: the second backward() added onto the "
        "first pass's gradients of the INTERMEDIATE nodes. Reset every non-leaf node's .grad "
        "at the start of backward() (leaves keep accumulating across calls)."),
    "engine-half": lambda p: (
        " (Half the right gradient: one of two contributions was overwritten instead of "
        "accumulated.)"),
    "engine-unbroadcast-shape": lambda p: "\n" + DIAGNOSES[p["shape_id"]](p),
}


def diagnosis_text(d: Diagnosis, full: bool = True) -> str:
    """A diagnosis in words; ``full=False`` leaves out where a crash was raised."""
    p = d.params
    if d.id in MISTAKES:
        words = {k: fmt(v) if isinstance(v, list) else v for k, v in p.items()}
        hint = MISTAKES[d.id].hint.format(**{**words, "raised": raised(p["raised"])
                                             if "raised" in p else ""})
        if d.kind == "factor" and "ratio" in p:
            text = f"{_factor_head(p)}{'. ' if hint[:1].isupper() else ': '}{hint}"
        else:
            text = hint
        if "shapes" in p:
            text += _table(p["shapes"])
    elif d.id in DIAGNOSES:
        text = DIAGNOSES[d.id](p)
    else:
        return ""
    if p.get("forward"):
        text += " The forward is wrong, so the backward was not checked."
    if full and "raised" in p and d.id not in MISTAKES:
        text += f"\n(raised: {raised(p['raised'])})"
    return text


# ---------------------------------------------------------------- what the checks observed
def _where(p: dict) -> str:
    return (f"{p['row']} backward on {p['case']}, gradient of input {p['index']} "
            f"(shape {fmt(p['shape'])})")


def _engine_values(p: dict) -> str:
    ratio = f" Every element is {p['ratio']:g}× the right one." if p.get("ratio") is not None \
        else ""
    return (f"{ENGINE_WHERE[p['where']](p)}: element {fmt(p['element'])}: got {p['got']!r}, "
            f"expected {p['want']!r} (|difference| {p['diff']:.3g}).{ratio} "
            f"{_engine_hint(p)}").rstrip()


def _engine_hint(p: dict) -> str:
    if p.get("mistake"):  # a catalog mistake's hint follows (the diagnosis)
        return ""
    return UNBROADCAST_HINTS[p["hint"]](p) if p.get("hint") else ENGINE_HINTS.get(p["where"], "")


FACTS: dict[str, Callable[[dict], str]] = {
    "not-started": lambda p: p["message"] + (
        f"\nYour backward() calls {p['needs']}, which a later lab asks for. Until then call it "
        "only when g.shape != parent.shape." if p.get("needs") else ""),
    "gradcheck-skipped": lambda p: f"central differences are not meaningful on {p['case']}",
    "engine-passed": lambda p: f"{p['count']} checks",
    "forward-shape-mismatch": lambda p: (
        f"{p['row']} forward on {p['case']}: output shape {fmt(p['got'])}, torch gives "
        f"{fmt(p['want'])}."),
    "forward-values": lambda p: (
        f"{p['row']} forward on {p['case']}: element {fmt(p['element'])}: minitorch "
        f"{p['got']:.10g}, torch {p['want']:.10g}, |difference| {p['diff']:.3g} > "
        f"{p['atol']:g} + {p['rtol']:g}·|torch|."),
    "grad-none": lambda p: f"{_where(p)}: .grad is None.",
    "grad-shape-mismatch": lambda p: (
        f"{_where(p)}: gradient shape {fmt(p['got'])}, expected {fmt(p['want'])}."),
    "grad-values": lambda p: (
        f"{_where(p)}: element {fmt(p['element'])}: minitorch {p['got']:.10g}, torch "
        f"{p['want']:.10g} (|difference| {p['diff']:.3g})."),
    "crashed": lambda p: (
        f"{p['row']} {p['stage']} on {p['case']} raised {p['error']} (input shapes "
        f"{', '.join(fmt(s) for s in p['shapes'])})."),
    "gradcheck-failed": lambda p: f"{p['message']} (case {p['case']})",
    # engine checks (lab 00 and unbroadcast)
    "engine-grad-none": lambda p: (
        f"{ENGINE_WHERE[p['where']](p)}: .grad is None, expected an array of shape "
        f"{fmt(p['want_shape'])}. " + (_engine_hint(p) or "backward() never reached this node.")),
    "engine-grad-shape": lambda p: (
        f"{ENGINE_WHERE[p['where']](p)}: gradient shape {fmt(p['got'])}, expected "
        f"{fmt(p['want_shape'])}. {_engine_hint(p)}"),
    "engine-grad-values": _engine_values,
    "engine-grad-stopped": lambda p: (
        "backward of s = Σ x², x of shape (3,5): s.grad holds the seed, but x.grad is None"
        + (" although the intermediate a = x² got one: a's _backward ran before its gradient "
           "arrived, or never ran. " if p.get("a_got") else
           " and so is the intermediate a = x²'s: the gradient stopped at the output. ")
        + "Walk the topological order REVERSED (children before parents: a node's .grad is "
        "complete only once every node that consumes it has run) and hand each _backward's "
        "results to the nodes in node._prev."),
    "engine-retain-ignored": lambda p: (
        "out.backward(retain_graph=True) then out.backward() again: the second call raised "
        f"BackwardError ({p['message'][:60]}…). retain_graph=True was ignored: free a node "
        "(node._prev = (), node._backward = None) only when retain_graph is False."),
    "engine-constant-got-grad": lambda p: (
        "backward of y = x·k: the constant k (requires_grad=False) got a .grad of shape "
        f"{fmt(p['shape'])}; it must stay None. Skip parents that do not require grad."),
    "engine-grad-read-only": lambda p: (
        f"after backward of s = Σ {p['leaf']}: {p['leaf']}.grad += 1 (an optimizer's in-place "
        f"update) raised ValueError: {p['leaf']}.grad is a read-only view."),
    "engine-grad-aliased": lambda p: (
        "backward of c = x + y (its _backward returns the same g for both parents): after "
        f"x.grad += 1 (an optimizer's in-place update), {', '.join(p['changed'])} changed too."),
    "engine-graph-kept": lambda p: (
        f"after s.backward() without retain_graph, node(s) {', '.join(p['kept'])} still hold "
        "their _prev / _backward. Free the graph like PyTorch: once a node's _backward has run, "
        "set node._prev = () and node._backward = None (unless retain_graph), so its saved "
        "arrays can be released."),
    "topo-recursion": lambda p: (
        f"_topological_order on {TOPO_GRAPHS[p['graph']]}: RecursionError. A recursive "
        "depth-first search overflows Python's call stack (about 1000 frames); use a while loop "
        "over an explicit stack of (node, parents_done) pairs."),
    "topo-not-list": lambda p: (
        f"_topological_order on {TOPO_GRAPHS[p['graph']]}: returned {p['type']}, expected a "
        "list of Tensors"),
    "topo-twice": lambda p: (
        f"_topological_order on {TOPO_GRAPHS[p['graph']]}: {', '.join(p['twice'])} appear(s) "
        f"more than once (order: {p['order']}). Mark a node visited the first time you reach it "
        "and skip it afterwards; a node reached along two paths must be listed once."),
    "topo-missing": lambda p: (
        f"_topological_order on {TOPO_GRAPHS[p['graph']]}: {', '.join(p['missing'])} missing "
        f"(order: {p['order']}). Follow every parent in node._prev that requires grad, all the "
        "way to the leaves."),
    "topo-unexpected": lambda p: (
        f"_topological_order on {TOPO_GRAPHS[p['graph']]}: the order contains a node that needs "
        f"no gradient (order: {p['order']}). Skip parents with requires_grad=False (constants)."),
    "topo-parent-after": lambda p: (
        f"_topological_order on {TOPO_GRAPHS[p['graph']]}: {p['parent']} comes after its child "
        f"{p['child']} (order: {p['order']}). Append a node only after all its parents are in "
        "the list (post-order), and return parents before children."),
    "topo-last": lambda p: (
        f"_topological_order on {TOPO_GRAPHS[p['graph']]}: the last node must be the one "
        f"backward() starts from ({p['root']}); order: {p['order']}"),
    "topo-deep-count": lambda p: (
        f"_topological_order on a chain of 100,000 ops: {p['count']} nodes, expected 100001 "
        "with the leaf first and the output last"),
    "unbroadcast-modified": lambda p: (
        f"{ENGINE_WHERE['unbroadcast'](p)} modified the grad it was given; return a new array "
        "(the caller may still need it)."),
    "unbroadcast-shape": lambda p: (
        f"{ENGINE_WHERE['unbroadcast'](p)}: returned shape {fmt(p['got'])}, expected "
        f"{fmt(p['want'])}. {_engine_hint(p)}"),
}

TOPO_GRAPHS = {
    "chain3": "x -> a -> b, shapes (3,5)",
    "diamond": "the diamond a = x², b = 2x, c = a + b, shapes (3,5)",
    "residual": "a = x², b = 2a, c = a + b (a reaches c twice), shapes (3,5)",
    "constant": "y = x·k with k a constant, shapes (20,3,5)",
    "deep": "a chain of 100,000 ops",
}

ENGINE_WHERE: dict[str, Callable[[dict], str]] = {
    "square_then_sum": lambda p: "backward of s = Σ x², x of shape (3,5): x.grad",
    "diamond_accumulates": lambda p: (
        "backward of c = x² + 2x with a random upstream (3,5): x.grad"),
    "grid_constant": lambda p: "backward of y = x·k on the grid (20,3,5): x.grad",
    "two_leaves_x": lambda p: "backward of c = x² + 3y with a random upstream (3,5): x.grad",
    "two_leaves_y": lambda p: "backward of c = x² + 3y with a random upstream (3,5): y.grad",
    "constant_first": lambda p: (
        "backward of y = k·x, k a constant and the FIRST parent, shapes (3,5): x.grad"),
    "intermediate_a": lambda p: "backward of b = 3·x²: a.grad (the intermediate node a = x²)",
    "intermediate_b": lambda p: "backward of b = 3·x²: b.grad (the output)",
    "leaves_accumulate": lambda p: (
        "two backward() calls on two graphs sharing the leaf x: x.grad"),
    "retain_twice": lambda p: (
        "s = Σ x², s.backward(retain_graph=True) then s.backward(): x.grad"),
    "aliasing_x": lambda p: "backward of c = x + y with a random upstream (3,5): x.grad",
    "aliasing_y": lambda p: "backward of c = x + y with a random upstream (3,5): y.grad",
    "aliasing_z": lambda p: "backward of s = Σ z, z of shape (3,5): z.grad",
    "reset_b": lambda p: (
        "b = 3·x², b.backward(g1, retain_graph=True) then b.backward(g2): b.grad (the output)"),
    "reset_a": lambda p: (
        "b = 3·x², b.backward(g1, retain_graph=True) then b.backward(g2): a.grad (a = x²)"),
    "reset_x": lambda p: (
        "b = 3·x², b.backward(g1, retain_graph=True) then b.backward(g2): x.grad"),
    "unbroadcast": lambda p: (
        f"unbroadcast(grad of shape {fmt(p['grad_shape'])}, {fmt(p['shape'])})"),
}

ENGINE_HINTS: dict[str, str] = {
    "square_then_sum": ("ds/dx = 2x: the seed is 1 for a one-element output, then each node's "
                        "_backward(node.grad) gives its parents' gradients."),
    "diamond_accumulates": (
        "x feeds two nodes: its gradient is the SUM over both paths. Accumulate (grad = grad + g) "
        "instead of overwriting, and visit children before parents (the reversed topological "
        "order)."),
    "grid_constant": "x.grad must be the upstream gradient times k.",
    "two_leaves_x": (
        "Every node in the reversed order gets its turn: skip a leaf (no _backward) with "
        "continue, do not end the loop there."),
    "two_leaves_y": (
        "Every node in the reversed order gets its turn: skip a leaf (no _backward) with "
        "continue, do not end the loop there."),
    "constant_first": (
        "A parent that needs no gradient (or a None from _backward) is skipped, and the loop "
        "goes on to the next parent."),
    "intermediate_a": "Every node on the way keeps its gradient in .grad (db/da = 3).",
    "intermediate_b": "The output's .grad is the seed you passed to backward().",
    "leaves_accumulate": (
        "A leaf's .grad accumulates across backward() calls (like PyTorch) until zero_grad(); do "
        "not reset leaves at the start of backward()."),
    "reset_b": "The output's .grad is the seed of THIS backward() call: g2.",
    "reset_a": "An intermediate node's .grad holds the last pass's gradient only: 3·g2.",
    "reset_x": "A leaf's .grad accumulates over both calls: 2x·3·(g1 + g2).",
    "retain_twice": (
        "With retain_graph=True the graph survives the first backward(), so the second one adds "
        "2x again: 4x in total."),
}

UNBROADCAST_HINTS: dict[str, Callable[[dict], str]] = {
    "unchanged": lambda p: (
        "You returned grad unchanged: sum away the leading axes grad has in excess "
        f"({p['extra']} here) and the axes where the target has 1."),
    "size1-dropped": lambda p: (
        f"Right sums, but the size-1 axes {p['ones']} of the target were dropped: sum them with "
        "keepdims=True."),
    "leading-kept": lambda p: (
        "The leading axes must disappear (sum them WITHOUT keepdims); only the target's own "
        "size-1 axes keep keepdims=True."),
    "mean-not-sum": lambda p: (
        f"Every element is 1/{p['n']} of the right one: use sum, not mean."),
    "sum-broadcast-axes": lambda p: (
        "Sum over the broadcast axes; each element of the target collects every copy of it."),
    "aligned": lambda p: (
        f"Aligned to the right, (grad {fmt(p['grad_shape'])} vs target {fmt(p['shape'])}): sum "
        f"the first {p['extra']} axes away, then the axes where the target has 1, keepdims."),
}


def fact_text(f: Fact) -> str:
    """What a check observed, in words."""
    if f.id == "property-failed":
        p = f.params
        inner = fact_text(Fact(**p["inner"])) if p.get("inner") else p.get("raised", "")
        return inner
    return FACTS[f.id](f.params)


# ---------------------------------------------------------------- whole outcomes
def message(o: Outcome) -> str:
    """An outcome's explanation: what was observed, then the likely mistake."""
    d = o.diagnosis
    if o.fact is None:
        return diagnosis_text(d) if d else ""
    text = fact_text(o.fact)
    if d is not None:
        said = diagnosis_text(d)
        if o.suite == "engine" or d.id.startswith("engine-"):
            text += said if not said or d.id.startswith("engine-") else f" {said}"
        elif said:
            text += f"\nLikely mistake: {said}"
    if o.fact.id == "property-failed":
        text += ("\nSmallest failing example found by Hypothesis (shrunk):\n"
                 + o.fact.params["example"])
    return text


def header(o: Outcome) -> str:
    return f"[{o.status}] {o.row} · {o.suite}" + (f" · {o.case.strip()}" if o.case else "")


def wrap(text: str, width: int = BLOCK_WIDTH, indent: str = "") -> str:
    """Wrap long prose lines; keep indented (code-like) lines, such as tables, as they are."""
    lines = []
    for line in text.splitlines():
        if len(line) + len(indent) > width + len(indent) and not line.startswith(" "):
            lines.append(textwrap.fill(line, width + len(indent), initial_indent=indent,
                                       subsequent_indent=indent + "  "))
        else:
            lines.append(indent + line if line else "")
    return "\n".join(lines)


def block(o: Outcome) -> str:
    """The block a graded cell shows for a failing row; ``make check OP=...`` shows the same."""
    text = message(o)
    kind = f" — {label(o.kind)}" if o.kind else ""
    return header(o) + kind + ("\n" + wrap(text) if text else "")


def passed(report: RowReport) -> str:
    """A graded cell's line for a row whose every check passed."""
    if report.engine:
        count = report.suites["engine"][0].fact.params["count"]
        return f"✓ {report.row}: {count} checks passed"
    ran = sum(o.status == PASS for outs in report.suites.values() for o in outs)
    return f"✓ {report.row}: {ran} checks passed ({', '.join(report.suites)})"


def brief(o: Outcome, sentences: int = 2) -> str:
    """The diagnosis' first sentences (the table's one line), else the message's first line;
    for an engine case with wrong values, where it is and the hint (not the numbers)."""
    p = o.fact.params if o.fact else {}
    if o.fact and o.fact.id in ("engine-grad-values", "engine-grad-none", "engine-grad-shape"):
        said = diagnosis_text(o.diagnosis).strip() if o.diagnosis else ""
        ratio = (f"every element is {p['ratio']:g}× the right one"
                 if p.get("ratio") is not None else "wrong")
        return f"{ENGINE_WHERE[p['where']](p)}: {ratio}. {said or _engine_hint(p)}".strip()
    text = diagnosis_text(o.diagnosis, full=False) if o.diagnosis else ""
    if not text or (o.diagnosis and o.diagnosis.id.startswith("engine-")):
        text = message(o)
    first = text.strip().split("\n")[0]
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z(])", first)
    return " ".join(parts[:sentences])


def label(kind: str) -> str:
    return KIND_LABELS.get(kind, kind or "failed")
