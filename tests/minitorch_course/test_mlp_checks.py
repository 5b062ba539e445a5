"""The graded properties of the learner's MLP file (``minitorch_course.mlp_checks``): they pass on
the reference answer (``solutions/mlp.py``) whatever the grader's seeds, and fail, each with its
own message, on the stub and on planted mistakes: a wrong forward, a bias added after tanh, a
bias that does not broadcast, a summed loss, a loop that never zeroes the gradients, one that
ignores the learning rate it is given, one that stops training early. The expected curves are
stored data: they must be PyTorch float64's, recomputed here.
"""

from __future__ import annotations

import types

import numpy as np
import pytest

import minitorch as mt
from minitorch_authoring import mlp_curve, stubgen
from minitorch_authoring.repository import ROOT
from minitorch_course import mlp_checks as mc

REFERENCE = mc.load(ROOT / "solutions" / "mlp.py")
GRADER_SEEDS = (2027, 2028, 2029)  # the grader's own seeds: not the course's, not the notebook's


def submission(forward=None, init_params=None, zero_grad=True, stop_after=None, stop_below=None,
               summed=False, own_lr=False, **hyper):
    """A learner's file: the reference with one planted mistake."""
    forward = forward or REFERENCE.forward

    def train(params0, X, y, lr, steps, batches=None):
        lr = REFERENCE.LR if own_lr else lr
        params = {k: mt.Tensor(np.array(v), requires_grad=True) for k, v in params0.items()}
        losses = []
        for step in range(steps if stop_after is None else min(steps, stop_after)):
            rows = slice(None) if batches is None else batches[step]
            loss = mt.cross_entropy(forward(params, mt.Tensor(X[rows])), y[rows])
            if summed:
                loss = loss * len(y[rows])
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
    module.HIDDEN, module.LR, module.STEPS = REFERENCE.HIDDEN, REFERENCE.LR, REFERENCE.STEPS
    module.init_params, module.forward = init_params or REFERENCE.init_params, forward
    module.train = train
    vars(module).update(hyper)
    return module


def relu_forward(params, X):
    return (X @ params["W1"] + params["b1"]).relu() @ params["W2"] + params["b2"]


def bias_after_tanh(params, X):
    return ((X @ params["W1"]).tanh() + params["b1"]) @ params["W2"] + params["b2"]


def per_row_biases(seed, hidden=REFERENCE.HIDDEN):
    """Biases of one row per training example, (250, hidden): they never broadcast to a batch
    of another size."""
    params = REFERENCE.init_params(seed, hidden)
    params["b1"] = np.zeros((mc.N_TRAIN, hidden))
    return params


@pytest.fixture(scope="module")
def reference_curve():
    return mc.check_loss_curve(REFERENCE)


def test_the_stored_curves_are_pytorch_float64s():
    pytest.importorskip("torch")
    assert mlp_curve.stale(mc.expected_curves(), mlp_curve.curves()) == []
    planted = {**mc.expected_curves(), "loss": [0.0] * mc.CURVE_STEPS}
    assert mlp_curve.stale(planted, mlp_curve.curves()) == ["loss differs from PyTorch's"]


def test_reference_passes_both(reference_curve):
    assert reference_curve.passed, reference_curve.message()
    assert reference_curve.diff <= mc.CURVE_TOL
    acc = mc.check_accuracy(REFERENCE, GRADER_SEEDS)
    assert acc.passed and acc.accuracy > mc.THRESHOLD and acc.n_val >= mc.MIN_VAL, acc.message()
    assert acc.cpu < mc.MAX_CPU and acc.asked <= mc.MAX_STEPS
    assert acc.seeds == GRADER_SEEDS and len(acc.per_seed) == 3


@pytest.mark.parametrize("first", [1, 4000, 97_531])
def test_the_reference_passes_whatever_the_graders_seeds(first):
    """The verdict must not hang on a lucky draw: three more pools of three seeds."""
    f = mc.check_accuracy(REFERENCE, (first, first + 1, first + 2))
    assert f.passed and f.accuracy > mc.THRESHOLD + 0.01, f.message()


def test_the_stub_fails_both_as_not_written(tmp_path):
    stub = tmp_path / "mlp.py"
    stub.write_text(stubgen.stub_text(stubgen.STUBS["mlp"]), encoding="utf-8")
    module = mc.load(stub)
    for f in (mc.check_loss_curve(module), mc.check_accuracy(module)):
        assert f.kind == "error" and "NotImplementedError" in f.detail, f
        assert "not written yet" in f.message()


def test_a_copy_of_the_reference_written_as_a_learner_would_passes():
    """The planting harness itself is right: with no mistake it passes."""
    assert mc.check_loss_curve(submission()).passed


def test_the_course_biases_are_not_zero():
    """Else a bias added in the wrong place would go unseen at step 0."""
    params0, *_ = mc.course_inputs()
    assert np.abs(params0["b1"]).min() > 0 and np.abs(params0["b2"]).min() > 0


@pytest.mark.parametrize("forward", [relu_forward, bias_after_tanh], ids=["relu", "bias-after-tanh"])
def test_wrong_forward_fails_at_step_0(forward):
    f = mc.check_loss_curve(submission(forward=forward))
    assert (f.kind, f.step) == ("forward", 0) and f.diff > mc.CURVE_TOL
    assert "step 0" in f.message() and "forward" in f.message()


def test_a_summed_loss_is_named():
    f = mc.check_loss_curve(submission(summed=True))
    assert (f.kind, f.step) == ("reduction", 0), f
    assert "50 times" in f.message() and "mean" in f.message()


def test_a_bias_that_does_not_broadcast_fails_the_accuracy_check():
    f = mc.check_accuracy(submission(init_params=per_row_biases), GRADER_SEEDS)
    assert f.kind == "error" and "forward" in f.detail, f
    assert "ShapeError" in f.message() or "shape" in f.message().lower()


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
    f = mc.check_accuracy(lazy, GRADER_SEEDS)
    assert f.kind == "steps" and f.n_losses < f.asked == REFERENCE.STEPS, f
    assert "stopped early" in f.message()


def test_the_mistakes_read_differently():
    found = [mc.check_loss_curve(submission(**planted)) for planted in (
        {"forward": relu_forward}, {"summed": True}, {"zero_grad": False}, {"stop_after": 8},
        {"own_lr": True})]
    assert len({f.kind for f in found}) == len({f.message() for f in found}) == 5


def test_an_update_mistake_after_a_right_forward():
    """The learner's own LR instead of the lr train is given: step 0 matches, step 1 differs,
    and it is not the zero_grad case."""
    f = mc.check_loss_curve(submission(own_lr=True))
    assert (f.kind, f.step) == ("update", 1), f
    assert "match up to step 0" in f.message()


def test_accuracy_limits():
    assert mc.check_accuracy(submission(STEPS=mc.MAX_STEPS + 1), GRADER_SEEDS).kind == \
        "too_many_steps"
    low = mc.check_accuracy(submission(STEPS=1), GRADER_SEEDS)
    assert low.kind == "low_accuracy" and low.accuracy <= mc.THRESHOLD
    assert "more than 90%" in low.message()
    with pytest.raises(ValueError, match="at least 300"):
        mc.check_accuracy(REFERENCE, GRADER_SEEDS, n_val=100)


def test_interface_and_errors_are_findings_not_crashes():
    module = submission()
    del module.train
    f = mc.check_loss_curve(module)
    assert f.kind == "interface" and "train" in f.message()

    def unfinished(params0, X, y, lr, steps, batches=None):
        raise NotImplementedError("lab 05: train is not written yet")

    f = mc.check_accuracy(submission(train=unfinished), GRADER_SEEDS)
    assert f.kind == "error" and "not written yet" in f.message()


def test_compare_curve_without_torch():
    expected = [1.0, 0.9, 0.8]
    assert mc.compare_curve([1.0, 0.9, 0.8], expected, asked=3).passed
    f = mc.compare_curve([1.0, 0.9, float("nan")], expected, asked=3)
    assert (f.kind, f.step) == ("update", 2)
    assert mc.compare_curve([10.0, 0.9, 0.8], expected, asked=3, batch=10).kind == "reduction"
    assert mc.compare_curve([9.0, 0.9, 0.8], expected, asked=3, batch=10).kind == "forward"


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
        mc.Finding("loss_curve", "reduction", step=0, got=75.0, want=1.5, diff=73.5),
        mc.Finding("loss_curve", "no_zero_grad", step=1, got=1.6, want=1.5, diff=0.1),
        mc.Finding("loss_curve", "update", step=3, got=1.6, want=1.5, diff=0.1),
        mc.Finding("accuracy", "ok", accuracy=0.95, n_val=3000, asked=500, cpu=0.4,
                   seeds=(1, 2, 3), per_seed=(0.95, 0.94, 0.96)),
        mc.Finding("accuracy", "low_accuracy", accuracy=0.6, n_val=3000, asked=1,
                   seeds=(1, 2, 3), per_seed=(0.6, 0.6, 0.6)),
        mc.Finding("accuracy", "steps", n_losses=10, asked=500),
        mc.Finding("accuracy", "too_many_steps", asked=5000),
        mc.Finding("accuracy", "too_slow", cpu=12.0),
        mc.Finding("accuracy", "interface", detail="train"),
        mc.Finding("accuracy", "error", detail="train: NotImplementedError: x"),
    ]
    texts = [f.message() for f in findings]
    assert len(set(texts)) == len(texts)
    if lang == "es":
        assert "Curva de pérdida" in texts[0] and "Exactitud" in texts[6]
        assert all("Loss curve" not in x and "Accuracy:" not in x for x in texts), texts


def test_losses_as_tensors_or_a_bad_steps_are_findings():
    """A learner's likely slip (losses kept as Tensors) and a malformed STEPS: messages, never a
    crash of the check."""
    def tensors(params0, X, y, lr, steps, batches=None):
        params, losses = REFERENCE.train(params0, X, y, lr, 2, batches)
        return params, [mt.Tensor([v], requires_grad=True) for v in losses]

    f = mc.check_loss_curve(submission(train=tensors))
    assert f.kind == "error" and "loss.item()" in f.message(), f
    f = mc.check_accuracy(submission(STEPS="many"), GRADER_SEEDS)
    assert f.kind == "error" and "STEPS" in f.message(), f


def test_a_grader_can_run_the_learners_side_apart_and_judge_it_with_its_own_targets():
    """run_* (the learner's code, e.g. in a sandboxed worker) answers plain JSON; judge_* (the
    instructor's process) draws the held-out targets and gives the same verdict."""
    import json

    curve = json.loads(json.dumps(mc.run_curve(REFERENCE)))
    assert mc.judge_curve(curve).passed
    answer = json.loads(json.dumps(mc.run_accuracy(REFERENCE, GRADER_SEEDS)))
    assert "target" not in json.dumps(answer)  # the targets never leave the judge
    judged, direct = mc.judge_accuracy(answer, GRADER_SEEDS), mc.check_accuracy(REFERENCE,
                                                                             GRADER_SEEDS)
    assert (judged.kind, judged.per_seed) == (direct.kind, direct.per_seed) == (
        "ok", direct.per_seed)  # cpu differs run to run; the verdict does not
    forged = {**answer, "runs": [{**r, "predicted": [4] * mc.N_VAL} for r in answer["runs"]]}
    assert mc.judge_accuracy(forged, GRADER_SEEDS).kind == "low_accuracy"
    other = mc.judge_accuracy(answer, (1, 2, 3))
    assert other.kind == "error" and "no run for seed 1" in other.detail


def test_a_relabelled_accuracy_is_not_answered_by_the_label_table():
    """The record's permutation of the classes moves every class (for any seed), reaches the
    training targets the learner's side gets, and the judge's held-out targets: predictions
    read off the grammar's label table then score next to nothing, the relabelled ones
    what the table itself scores."""
    from minitorch_course import grammar as g

    for seed in range(200):
        perm = mc.relabelling(seed)
        assert sorted(perm) == list(range(g.N_TENSES)) and all(perm != np.arange(g.N_TENSES))
    perm = mc.relabelling(7)
    plain, moved = mc.accuracy_data(GRADER_SEEDS), mc.accuracy_data(GRADER_SEEDS, relabel=perm)
    for a, b in zip(plain["runs"], moved["runs"], strict=True):
        assert np.array_equal(perm[a["y"]], b["y"]) and np.array_equal(a["X_val"], b["X_val"])
    table = g.label_table()

    def answer(classes):
        runs = []
        for run in plain["runs"]:
            verb, person = run["X_val"][:, :g.N_VERBS], run["X_val"][:, g.N_VERBS:]
            runs.append({"seed": run["seed"], "n_losses": 1, "cpu": 0.0, "predicted":
                         classes[table[verb.argmax(1), person.argmax(1)]].tolist()})
        return {"steps": 1, "runs": runs}

    lookup = answer(np.arange(g.N_TENSES))
    assert mc.judge_accuracy(lookup, GRADER_SEEDS).kind == "ok"  # the course's own labels
    found = mc.judge_accuracy(lookup, GRADER_SEEDS, relabel=perm)
    assert found.kind == "low_accuracy" and found.accuracy < 0.05, found
    assert mc.judge_accuracy(answer(perm), GRADER_SEEDS, relabel=perm).kind == "ok"
