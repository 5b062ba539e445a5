"""An op's call as data: what the grading worker runs instead of the catalog's code.

Instructor tooling (never ships). The catalog row's ``fn(m, *tensors, **kwargs)`` is the one
owner of how an op is called (``a + b``, ``a.gelu(approximate="tanh")``, ``m.cat(ts, axis=0)``).
The worker must hold no course code, so the record runs ``fn`` here ONCE per task on stand-ins
that write down every call made on them, and sends that list of calls (plain data: method
names, literal arguments, references to the inputs and to earlier results);
``minitorch_course.worker.main.run_program`` replays it on the learner's tensors. Nothing here
computes a value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# Python's operators a catalog row may use, by the special method that implements them (the
# worker applies them with the ``operator`` module, so ``a + b`` behaves as written)
OPERATORS = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
             "__truediv__", "__rtruediv__", "__pow__", "__rpow__", "__matmul__",
             "__rmatmul__", "__neg__", "__getitem__")


def ref(kind: str, index: int) -> dict:
    """A reference, in a program, to input ``index`` or to the result of step ``index``."""
    return {"__ref__": [kind, index]}


class _Stand:
    """A stand-in for a tensor (an input, or what a step returned): records what is done."""

    def __init__(self, tape: list[dict], reference: dict):
        object.__setattr__(self, "_tape", tape)
        object.__setattr__(self, "_ref", reference)

    def __getattr__(self, name: str) -> Callable[..., _Stand]:
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: _record(self._tape, self._ref, name, args, kwargs)


def _operator(name: str):
    def method(self, *args):
        return _record(self._tape, self._ref, name, args, {})
    method.__name__ = name
    return method


for _name in OPERATORS:
    setattr(_Stand, _name, _operator(_name))


class _Module:
    """A stand-in for the implementation module ``m`` (``m.cat(...)``, ``m.cross_entropy``)."""

    def __init__(self, tape: list[dict]):
        self._tape = tape

    def __getattr__(self, name: str) -> Callable[..., _Stand]:
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, **kwargs: _record(self._tape, None, name, args, kwargs)


def _plain(value: Any) -> Any:
    """An argument as data: stand-ins become references, containers are walked."""
    if isinstance(value, _Stand):
        return value._ref
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _record(tape: list[dict], on: dict | None, name: str, args: tuple, kwargs: dict) -> _Stand:
    tape.append({"on": on, "call": name, "args": [_plain(a) for a in args],
                 "kwargs": {k: _plain(v) for k, v in kwargs.items()}})
    return _Stand(tape, ref("step", len(tape) - 1))


def program(fn: Callable[..., Any], n_inputs: int, kwargs: dict) -> dict:
    """``fn(m, *inputs, **kwargs)`` written down as ``{"steps": [...], "result": ref}``."""
    tape: list[dict] = []
    inputs = [_Stand(tape, ref("input", i)) for i in range(n_inputs)]
    out = fn(_Module(tape), *inputs, **kwargs)
    if not isinstance(out, _Stand):
        raise TypeError(f"the call gave {type(out).__name__}, not a tensor")
    return {"steps": tape, "result": out._ref}
