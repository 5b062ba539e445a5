"""torch's answers kept on disk for the progress report (minitorch_course.oracle_cache).

A second report answers from disk without importing torch and prints the same table; an answer
is keyed on everything torch would answer differently for; a poisoned folder is read only by
the progress report, never by the graded checks; an unreadable file is ignored.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from minitorch_authoring.repository import ROOT
from minitorch_course import op_checks, oracle_cache
from minitorch_course.catalog import BY_NAME, Case

OP = "neg"  # a cheap row

REPORT = """
import io, json, sys
from minitorch_course import check
out = io.StringIO()
code = check.main(["--impl", "reference", "--op", sys.argv[1]], stream=out)
print(json.dumps({"code": code, "torch": "torch" in sys.modules, "text": out.getvalue()}))
"""


def _report(folder: Path) -> dict:
    env = {**os.environ, "MINITORCH_CACHE": str(folder), "PYTHONPATH": str(ROOT / "src"),
           "MINITORCH_IMPL": "reference"}
    done = subprocess.run([sys.executable, "-c", REPORT, OP], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    result["text"] = result["text"].rsplit("·", 1)[0]  # the total's last field is the time
    return result


@pytest.mark.slow  # two reports in subprocesses
def test_a_second_report_answers_from_disk_without_torch(tmp_path):
    first, second = _report(tmp_path), _report(tmp_path)
    assert first["torch"] and first["code"] == 0, first
    assert (tmp_path / f"{OP}.npz").is_file()
    assert not second["torch"], "the second report imported torch: nothing was kept"
    assert second["text"] == first["text"] and second["code"] == 0


def _key_of(op, case, arrays, upstream) -> str:
    """The key the cache files this call under (the wrapped function records it)."""
    seen = []

    def spy(op, case, arrays, upstream):
        seen.append(1)
        return np.zeros(()), None

    store = oracle_cache.Store(Path("/nonexistent"))
    token = oracle_cache._CURRENT.set(store)
    try:
        oracle_cache.cached(spy)(op, case, arrays, upstream)
    finally:
        oracle_cache._CURRENT.reset(token)
    [(row, answers)] = store.new.items()
    [key] = answers
    return f"{row}:{key}"


def test_the_key_tells_apart_every_call_torch_answers_differently():
    add, total = BY_NAME["add"], BY_NAME["sum"]
    one = np.arange(6.0)
    calls = {
        "base": (add, Case(((6,), (6,))), [one, one], None),
        "other row": (BY_NAME["sub"], Case(((6,), (6,))), [one, one], None),
        "same bytes, other shape": (add, Case(((2, 3), (2, 3))),
                                    [one.reshape(2, 3), one.reshape(2, 3)], None),
        "transposed shape": (add, Case(((3, 2), (3, 2))),
                             [one.reshape(3, 2), one.reshape(3, 2)], None),
        "one value changed": (add, Case(((6,), (6,))), [one, one + np.eye(1, 6)[0]], None),
        "with upstream": (add, Case(((6,), (6,))), [one, one], np.ones(6)),
        "other upstream": (add, Case(((6,), (6,))), [one, one], np.arange(6.0)),
        "0-d": (add, Case(((), ())), [np.array(1.0), np.array(1.0)], None),
        "shape (1,)": (add, Case(((1,), (1,))), [np.ones(1), np.ones(1)], None),
        "axis 0": (total, Case(((2, 3),), {"axis": 0}), [one.reshape(2, 3)], None),
        "axis 1": (total, Case(((2, 3),), {"axis": 1}), [one.reshape(2, 3)], None),
        "keepdims": (total, Case(((2, 3),), {"axis": 1, "keepdims": True}),
                     [one.reshape(2, 3)], None),
    }
    keys = {name: _key_of(*call) for name, call in calls.items()}
    assert len(set(keys.values())) == len(keys), keys
    assert _key_of(*calls["axis 0"]) == keys["axis 0"]  # and the same call, the same key


def test_only_the_progress_report_reads_the_folder(tmp_path):
    """A poisoned answer (torch's output plus one) is what a remembered() block answers, so the
    folder is read there; the graded checks outside it ask torch and pass."""
    op = BY_NAME[OP]
    with oracle_cache.remembered(tmp_path) as store:
        assert op_checks.check_op(op, suites=("forward",))["forward"][0].status == op_checks.PASS
        for answers in store.new.values():
            for key, (out, grads) in answers.items():
                answers[key] = (out + 1.0, grads)
    with oracle_cache.remembered(tmp_path):
        poisoned = op_checks.check_op(op, suites=("forward",))["forward"]
    assert {o.status for o in poisoned if o.size} == {op_checks.FAIL}, poisoned  # size 0: no value
    outside = op_checks.check_op(op, suites=("forward",))["forward"]
    assert {o.status for o in outside} == {op_checks.PASS}, outside


@pytest.mark.parametrize("content", [b"", b"not a zip file", b"PK\x03\x04 truncated"])
def test_an_unreadable_file_is_asked_again(tmp_path, content):
    (tmp_path / f"{OP}.npz").write_bytes(content)
    with oracle_cache.remembered(tmp_path) as store:
        outcomes = op_checks.check_op(BY_NAME[OP], suites=("forward",))["forward"]
    assert {o.status for o in outcomes} == {op_checks.PASS}
    assert store.misses and not store.hits
    with oracle_cache.remembered(tmp_path) as store:  # rewritten whole
        op_checks.check_op(BY_NAME[OP], suites=("forward",))
    assert store.hits and not store.misses


def test_turned_off_or_unwritable_it_asks_torch(tmp_path, monkeypatch):
    monkeypatch.setenv("MINITORCH_CACHE", "off")
    with oracle_cache.remembered() as store:
        assert store is None
    blocked = tmp_path / "file"
    blocked.write_text("")  # a folder that cannot be created
    with oracle_cache.remembered(blocked / "cache") as store:
        outcomes = op_checks.check_op(BY_NAME[OP], suites=("forward",))["forward"]
    assert {o.status for o in outcomes} == {op_checks.PASS} and store.misses
