"""The ONE place where check outcomes become prose, in the learner's language.

Checks, the diagnosis and the engine checks return data (``minitorch_course.outcomes``): a
message id and its parameters. This module turns them into the sentences a learner reads, for
the graded notebook cells and for ``make check`` alike, so both print the same words. Every
sentence goes through the gettext catalog (``minitorch_course.i18n``): Spanish by default,
English with ``MINITORCH_LANG=en``. The English templates below are the message ids.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Sequence

from minitorch_course import engine_checks, i18n
from minitorch_course.catalog import MISTAKES, format_shape
from minitorch_course.i18n import N_, Msg, _, t, verbatim
from minitorch_course.outcomes import PASS, Diagnosis, Fact, Outcome, RowReport

BLOCK_WIDTH = 94  # a failure block fits make check's 100 columns with its 6-space indent


# kind -> what the table and the summaries call it
KIND_LABELS: dict[str, str] = {
    "reverse-broadcast": N_("reverse broadcasting missing"),
    "keepdims": N_("keepdims lost"),
    "transposed": N_("transposed"),
    "reshaped": N_("right elements, wrong shape"),
    "shape": N_("wrong gradient shape"),
    "missing-grad": N_("no gradient reached the input"),
    "zero": N_("zero where it should not be"),
    "sign": N_("sign flipped"),
    "factor": N_("off by a constant factor"),
    "ties": N_("wrong on ties"),
    "repeated-indices": N_("wrong at repeated indices"),
    "softmax-sum-term": N_("softmax backward without the sum term"),
    "exp-uses-input": N_("exp's backward uses the input"),
    "local-derivative": N_("wrong local derivative"),
    "unstable-forward": N_("numerically unstable forward"),
    "unstable-backward": N_("numerically unstable backward"),
    "forward": N_("forward wrong"),
    "forward-shape": N_("forward has the wrong shape"),
    "recursion": N_("recursive topological sort"),
    "double-counting": N_("a node visited twice (double counting)"),
    "topological-order": N_("wrong topological order"),
    "accumulate": N_("gradient overwritten instead of accumulated"),
    "freed-graph": N_("freeing the graph: retain_graph, a second backward()"),
    "engine": N_("engine bug"),
    "shape-error": N_("shape error"),
    "crash": N_("crash"),
    "values": N_("wrong values"),
    "swapped-inputs": N_("another input's gradient (swapped or copied)"),
    "missing-upstream": N_("upstream gradient g not multiplied in"),
    "at-output": N_("derivative taken at the output"),
    "wrong-axis": N_("along the wrong axis"),
    "stale-grad": N_("stale intermediate gradients (kept from the previous pass)"),
    "aliasing": N_("gradients share memory (aliasing)"),
    "constant-operand": N_("wrong with a constant input"),
    "backward-return": N_("a backward that does not return a tuple of gradients"),
}

# the words a check's data uses for where it ran
WORDS: dict[str, str] = {
    "forward": N_("forward"),
    "backward": N_("backward"),
    "gradcheck": N_("gradcheck"),
    "broadcast": N_("broadcast"),
    "property": N_("property"),
    "engine": N_("engine"),
}


def word(key: str) -> str:
    """A check's word (a suite, a stage) in the learner's language."""
    return _(WORDS[key]) if key in WORDS else key


# ---------------------------------------------------------------- small pieces
fmt = format_shape  # (3,) and (4, 3) written like NumPy (catalog.format_shape)


def broadcast_report(shapes: list[Sequence[int]], names: list[str] | None = None) -> str:
    """The shapes aligned to the right (a dimension table) and what happens on every axis."""
    from minitorch.errors import broadcast_table  # imported late: loading minitorch runs tensor.py

    names = names or [t("shape {i}", i=i) for i in range(len(shapes))]
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(None,) * (ndim - len(s)) + tuple(s) for s in shapes]
    words = []
    for i, column in enumerate(zip(*padded)):
        sizes = [n for n in column if n is not None]
        big = {n for n in sizes if n != 1}
        axis = i - ndim
        if len(big) > 1:
            words.append(t("axis {axis}: {sizes} clash", axis=axis,
                           sizes=_(" vs ").join(map(str, sizes))))
        elif len(set(sizes)) > 1 or len(sizes) < len(column):
            size = big.pop() if big else 1
            words.append(t("axis {axis}: broadcast to {size}", axis=axis, size=size))
    table = broadcast_table([tuple(s) for s in shapes], names, axis_label=_("axis"),
                            result_label=_("result"))
    return Msg(table + ("\n" + "; ".join(words) if words else ""))


def raised(p: dict) -> str:
    """'ValueError: ... at tensor.py:123 (add: <line>)' from a crash's parameters."""
    at = p.get("at")
    if at:
        code = f": {at['code']}" if at.get("code") else ""
        return t("{error}: {message} at {file}:{line} ({function}{code})", error=p["error"],
                 message=p["message"], file=at["file"], line=at["line"],
                 function=at["function"], code=code)
    return verbatim(f"{p['error']}: {p['message']}")


def _fraction(r: float) -> int | None:
    """n when r is 1/n (a divisor), else None."""
    if r != 0 and abs(r) < 1 and abs(1.0 / r - round(1.0 / r)) < 1e-6 * abs(1.0 / r):
        return round(1.0 / r)
    return None


def _returned(p: dict) -> str:
    """What a node's _backward returned instead of one gradient per parent (``backward-not-tuple``)."""
    node = p["node"] or p["method"]
    if p["returned"] == "array":
        what = t("an array of shape {shape}", shape=fmt(p["shape"]))
    elif p["returned"] == "number":
        what = t("a single number ({type})", type=p["type"])
    else:
        what = t("a {type}", type=p["type"])
    return t("The _backward of the node {node} (made by {method}) returned {what}, but the "
             "node has {parents} parent(s) in _prev.", node=repr(node), method=p["method"],
             what=Msg(what), parents=p["parents"])


def _returned_short(p: dict) -> str:
    if p["returned"] == "array":
        return _("an array (the engine walks its rows)")
    return _("something that is not a tuple")


def _subject(p: dict) -> str:
    s = p.get("subject") or {}
    if "call" in s:
        return t("unbroadcast(g of shape {call}, {want}) returns shape {got}",
                 call=fmt(s["call"]), want=fmt(p["want"]), got=fmt(p["got"]))
    if s.get("unbroadcast"):
        return t("unbroadcast returns shape {got}", got=fmt(p["got"]))
    return t("the gradient has shape {got}", got=fmt(p["got"]))


def _reverse_broadcast(p: dict) -> str:
    lead, ones = p["lead"], p["ones"]
    parts = []
    if lead:
        parts.append(t("{axes} added in front by broadcasting", axes=fmt(lead)))
    if ones:
        parts.append(t("{axes} where the input has size 1, with keepdims=True", axes=fmt(ones)))
    text = t("Reverse broadcasting missing: sum over axes {axes} ({parts}). Here {subject}, but "
             "the input is {want}: summing the gradient back down to the input's shape is "
             "unbroadcast's job.", axes=fmt(lead + ones), parts=Msg("; ".join(parts)),
             subject=_subject(p), want=fmt(p["want"]))
    if p.get("same"):
        text += " " + _("Once summed, its values are exactly right.")
    return text


def _factor_head(p: dict) -> str:
    n = _fraction(p["ratio"])
    if p.get("what") == "output":
        if n is not None:
            return t("Off by a constant factor: every element of the output is 1/{n} of the "
                     "right one", n=n)
        return t("Off by a constant factor: every element of the output is {ratio:.4g}× the "
                 "right one", ratio=p["ratio"])
    if n is not None:
        return t("Off by a constant factor: every element of the gradient is 1/{n} of the "
                 "right one", n=n)
    return t("Off by a constant factor: every element of the gradient is {ratio:.4g}× the "
             "right one", ratio=p["ratio"])


def _table(shapes: list, limit: int = 3) -> str:
    if len(shapes) < 2:
        return ""
    return "\n" + _("Shapes aligned to the right:") + "\n" + broadcast_report(shapes[:limit])


def _i(p: dict) -> int:
    return p.get("index", 0)


# ---------------------------------------------------------------- diagnoses
def _values(p: dict) -> str:
    if p.get("count"):
        head = t("{count} of {size} elements of the gradient are wrong, in no pattern the checks "
                 "recognise", count=p["count"], size=p["size"])
    else:
        head = _("Wrong gradient values, in no pattern the checks recognise")
    return head + t(" (not a sign, a constant factor, a transpose, two inputs' gradients swapped, "
                    "a missing upstream g, the derivative taken at the output). Re-derive "
                    "{method}'s local derivative ({formula}) for input {index} and multiply it "
                    "by the upstream gradient g.", method=p["method"], formula=p["formula"],
                    index=_i(p))


def _factor_of_input(p: dict) -> str:
    factor = _("the output") if p["factor"] == -1 else t("input {j}", j=p["factor"])
    kw = {"factor": Msg(factor), "method": p["method"], "index": _i(p), "formula": p["formula"]}
    if p["power"] == 1:
        return t("Off by a factor that varies per element: every element of the gradient is the "
                 "right one times {factor}. {method}'s local derivative has a factor {factor} "
                 "too many (input {index}'s gradient; {formula}).", **kw)
    return t("Off by a factor that varies per element: every element of the gradient is the "
             "right one divided by {factor}. {method}'s local derivative is missing a factor "
             "{factor} (input {index}'s gradient; {formula}).", **kw)


def _nonfinite_backward(p: dict) -> str:
    if p.get("negative", -1) >= 0:
        return t("{count} of {size} elements of input {index}'s gradient are inf/NaN where the "
                 "right ones are finite, exactly where input {negative} is negative: a log or a "
                 "square root of input {negative} in the backward (is it the right operand?).",
                 count=p["count"], size=p["size"], index=p["index"], negative=p["negative"])
    text = t("{count} of {size} elements of input {index}'s gradient are inf/NaN where the right "
             "ones are finite", count=p["count"], size=p["size"], index=p["index"])
    if p.get("values"):
        text += _inputs_there(p["values"])
    return text + _(": a log or square root of a negative number (or of 0), a division by zero, "
                    "0·inf (a formula torch defines by convention at that point) or an overflow "
                    "in the backward formula.")


def _unstable_head(p: dict) -> str:
    """What the evidence of an unstable forward shows: where, at which input values."""
    values = p.get("values")
    head = _("Numerically unstable forward: inf/NaN where torch's result is finite")
    if values:
        head += _inputs_there(values)
    elif p.get("big"):
        head += t(" (inputs up to |{big:g}|)", big=p["big"])
    return head


def _inputs_there(values: list) -> str:
    """', first where the input is 3' / ', first where the inputs are 0, 0'."""
    shown = Msg(", ".join(f"{v:.4g}" for v in values))
    if len(values) == 1:
        return t(", first where the input is {values}", values=shown)
    return t(", first where the inputs are {values}", values=shown)


def _unstable_forward(p: dict) -> str:
    head = _unstable_head(p)
    large = p.get("large") if p.get("values") else p.get("big", 0.0) > 30.0
    if large:
        return head + _(". e^x overflows to inf beyond x ≈ 709 and underflows to 0 below "
                        "x ≈ -745; inf/inf, inf - inf, 0/0 and log 0 then give NaN or ±inf. "
                        "Rewrite the formula so that no intermediate leaves float64's range "
                        "(exponentials of non-positive numbers only, or NumPy's own function).")
    return head + _(". At such moderate inputs that is a log of 0 or of a negative number, a "
                    "division by 0 or 0·inf in the formula: is it valid on every input torch "
                    "accepts?")


def _left_aligned(shapes: list) -> tuple | None:
    """(short, long, fixed) when one shape is the other's LEADING axes and so cannot broadcast
    (NumPy aligns from the right): an array of one value per row, (8,) against (8, 5), is the
    shape a reduction without keepdims or a per-row upstream gradient has. ``fixed``: the short
    shape with trailing size-1 axes, which does broadcast."""
    for short in shapes:
        for long in shapes:
            k = len(long) - len(short)
            if 0 < len(short) and k > 0 and tuple(long[:len(short)]) == tuple(short) and tuple(
                    long[k:]) != tuple(short) and any(n > 1 for n in short):
                return tuple(short), tuple(long), tuple(short) + (1,) * k
    return None


def _shape_error(p: dict) -> str:
    if p["backward"]:
        text = t("A shape error in the backward: {raised}.", raised=Msg(raised(p)))
    else:
        text = t("A shape error: {raised}.", raised=Msg(raised(p)))
    left = _left_aligned(p.get("shapes") or [])
    if left:
        short, long, fixed = left
        text += " " + t(
            "NumPy aligns shapes from the right: {short} lines up with the LAST axes of {long}, "
            "not its first ones. One value per row (a reduction along the last axes, or a "
            "gradient with one entry per row) must keep those axes as size 1, {fixed}, to "
            "spread along them.", short=fmt(short), long=fmt(long), fixed=fmt(fixed))
    return text + _table(p["shapes"])


def _numpy_crash(p: dict) -> str:
    text = t("NumPy refused an operation in {where}: {error}: {message}. NumPy raised it, not the "
             "course: the arrays combined at that line do not have the shapes the code assumes "
             "(print g.shape and the shapes of the arrays saved by the forward).",
             where=_place(p), error=p["error"], message=p["message"])
    at = p.get("at")
    if at:
        text += "\n" + t("At {file}:{line} ({function}: {code})", file=at["file"],
                         line=at["line"], function=at["function"], code=at["code"])
    return text


def _transposed_shape(p: dict) -> str:
    text = t("Transposed: {subject}, a permutation of the input's {want}.", subject=_subject(p),
             want=fmt(p["want"]))
    if p.get("reversed"):
        text += " " + _("Every axis is reversed: on an array with more than 2 axes .T (and "
                        "np.transpose without axes) reverses them all, batch axes included; "
                        "swap only the last two: np.swapaxes(x, -1, -2).")
    elif p.get("last_two"):
        text += " " + _("Its last two axes are swapped: check which operand each product "
                        "transposes, and that the gradient comes back in the input's layout.")
    return text


def _torch_spelling(p: dict) -> str:
    if p["form"] == "keyword":
        text = t("{error}: {message}. That is torch's spelling; on NumPy arrays the keyword is "
                 "{numpy}= ({name}= is torch's).", error=p["error"], message=p["message"],
                 numpy=p["numpy"], name=p["name"])
    else:
        text = t("{error}: {message}. x.{name}() is a torch Tensor method; the arrays a closure "
                 "holds are NumPy arrays, which have none: use NumPy's function (np.{numpy}(x) "
                 "where NumPy has one) or write the formula with np.exp, np.log...",
                 error=p["error"], message=p["message"], name=p["name"], numpy=p["numpy"])
    at = p.get("at")
    if at:
        text += "\n" + t("At {file}:{line} ({function}: {code})", file=at["file"],
                         line=at["line"], function=at["function"], code=at["code"])
    return text


def _constant_operand(p: dict) -> str:
    inputs = ", ".join(str(i) for i in p["constant"])
    return t("This case gives input {inputs} as a constant (requires_grad=False), and input "
             "{index}'s gradient is wrong or missing here. If the cases where every input "
             "requires grad pass, look at the branches of {method}'s backward that skip a "
             "constant: it must still return one entry per parent, in the order of _prev (None "
             "for a constant), and decide whether to compute each gradient from THAT operand's "
             "own requires_grad. (If the engine rows fail too, fix the engine first: it must "
             "skip a constant parent and go on.)", inputs=inputs, index=p["index"],
             method=p["method"])


def _place(p: dict) -> str:
    """Where a NumPy error was raised: an op's forward or backward, or the engine."""
    method = p.get("method")
    if not method:
        return _("the engine")
    if p.get("backward"):
        return t("{method}'s backward", method=method)
    return t("{method}'s forward", method=method)


DIAGNOSES: dict[str, Callable[[dict], str]] = {
    "reverse-broadcast": _reverse_broadcast,
    "keepdims-lost": lambda p: t(
        "keepdims lost: {subject} but the input is {want}: its size-1 axes were summed away. Sum "
        "over them with keepdims=True (or np.expand_dims them back) so the gradient keeps the "
        "input's shape.", subject=_subject(p), want=fmt(p["want"])),
    "transposed-shape": _transposed_shape,
    "reshaped": lambda p: t(
        "Right number of elements, wrong shape: {subject} but the input is {want}; reshape it "
        "back to the input's shape.", subject=_subject(p), want=fmt(p["want"])),
    "shape": lambda p: t(
        "Wrong gradient shape: {subject} but it must have the input's shape {want}. Shapes "
        "aligned to the right:", subject=_subject(p), want=fmt(p["want"])) + "\n"
        + broadcast_report([p["want"], p["got"]], [_("input"), _("gradient")]),
    "unbroadcast-raised": lambda p: t(
        "Reverse broadcasting failed: unbroadcast(grad of shape {got}, {want}) raised {error}: "
        "{message}.", got=fmt(p["got"]), want=fmt(p["want"]), error=p["error"],
        message=p["message"]),
    "backward-not-tuple": lambda p: _returned(p) + " " + t(
        "A _backward returns one gradient per parent, as a tuple in the order of _prev, even "
        "for a single parent: `return (grad,)` (the comma makes the tuple). The engine pairs "
        "_prev with what _backward returns, so {got_short} gives the parents the wrong "
        "gradients, or none.", got_short=_returned_short(p)),
    "missing-grad": lambda p: t(
        "No gradient reached input {index}: its .grad is None. The op must list it in _prev and "
        "its _backward must return one gradient per parent, in the same order.",
        index=p["index"]),
    "unstable-backward": lambda p: _(
        "The gradient has inf/NaN where the right one is finite: a numerically unstable backward "
        "(a division by a tiny number, an exponential of a large one); reuse the forward's "
        "stable values (e.g. the softmax) instead of recomputing them."),
    "all-zero": lambda p: _(
        "The gradient is all zeros where it should not be: backward never wrote it, returned "
        "zeros, or a later write overwrote it."),
    "sign": lambda p: t(
        "Sign flipped: the gradient is exactly the negative of the right one. Check the minus "
        "signs in {method}'s derivative ({formula}).", method=p["method"], formula=p["formula"]),
    "transposed-values": lambda p: _(
        "Transposed: the gradient equals the right one with its last two axes swapped (for "
        "a @ b: grad_a = g @ bᵀ, grad_b = aᵀ @ g)."),
    "factor-double": lambda p: _factor_head(p) + _(
        ". Two causes fit: the local derivative has a stray factor 2 (a ½ missing from the "
        "formula, as in d/da √a = 1/(2√a)), or a contribution was added twice. If the engine "
        "rows pass, it is the formula."),
    "factor-half": lambda p: _factor_head(p) + _(
        ". Two causes fit: the local derivative has a stray ½ (or divides by a count twice as "
        "large as the right one), or one of two equal contributions was lost (overwritten "
        "instead of accumulated). If the engine rows pass, it is the formula."),
    "factor-divided": lambda p: _factor_head(p) + t(
        ": the gradient is divided by {k} more than it should be (a divisor applied twice, or "
        "one {k} times too large: a count, a mean's number of elements, a batch size).",
        k=p["k"]),
    "factor-division-missing": lambda p: _factor_head(p) + (t(
        ": the right one divides by {k} more than yours, and {k} is the size of the reduced "
        "axes {left_out} of the input: the count of the elements reduced over {axes} left them "
        "out.", k=p["k"], left_out=fmt(tuple(p["left_out"])), axes=fmt(tuple(p["axes"])))
        if p.get("left_out") else t(
        ": the right one divides by {k} more than yours (a divisor missing, or {k} times too "
        "small: a count, a mean's number of elements, a batch size N).", k=p["k"])),
    "factor-averaged-copies": lambda p: _factor_head(p) + t(
        ", and {k} is the number of copies broadcasting made of input {index}: each copy "
        "contributes, so their gradients must be SUMMED, not averaged.", k=p["k"], index=_i(p)),
    "factor-scale": lambda p: _factor_head(p) + _(
        ": the derivative's form is right, its scale is not."),
    "zero-where": lambda p: t(
        "Zero where it should not be: {count} of {size} elements are 0 but should not be (first "
        "at {first}); everything else is right. A mask or a condition is too strict.",
        count=p["count"], size=p["size"], first=fmt(p["first"])),
    "values": _values,
    "values-same-every-row": lambda p: t(
        "{count} of {size} elements of input {index}'s gradient are wrong, and the error is the "
        "same in every row: it depends on the column only. Check the term of {method}'s backward "
        "that is indexed by column: x[:, idx] selects whole columns; one element per row is "
        "x[np.arange(N), idx].", count=p["count"], size=p["size"], index=_i(p),
        method=p["method"]),
    "values-degenerate": lambda p: t(
        "{method}'s gradient for input {index} is wrong, on a case with a single non-zero "
        "element: one number cannot tell a wrong factor from a wrong formula. Re-derive "
        "{method}'s local derivative ({formula}) and multiply it by g.", method=p["method"],
        index=_i(p), formula=p["formula"]),
    "swapped-shape": lambda p: t(
        "Gradients swapped? input {index}'s gradient has shape {got}, the shape of input "
        "{other}, not its own {want}. {method}'s backward must return one gradient per parent, "
        "in the order of _prev (a, then b).", index=p["index"], got=fmt(p["got"]),
        other=p["other"], want=fmt(p["want"]), method=p["method"]),
    "factor-of-input": _factor_of_input,
    "nonfinite-backward": _nonfinite_backward,
    "swapped-inputs": lambda p: t(
        "Input {index}'s gradient is exactly the one input {other} should get: the two "
        "gradients are swapped, or one was written in place of the other. {method}'s backward "
        "must return one gradient per parent, in the order of _prev, and each uses the OTHER "
        "operand where the derivative says so (d(ab)/da = b).", index=p["index"],
        other=p["other"], method=p["method"]),
    "missing-upstream": lambda p: t(
        "Upstream gradient missing: input {index}'s gradient is exactly {method}'s local "
        "derivative, not multiplied by the upstream gradient g (the chain rule: the upstream "
        "gradient times the local derivative). It passes only when g is all ones, as after a plain .sum().",
        index=p["index"], method=p["method"]),
    "at-output": lambda p: t(
        "Derivative taken at the wrong point: the gradient is exactly {method}'s right derivative "
        "evaluated at the OUTPUT y instead of at the input a. Write the derivative as a function "
        "of a (or, if you write it with y, do not apply it to y's own function again).",
        method=p["method"]),
    "unstable-forward": _unstable_forward,
    "forward-sign": lambda p: _("Sign flipped in the forward pass."),
    "forward": lambda p: t("The forward values are wrong: compare with the formula {formula}.",
                           formula=p["formula"]),
    "keepdims-ignored": lambda p: _(
        "keepdims ignored: with keepdims=True each reduced axis stays in the output as a 1."),
    "forward-axes": lambda p: _(
        "Check axis and keepdims: the output drops each reduced axis, or keeps it as a 1 with "
        "keepdims=True."),
    "forward-permuted": lambda p: _(
        "The output's axes are permuted: check the order of the axes (transpose/matmul)."),
    "forward-shape": lambda p: t(
        "The forward output must have the shape torch gives, {want}.", want=fmt(p["want"])),
    "recursion": lambda p: t(
        "{raised}. A recursive depth-first search overflows Python's call stack (about 1000 "
        "frames) on a deep graph; walk it with a while loop over an explicit stack.",
        raised=Msg(raised(p))),
    "shape-error": _shape_error,
    "crash": raised,
    "upstream-written": lambda p: t(
        "{op}'s backward changed the upstream gradient g in place (g *= mask, g[...] = 0): g is "
        "the output's .grad, shared with whatever else reads it, and the engine hands it "
        "read-only. Compute a new array from g instead.", op=p["op"]),
    "crash-empty-axis": lambda p: t(
        "This case has a size-0 axis (an empty tensor), where torch returns an empty result "
        "instead of raising. A reduction without an identity element (what is the max of "
        "nothing?) raises on an empty axis unless it is told what to start from; a sum of "
        "nothing is 0 and needs nothing. Raised: {raised}", raised=Msg(raised(p))),
    "numpy-crash": _numpy_crash,
    "torch-spelling": _torch_spelling,
    "missing-keyword": lambda p: t(
        "{method} does not take the keyword argument {name}= that this case passes ({name}="
        "{value!r}, as torch's {method} accepts it): add the parameter, with torch's default. "
        "({error}: {message})", method=p["method"], name=p["name"], value=p["value"],
        error=p["error"], message=p["message"]),
    "constant-operand": _constant_operand,
    "constant-got-grad": lambda p: t(
        "Input {index} is a constant (requires_grad=False) but received a .grad: torch leaves a "
        "constant without gradient. The engine must skip a parent that does not require grad "
        "(the backward engine row checks it too).", index=p["index"]),
    # the engine checks' own diagnoses complete their fact's text
    "engine-seed-ignored": lambda p: _(
        " This is exactly the gradient for an upstream of ones: backward(grad) ignored the grad "
        "it was given. The output's .grad starts as that grad (ones only when grad is None, for "
        "a one-element output)."),
    "engine-stale": lambda p: _(
        " Twice the right value after the second pass: the second backward() added onto the "
        "first pass's gradients of the INTERMEDIATE nodes. Reset every non-leaf node's .grad at "
        "the start of backward() (leaves keep accumulating across calls)."),
    "engine-half": lambda p: _(
        " (Half the right gradient: one of two contributions was overwritten instead of "
        "accumulated.)"),
    "engine-unbroadcast-shape": lambda p: "\n" + DIAGNOSES[p["shape_id"]](p),
}


def diagnosis_text(d: Diagnosis, full: bool = True) -> str:
    """A diagnosis in words; ``full=False`` leaves out where a crash was raised."""
    p = d.params
    if d.id in MISTAKES:
        words = {k: fmt(v) if isinstance(v, list) else v for k, v in p.items()}
        words["raised"] = Msg(raised(p["raised"])) if "raised" in p else ""
        hint = t(MISTAKES[d.id].hint, **words)
        if d.kind == "factor" and "ratio" in p:
            text = _factor_head(p) + ((". " if hint[:1].isupper() else ": ") + hint)
        elif d.kind == "unstable-forward" and p.get("forward"):
            text = _unstable_head(p) + ". " + hint
        else:
            text = hint
        if "shapes" in p:
            text += _table(p["shapes"])
    elif d.id in DIAGNOSES:
        text = DIAGNOSES[d.id](p)
    else:
        return ""
    if p.get("forward"):
        text += " " + _("The forward is wrong, so the backward was not checked.")
    if full and "raised" in p and d.id not in MISTAKES:
        text += "\n" + t("(raised: {raised})", raised=Msg(raised(p["raised"])))
    return text


# ---------------------------------------------------------------- what the checks observed
def _where(p: dict) -> str:
    return t("{row} backward on {case}, gradient of input {index} (shape {shape})", row=p["row"],
             case=p["case"], index=p["index"], shape=fmt(p["shape"]))


def _engine_values(p: dict) -> str:
    text = t("{where}: element {element}: got {got!r}, expected {want!r} (|difference| "
             "{diff:.3g}).", where=engine_where(p), element=fmt(p["element"]),
             got=p["got"], want=p["want"], diff=p["diff"])
    if p.get("ratio") is not None:
        text += " " + t("Every element is {ratio:g}× the right one.", ratio=p["ratio"])
    return (text + " " + _engine_hint(p)).rstrip()


def _engine_hint(p: dict) -> str:
    if p.get("mistake"):  # a catalog mistake's hint follows (the diagnosis)
        return ""
    if p.get("hint"):
        return UNBROADCAST_HINTS[p["hint"]](p)
    hint = engine_checks.HINTS.get(p["where"])
    return _(hint) if hint else ""


def _not_started(p: dict) -> str:
    if p.get("function") and p.get("lab"):
        text = t("{function}: not written yet ({notebook})", function=p["function"],
                 notebook=i18n.notebook(p["lab"]))
    else:  # raised by something else than the stub: its own words
        text = verbatim(p["message"])
    if p.get("needs"):
        text += "\n" + t("Your backward() calls {needs}, which a later lab asks for. Until then "
                         "call it only when g.shape != parent.shape.", needs=p["needs"])
    return text


def _grad_stopped(p: dict) -> str:
    if p.get("a_got"):
        middle = _(" although the intermediate a = x² got one: a's _backward ran before its "
                   "gradient arrived, or never ran. ")
    else:
        middle = _(" and so is the intermediate a = x²'s: the gradient stopped at the output. ")
    return (_("backward of s = Σ x², x of shape (3, 5): s.grad holds the seed, but x.grad is None")
            + middle + _("Walk the topological order REVERSED (children before parents: a "
                         "node's .grad is complete only once every node that consumes it has "
                         "run) and hand each _backward's results to the nodes in node._prev."))


def _gradcheck_values(p: dict) -> str:
    kw = {k: p[k] for k in ("row", "case", "index", "numerical", "analytical", "diff", "atol",
                            "rtol", "tol", "count", "size", "eps")}
    kw.update(shape=fmt(p["shape"]), element=fmt(p["element"]), magnitude=abs(p["numerical"]))
    head = t("gradcheck of {row} on {case}, input {index} (shape {shape}): element {element}: "
             "numerical {numerical:.10g}, analytical {analytical:.10g}; |analytical - numerical| = "
             "{diff:.3g} > atol + rtol·|numerical| = {atol:g} + {rtol:g}·{magnitude:.3g} = "
             "{tol:.3g}.", **kw)
    if p["random"]:
        tail = t("{count} of {size} elements outside the tolerance (central differences, "
                 "eps={eps:g}, random upstream gradient).", **kw)
    else:
        tail = t("{count} of {size} elements outside the tolerance (central differences, "
                 "eps={eps:g}).", **kw)
    return head + "\n" + tail


def _graph(p: dict) -> str:
    return _(engine_checks.GRAPHS[p["graph"]])


def _names(names: list[str]) -> str:
    return ", ".join(names)


FACTS: dict[str, Callable[[dict], str]] = {
    "not-started": _not_started,
    "gradcheck-skipped": lambda p: t("central differences are not meaningful on {case}",
                                     case=p["case"]),
    "engine-passed": lambda p: t("{count} checks", count=p["count"]),
    "gradcheck-failed": lambda p: t(  # the scores of record: gradcheck's data judged outside
        "gradcheck of {row} on {case}, input {index}: the analytical gradient is not within "
        "atol + rtol·|numerical| of central differences, or not of torch's for the same upstream "
        "gradient.", row=p["row"], case=p["case"], index=p["index"]),
    "forward-shape-mismatch": lambda p: t(
        "{row} forward on {case}: output shape {got}, torch gives {want}.", row=p["row"],
        case=p["case"], got=fmt(p["got"]), want=fmt(p["want"])),
    "forward-values": lambda p: t(
        "{row} forward on {case}: element {element}: minitorch {got:.10g}, torch {want:.10g}, "
        "|difference| {diff:.3g} > {atol:g} + {rtol:g}·|torch|.", row=p["row"], case=p["case"],
        element=fmt(p["element"]), got=p["got"], want=p["want"], diff=p["diff"],
        atol=p["atol"], rtol=p["rtol"]),
    "grad-none": lambda p: t("{where}: .grad is None.", where=_where(p)),
    "grad-for-constant": lambda p: t(
        "{where}: the input is a constant (requires_grad=False), but its .grad is not None.",
        where=_where(p)),
    "grad-shape-mismatch": lambda p: t(
        "{where}: gradient shape {got}, expected {want}.", where=_where(p), got=fmt(p["got"]),
        want=fmt(p["want"])),
    "grad-values": lambda p: t(
        "{where}: element {element}: minitorch {got:.10g}, torch {want:.10g} (|difference| "
        "{diff:.3g}).", where=_where(p), element=fmt(p["element"]), got=p["got"],
        want=p["want"], diff=p["diff"]),
    "crashed": lambda p: t(
        "{row} {stage} on {case} raised {error} (input shapes {shapes}).", row=p["row"],
        stage=word(p["stage"]), case=p["case"], error=p["error"],
        shapes=", ".join(fmt(s) for s in p["shapes"])),
    "gradcheck-none": lambda p: t(
        "gradcheck of {row} on {case}, input {index} (shape {shape}): backward left its .grad as "
        "None, but the numerical gradient is not zero (max |numerical| = {biggest:.3g}). Does the "
        "op list this input in _prev and return a gradient for it?", row=p["row"],
        case=p["case"], index=p["index"], shape=fmt(p["shape"]), biggest=p["biggest"]),
    "gradcheck-shape": lambda p: t(
        "gradcheck of {row} on {case}, input {index}: the analytical gradient has shape {got} "
        "but the input has shape {shape}.", row=p["row"], case=p["case"], index=p["index"],
        got=fmt(p["got"]), shape=fmt(p["shape"])),
    "gradcheck-values": _gradcheck_values,
    # engine checks (lab 00 and unbroadcast)
    "engine-grad-none": lambda p: t(
        "{where}: .grad is None, expected an array of shape {want}.",
        where=engine_where(p), want=fmt(p["want_shape"])) + " " + (
        _engine_hint(p) or _("backward() never reached this node.")),
    "engine-grad-shape": lambda p: (t(
        "{where}: gradient shape {got}, expected {want}.", where=engine_where(p),
        got=fmt(p["got"]), want=fmt(p["want_shape"])) + " " + _engine_hint(p)).rstrip(),
    "engine-grad-values": _engine_values,
    "engine-grad-stopped": _grad_stopped,
    "engine-seed-lost": lambda p: (_(
        "after backward(), the output's own .grad is None, and so is every other node's: the "
        "gradients never started.") if p.get("every") else _(
        "after backward(), the output's own .grad is None.")) + " " + _(
        "backward() starts from the output's .grad: it must hold the seed when the walk over the "
        "nodes begins, and keep it. The output has parents too, so a reset of the nodes that "
        "have parents erases the seed if it runs after the seed was placed."),
    "engine-retain-ignored": lambda p: t(
        "out.backward(retain_graph=True) then out.backward() again: the second call raised "
        "BackwardError ({message}…). retain_graph=True was ignored: a node may be freed only when "
        "retain_graph is False.",
        message=p["message"][:60]),
    "engine-constant-got-grad": lambda p: t(
        "backward of y = x·k: the constant k (requires_grad=False) got a .grad of shape "
        "{shape}; it must stay None. Skip parents that do not require grad.",
        shape=fmt(p["shape"])),
    "engine-grad-read-only": lambda p: t(
        "after backward of s = Σ {leaf}: {leaf}.grad += 1 (an optimizer's in-place update) "
        "raised ValueError: {leaf}.grad is a read-only view.", leaf=p["leaf"]),
    "engine-grad-aliased": lambda p: t(
        "backward of c = x + y (its _backward returns the same g for both parents): after "
        "x.grad += 1 (an optimizer's in-place update), {changed} changed too.",
        changed=_names([_(c) if c in engine_checks.NAMED.values() else c
                        for c in p["changed"]])),
    "engine-graph-kept": lambda p: t(
        "after s.backward() without retain_graph, node(s) {kept} still hold their _prev / "
        "_backward. Free the graph like PyTorch: once a node's _backward has run (and unless "
        "retain_graph), the node lets go of its parents and of its closure, so the arrays the "
        "closure saved can be released.", kept=_names(p["kept"])),
    "engine-freed-silent": lambda p: _(
        "s = Σ x², s.backward() then s.backward() again, without retain_graph: the second call "
        "returned without an error. The first backward() freed the graph, so a second one has "
        "nothing to run through: like PyTorch, it must raise BackwardError."),
    "engine-freed-wrong-error": lambda p: t(
        "s = Σ x², s.backward() then s.backward() again, without retain_graph: the second call "
        "raised {raised}. Raise BackwardError there, not {error}: it is the course's error for "
        "a freed graph (minitorch.errors, already imported by tensor.py), the one theory 01 and "
        "your own test expect and a caller catches.",
        error=p["error"], raised=Msg(raised(p))),
    "topo-recursion": lambda p: t(
        "_topological_order on {graph}: RecursionError. A recursive depth-first search overflows "
        "Python's call stack (about 1000 frames); use a while loop over an explicit stack of "
        "(node, parents_done) pairs.", graph=_graph(p)),
    "topo-not-list": lambda p: t(
        "_topological_order on {graph}: returned {type}, expected a list of Tensors",
        graph=_graph(p), type=p["type"]),
    "topo-twice": lambda p: t(
        "_topological_order on {graph}: {twice} appear(s) more than once (order: {order}). Mark "
        "a node visited the first time you reach it and skip it afterwards; a node reached along "
        "two paths must be listed once.", graph=_graph(p), twice=_names(p["twice"]),
        order=p["order"]),
    "topo-missing": lambda p: t(
        "_topological_order on {graph}: {missing} missing (order: {order}). Follow every parent "
        "in node._prev that requires grad, all the way to the leaves.", graph=_graph(p),
        missing=_names(p["missing"]), order=p["order"]),
    "topo-unexpected": lambda p: t(
        "_topological_order on {graph}: the order contains a node that needs no gradient "
        "(order: {order}). Skip parents with requires_grad=False (constants).", graph=_graph(p),
        order=p["order"]),
    "topo-parent-after": lambda p: t(
        "_topological_order on {graph}: {parent} comes after its child {child} (order: "
        "{order}). Append a node only after all its parents are in the list (post-order), and "
        "return parents before children.", graph=_graph(p), parent=p["parent"],
        child=p["child"], order=p["order"]),
    "topo-last": lambda p: t(
        "_topological_order on {graph}: the last node must be the one backward() starts from "
        "({root}); order: {order}", graph=_graph(p), root=p["root"], order=p["order"]),
    "topo-deep-count": lambda p: t(
        "_topological_order on a chain of 100,000 ops: {count} nodes, expected 100001 with the "
        "leaf first and the output last", count=p["count"]),
    "unbroadcast-modified": lambda p: t(
        "{where} modified the grad it was given; return a new array (the caller may still need "
        "it).", where=engine_where({**p, "where": "unbroadcast"})),
    "unbroadcast-shape": lambda p: (t(
        "{where}: returned shape {got}, expected {want}.", where=engine_where({**p, "where": "unbroadcast"}),
        got=fmt(p["got"]), want=fmt(p["want"])) + " " + _engine_hint(p)).rstrip(),
}

def engine_case(name: str) -> str:
    """An engine case's label (an unbroadcast case names its call: no words to translate)."""
    return _(engine_checks.LABELS[name]) if name in engine_checks.LABELS else name.replace("_", " ")


def engine_where(p: dict) -> str:
    """What an engine case's comparison ``p["where"]`` reads (``engine_checks.READS``)."""
    return t(engine_checks.READS[p["where"]],
             **{k: fmt(p[k]) for k in ("grad_shape", "shape") if k in p})


UNBROADCAST_HINTS: dict[str, Callable[[dict], str]] = {
    "unchanged": lambda p: t(
        "You returned grad unchanged: sum away the leading axes grad has in excess ({extra} "
        "here) and the axes where the target has 1.", extra=p["extra"]),
    "size1-dropped": lambda p: t(
        "Right sums, but the size-1 axes {ones} of the target were dropped: sum them with "
        "keepdims=True.", ones=p["ones"]),
    "leading-kept": lambda p: _(
        "The leading axes must disappear (sum them WITHOUT keepdims); only the target's own "
        "size-1 axes keep keepdims=True."),
    "mean-not-sum": lambda p: t("Every element is 1/{n} of the right one: use sum, not mean.",
                                n=p["n"]),
    "sum-broadcast-axes": lambda p: _(
        "Sum over the broadcast axes; each element of the target collects every copy of it."),
    "aligned": lambda p: t(
        "Aligned to the right, (grad {grad_shape} vs target {shape}): sum the first {extra} axes "
        "away, then the axes where the target has 1, keepdims.",
        grad_shape=fmt(p["grad_shape"]), shape=fmt(p["shape"]), extra=p["extra"]),
}


# Where to re-read, for a fact the theory explains: the full report and the table's one line
# both end with it (``fact_text``, ``brief``), so the pointer is never cut off.
REREAD: dict[str, str] = {
    "engine-freed-silent": N_("theory/01, 'The graph is freed after backward'; lab 00, section 4"),
    "engine-freed-wrong-error": N_(
        "theory/01, 'The graph is freed after backward'; lab 00, section 4"),
}


def reread(f: Fact | None) -> str:
    """'Re-read: <where>' for a fact with a pointer, else ''."""
    return t("Re-read: {where}", where=_(REREAD[f.id])) if f and f.id in REREAD else ""


def fact_text(f: Fact) -> str:
    """What a check observed, in words (ending with where to re-read, if the fact says)."""
    if f.id == "property-failed":
        p = f.params
        return fact_text(Fact(**p["inner"])) if p.get("inner") else p.get("raised", "")
    return " ".join(x for x in (FACTS[f.id](f.params), reread(f)) if x)


# ---------------------------------------------------------------- whole outcomes
STATUS: dict[str, str] = {
    "pass": N_("pass"),
    "fail": N_("fail"),
    "not started": N_("not started"),
    "n/a": N_("n/a"),
}


def status(s: str) -> str:
    """pass / fail / not started / n/a in the learner's language."""
    return _(STATUS[s]) if s in STATUS else s


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
            text += "\n" + t("Likely mistake: {said}", said=Msg(said))
    if o.fact.id == "property-failed":
        text += "\n" + _("Smallest failing example found by Hypothesis (shrunk):") + "\n" + (
            verbatim(o.fact.params["example"]))  # Hypothesis' own words
    return text


def header(o: Outcome) -> str:
    return (f"[{status(o.status)}] {o.row} · {word(o.suite)}"
            + (f" · {o.case.strip()}" if o.case else ""))


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
        return "✓ " + t("{row}: all checks pass ({count})", row=report.row, count=count)
    ran = sum(o.status == PASS for outs in report.suites.values() for o in outs)
    suites = [s for s, outs in report.suites.items()  # not a suite that does not apply (n/a)
              if any(o.status == PASS for o in outs)]
    return "✓ " + t("{row}: all checks pass ({count}: {suites})", row=report.row, count=ran,
                    suites=", ".join(word(s) for s in suites))


# a sentence ends before a capital (Spanish ones too), an opening bracket or ¿
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-ZÁÉÍÓÚÑ¿(])")


def brief(o: Outcome, sentences: int = 2) -> str:
    """The diagnosis' first sentences (the table's one line), else the message's first line;
    for an engine case with wrong values, where it is and the hint (not the numbers)."""
    p = o.fact.params if o.fact else {}
    if o.fact and o.fact.id in ("engine-grad-values", "engine-grad-none", "engine-grad-shape"):
        said = diagnosis_text(o.diagnosis).strip() if o.diagnosis else ""
        ratio = (t("every element is {ratio:g}× the right one", ratio=p["ratio"])
                 if p.get("ratio") is not None else _("wrong"))
        return f"{engine_where(p)}: {ratio}. {said or _engine_hint(p)}".strip()
    text = diagnosis_text(o.diagnosis, full=False) if o.diagnosis else ""
    if not text or (o.diagnosis and o.diagnosis.id.startswith("engine-")):
        text = message(o)
    first = text.strip().split("\n")[0]
    parts = _SENTENCE_END.split(first)
    pointer = reread(o.fact)  # where to re-read is never cut off
    parts = [x for x in parts if not pointer or pointer not in x]
    return " ".join([*parts[:sentences], pointer]).strip()


def label(kind: str) -> str:
    """A kind's words in the table and the summaries."""
    return _(KIND_LABELS[kind]) if kind in KIND_LABELS else (kind or _("failed"))
