"""Shared test set-up.

The suites prove the REFERENCE implementation (``make test`` exports MINITORCH_IMPL=reference;
a bare ``pytest`` gets the same default here). The learner's progress report is ``make check``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# the held-out mistakes (solutions/heldout/, hidden with the rest of solutions/ by the README's
# sparse-checkout step) are imported as the package ``heldout``
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "solutions"))

os.environ.setdefault("MINITORCH_IMPL", "reference")
os.environ.setdefault("PYTHONHASHSEED", "0")
# The suites read the run-time messages' English ids; the Spanish run (the default for a
# learner) is tested by tests/test_i18n.py and by the notebooks, rendered and checked in Spanish
# (course.reference_env).
os.environ.setdefault("MINITORCH_LANG", "en")
# The progress report keeps torch's answers on disk (minitorch_course.oracle_cache); the suites
# ask torch every time, whatever a maintainer's ~/.cache holds (tests/test_oracle_cache.py
# turns it on where it tests it).
os.environ.setdefault("MINITORCH_CACHE", "off")

from hypothesis import HealthCheck, settings  # noqa: E402

# Deterministic in CI and locally: the same 100 examples every run, no example database.
settings.register_profile(
    "course", max_examples=100, derandomize=True, database=None, deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("course")


import io  # noqa: E402

import pytest  # noqa: E402


class Terminal(io.StringIO):
    """A stream that can print ✓ and ✗ (the progress report falls back to ok/X otherwise)."""

    encoding = "utf-8"


def run_report(*args: str, mutant: str | None = None) -> tuple[int, str]:
    """``python -m minitorch_course.check ARGS`` in process: (exit status, text). With
    ``mutant``, on the reference with that planted mistake (a maintainer's view)."""
    from minitorch_course import check

    loaded = None
    if mutant:
        from minitorch_authoring import mutants

        loaded = mutants.load_labelled(mutant)
    stream = Terminal()
    code = check.main(list(args), stream=stream, loaded=loaded)
    return code, stream.getvalue()


@pytest.fixture
def report():
    """The progress report, in process: ``report("--op", "add", mutant=NAME) -> (code, text)``."""
    return run_report


# ---------------------------------------------------------------- both cores (pytest-xdist)
def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "loadscopereorder"):  # the order below, not by number of tests
        config.option.loadscopereorder = False


def _shares_a_fixture(item: pytest.Item) -> bool:
    """The test uses a fixture built once per module (an nbgrader course, a site build)."""
    info = getattr(item, "_fixtureinfo", None)
    return bool(info) and any(d.scope in ("module", "class", "package")
                              for defs in info.name2fixturedefs.values() for d in defs)


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups into the node ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``make test`` runs on every core (``-n auto --dist loadgroup``). A module whose tests
    share a module-scoped fixture runs whole on one worker (built once, not once per worker),
    and slow tests are handed out first, so that the fast ones even out the workers' ends."""
    def module(item: pytest.Item) -> str:
        return getattr(getattr(item, "module", None), "__name__", "")

    shared = {module(item) for item in items if _shares_a_fixture(item)} - {""}
    for item in items:
        if module(item) in shared:
            item.add_marker(pytest.mark.xdist_group(module(item)))
    if os.environ.get("PYTEST_XDIST_WORKER"):  # every worker sorts alike; a serial run keeps
        slow = {module(item) for item in items if item.get_closest_marker("slow")}
        items.sort(key=lambda item: module(item) not in slow)  # stable: modules stay whole
