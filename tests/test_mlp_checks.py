"""The graded properties of the learner's MLP file (``minitorch_course.mlp_checks``): they pass on
the reference answer (``minitorch_course.mlp``) and fail, each with its own message, on a wrong
forward, a loop that never zeroes the gradients and a loop that stops training early.
"""

from __future__ import annotations

import types

import numpy as np
import pytest

import minitorch as mt
from minitorch_course import mlp
from minitorch_course import mlp_checks as mc

pytest.importorskip("torch")
GRADER_SEED = 2027  # the grader's own seed: not the course's, not the notebook's


def submission(forward=mlp.forward, zero_grad=True, stop_after=None, stop_below=None, **hyper):
    """A learner's file: the reference with one planted mistake."""

    def train(params0, X, y, lr, steps, batches=None):
        params = {k: mt.Tensor(np.array(v), requires_grad=True) for k, v in params0.items()}
        losses = []
        for step in range(steps if stop_after is None else min(steps, stop_after)):
            rows = slice(None) if batches is None else batches[step]
            loss = mt.cross_entropy(forward(params, mt.Tensor(X[rows])), y[rows])
            losses.append(loss.item())
            if stop_below is not None and loss.item() < stop_below:
                break
            if zero_grad:
                for p in params.values():
                    p.zero_grad()
            loss.backward()
            for p in params.values():
                p.data -= lr * p.grad
        return {k: p.data.copy() for k, p in params.items()}, losses

    module = types.ModuleType("learner_mlp")
    module.HIDDEN, module.LR, module.STEPS = mlp.HIDDEN, mlp.LR, mlp.STEPS
    module.init_params, module.forward, module.train = mlp.init_params, forward, train
    vars(module).update(hyper)
    return module


def relu_forward(params, X):
    return (X @ params["W1"] + params["b1"]).relu() @ params["W2"] + params["b2"]


@pytest.fixture(scope="module")
def reference_curve():
    return mc.check_loss_curve(mlp)


def test_reference_passes_both(reference_curve):
    assert reference_curve.passed, reference_curve.message()
    assert reference_curve.diff <= mc.CURVE_TOL
    acc = mc.check_accuracy(mlp, GRADER_SEED)
    assert acc.passed and acc.accuracy > mc.THRESHOLD and acc.n_val >= mc.MIN_VAL, acc.message()
    assert acc.cpu < mc.MAX_CPU and acc.asked <= mc.MAX_STEPS


def test_a_copy_of_the_reference_written_as_a_learner_would_passes():
    """The planting harness itself is right: with no mistake it passes."""
    assert mc.check_loss_curve(submission()).passed


def test_wrong_forward_fails_at_step_0():
    f = mc.check_loss_curve(submission(forward=relu_forward))
    assert (f.kind, f.step) == ("forward", 0) and f.diff > mc.CURVE_TOL
    assert "step 0" in f.message() and "forward" in f.message()


def test_never_zeroing_the_gradients_is_named():
    """Step 1's update is the first to use a stale gradient, so step 2's loss is the first off."""
    f = mc.check_loss_curve(submission(zero_grad=False))
    assert (f.kind, f.step) == ("no_zero_grad", 2), f
    assert "zero_grad()" in f.message() and "step 2" in f.message()


def test_stopping_early_fails_both_properties_with_its_own_message():
    curve = mc.check_loss_curve(submission(stop_after=8))
    assert (curve.kind, curve.n_losses, curve.asked) == ("steps", 8, mc.CURVE_STEPS)
    assert "returned 8 losses for 20 steps" in curve.message()
    # a loop that stops once the loss is low enough keeps the first 20 steps right...
    lazy = submission(stop_below=0.3)
    assert mc.check_loss_curve(lazy).passed
    # ...and is caught by the accuracy check, which counts the steps it ran
    f = mc.check_accuracy(lazy, GRADER_SEED)
    assert f.kind == "steps" and f.n_losses < f.asked == mlp.STEPS, f
    assert "stopped early" in f.message()


def test_the_three_mistakes_read_differently():
    messages = {mc.check_loss_curve(submission(forward=relu_forward)).message(),
                mc.check_loss_curve(submission(zero_grad=False)).message(),
                mc.check_loss_curve(submission(stop_after=8)).message()}
    assert len(messages) == 3


def test_an_update_mistake_after_a_right_forward():
    """Half the learning rate: step 0 matches, step 1 differs, and it is not the zero_grad case."""
    def train(params0, X, y, lr, steps, batches=None):
        return mlp.train(params0, X, y, lr / 2, steps, batches)

    f = mc.check_loss_curve(submission(train=train))
    assert (f.kind, f.step) == ("update", 1), f
    assert "match up to step 0" in f.message()


def test_accuracy_limits():
    assert mc.check_accuracy(submission(STEPS=mc.MAX_STEPS + 1), GRADER_SEED).kind == \
        "too_many_steps"
    low = mc.check_accuracy(submission(STEPS=1), GRADER_SEED)
    assert low.kind == "low_accuracy" and low.accuracy <= mc.THRESHOLD
    assert "more than 90%" in low.message()
    with pytest.raises(ValueError, match="at least 300"):
        mc.check_accuracy(mlp, GRADER_SEED, n_val=100)


def test_interface_and_errors_are_findings_not_crashes():
    module = submission()
    del module.train
    f = mc.check_loss_curve(module)
    assert f.kind == "interface" and "train" in f.message()

    def unfinished(params0, X, y, lr, steps, batches=None):
        raise NotImplementedError("lab 05: train is not written yet")

    f = mc.check_accuracy(submission(train=unfinished), GRADER_SEED)
    assert f.kind == "error" and "not written yet" in f.message()


def test_compare_curve_without_torch():
    expected = [1.0, 0.9, 0.8]
    assert mc.compare_curve([1.0, 0.9, 0.8], expected, asked=3).passed
    f = mc.compare_curve([1.0, 0.9, float("nan")], expected, asked=3)
    assert (f.kind, f.step) == ("update", 2)


def test_batch_order_covers_each_epoch_once():
    batches = mc.batch_order(250, 50, 12, seed=0)
    assert len(batches) == 12 and all(b.shape == (50,) for b in batches)
    assert sorted(np.concatenate(batches[:5])) == list(range(250))
    assert sorted(np.concatenate(batches[5:10])) == list(range(250))
    with pytest.raises(ValueError, match="250 rows"):
        mc.batch_order(250, 60, 3, seed=0)


@pytest.mark.parametrize("lang", ["es", "en"])
def test_every_finding_has_a_message_in_both_languages(monkeypatch, lang):
    monkeypatch.setenv("MINITORCH_LANG", lang)
    findings = [
        mc.Finding("loss_curve", "ok", diff=1e-16, asked=20),
        mc.Finding("loss_curve", "steps", n_losses=8, asked=20),
        mc.Finding("loss_curve", "forward", step=0, got=1.6, want=1.5, diff=0.1),
        mc.Finding("loss_curve", "no_zero_grad", step=1, got=1.6, want=1.5, diff=0.1),
        mc.Finding("loss_curve", "update", step=3, got=1.6, want=1.5, diff=0.1),
        mc.Finding("accuracy", "ok", accuracy=0.95, n_val=300, asked=500, cpu=0.4),
        mc.Finding("accuracy", "low_accuracy", accuracy=0.6, n_val=300, asked=1),
        mc.Finding("accuracy", "steps", n_losses=10, asked=500),
        mc.Finding("accuracy", "too_many_steps", asked=5000),
        mc.Finding("accuracy", "too_slow", cpu=12.0),
        mc.Finding("accuracy", "interface", detail="train"),
        mc.Finding("accuracy", "error", detail="train: NotImplementedError: x"),
    ]
    texts = [f.message() for f in findings]
    assert len(set(texts)) == len(texts)
    if lang == "es":
        assert "Curva de pérdida" in texts[0] and "Exactitud" in texts[5]
