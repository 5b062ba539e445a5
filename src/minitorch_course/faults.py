"""Chaffs a class release can ship: faults injected at the op boundary of the LEARNER's own tensor.py.

A class release must not ship wrong implementations derived from the reference (each differs
from a correct one by one edit, so together they give the reference away). What can ship is a
way to break the learner's OWN implementation from outside: wrap an op's method so that its
backward closure sees a uniform upstream gradient, returns a gradient scaled or negated, or
forgets to reduce along a broadcast axis, without reading or changing the learner's code.

The learner's implementation is the one wheat; only the ops it already gets right (the course's
forward and backward checks pass) receive faults, so a fault is always a departure from correct
behaviour. This is feedback, not the score of record: with one wheat, a test that only
recognises the learner's own code would pass it (the score of record, run with several wheats
of varied form, drops such tests). Kinds a boundary fault cannot express (a recursive
topological sort, a transpose's inverse permutation) are graded only by the score of record.

    learner_set(path, passing_methods)   the ImplSet of the in-kernel feedback
    inject(module, fault_ids)            what the forked grading process applies
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

import numpy as np

from minitorch_course.catalog import OPS


@dataclass(frozen=True)
class Fault:
    """A fault: its kind (examplar.TEST_KINDS), the labs it grades, the methods it wraps."""

    id: str
    kind: str
    labs: tuple[str, ...]
    methods: tuple[str, ...]  # Tensor methods wrapped ("" for the engine)


def _lab_methods(lab: str, arity: int | None = None) -> tuple[str, ...]:
    seen: list[str] = []
    for op in OPS:
        if op.lab == lab and op.method not in seen and op.method not in ("cat", "stack"):
            if arity is None or (arity == 2) == op.broadcasting:
                seen.append(op.method)
    return tuple(seen)


L00, L01, L02, L03, L04 = ("00-tensor-skeleton", "01-elementwise-ops",
                           "02-reductions-and-shapes", "03-matmul-softmax-ce",
                           "04-gradcheck-and-properties")
FAULTS: tuple[Fault, ...] = (
    Fault("backward_resets_leaves", "accumulate-calls", (L00,), ("backward",)),
    Fault("graph_kept", "freed-graph", (L00,), ("backward",)),
    Fault("constants_get_grad", "constants", (L00,), ("backward",)),
    Fault("upstream_ignored_01", "upstream", (L01, L04), _lab_methods(L01)),
    Fault("derivative_doubled_01", "local-derivative", (L01, L04), _lab_methods(L01)),
    Fault("second_input_negated", "every-input", (L01,), _lab_methods(L01, 2)),
    Fault("relu_one_at_zero", "kink", (L01,), ("relu",)),
    Fault("unbroadcast_keeps_leading", "broadcast-leading", (L01, L04), ("unbroadcast",)),
    Fault("unbroadcast_keeps_ones", "broadcast-inner", (L01, L04), ("unbroadcast",)),
    Fault("axis_reduction_scaled", "axis", (L02,), ("sum", "mean", "max")),
    Fault("max_ties_whole", "ties", (L02,), ("max",)),
    Fault("getitem_repeats_once", "repeated-indices", (L02,), ("getitem",)),
    Fault("reshape_grad_flat", "grad-shape", (L02,), ("reshape",)),
    Fault("upstream_ignored_03", "upstream", (L03,), ("matmul", "softmax", "log_softmax")),
    Fault("matmul_batch_scaled", "batch-axes", (L03,), ("matmul",)),
    Fault("softmax_overflows", "edge-values", (L03,), ("softmax", "cross_entropy")),
    Fault("cross_entropy_not_mean", "batch", (L03,), ("cross_entropy",)),
)
BY_ID = {f.id: f for f in FAULTS}


# ---------------------------------------------------------------- closures
def _wrap_closure(out, change: Callable) -> None:
    """Replace ``out``'s backward closure by ``change(original)``."""
    original = getattr(out, "_backward", None)
    if original is not None and getattr(out, "requires_grad", False):
        out._backward = change(original)


def _grads(closure, transform):
    def _backward(g):
        return tuple(None if x is None else transform(i, np.asarray(x))
                     for i, x in enumerate(closure(g)))
    return _backward


def _wrap_method(module: ModuleType, name: str, after: Callable) -> None:
    """Wrap Tensor.<name> (and the module-level alias of a static method) with ``after(args,
    kwargs, out) -> out``."""
    cls = module.Tensor
    raw = cls.__dict__.get(name)
    static = isinstance(raw, staticmethod)
    func = getattr(cls, name, None)
    if func is None:
        return

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        out = func(*args, **kwargs)
        return after(args, kwargs, out)

    setattr(cls, name, staticmethod(wrapper) if static else wrapper)
    if static and getattr(module, name, None) is func:
        setattr(module, name, wrapper)


def _leaves(root) -> list:
    seen, stack, leaves = set(), [root], []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        parents = tuple(getattr(node, "_prev", ()) or ())
        if not parents:
            leaves.append(node)
        stack.extend(parents)
    return leaves


# ---------------------------------------------------------------- the faults
def _closure_fault(module: ModuleType, methods, make) -> None:
    for name in methods:
        _wrap_method(module, name, lambda args, kwargs, out, make=make: (
            _wrap_closure(out, lambda c, a=args, k=kwargs: make(c, a, k)), out)[1])


def _apply(module: ModuleType, fault: Fault) -> None:
    fid = fault.id
    if fid.startswith("upstream_ignored"):
        _closure_fault(module, fault.methods,
                       lambda c, a, k: lambda g: c(np.ones_like(np.asarray(g))))
    elif fid == "derivative_doubled_01":
        _closure_fault(module, fault.methods, lambda c, a, k: _grads(c, lambda i, x: 2.0 * x))
    elif fid == "second_input_negated":
        _closure_fault(module, fault.methods,
                       lambda c, a, k: _grads(c, lambda i, x: -x if i == 1 else x))
    elif fid == "relu_one_at_zero":
        def make(c, a, k):
            x = np.asarray(a[0].data)
            return lambda g: (np.where(x == 0, g, c(g)[0]),)
        _closure_fault(module, fault.methods, make)
    elif fid in ("unbroadcast_keeps_leading", "unbroadcast_keeps_ones"):
        original = module.Tensor.unbroadcast
        leading = fid == "unbroadcast_keeps_leading"

        def unbroadcast(grad, shape):
            extra = np.ndim(grad) - len(shape)
            if leading and extra > 0:
                return grad  # the leading axes are never summed
            if not leading:
                if extra > 0:
                    grad = np.asarray(grad).sum(axis=tuple(range(extra)))
                return grad  # the size-1 axes are never summed
            return original(grad, shape)

        module.Tensor.unbroadcast = staticmethod(unbroadcast)
        if hasattr(module, "unbroadcast"):
            module.unbroadcast = unbroadcast
    elif fid == "axis_reduction_scaled":
        def make(c, a, k):
            axis = k.get("axis", a[1] if len(a) > 1 else None)
            return c if axis is None else _grads(c, lambda i, x: 1.5 * x)
        _closure_fault(module, fault.methods, make)
    elif fid == "max_ties_whole":
        def make(c, a, k):
            x = np.asarray(a[0].data)
            ties = np.unique(x).size < x.size
            return _grads(c, lambda i, g: g * 2.0) if ties else c
        _closure_fault(module, fault.methods, make)
    elif fid == "getitem_repeats_once":
        def make(c, a, k):
            index = a[1] if len(a) > 1 else None
            parts = index if isinstance(index, tuple) else (index,)
            repeats = any(isinstance(p, (list, np.ndarray)) and np.asarray(p).size
                          and np.unique(np.asarray(p)).size < np.asarray(p).size for p in parts)
            return _grads(c, lambda i, g: g * 0.5) if repeats else c
        _closure_fault(module, fault.methods, make)
    elif fid == "reshape_grad_flat":
        _closure_fault(module, fault.methods,
                       lambda c, a, k: _grads(c, lambda i, x: x.reshape(-1)))
    elif fid == "matmul_batch_scaled":
        def make(c, a, k):
            batched = max(np.ndim(a[0].data), np.ndim(getattr(a[1], "data", a[1]))) > 2
            return _grads(c, lambda i, x: 2.0 * x) if batched else c
        _closure_fault(module, fault.methods, make)
    elif fid == "softmax_overflows":
        def after(args, kwargs, out):
            if np.max(np.abs(np.asarray(args[0].data))) > 100:
                out.data = np.full_like(np.asarray(out.data, dtype=float), np.nan)
            return out
        for name in fault.methods:
            _wrap_method(module, name, after)
    elif fid == "cross_entropy_not_mean":
        def make(c, a, k):
            n = np.shape(a[0].data)[0] if np.ndim(a[0].data) else 1
            return _grads(c, lambda i, x: n * x)
        _closure_fault(module, fault.methods, make)
    elif fid in ("backward_resets_leaves", "graph_kept", "constants_get_grad"):
        original = module.Tensor.backward

        def backward(self, *args, **kwargs):
            leaves = _leaves(self)
            if fid == "backward_resets_leaves":
                for leaf in leaves:
                    leaf.grad = None
            if fid == "graph_kept":
                kwargs["retain_graph"] = True
            result = original(self, *args, **kwargs)
            if fid == "constants_get_grad":
                for leaf in leaves:
                    if not leaf.requires_grad and leaf.grad is None:
                        leaf.grad = np.zeros_like(np.asarray(leaf.data, dtype=float))
            return result

        module.Tensor.backward = functools.wraps(original)(backward)
    else:
        raise KeyError(f"no fault {fid!r}")


def inject(module: ModuleType, fault_ids: tuple[str, ...]) -> None:
    """Apply the faults to ``module`` (a tensor module, in a process of its own)."""
    for fid in fault_ids:
        _apply(module, BY_ID[fid])


def learner_set(path: str, passing_methods: set[str]):
    """The in-kernel set: the learner's tensor.py as the one wheat, and one chaff per fault
    whose wrapped methods it already gets right (``passing_methods``; "backward" and
    "unbroadcast" stand for the engine rows)."""
    from minitorch_course.examplar import Impl, ImplSet

    wheat = Impl("learner", "wheat", path=path)
    chaffs = [Impl(f.id, "chaff", f.kind, f.labs, path=path, faults=(f.id,)) for f in FAULTS
              if all(m in passing_methods for m in f.methods)]
    return ImplSet("faults", [wheat], chaffs)
