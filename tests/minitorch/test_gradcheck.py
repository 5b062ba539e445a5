"""minitorch.gradcheck: passes right backward rules, explains wrong ones, and gives a U-curve."""

from __future__ import annotations

import numpy as np
import pytest

import minitorch as mt


def wrong_exp(x):
    """exp whose backward uses the input instead of the output (a classic mistake)."""
    out = x.exp()
    a = x.data
    out._backward = lambda g: (g * a,)
    return out


def test_passes_a_right_rule():
    rng = np.random.default_rng(0)
    result = mt.gradcheck(lambda a, b: (a * b).tanh(), [rng.normal(size=(3, 5)),
                                                         rng.normal(size=(5,))])
    assert result.passed and result.max_abs_diff < 1e-8


def test_failure_message_names_everything():
    x = np.array([[0.5, -1.0, 2.0]])
    with pytest.raises(mt.GradcheckError) as err:  # scalar output: the upstream gradient is 1
        mt.gradcheck(lambda t: wrong_exp(t).sum(), [x], name="exp")
    message = str(err.value)
    # numerical d/dx e^x = e^x; analytical (wrong) = x; element (0, 2) is the worst one
    expected_numerical, expected_analytical = np.exp(2.0), 2.0
    assert "'exp' with respect to input 0 (of 1, shape (1, 3))" in message
    assert "element (0, 2)" in message
    assert f"numerical {expected_numerical:.6f}"[:18] in message
    assert f"analytical {expected_analytical:.10g}" in message
    assert "worst |analytical - numerical|" in message and "tolerance" in message
    assert "3 of 3 elements" in message
    with pytest.raises(mt.GradcheckError, match="random upstream gradient"):
        mt.gradcheck(wrong_exp, [x])


def test_result_object_without_raising():
    result = mt.gradcheck(wrong_exp, [np.ones(2)], raise_exception=False)
    assert not result.passed and result.failing_input == 0 and result.worst_index is not None


def test_random_upstream_catches_a_wrong_sum_that_ones_would_hide():
    """A backward that returns the mean of g everywhere is right for g = ones, wrong otherwise."""

    def smeared_neg(x):
        out = -x
        out._backward = lambda g: (-np.full_like(g, g.mean()),)
        return out

    x = np.arange(4.0)
    assert mt.gradcheck(lambda t: smeared_neg(t).sum(), [x]).passed  # ones upstream: hidden
    with pytest.raises(mt.GradcheckError):
        mt.gradcheck(smeared_neg, [x])  # random upstream: caught


def test_missing_gradient_is_reported():
    def forgets_second(a, b):
        out = a * b
        bb = b.data
        out._backward = lambda g: (g * bb, None)
        return out

    with pytest.raises(mt.GradcheckError, match="input 1.*None"):
        mt.gradcheck(forgets_second, [np.ones(3), np.full(3, 2.0)])


def test_eps_sweep_is_u_shaped_with_its_minimum_near_the_cube_root_of_eps():
    sweep = mt.eps_sweep(lambda x: x.tanh(), [np.array([0.3, -0.7, 1.1])])
    assert sweep.eps[0] == pytest.approx(1e-1) and sweep.eps[-1] == pytest.approx(1e-12)
    best = sweep.best_eps
    assert 1e-8 <= best <= 1e-4, best  # cube root of 2.2e-16 is 6e-6
    assert sweep.error[0] > 100 * sweep.error.min()  # truncation side rises
    assert sweep.error[-1] > 100 * sweep.error.min()  # rounding side rises


def test_the_rule_is_public_and_is_the_one_gradcheck_applies():
    """The scores of record rebuild gradcheck's upstream and tolerance from these (one owner)."""
    import importlib

    gc = importlib.import_module("minitorch.gradcheck")  # the module (minitorch.gradcheck is also the function)

    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 3))
    result = mt.gradcheck(lambda t: t.tanh(), [x], seed=5)
    np.testing.assert_array_equal(result.upstream, gc.default_upstream((2, 3), 5))
    np.testing.assert_array_equal(gc.default_upstream((1, 1), 5), np.ones((1, 1)))
    # an element exactly at the tolerance passes, one just beyond fails
    n = np.array([2.0])
    edge = gc.tolerance(n)
    assert edge[0] == gc.DEFAULT_ATOL + gc.DEFAULT_RTOL * 2.0
    ok = mt.gradcheck(lambda t: t * 1.0, [n], raise_exception=False)
    assert ok.passed


def test_nothing_restates_gradchecks_defaults():
    """The record and the course checks import minitorch.gradcheck's numbers, never copies."""
    import ast

    from minitorch_authoring.repository import ROOT

    for path in (ROOT / "src").rglob("*.py"):
        if path.name == "gradcheck.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Tuple) and [getattr(e, "value", None) for e in node.elts] \
                    == [1e-6, 1e-5, 1e-3]:
                raise AssertionError(f"{path}:{node.lineno} restates gradcheck's defaults")
