"""minitorch_course.op_checks: how the oracle (torch) is run."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from minitorch_course import op_checks


def test_torch_runs_on_one_thread_and_the_callers_setting_is_restored():
    """The oracle's tensors are tiny: torch's thread pool only costs time (50x the CPU on a
    busy machine), so run_torch uses one thread, and gives the caller (a learner's kernel) its
    own setting back."""
    import torch

    seen = []

    def ref(torch_, x):
        seen.append(torch_.get_num_threads())
        return x * 3.0

    op = SimpleNamespace(name="triple", ref=ref)
    case = SimpleNamespace(constant=(), kwargs={})
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        out, grads = op_checks.run_torch(op, case, [np.ones(4)], np.full(4, 0.5))
        assert seen == [1]
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    assert np.array_equal(out, np.full(4, 3.0)) and np.array_equal(grads[0], np.full(4, 1.5))
