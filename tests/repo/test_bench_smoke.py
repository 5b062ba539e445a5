"""The benchmark agrees with itself: every engine computes the same loss and gradients.

Speed is not tested here (shared, noisy machines): ``make bench`` measures it. These tests only
run each workload at its tiny ``--smoke`` size and compare every engine with raw NumPy.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import numpy as np
import pytest

from minitorch_authoring.repository import ROOT

BENCH_FILE = ROOT / "benchmarks" / "bench.py"


def load_bench():
    if str(BENCH_FILE.parent) not in sys.path:  # bench.py imports engines.py and probes.py
        sys.path.insert(0, str(BENCH_FILE.parent))
    spec = importlib.util.spec_from_file_location("minitorch_bench", BENCH_FILE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


bench = load_bench()


def one_step(workload, engine):
    inputs = workload.make_inputs(np.random.default_rng(0), **workload.smoke)
    return workload.step(engine, inputs)()


def two_steps(workload, engine):
    """A workload's first two steps from the same inputs. The second step catches an adapter
    whose gradients accumulate across steps, or whose SGD update is missing or wrong."""
    step = workload.step(engine, workload.make_inputs(np.random.default_rng(0), **workload.smoke))
    return step(), step()


@pytest.mark.parametrize("engine", [e for e in bench.ENGINES if e != "numpy"])
@pytest.mark.parametrize("name", list(bench.WORKLOADS))
def test_engine_agrees_with_raw_numpy(name, engine):
    if engine != "minitorch":
        pytest.importorskip(engine)
    w = bench.WORKLOADS[name]
    for got, expected in zip(two_steps(w, engine), two_steps(w, "numpy")):
        bench.check_agreement(name, engine, got, expected, w.grad_names)


def test_agreement_check_catches_a_wrong_gradient():
    w = bench.WORKLOADS["W5"]
    loss, grads = one_step(w, "numpy")
    wrong = [grads[0], grads[1] * (1 + 1e-5), grads[2]]
    with pytest.raises(bench.DisagreementError, match="W5 fake: grad y differs"):
        bench.check_agreement("W5", "fake", (loss, wrong), (loss, grads), w.grad_names)
    summed = [grads[0].sum(axis=0), grads[1], grads[2]]  # a shape mismatch is a disagreement too
    with pytest.raises(bench.DisagreementError, match="grad x"):
        bench.check_agreement("W5", "fake", (loss, summed), (loss, grads), w.grad_names)


@pytest.mark.slow
def test_smoke_mode_runs_and_agrees():
    proc = subprocess.run(
        [sys.executable, str(BENCH_FILE), "--smoke"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "smoke: engines agree" in proc.stdout
    assert "skipping minitorch" not in proc.stdout, proc.stdout
