"""An always-failing set: every test fails, on every implementation."""

import minitorch as mt


def test_add_is_wrong():
    assert (mt.Tensor([1.0]) + mt.Tensor([1.0])).data[0] == 3.0


def test_nothing_works():
    raise AssertionError("always")
