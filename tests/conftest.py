"""Shared test set-up.

The suites prove the REFERENCE implementation (``make test`` exports MINITORCH_IMPL=reference;
a bare ``pytest`` gets the same default here). The learner's progress report is ``make check``.
"""

from __future__ import annotations

import os

os.environ.setdefault("MINITORCH_IMPL", "reference")
os.environ.setdefault("PYTHONHASHSEED", "0")
# The suites read the run-time messages' English ids; the Spanish run (the default for a
# learner) is tested by tests/test_i18n.py and by the notebooks, rendered and checked in Spanish
# (course.reference_env).
os.environ.setdefault("MINITORCH_LANG", "en")

from hypothesis import HealthCheck, settings  # noqa: E402

# Deterministic in CI and locally: the same 100 examples every run, no example database.
settings.register_profile(
    "course", max_examples=100, derandomize=True, database=None, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("course")
