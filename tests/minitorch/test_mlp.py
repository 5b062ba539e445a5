"""The chapter's end-to-end proof: the reference MLP file (solutions/mlp.py, the answer to lab 05)
trained by hand with minitorch on the grammatical grid.

It must beat 90% validation accuracy, and its loss curve must be PyTorch float64's, step by step,
to 1e-9. The linear baseline (the same file with ``hidden=0``) fits the grid's label too (the
label is additive in verb and person: benchmarks/mlp-grid.md); a change of label that made it
non-additive must update that page. ``mlp_report.history`` replays the learner's run one step at
a time: the same losses as one long run.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from minitorch_authoring.repository import ROOT
from minitorch_course import grammar as g
from minitorch_course import mlp_checks as mc
from minitorch_course import mlp_report

SEED = 0


@pytest.fixture(scope="module")
def mlp():
    return mc.load(ROOT / "solutions" / "mlp.py")


@pytest.fixture(scope="module")
def data():
    return g.make_dataset(n_val=300, seed=SEED)  # the training set does not depend on n_val


@pytest.fixture(scope="module")
def runs(mlp, data):
    train, val = data
    out = {}
    for name, hidden in (("mlp", mlp.HIDDEN), ("linear", 0)):
        params0 = mlp.init_params(SEED, hidden)
        hist = mlp_report.history(mlp, params0, train.X, train.target, val.X, val.target,
                                  lr=mlp.LR, steps=mlp.STEPS)
        out[name] = (params0, hist)
    return out


def test_mlp_beats_90_percent_on_validation(mlp, runs):
    hist = runs["mlp"][1]
    assert len(hist.loss) == mlp.STEPS
    assert hist.val_acc[-1] > 0.90
    assert hist.loss[-1] < hist.loss[0] / 3


def test_the_history_is_the_same_run_as_one_call_of_train(mlp, runs, data):
    train, _ = data
    params0, hist = runs["mlp"]
    params, losses = mlp.train(params0, train.X, train.target, lr=mlp.LR, steps=mlp.STEPS)
    assert hist.loss == losses
    for k in params:
        np.testing.assert_array_equal(hist.params[k], params[k])
    assert set(hist.grad_norm) == {"W1", "b1", "W2", "b2"}
    assert all(len(v) == mlp.STEPS for v in hist.grad_norm.values())
    assert len(hist.saturated) == mlp.STEPS and 0 <= min(hist.saturated)


def test_mlp_recovers_the_label_on_all_60_cells(mlp, runs):
    assert mlp_report.cells_right(mlp, runs["mlp"][1].params).all()


def test_the_linear_baseline_fits_the_label_too(mlp, runs):
    """What benchmarks/mlp-grid.md reports: the label is additive, so a linear model trained on
    the 60 clean cells recovers every one, and on the noisy split it reaches the MLP's validation
    accuracy (both near the 95 % noise ceiling)."""
    verb, person = np.divmod(np.arange(60), 3)
    X, y = g.encode(verb, person), g.label_table()[verb, person]
    params, _ = mlp.train(mlp.init_params(SEED, 0), X, y, lr=mlp.LR, steps=1500)
    assert mlp_report.cells_right(mlp, params).all()
    assert abs(runs["linear"][1].val_acc[-1] - runs["mlp"][1].val_acc[-1]) < 0.03


def test_loss_curve_matches_torch_float64(mlp, runs, data):
    pytest.importorskip("torch")
    from minitorch_authoring.mlp_curve import torch_curve

    train, _ = data
    params0, hist = runs["mlp"]
    torch_losses = torch_curve(params0, train.X, train.target, mlp.LR, mlp.STEPS)
    diff = np.abs(np.array(hist.loss) - np.array(torch_losses))
    assert diff.max() <= 1e-9, f"step {diff.argmax()}: |Δloss| = {diff.max():.3e}"


def test_training_does_not_mutate_the_initial_weights(mlp, data):
    train, _ = data
    params0 = mlp.init_params(SEED, 4)
    before = {k: v.copy() for k, v in params0.items()}
    mlp.train(params0, train.X, train.target, steps=3)
    for k in before:
        np.testing.assert_array_equal(params0[k], before[k])


def test_course_modules_do_not_import_torch():
    src = ROOT / "src"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])}
    code = (
        "import sys, minitorch, minitorch.mlp, minitorch_course.grammar, "
        "minitorch_course.mlp_checks, minitorch_course.mlp_report; "
        "assert 'torch' not in sys.modules, 'torch imported'"
    )
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
