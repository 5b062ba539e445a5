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
topological sort, a node reached along two paths) are graded only by the score of record.

    examplar.fault_set(path, passing)    the ImplSet of the in-kernel feedback
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


def _methods(keep: Callable) -> tuple[str, ...]:
    """The methods of the catalog rows ``keep(op)`` selects, in catalog order: a fault is
    placed by what the catalog says about an op (its lab, family, typical mistakes), never by
    its name."""
    seen: list[str] = []
    for op in OPS:
        if keep(op) and op.method not in seen:
            seen.append(op.method)
    return tuple(seen)


def _in_lab(lab: str) -> Callable:
    return lambda op: op.lab == lab


def _family(family: str) -> Callable:
    return lambda op: op.family == family


def _mistake(kind: str = "", mistake: str = "") -> Callable:
    return lambda op: any(m.kind == kind or m.id == mistake for m in op.mistakes)


L00, L01, L02, L03, L04 = ("00-tensor-skeleton", "01-elementwise-ops",
                           "02-reductions-and-shapes", "03-matmul-softmax-ce",
                           "04-gradcheck-and-properties")
ENGINE = ("backward",)  # the engine row a fault wraps Tensor.backward for
UNBROADCAST = ("unbroadcast",)
FAULTS: tuple[Fault, ...] = (
    Fault("backward_resets_leaves", "accumulate-calls", (L00,), ENGINE),
    Fault("graph_kept", "freed-graph", (L00,), ENGINE),
    Fault("constants_get_grad", "constants", (L00,), ENGINE),
    Fault("upstream_ignored_01", "upstream", (L01, L04), _methods(_in_lab(L01))),
    Fault("derivative_doubled_01", "local-derivative", (L01, L04), _methods(_in_lab(L01))),
    Fault("second_input_negated", "every-input", (L01,),
          _methods(lambda op: op.lab == L01 and op.broadcasting)),
    Fault("one_at_the_kink", "kink", (L01,),
          _methods(_mistake(mistake="relu_gradient_one_at_zero"))),
    Fault("unbroadcast_keeps_leading", "broadcast-leading", (L01, L04), UNBROADCAST),
    Fault("unbroadcast_keeps_ones", "broadcast-inner", (L01, L04), UNBROADCAST),
    Fault("axis_reduction_scaled", "axis", (L02,), _methods(_family("reduction"))),
    Fault("ties_whole", "ties", (L02,), _methods(_mistake(kind="ties"))),
    Fault("repeats_once", "repeated-indices", (L02,), _methods(_mistake(kind="repeated-indices"))),
    Fault("grad_flat", "grad-shape", (L02,), _methods(_family("new-shape"))),
    Fault("permutation_not_inverted", "permutation", (L02,), _methods(_family("permutation"))),
    Fault("pieces_equal", "uneven-pieces", (L02,), _methods(_family("concatenation"))),
    Fault("upstream_ignored_03", "upstream", (L03,), _methods(_in_lab(L03))),
    Fault("batch_scaled", "batch-axes", (L03,), _methods(_family("matrix-operands"))),
    Fault("overflows", "edge-values", (L03,), _methods(_mistake(kind="unstable-forward"))),
    Fault("not_mean", "batch", (L03,), _methods(_family("logits-and-targets"))),
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


def _permutation(args, kwargs) -> tuple[int, ...]:
    """The permutation a ``transpose(*axes)`` call applied (axes as a tuple, several ints, or
    none: every axis reversed), negative axes counted from the end; () if unreadable."""
    axes = tuple(args[1:]) or tuple(kwargs.get("axes") or ())
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    try:
        ndim = np.ndim(args[0].data)
        return tuple(int(x) % ndim for x in axes) if axes else tuple(reversed(range(ndim)))
    except (AttributeError, TypeError, ValueError, ZeroDivisionError):
        return ()


def _leaves(root) -> list:
    """The leaves reachable from ``root``, each once: the graph is widened a level at a time
    (every parent not met yet), then the nodes without parents are kept."""
    met = {id(root): root}
    level = [root]
    while level:
        level = [met.setdefault(id(p), p) for node in level
                 for p in tuple(getattr(node, "_prev", ()) or ()) if id(p) not in met]
    return [node for node in met.values() if not tuple(getattr(node, "_prev", ()) or ())]


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
    elif fid == "one_at_the_kink":
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
    elif fid == "ties_whole":
        def make(c, a, k):
            x = np.asarray(a[0].data)
            ties = np.unique(x).size < x.size
            return _grads(c, lambda i, g: g * 2.0) if ties else c
        _closure_fault(module, fault.methods, make)
    elif fid == "repeats_once":
        def make(c, a, k):
            index = a[1] if len(a) > 1 else None
            parts = index if isinstance(index, tuple) else (index,)
            repeats = any(isinstance(p, (list, np.ndarray)) and np.asarray(p).size
                          and np.unique(np.asarray(p)).size < np.asarray(p).size for p in parts)
            return _grads(c, lambda i, g: g * 0.5) if repeats else c
        _closure_fault(module, fault.methods, make)
    elif fid == "grad_flat":
        _closure_fault(module, fault.methods,
                       lambda c, a, k: _grads(c, lambda i, x: x.reshape(-1)))
    elif fid == "permutation_not_inverted":
        def make(c, a, k):  # the forward's permutation applied to g instead of its inverse:
            perm = _permutation(a, k)  # your gradient g.T(inverse), permuted twice by perm
            return _grads(c, lambda i, x: x.transpose(perm).transpose(perm)) if perm else c
        _closure_fault(module, fault.methods, make)
    elif fid == "pieces_equal":
        def make(c, a, k):  # g cut into equal pieces: your pieces joined again, then re-cut
            axis = k.get("axis", a[1] if len(a) > 1 else 0)

            def _backward(g):
                raw = tuple(c(g))
                if any(p is None for p in raw):  # a constant input's None: left as written
                    return raw
                pieces = [np.asarray(p) for p in raw]
                whole = np.concatenate(pieces, axis=axis)
                return tuple(np.array_split(whole, len(pieces), axis=axis))
            return _backward
        _closure_fault(module, fault.methods, make)
    elif fid == "batch_scaled":
        def make(c, a, k):
            batched = max(np.ndim(a[0].data), np.ndim(getattr(a[1], "data", a[1]))) > 2
            return _grads(c, lambda i, x: 2.0 * x) if batched else c
        _closure_fault(module, fault.methods, make)
    elif fid == "overflows":
        def after(args, kwargs, out):
            if np.max(np.abs(np.asarray(args[0].data))) > 100:
                out.data = np.full_like(np.asarray(out.data, dtype=float), np.nan)
            return out
        for name in fault.methods:
            _wrap_method(module, name, after)
    elif fid == "not_mean":
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
