"""The classifier on synthetic gradients: each class is recognised, and no class is claimed
when its evidence is absent (no "reverse broadcasting" when the shapes match, no factor when
the ratio varies...). Pure NumPy: no implementation is run here."""

from __future__ import annotations

import traceback

import numpy as np
import pytest

from minitorch_course import diagnosis as dg
from minitorch_course import messages
from minitorch_course.catalog import BY_NAME, Case

RNG = np.random.default_rng(0)


class Said:
    """A diagnosis and its words, as the learner reads them."""

    def __init__(self, d):
        self.kind, self.text, self.data = d.kind, messages.diagnosis_text(d), d

    def __repr__(self):
        return f"{self.kind}: {self.text}"


def _explain(op_name, case, got, want, index=0, inputs=None, upstream=None):
    op = BY_NAME[op_name]
    inputs = inputs if inputs is not None else [RNG.standard_normal(want.shape)]
    return Said(dg.explain_gradient(op, case, index, inputs[index], got, want, inputs=inputs,
                                    upstream=upstream))


# ---------------------------------------------------------------- shapes
@pytest.mark.parametrize(("full", "shape", "axes"), [
    ((4, 3), (3,), "(0,)"),
    ((4, 3), (4, 1), "(1,)"),
    ((2, 3), (), "(0, 1)"),
    ((2, 3, 4), (1,), "(0, 1, 2)"),
    ((20, 3, 5), (20, 1, 5), "(1,)"),
    ((2, 3, 4), (3, 1), "(0, 2)"),
])
def test_reverse_broadcasting_missing_names_the_axes(full, shape, axes):
    want = RNG.standard_normal(shape)
    got = np.broadcast_to(want, full) / np.prod(full) * max(1, np.prod(shape))
    d = _explain("add", Case((shape, full)), got, want)
    assert d.kind == "reverse-broadcast"
    assert d.text.startswith(f"Reverse broadcasting missing: sum over axes {axes}")
    assert messages.fmt(full) in d.text and messages.fmt(shape) in d.text


def test_reverse_broadcasting_says_when_the_summed_values_are_right():
    upstream = RNG.standard_normal((4, 3))
    want = upstream.sum(axis=0)
    d = _explain("add", Case(((3,), (4, 3))), upstream, want)
    assert d.kind == "reverse-broadcast" and "exactly right" in d.text


def test_keepdims_lost_is_not_reverse_broadcasting():
    want = RNG.standard_normal((4, 1))
    d = _explain("add", Case(((4, 1), (1, 3))), want.reshape(4), want)
    assert d.kind == "keepdims"


def test_permuted_shape_is_a_transpose():
    want = RNG.standard_normal((20, 3, 5))
    d = _explain("transpose", Case(((20, 3, 5),), {"axes": (1, 2, 0)}),
                 want.transpose(1, 2, 0), want)
    assert d.kind == "transposed" and "argsort" in d.text


def test_same_size_other_shape_is_a_reshape():
    want = RNG.standard_normal((3, 4))
    d = _explain("reshape", Case(((3, 4),), {"shape": (12,)}), want.reshape(2, 6), want)
    assert d.kind == "reshaped"


def test_unrelated_shape_prints_the_dimension_table():
    want = RNG.standard_normal((3, 4))
    d = _explain("add", Case(((3, 4), (3, 4))), RNG.standard_normal((5, 7)), want)
    assert d.kind == "shape"
    assert "axis" in d.text and "result" in d.text  # the right-aligned table


# ---------------------------------------------------------------- values, no shape problem
def test_matching_shapes_never_blame_reverse_broadcasting():
    want = RNG.standard_normal((4, 3))
    for got in (want * 2, -want, np.zeros_like(want), want + RNG.standard_normal((4, 3))):
        d = _explain("mul", Case(((4, 3), (4, 3))), got, want)
        assert d.kind != "reverse-broadcast", d


def test_missing_gradient():
    d = _explain("mul", Case(((3,), (3,))), None, RNG.standard_normal(3))
    assert d.kind == "missing-grad" and "_prev" in d.text


def test_sign_flipped():
    want = RNG.standard_normal((3, 5))
    assert _explain("div", Case(((3, 5), (3, 5))), -want, want).kind == "sign"


def test_all_zero():
    want = RNG.standard_normal((3, 5))
    assert _explain("mul", Case(((3, 5), (3, 5))), np.zeros((3, 5)), want).kind == "zero"


def test_zero_only_where_it_should_not_be():
    want = RNG.standard_normal((3, 5))
    got = want.copy()
    got[1, 2] = 0.0
    d = _explain("mul", Case(((3, 5), (3, 5))), got, want)
    assert d.kind == "zero" and "(1, 2)" in d.text


def test_square_transpose_of_values():
    want = RNG.standard_normal((4, 4))
    assert _explain("matmul", Case(((4, 4), (4, 4))), want.T.copy(), want).kind == "transposed"


@pytest.mark.parametrize(("ratio", "words"), [
    (2.0, "stray factor 2"), (0.5, "stray ½"), (1 / 7, "1/7"), (7.0, "divides by 7"),
])
def test_constant_factor(ratio, words):
    want = RNG.standard_normal((3, 5))
    d = _explain("mul", Case(((3, 5), (3, 5))), want * ratio, want)
    assert d.kind == "factor" and words in d.text
    if ratio in (2.0, 0.5):  # the evidence cannot tell the formula from the engine: both named
        assert "Two causes fit" in d.text and "engine rows pass" in d.text


def test_cross_entropy_factor_names_the_batch_size():
    z = RNG.standard_normal((8, 5))
    want = RNG.standard_normal((8, 5))
    d = _explain("cross_entropy", Case(((8, 5),), {"targets": [0] * 8}), want * 8, want,
                 inputs=[z])
    assert d.kind == "factor" and "batch size N = 8" in d.text


def test_mean_factor_names_the_count():
    x = RNG.standard_normal((20, 3, 5))
    want = np.full((20, 3, 5), 1 / 3)
    d = _explain("mean", Case(((20, 3, 5),), {"axis": 1}), want / 100, want, inputs=[x])
    assert d.kind == "factor" and "300" in d.text and "3" in d.text


def test_varying_ratio_is_not_a_factor():
    want = RNG.uniform(1, 2, (3, 5))
    got = want * RNG.uniform(1.5, 3, (3, 5))
    assert _explain("mul", Case(((3, 5), (3, 5))), got, want).kind == "values"


def test_non_finite_backward():
    want = RNG.standard_normal((3,))
    got = want.copy()
    got[0] = np.nan
    assert _explain("exp", Case(((3,),)), got, want).kind == "unstable-backward"


# ---------------------------------------------------------------- located mistakes
def test_max_wrong_only_on_ties():
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]])
    want = np.array([[0.0, 0.5, 0.5], [0.5, 0.5, 0.0]])
    got = np.array([[0.0, 0.5, 0.9], [0.5, 0.1, 0.0]])  # not the "whole gradient" pattern
    d = _explain("max", Case(((2, 3),), {"axis": 1}), got, want, inputs=[x])
    assert d.kind == "ties"


def test_max_ties_not_split_is_recognised_as_such():
    x = np.array([[4.0, 4.0], [4.0, 1.0]])
    up = np.array(2.0)
    want = np.array([[2 / 3, 2 / 3], [2 / 3, 0.0]])
    got = np.array([[2.0, 2.0], [2.0, 0.0]])  # also a constant factor 3: ties must win
    d = _explain("max", Case(((2, 2),)), got, want, inputs=[x], upstream=up)
    assert d.kind == "ties"


def test_getitem_wrong_only_at_repeated_indices():
    x = RNG.standard_normal((5, 2))
    index = [0, 0, 3]
    g = RNG.standard_normal((3, 2))
    want = np.zeros((5, 2))
    np.add.at(want, index, g)
    got = np.zeros((5, 2))
    got[index] = g
    case = Case(((5, 2),), {"index": index})
    assert _explain("getitem", case, got, want, inputs=[x], upstream=g).kind == "repeated-indices"
    assert _explain("getitem", case, got, want, inputs=[x]).kind == "repeated-indices"


# ---------------------------------------------------------------- known wrong answers
def test_softmax_without_the_sum_term():
    x, g = RNG.standard_normal((3, 5)), RNG.standard_normal((3, 5))
    s = np.exp(x) / np.exp(x).sum(axis=-1, keepdims=True)
    want = s * (g - (g * s).sum(axis=-1, keepdims=True))
    d = _explain("softmax", Case(((3, 5),)), s * g, want, inputs=[x], upstream=g)
    assert d.kind == "softmax-sum-term" and "⟨g, s⟩" in d.text and "keepdims" not in d.text


def test_exp_backward_using_the_input():
    x, g = RNG.standard_normal((5,)), RNG.standard_normal((5,))
    d = _explain("exp", Case(((5,),)), g * x, g * np.exp(x), inputs=[x], upstream=g)
    assert d.kind == "exp-uses-input"


def test_relu_multiplied_by_its_output():
    x, g = RNG.standard_normal((5,)), RNG.standard_normal((5,))
    d = _explain("relu", Case(((5,),)), g * np.maximum(x, 0), g * (x > 0), inputs=[x],
                 upstream=g)
    assert d.kind == "local-derivative" and "1[a > 0]" in d.text


def test_a_known_mistake_needs_the_upstream_gradient():
    """Without the upstream gradient no op-specific story is told, only the generic one."""
    x, g = RNG.standard_normal((5,)), RNG.standard_normal((5,))
    d = _explain("exp", Case(((5,),)), g * x, g * np.exp(x), inputs=[x])
    assert d.kind == "values"


# ---------------------------------------------------------------- forward and crashes
def test_forward_overflow_is_called_unstable():
    op = BY_NAME["cross_entropy"]
    d = Said(dg.explain_forward_values(op, np.array(np.inf), np.array(3.0), op.cases[2],
                                       [np.array([[1e4, -1e4, 0.0]])]))
    assert d.kind == "unstable-forward" and "log-sum-exp" in d.text and "10000" in d.text


def test_forward_factor_is_told_apart_from_the_backward():
    op = BY_NAME["mean"]
    x = RNG.standard_normal((20, 3, 5))
    case = Case(((20, 3, 5),), {"axis": 1})
    want = x.mean(axis=1)
    d = Said(dg.explain_forward_values(op, want / 100, want, case, [x]))
    assert d.kind == "factor" and "backward was not checked" in d.text


def test_grad_shape_error_carries_its_fields():
    """The diagnosis reads the exception's fields, not its message: a GradShapeError with the
    fields and a message that names no shape at all is still explained."""
    from minitorch.errors import GradShapeError, grad_shape_message

    err = GradShapeError(grad_shape_message("add", 0, (4, 3), (3,)))
    assert (err.op, err.index, err.grad_shape, err.expected) == ("add", 0, (4, 3), (3,))
    for error in (err, GradShapeError("no shapes here", op="add", index=0, grad_shape=(4, 3),
                                      expected=(3,))):
        d = Said(dg.explain_crash(BY_NAME["add"], error, case=Case(((3,), (4, 3))),
                                  inputs=[np.zeros(3), np.zeros((4, 3))]))
        assert d.kind == "reverse-broadcast" and "sum over axes (0,)" in d.text


def test_numpy_broadcast_error_gets_the_dimension_table():
    try:
        np.zeros((4, 3)) + np.zeros((2, 3))
    except ValueError as err:
        d = Said(dg.explain_crash(BY_NAME["add"], err, stage="backward"))
    assert d.kind == "shape-error"
    assert "axis -2: 4 vs 2 clash" in d.text and "result" in d.text


def test_reduction_broadcast_error_in_backward_is_keepdims():
    try:
        np.broadcast_to(np.zeros((20, 5)), (20, 3, 5))
    except ValueError as err:
        d = Said(dg.explain_crash(BY_NAME["sum"], err, stage="backward"))
    assert d.kind == "keepdims" and "size-1 axes" in d.text and "np." not in d.text


def test_recursion_error():
    d = Said(dg.explain_crash(BY_NAME["add"], RecursionError("maximum recursion depth exceeded")))
    assert d.kind == "recursion" and "explicit" in d.text


def test_numpy_shapes_reads_numpy_broadcasting_errors():
    try:
        np.zeros((4, 3)) + np.zeros((2, 3))
    except ValueError as err:
        assert dg.numpy_shapes(err) == [(4, 3), (2, 3)]
    assert dg.numpy_shapes(ValueError("no shapes (here)")) == []


def test_every_kind_has_a_label():
    from minitorch_course.catalog import KINDS, MISTAKES

    assert set(KINDS) == set(messages.KIND_LABELS)
    assert {m.kind for m in MISTAKES.values()} <= set(KINDS)


def test_a_crash_on_an_empty_axis_says_so_and_how_torch_behaves():
    """An op that assumes every axis has elements (max without an identity) crashes on a size-0
    case: the diagnosis names the empty axis and the way out, not a generic crash."""
    from minitorch_course.catalog import EMPTY

    try:
        np.zeros((3, 0)).max(axis=-1, keepdims=True)
    except ValueError as err:
        crash = err
    tb = traceback.extract_tb(crash.__traceback__)
    empty = dg.explain_crash(BY_NAME["softmax"], crash, tb, case=Case(((3, 0),), note=EMPTY),
                             stage="forward")
    assert (empty.kind, empty.id) == ("crash", "crash-empty-axis")
    text = messages.diagnosis_text(empty)
    assert "size-0 axis" in text and "identity element" in text
    assert "initial=" not in text and "np." not in text  # the rule, not the call to write
    other = dg.explain_crash(BY_NAME["softmax"], crash, tb, case=Case(((3, 5),)), stage="forward")
    assert other.id != "crash-empty-axis"


def test_an_all_zero_forward_is_a_wrong_forward_not_a_factor():
    # a ratio of 0 once reached the factor rule and divided by zero inside the diagnosis
    want = RNG.standard_normal((3, 5))
    x = RNG.standard_normal((3, 5))
    d = dg.explain_forward_values(BY_NAME["exp"], np.zeros((3, 5)), want, Case(((3, 5),)), [x])
    assert d.kind == "forward"


# ---------------------------------------------------------------- every id has words
def _literal_ids():
    """(what, id, where) for every Fact / Diagnosis built with literal ids in the shipped
    checks (and the engine checks' ``_fail(fact, kind, diagnosis)``)."""
    import ast
    from pathlib import Path

    import minitorch_course

    found = []
    for path in sorted(Path(minitorch_course.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            args = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str)
                    else None for a in node.args]
            where = f"{path.name}:{node.lineno}"
            if node.func.id == "Fact" and args and args[0]:
                found.append(("fact", args[0], where))
            elif node.func.id == "Diagnosis":
                if args and args[0]:
                    found.append(("kind", args[0], where))
                if len(args) > 1 and args[1]:
                    found.append(("diagnosis", args[1], where))
            elif node.func.id == "_fail":
                for what, value in zip(("fact", "kind", "diagnosis"), args):
                    if value:
                        found.append((what, value, where))
    return found


def test_every_fact_kind_and_diagnosis_id_has_words():
    """A Fact or Diagnosis whose id has no text would reach the learner as an empty line (or a
    KeyError): every literal id the checks build is worded in messages (or the catalog)."""
    from minitorch_course.catalog import KINDS, MISTAKES

    found = _literal_ids()
    assert len(found) > 50  # the scan sees the checks (not vacuous)
    words = {"fact": set(messages.FACTS) | {"property-failed"},  # fact_text words it itself
             "kind": set(KINDS) & set(messages.KIND_LABELS),
             "diagnosis": set(messages.DIAGNOSES) | set(MISTAKES)}
    unworded = [(what, id_, where) for what, id_, where in found if id_ not in words[what]]
    assert not unworded, unworded


@pytest.mark.parametrize(("write", "said"), [
    ("full[index] += g", True),  # as `=` for NumPy: one buffered write per position
    ("full[index] = 2 * g", False),  # another mistake: not the repeated-indices sentence
])
def test_getitems_diagnosis_is_true_for_what_was_written(write, said):
    """The repeated-indices diagnosis once said the backward «ASSIGNED» when the learner wrote
    ``+=``; it now describes what both do, and only for them (issue 28)."""
    from conftest import Terminal

    from minitorch_authoring.repository import REFERENCE
    from minitorch_course import check, runner

    source = REFERENCE.read_text(encoding="utf-8")
    line = "            np.add.at(full, index, g)"
    assert source.count(line) == 1
    module = runner.load_impl(source=source.replace(line, "            " + write),
                              name="getitem_" + str(abs(hash(write))))
    stream = Terminal()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MINITORCH_LANG", "en")
        check.main(["--op", "getitem", "--examples", "1"], stream=stream,
                   loaded=(module, "planted"))
    text = " ".join(stream.getvalue().split())
    assert ("kept only one of its gradients" in text) is said, text[-1500:]
    assert "ASSIGNED" not in text


# ---------------------------------------------------------------- softmax's sum term, keepdims
def _softmax_rows(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def test_softmax_sum_term_without_keepdims_is_named_on_a_square_input():
    """Lab 03's "second most common" slip: Σ g·s per row taken without keepdims. On a square
    input it broadcasts silently (element (i, j) gets row j's sum); it is named, and the other
    mistakes on the same input are not given its name."""
    x, g = RNG.standard_normal((3, 3)), RNG.standard_normal((3, 3))
    s = _softmax_rows(x)
    want = s * (g - (g * s).sum(axis=-1, keepdims=True))
    slipped = s * (g - (g * s).sum(axis=-1)[None, :])  # the row sums laid along the columns
    d = _explain("softmax", Case(((3, 3),)), slipped, want, inputs=[x], upstream=g)
    assert d.kind == "keepdims" and "sum term" in d.text, d
    assert "keepdims=True" not in d.text and "np." not in d.text  # the rule, not the line
    for other in (-want, s * g, s * (g - (g * s).sum()), want + RNG.standard_normal((3, 3))):
        d = _explain("softmax", Case(((3, 3),)), other, want, inputs=[x], upstream=g)
        assert d.kind != "keepdims" and "lost the axis of its sum term" not in d.text, d


def test_softmax_sum_term_without_keepdims_crashes_on_a_non_square_input_and_is_named():
    x, g = RNG.standard_normal((3, 5)), RNG.standard_normal((3, 5))
    s = _softmax_rows(x)
    try:
        s * (g - (g * s).sum(axis=-1))  # (3, 5) against (3,)
    except ValueError as err:
        d = Said(dg.explain_crash(BY_NAME["softmax"], err, stage="backward",
                                  case=Case(((3, 5),)), inputs=[x]))
    assert d.kind == "keepdims" and "sum term" in d.text, d
    try:  # another shape clash in the same backward: not this slip
        s * np.zeros((2, 5))
    except ValueError as err:
        d = Said(dg.explain_crash(BY_NAME["softmax"], err, stage="backward",
                                  case=Case(((3, 5),)), inputs=[x]))
    assert d.kind != "keepdims", d


def _planted(old: str, new: str, name: str):
    from minitorch_authoring.repository import REFERENCE
    from minitorch_course import runner

    source = REFERENCE.read_text(encoding="utf-8")
    assert source.count(old) == 1, f"the reference no longer holds {old!r}: update this test"
    return runner.load_impl(source=source.replace(old, new), name=name)


def test_one_value_per_row_against_the_last_axes_is_named(monkeypatch):
    """A per-row array, (8,), against (8, 5) fails because NumPy aligns from the RIGHT: the
    diagnosis says so and gives the shape that spreads, (8, 1), for any such pair (a reduction
    without keepdims, cross_entropy's 'none' upstream); a mismatch of another kind gets no such
    sentence."""
    from minitorch_course import runner

    monkeypatch.setenv("MINITORCH_LANG", "en")
    none_times_g = _planted("return (grad * g[:, None],)  # (N, C) * (N, 1)",
                            "return (grad * g,)", "ce_none_row_axis")
    report = runner.run_row("cross_entropy", none_times_g, ("forward", "backward"))
    failed = report.first_failure
    text = messages.message(failed)
    assert failed.diagnosis.kind == "shape-error", failed
    assert "aligns shapes from the right" in text and "(8, 1)" in text, text
    assert messages._left_aligned([(8, 5), (8,)]) == ((8,), (8, 5), (8, 1))
    assert messages._left_aligned([(20, 3, 5), (20,)]) == ((20,), (20, 3, 5), (20, 1, 1))
    for other in ([(3, 5), (4, 5)], [(3, 5), (5,)], [(5, 5), (5,)], [(1, 5), (1,)]):
        assert messages._left_aligned(other) is None, other


def test_a_seed_erased_before_the_walk_is_named(monkeypatch):
    """backward() that resets the nodes with parents AFTER placing the seed erases the output's
    own .grad: every .grad stays None. The diagnosis says the walk had no seed to start from,
    and why a reset can erase it, rather than 'backward() never reached this node'."""
    from minitorch_course import runner

    monkeypatch.setenv("MINITORCH_LANG", "en")
    reset = ("        for node in order:\n            if node._prev:  # intermediate nodes hold "
             "this pass's gradient only\n                node.grad = None\n")
    seed = "        _accumulate(self, seed, seed)\n"
    late = _planted(reset + seed, seed + reset, "seed_reset_late")
    for row in ("backward", "retain_graph"):
        outcome = runner.run_engine_row(row, late)
        assert outcome.fact.id == "engine-seed-lost", (row, outcome)
        assert "seed" in messages.message(outcome) and "reset" in messages.message(outcome)


def test_a_count_that_leaves_out_reduced_axes_names_them(monkeypatch):
    """A mean dividing by its first reduced axis only is k times too large, k the size of the
    other reduced axes: the factor diagnosis names those axes (when one set of them gives k);
    a factor that no set of reduced axes gives keeps the general words."""
    from minitorch_course import runner

    monkeypatch.setenv("MINITORCH_LANG", "en")
    first_axis = _planted(
        "count = math.prod(self.shape[a] for a in _axes(axis, self.ndim))",
        "count = self.shape[_axes(axis, self.ndim)[0]] if self.ndim else 1", "mean_first_axis")
    failed = runner.run_row("mean", first_axis, ("forward",)).first_failure
    assert failed.diagnosis.id == "factor-division-missing", failed
    assert failed.diagnosis.params["left_out"] == [1], failed.diagnosis.params
    assert "reduced axes (1,)" in messages.message(failed)
    mean = BY_NAME["mean"]
    d = dg.explain_forward_values(mean, np.array(7.0), np.array(1.0), Case(((3, 5),)),
                                  [np.ones((3, 5))])
    assert d.id == "factor-division-missing" and "left_out" not in d.params, d
    assert "a mean's number of elements" in messages.diagnosis_text(d)


# ---------------------------------------------------------------- a backward's return form
@pytest.mark.parametrize(("name", "parents", "right", "wrong"), [
    ("exp", 1, "return (g * out_data,)", "return g * out_data"),  # one parent: no 1-tuple
    ("mul", 2, "return g * b, g * a\n\n        return Tensor._make(a * b",
     "return g * b\n\n        return Tensor._make(a * b"),  # two parents, one gradient
])
def test_a_backward_that_returns_no_tuple_is_named_in_every_suite(name, parents, right, wrong):
    """o37: silu's backward returning the array instead of a 1-tuple was diagnosed as "no
    gradient reached the input", "wrong gradient shape (5,)" or "'numpy.float64' object is not
    iterable", depending on the suite and the shape: what the engine made of it. Every suite
    now names the cause, for any op."""
    from minitorch_authoring.repository import REFERENCE
    from minitorch_course import runner

    source = REFERENCE.read_text(encoding="utf-8")
    assert source.count(right) == 1
    module = runner.load_impl(source=source.replace(right, wrong), name=f"no_tuple_{name}")
    report = runner.run_row(name, module, ("backward", "gradcheck", "property"), 5)
    for suite, outcomes in report.suites.items():
        failing = [o for o in outcomes if o.status == "fail"]
        assert failing, suite
        assert {o.diagnosis.id for o in failing} == {"backward-not-tuple"}, suite
    said = Said(report.first_problem.diagnosis)
    assert said.kind == "backward-return" and "(grad,)" in said.text, said
    assert f"has {parents} parent(s)" in said.text, said


def test_the_backward_form_probe_claims_nothing_on_the_reference():
    """The probe runs only after a failure, and says nothing of a right backward: every op of
    the reference, on its first case."""
    from minitorch_course import op_checks, runner

    reference = runner.load("reference")[0]
    for op in BY_NAME.values():
        case = op.cases[0]
        assert op_checks.backward_form(op, case, op.inputs(case, 0), reference) is None, op.name


def test_a_passing_line_lists_only_the_suites_that_ran():
    """o37: silu's line said "(18: forward, backward, gradcheck, broadcast)" though no
    broadcasting pair applies to a unary op; mul's names broadcast, silu's does not."""
    from minitorch_course import runner

    reference = runner.load("reference")[0]
    for name, applies in (("silu", False), ("mul", True)):
        report = runner.run_row(name, reference, runner.GRADED_SUITES, 2)
        line = messages.passed(report)
        assert line.startswith("✓") and "gradcheck" in line, line
        assert (messages.word("broadcast") in line) is applies, line
