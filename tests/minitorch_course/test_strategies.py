"""Derandomised Hypothesis draws the same examples whatever the process imported before
(minitorch_course.strategies.pin_local_constants): the fuzzer, the property checks and the
learner-test grading depend on it."""

from __future__ import annotations

import sys
import types

from hypothesis import HealthCheck, Phase, given, settings

from minitorch_course import strategies
from minitorch_course.catalog import BY_NAME


def _draws(n: int = 60) -> list:
    drawn: list = []

    @settings(max_examples=n, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    @given(strategies.cases_with_inputs(BY_NAME["sum"]))
    def collect(example):
        case, arrays = example
        drawn.append((case.shapes, repr(case.kwargs), [a.tobytes() for a in arrays]))

    collect()
    return drawn


def test_draws_do_not_depend_on_the_modules_loaded(tmp_path):
    before = _draws()
    # a local module full of literals, as a chaff, a test module or a learner's tensor.py is
    source = "CONSTANTS = [" + ", ".join(str(v) for v in range(-40, 41)) + ", 0.123, 1e5, 2.5]\n"
    path = tmp_path / "lots_of_literals.py"
    path.write_text(source, encoding="utf-8")
    module = types.ModuleType("lots_of_literals")
    module.__file__ = str(path)
    exec(compile(source, str(path), "exec"), module.__dict__)
    sys.modules["lots_of_literals"] = module
    try:
        after = _draws()
    finally:
        del sys.modules["lots_of_literals"]
    assert after == before
