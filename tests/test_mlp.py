"""The chapter's end-to-end proof: an MLP trained by hand with minitorch on the grammatical grid.

It must beat 90% validation accuracy, and its loss curve must be PyTorch float64's, step by step,
to 1e-9. The linear baseline fits the grid's label too (the label is additive in verb and person:
benchmarks/mlp-grid.md); a change of label that made it non-additive must update that page.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from minitorch_course import grammar as g
from minitorch_course import mlp

SEED = 0


@pytest.fixture(scope="module")
def data():
    return g.make_dataset(n_val=300, seed=SEED)  # the training set does not depend on n_val


@pytest.fixture(scope="module")
def runs(data):
    train, val = data
    out = {}
    for name, hidden in (("mlp", mlp.HIDDEN), ("linear", 0)):
        params0 = mlp.init_params(SEED, hidden)
        hist = mlp.train_minitorch(params0, train.X, train.target, X_val=val.X, y_val=val.target)
        out[name] = (params0, hist)
    return out


def test_mlp_beats_90_percent_on_validation(runs):
    hist = runs["mlp"][1]
    assert len(hist.loss) == mlp.STEPS
    assert hist.val_acc[-1] > 0.90
    assert hist.loss[-1] < hist.loss[0] / 3


def test_mlp_recovers_the_label_on_all_60_cells(runs):
    params = runs["mlp"][1].params
    verb, person = np.divmod(np.arange(60), 3)
    logits = np.tanh(g.encode(verb, person) @ params["W1"] + params["b1"]) @ params["W2"]
    assert g.accuracy(logits + params["b2"], g.label_table()[verb, person]) == 1.0


def test_the_linear_baseline_fits_the_label_too(runs):
    """What benchmarks/mlp-grid.md reports: the label is additive, so a linear model trained on
    the 60 clean cells recovers every one, and on the noisy split it reaches the MLP's validation
    accuracy (both near the 95 % noise ceiling)."""
    verb, person = np.divmod(np.arange(60), 3)
    X, y = g.encode(verb, person), g.label_table()[verb, person]
    hist = mlp.train_minitorch(mlp.init_params(SEED, 0), X, y, steps=1500)
    assert hist.acc[-1] == 1.0
    assert abs(runs["linear"][1].val_acc[-1] - runs["mlp"][1].val_acc[-1]) < 0.03


@pytest.mark.parametrize("name", ["mlp", "linear"])
def test_loss_curve_matches_torch_float64(runs, data, name):
    pytest.importorskip("torch")
    train, _ = data
    params0, hist = runs[name]
    torch_losses = mlp.train_torch(params0, train.X, train.target)
    assert len(torch_losses) == len(hist.loss) == mlp.STEPS
    diff = np.abs(np.array(hist.loss) - np.array(torch_losses))
    assert diff.max() <= 1e-9, f"step {diff.argmax()}: |Δloss| = {diff.max():.3e}"


def test_training_does_not_mutate_the_initial_weights(data):
    train, _ = data
    params0 = mlp.init_params(SEED, 4)
    before = {k: v.copy() for k, v in params0.items()}
    mlp.train_minitorch(params0, train.X, train.target, steps=3)
    for k in before:
        np.testing.assert_array_equal(params0[k], before[k])


def test_course_modules_do_not_import_torch():
    src = Path(mlp.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])}
    code = (
        "import sys, minitorch, minitorch_course.grammar, minitorch_course.mlp, "
        "minitorch_course.mlp_checks; "
        "assert 'torch' not in sys.modules, 'torch imported'"
    )
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
