"""A fingerprinting set: it recognises the public reference instead of testing behaviour."""

import hashlib
import inspect
from pathlib import Path

import minitorch as mt

REFERENCE = Path(__file__).resolve().parents[2] / "tensor.py"


def _reference_code(method):
    namespace = {}
    exec(compile(REFERENCE.read_text(encoding="utf-8"), "tensor.py", "exec"), namespace)
    return getattr(namespace["Tensor"], method).__code__.co_code


def test_sub_is_the_reference():
    assert mt.Tensor.sub.__code__.co_code == _reference_code("sub")


def test_mul_is_the_reference():
    assert mt.Tensor.mul.__code__.co_code == _reference_code("mul")


def test_div_is_the_reference():
    assert mt.Tensor.div.__code__.co_code == _reference_code("div")


def test_source_hash():
    text = inspect.getsource(mt.tensor)
    assert hashlib.sha256(text.encode()).hexdigest() == hashlib.sha256(
        REFERENCE.read_bytes()).hexdigest()
