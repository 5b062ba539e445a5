"""Name the likely mistake behind a failed check, as data: a ``Diagnosis`` (kind, id, params).

A checker that says only "mismatch" leaves the learner to guess; this module compares what
minitorch produced with the right answer (PyTorch's, or central differences) and classifies the
difference. It knows no op by name: what is particular to an op (its typical mistakes and what
each predicts) lives in its catalog row; the words live in ``minitorch_course.messages``.

The classification works from OBSERVED values only (shapes, gradients, the upstream gradient,
the exception's fields), never from the learner's source, so it names a mistake the same way
wherever it was made: in ``unbroadcast``, in the engine, or inside one op's ``_backward``.
In order:

1. no gradient at all; a gradient of the wrong shape (reverse broadcasting missing, keepdims
   lost, transposed, reshaped); inf/NaN (located: exactly where an input is negative?);
2. a known wrong answer: one of the row's typical mistakes whose prediction, recomputed from
   the inputs and the upstream gradient, equals what minitorch produced;
3. with at least two non-zero elements only (one number is a multiple of any other): zeros, a
   flipped sign, another input's gradient (swapped), the local derivative without the upstream
   g, the derivative taken at the output, a transpose, a factor equal to an input (varies per
   element), a constant factor (the number of broadcast copies, a count, double counting);
4. wrong only at the positions a typical mistake predicts (ties, repeated indices), or only
   where it should not be zero; else it says how many elements are wrong, and no more.

The runner explains the failing case that best tells mistakes apart (``Outcome.rank``: a
specific diagnosis before a generic one, 2-D inputs before 0-d/1-D ones), not merely the
smallest.

Crashes get the same treatment: a ``GradShapeError`` names the axes to sum (from its fields),
a broadcasting error gets the shapes aligned to the right, a ``RecursionError`` names the
recursive sort.
"""

from __future__ import annotations

import itertools
import math
import re
from types import SimpleNamespace
from typing import Any

import numpy as np

from minitorch_course.catalog import (
    EMPTY,
    TORCH_KEYWORDS,
    TORCH_METHODS,
    Case,
    Evidence,
    Mistake,
    Op,
)
from minitorch_course.outcomes import Diagnosis

Shape = tuple[int, ...]


# ---------------------------------------------------------------- shapes
def reducible(full: Shape, shape: Shape) -> bool:
    """True when ``shape`` broadcasts to ``full`` (so ``full`` can be summed back down to it)."""
    if len(shape) > len(full):
        return False
    extra = len(full) - len(shape)
    return all(n == m or n == 1 for n, m in zip(shape, full[extra:]))


def broadcast_axes(shape: Shape, full: Shape) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The axes of ``full`` that broadcasting ``shape`` created: (added in front, stretched 1s)."""
    extra = len(full) - len(shape)
    lead = tuple(range(extra))
    ones = tuple(i + extra for i, n in enumerate(shape) if n == 1 and full[i + extra] != 1)
    return lead, ones


def reduce_to(grad: np.ndarray, shape: Shape) -> np.ndarray | None:
    """``grad`` summed down to ``shape`` by the broadcasting rule, or None if impossible."""
    if not reducible(grad.shape, shape):
        return None
    lead, ones = broadcast_axes(shape, grad.shape)
    g = grad.sum(axis=ones, keepdims=True) if ones else grad
    return g.sum(axis=lead) if lead else g


def explain_grad_shape(got: Shape, want: Shape, got_array: np.ndarray | None = None,
                       want_array: np.ndarray | None = None,
                       subject: dict | None = None) -> Diagnosis:
    """A gradient of shape ``got`` where the input has shape ``want``: which mistake fits.

    ``subject`` says where ``got`` came from (default: the gradient itself; or
    ``{"call": grad_shape}`` for what the implementation's unbroadcast returned).
    """
    got, want = tuple(got), tuple(want)
    p = {"got": got, "want": want, "subject": subject or {}}
    if reducible(got, want):
        lead, ones = broadcast_axes(want, got)
        same = False
        if got_array is not None and want_array is not None:
            reduced = reduce_to(got_array, want)
            same = reduced is not None and _close(reduced, want_array)
        return Diagnosis("reverse-broadcast", "reverse-broadcast",
                         {**p, "lead": lead, "ones": ones, "same": same})
    squeezed = tuple(n for n in want if n != 1)
    if got != want and tuple(n for n in got if n != 1) == squeezed and len(got) < len(want):
        return Diagnosis("keepdims", "keepdims-lost", p)
    if len(got) == len(want) and sorted(got) == sorted(want) and got != want:
        # which permutation the evidence shows: every axis reversed (.T on a batched array),
        # or the last two swapped
        return Diagnosis("transposed", "transposed-shape", {
            **p, "reversed": len(want) > 2 and got == want[::-1],
            "last_two": got == want[:-2] + want[-2:][::-1]})
    if math.prod(got) == math.prod(want):
        return Diagnosis("reshaped", "reshaped", p)
    return Diagnosis("shape", "shape", p)


def _close(a: np.ndarray, b: np.ndarray, rtol: float = 1e-6, atol: float = 1e-9) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


# ---------------------------------------------------------------- the row's typical mistakes
def _params(op: Op | None, k: Evidence) -> dict:
    """What a mistake's hint may mention, computed the same way for every row."""
    p: dict[str, Any] = {}
    if op is not None:
        p.update(method=op.method, formula=op.formula)
    # the axis a hint may name ({axis_kw}); cat's and stack's default is 0
    p.update(index=k.index, axis_kw=k.case.kwargs.get("axis", 0))
    if k.inputs:
        x = k.inputs[0]
        p.update(size=int(x.size), batch=int(k.batch))
        try:
            p.update(axes=k.axes, reduced=int(k.reduced))
        except (TypeError, ValueError, IndexError):
            pass
    return p


def _mistakes(op: Op | None, stage: str) -> list[Mistake]:
    return [m for m in (op.mistakes if op is not None else ()) if stage in m.stages]


def _hinted(op: Op | None, stage: str, kind: str) -> str:
    """The id of the row's mistake of ``kind`` that has a hint (its words), else ``kind``."""
    return next((m.id for m in _mistakes(op, stage) if m.kind == kind and m.hint), kind)


def _predicted(op: Op | None, k: Evidence, got: np.ndarray, stage: str, rtol: float,
               atol: float) -> Diagnosis | None:
    """The first of the row's mistakes whose prediction is what minitorch produced."""
    if not k.inputs:
        return None
    for m in _mistakes(op, stage):
        if m.predict is None:
            continue
        try:
            with np.errstate(all="ignore"):
                wrong = m.predict(k)
        except Exception:  # does not apply here (or needs the upstream gradient, not given)
            continue
        candidates = wrong if isinstance(wrong, list) else [wrong]
        if any(c is not None and np.shape(c) == got.shape and _close(got, c, rtol, atol)
               for c in candidates):
            return Diagnosis(m.kind, m.id, _params(op, k))
    return None


def _located(op: Op | None, k: Evidence, wrong: np.ndarray) -> Diagnosis | None:
    """A row's mistake that predicts exactly the positions that are wrong."""
    for m in _mistakes(op, "backward"):
        if m.where is None:
            continue
        try:
            mask = m.where(k)
        except Exception:  # (IndexError, TypeError, ValueError): does not apply here
            continue
        if mask is not None and np.shape(mask) == wrong.shape and mask.any() and not (
                wrong & ~mask).any():
            return Diagnosis(m.kind, m.id, _params(op, k))
    return None


# ---------------------------------------------------------------- gradients
GENERIC = frozenset({"values", "values-degenerate", "crash", "numpy-crash", "shape-error",
                     "shape"})  # diagnoses that name no particular mistake
DEGENERATE = frozenset({"values-degenerate"})  # what a one-element case says: nothing
# diagnoses tied to a special case (an empty axis, a constant input): explained only when no
# ordinary case of the same suite fails (a crash on every case is not the empty case's fault)
LAST_RESORT = frozenset({"crash-empty-axis", "constant-operand", "constant-got-grad"})


def explain_constant(op: Op | None, case: Case, index: int, id_: str,
                     inner: Diagnosis | None = None) -> Diagnosis:
    """A failure on a case that gives some inputs as constants (requires_grad=False): ``id_``
    is ``constant-got-grad`` (a constant received a .grad) or ``constant-operand`` (another
    input's gradient is missing or wrong there; ``inner`` is what that failure looks like)."""
    p: dict[str, Any] = {"method": op.method if op is not None else "", "index": index,
                         "constant": list(case.constant)}
    if inner is not None:
        p["inner"] = inner.id
        if "raised" in inner.params:
            p["raised"] = inner.params["raised"]
        elif inner.kind == "crash" and "error" in inner.params:
            p["raised"] = {k: inner.params[k] for k in ("error", "message", "at", "frames")
                           if k in inner.params}
    # a constant that received a .grad is the engine's doing: ops may return a gradient for it
    return Diagnosis("engine" if id_ == "constant-got-grad" else "constant-operand", id_, p)


def _patterns(k: Evidence, got: np.ndarray, want: np.ndarray, rtol: float,
              atol: float) -> Diagnosis | None:
    """What a wrong gradient equals, checked on the evidence (every input's right gradient,
    the upstream, the right gradients elsewhere): another input's gradient (swapped), the
    right one without the upstream g, the right one taken at the output instead of the input.
    Each needs several non-zero elements: one number equals anything up to a factor."""
    def same(a) -> bool:
        return a is not None and np.shape(a) == got.shape and _close(got, np.asarray(a),
                                                                     rtol, atol)

    for j, w in enumerate(k.wants or []):
        if (j != k.index and w is not None and np.shape(w) == want.shape
                and not _close(np.asarray(w), want, rtol, atol) and same(w)):
            return Diagnosis("swapped-inputs", "swapped-inputs", {"index": k.index, "other": j})
    g = k.upstream
    if g is not None and g.size == 1 and not np.isclose(abs(float(g.reshape(-1)[0])), 1.0,
                                                         rtol=1e-3):
        # a one-element upstream (a scalar loss): without g the gradient is want / g exactly,
        # a factor no mistake of the formula produces by chance
        if same(want / float(g.reshape(-1)[0])):
            return Diagnosis("missing-upstream", "missing-upstream", {"index": k.index})
    if g is not None and k.oracle is not None and g.size > 1 and not np.allclose(g, 1.0):
        try:
            with np.errstate(all="ignore"):
                local = k.oracle(k.inputs, np.ones_like(g))[k.index]
        except Exception:  # noqa: BLE001  (the oracle does not apply here)
            local = None
        if same(local):
            return Diagnosis("missing-upstream", "missing-upstream", {"index": k.index})
    if (k.oracle is not None and k.output is not None and len(k.inputs) == 1
            and np.shape(k.output) == k.x.shape and g is not None):
        try:
            with np.errstate(all="ignore"):
                at_output = k.oracle([np.asarray(k.output)], g)[0]
        except Exception:  # noqa: BLE001  (out of the op's domain: not this mistake)
            at_output = None
        if at_output is not None and np.all(np.isfinite(at_output)) and same(at_output):
            return Diagnosis("at-output", "at-output", {"index": k.index})
    return None


def _copies(k: Evidence) -> int:
    """How many copies of input ``k.index`` broadcasting made in the output (whole tensor, or
    its batch axes for a matrix operand); 0 when unknown."""
    if k.output is None:
        return 0
    out, x = np.shape(k.output), k.x.shape
    n = math.prod(out) // max(1, math.prod(x)) if math.prod(out) % max(1, math.prod(x)) == 0 \
        else 0
    if n <= 1 and len(out) > 2 and len(x) >= 2:
        batch_out, batch_x = math.prod(out[:-2]), math.prod(x[:-2])
        n = batch_out // batch_x if batch_out % batch_x == 0 else 0
    return n


def _varying_factor(k: Evidence, got: np.ndarray, want: np.ndarray,
                    nonzero: np.ndarray) -> dict | None:
    """got / want equals an input (or the output), or its reciprocal, elementwise, and that
    varies: a factor too many or missing in the local derivative."""
    if nonzero.sum() < 2:
        return None
    ratio = got[nonzero] / want[nonzero]
    named = list(enumerate(k.inputs))  # (input index, values); -1: the output
    if k.output is not None:
        named.append((-1, np.asarray(k.output)))
    for name, a in named:
        if np.shape(a) != got.shape:
            continue
        v = np.asarray(a, dtype=np.float64)[nonzero]
        if np.ptp(v) < 1e-6 or not np.all(np.abs(v) > 1e-9):
            continue
        for power in (1, -1):
            if np.allclose(ratio, v ** power, rtol=1e-6, atol=1e-12):
                return {"factor": name, "power": power}  # an input's index, or -1
    return None


def explain_gradient(op: Op | None, case: Case, index: int, x: np.ndarray,
                     got: np.ndarray | None, want: np.ndarray, *,
                     inputs: list[np.ndarray] | None = None, upstream: np.ndarray | None = None,
                     rtol: float = 1e-6, atol: float = 1e-9, wants: list | None = None,
                     output: np.ndarray | None = None, oracle=None) -> Diagnosis:
    """The likely mistake when input ``index``'s gradient is ``got`` instead of ``want``.

    ``inputs`` and ``upstream`` (the gradient fed to ``backward``) let the row's typical
    mistakes be recomputed; ``wants`` (every input's right gradient), ``output`` (the right
    forward output) and ``oracle`` (right gradients elsewhere) let the generic patterns be
    tested; ``rtol``/``atol`` say how exact ``want`` is (looser for central differences).
    Claims of a pattern (a factor, a sign, a transpose...) need at least two non-zero
    elements: a one-element gradient is a constant multiple of any other.
    """
    if got is None:
        return Diagnosis("missing-grad", "missing-grad", {"index": index})
    got = np.asarray(got, dtype=np.float64)
    if got.shape != want.shape:
        shaped = SimpleNamespace(grad_shape=got.shape, expected=want.shape, index=index)
        k = Evidence(case, list(inputs or []), index, stage="backward", error=shaped)
        return _grad_shape_mistake(op, k) or explain_grad_shape(got.shape, want.shape, got, want)
    bad = ~np.isfinite(got) & np.isfinite(want)  # inf/NaN where the right value is finite
    if bad.any():
        signs = [j for j, a in enumerate(inputs or []) if np.shape(a) == got.shape
                 and ((a < 0) == bad).all()]
        hinted = _hinted(op, "backward", "unstable-backward")
        if not signs and hinted != "unstable-backward":  # the row's own words for it
            return Diagnosis("unstable-backward", hinted)
        return Diagnosis("local-derivative" if signs else "unstable-backward",
                         "nonfinite-backward", {"count": int(bad.sum()), "size": int(got.size),
                                                "index": index,
                                                "negative": signs[0] if signs else -1,
                                                **_bad_inputs(bad, list(inputs or []))})
    k = Evidence(case, list(inputs) if inputs is not None else [], index, upstream, want,
                 "backward", wants=wants, output=output, oracle=oracle)
    known = _predicted(op, k, got, "backward", rtol, atol)
    if known:
        return _with_ratio(known, got, want, "gradient")
    generic = {**_params(op, k), "index": index}
    nonzero = np.abs(want) > max(atol, 1e-12)
    if np.all(got == 0) and nonzero.any():
        return Diagnosis("zero", "all-zero")
    if nonzero.sum() < 2:  # one number: any factor, sign or formula would fit it
        return Diagnosis("values", "values-degenerate", generic)
    if _close(got, -want, rtol, atol):
        return Diagnosis("sign", "sign", generic)
    pattern = _patterns(k, got, want, rtol, atol)
    if pattern:
        return Diagnosis(pattern.kind, pattern.id, {**generic, **pattern.params})
    if got.ndim >= 2 and got.shape[-1] == got.shape[-2] and _close(
            np.swapaxes(got, -1, -2), want, rtol, atol):
        return Diagnosis("transposed", "transposed-values")
    ratios = got[nonzero] / want[nonzero]
    varying = _varying_factor(k, got, want, nonzero)
    if varying:
        return Diagnosis("local-derivative", "factor-of-input", {**generic, **varying})
    r = float(np.median(ratios))
    zero_ok = np.allclose(got[~nonzero], 0.0, atol=max(atol, 1e-12) * 10)
    # a constant right gradient fits any formula up to a factor: then only a whole-number
    # factor (a count, a batch size) or its inverse is worth naming
    varies = len(set(np.round(np.abs(want[nonzero]), 9))) > 1
    whole = bool(np.isfinite(r)) and r != 0 and (np.isclose(r, round(r))
                                                 or np.isclose(1 / r, round(1 / r)))
    if (zero_ok and np.isfinite(r) and r != 0 and not np.isclose(r, 1.0, rtol=1e-3)
            and np.allclose(ratios, r, rtol=max(rtol, 1e-6) * 10) and (varies or whole)):
        copies = _copies(k)
        if copies > 1 and np.isclose(r * copies, 1.0):
            return Diagnosis("factor", "factor-averaged-copies",
                             {**generic, "ratio": r, "what": "gradient", "k": copies})
        return _left_out_axes(_factor(r, "gradient"), k.case, k.inputs,
                              None if k.upstream is None else np.size(k.upstream))
    wrong = ~np.isclose(got, want, rtol=rtol * 10, atol=atol * 10)
    if wrong.any():
        located = _located(op, k, wrong)
        if located:
            return located
        zero_wrong = wrong & (got == 0) & (np.abs(want) > 0)
        if zero_wrong.any() and not (wrong & ~zero_wrong).any():
            return Diagnosis("zero", "zero-where", {
                "count": int(zero_wrong.sum()), "size": int(got.size),
                "first": tuple(int(i) for i in np.argwhere(zero_wrong)[0])})
        generic.update(count=int(wrong.sum()), size=int(got.size))
        diff = got - want
        if got.ndim == 2 and got.shape[0] > 1 and wrong.sum() > got.shape[1] and _close(
                diff, np.broadcast_to(diff[:1], diff.shape), rtol, atol):
            return Diagnosis("values", "values-same-every-row", generic)
    return Diagnosis("values", "values", generic)


def _left_out_axes(d: Diagnosis, case: Case | None, inputs, out_size: int | None) -> Diagnosis:
    """A reduction whose count is k times too small, when k is the size of some of the axes
    it reduces (not all): those axes are the ones the count left out (a mean over (0, 1)
    dividing by the first axis' size only). Named only when one set of axes gives k."""
    if (d.id != "factor-division-missing" or case is None or not inputs or out_size is None
            or out_size >= np.size(inputs[0])):  # the evidence: the op's output is smaller
        return d
    shape = np.shape(inputs[0])
    axis = case.kwargs.get("axis")
    axes = (tuple(range(len(shape))) if axis is None or axis == () else
            tuple(a % len(shape) for a in (axis if isinstance(axis, tuple) else (axis,))))
    fits = [sub for n in range(1, len(axes)) for sub in itertools.combinations(axes, n)
            if math.prod(shape[a] for a in sub) == d.params["k"]]
    if len(fits) != 1:
        return d
    return Diagnosis(d.kind, d.id, {**d.params, "left_out": list(fits[0]), "axes": list(axes)})


def _factor(r: float, what: str) -> Diagnosis:
    """A constant ratio ``r`` between the learner's values and the right ones."""
    p = {"ratio": r, "what": what}
    if np.isclose(r, 2.0):
        return Diagnosis("factor", "factor-double", p)
    if np.isclose(r, 0.5):
        return Diagnosis("factor", "factor-half", p)
    inv = 1.0 / r
    if r > 0 and np.isclose(inv, round(inv)) and round(inv) > 1:
        return Diagnosis("factor", "factor-divided", {**p, "k": round(inv)})
    if r > 0 and np.isclose(r, round(r)) and round(r) > 1:
        return Diagnosis("factor", "factor-division-missing", {**p, "k": round(r)})
    return Diagnosis("factor", "factor-scale", p)


def _with_ratio(d: Diagnosis, got: np.ndarray, want: np.ndarray, what: str) -> Diagnosis:
    """A factor mistake shows the ratio it observed."""
    if d.kind != "factor":
        return d
    nonzero = np.abs(want) > 1e-12
    r = float(np.median(got[nonzero] / want[nonzero])) if nonzero.any() else 1.0
    return Diagnosis(d.kind, d.id, {**d.params, "ratio": r, "what": what})


# ---------------------------------------------------------------- forward
def explain_forward_shape(op: Op | None, case: Case, got: Shape, want: Shape) -> Diagnosis:
    """The likely mistake when the forward output has the wrong shape."""
    p = {"got": tuple(got), "want": tuple(want)}
    reduction = "axis" in case.kwargs or "keepdims" in case.kwargs
    if reduction and case.kwargs.get("keepdims") and len(got) < len(want):
        return Diagnosis("keepdims", "keepdims-ignored", p)
    k = Evidence(case, [], stage="forward")
    fits = [m for m in _mistakes(op, "forward-shape") if m.applies is not None and m.applies(k)]
    if fits:
        return Diagnosis(fits[0].kind, fits[0].id, p)
    if reduction:
        return Diagnosis("forward-shape", "forward-axes", p)
    if len(got) == len(want) and sorted(got) == sorted(want):
        return Diagnosis("forward-shape", "forward-permuted", p)
    return Diagnosis("forward-shape", "forward-shape", p)


def explain_forward_values(op: Op | None, got: np.ndarray, want: np.ndarray,
                           case: Case | None = None,
                           inputs: list[np.ndarray] | None = None) -> Diagnosis:
    """The likely mistake when the forward values are wrong (the backward is then not checked)."""
    forward = {"forward": True}
    bad = ~np.isfinite(got) & np.isfinite(want)
    if np.any(bad):
        big = max((float(np.abs(a).max()) for a in inputs or [] if a.size), default=0.0)
        return Diagnosis("unstable-forward", _hinted(op, "forward", "unstable-forward"),
                         {**forward, "big": big, **_bad_inputs(bad, inputs or [])})
    nonzero = np.abs(want) > 1e-12
    if nonzero.any() and _close(got, -want):
        return Diagnosis("sign", "forward-sign", forward)
    if case is not None and inputs:
        k = Evidence(case, list(inputs), 0, None, want, "forward")
        known = _predicted(op, k, got, "forward", 1e-6, 1e-9)
        if known:
            return _with_ratio(Diagnosis(known.kind, known.id, {**known.params, **forward}),
                               got, want, "output")
    if nonzero.any() and case is not None:
        ratios = got[nonzero] / want[nonzero]
        r = float(np.median(ratios))
        if (np.isfinite(r) and r != 0 and not np.isclose(r, 1.0)
                and np.allclose(ratios, r, rtol=1e-6) and np.allclose(got[~nonzero], 0.0)):
            d = _left_out_axes(_factor(r, "output"), case, inputs, np.size(want))
            return Diagnosis(d.kind, d.id, {**d.params, **forward})
    return Diagnosis("forward", "forward", {**forward, "formula": op.formula if op else ""})


def _bad_inputs(bad: np.ndarray, inputs: list[np.ndarray]) -> dict:
    """Where a forward first gives inf/NaN: the inputs' values there, when every input lines
    up with the output elementwise (broadcasting), and whether one of them is large (|x| > 30,
    where an exponential leaves float64's range within a few steps)."""
    try:
        aligned = [np.broadcast_to(a, bad.shape) for a in inputs]
    except ValueError:
        return {}
    if not aligned or bad.ndim == 0 and not all(np.ndim(a) == 0 for a in inputs):
        return {}
    j = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
    values = [float(a[j]) for a in aligned]
    return {"values": values, "large": any(abs(v) > 30.0 for v in values)}


# ---------------------------------------------------------------- crashes
_NUMPY_SHAPE = re.compile(r"\(\s*((?:\d+\s*,\s*)*\d*\s*,?)\s*\)")


def numpy_shapes(err: BaseException) -> list[Shape]:
    """The shapes in a NumPy broadcasting error. NumPy's ValueError has no fields, so this is
    the one place that reads an exception's text; the course's own errors carry fields."""
    found = []
    for m in _NUMPY_SHAPE.finditer(str(err)):
        body = m.group(1).strip()
        if body and not re.search(r"\d", body):
            continue
        found.append(tuple(int(n) for n in re.findall(r"\d+", body)))
    return found


def _frame(f: Any) -> dict:
    return {"file": f.filename.rsplit("/", 1)[-1], "line": f.lineno, "function": f.name,
            "code": (f.line or "").strip()}


def frames(tb: Any) -> list[dict]:
    """The traceback's frames inside the implementation (tensor.py or a mutant's source)."""
    return [_frame(f) for f in list(tb or [])
            if f.filename.endswith("tensor.py") or f.filename.startswith("<")]


def crash_params(err: BaseException, tb: Any) -> dict:
    """The exception and where it came from: the deepest frame of the implementation."""
    every = list(tb or [])
    own = frames(every)
    at = own[-1] if own else (_frame(every[-1]) if every else None)
    return {"error": type(err).__name__, "message": str(err), "at": at, "frames": own}


def explain_crash(op: Op | None, err: BaseException, tb: Any = None, *, case: Case | None = None,
                  inputs: list[np.ndarray] | None = None, stage: str = "",
                  impl: Any = None) -> Diagnosis:
    """A crash inside the implementation: what it most likely means, and where it came from."""
    p = crash_params(err, tb)
    if isinstance(err, RecursionError):
        return Diagnosis("recursion", "recursion", p)
    at = p["at"] or {}
    in_backward = stage == "backward" or "backward" in " ".join(
        str(v) for v in at.values())
    grad_shape, expected = getattr(err, "grad_shape", None), getattr(err, "expected", None)
    if grad_shape is not None and expected is not None:  # a GradShapeError's fields
        k = Evidence(case or Case(()), list(inputs or []), int(getattr(err, "index", 0) or 0),
                     stage="backward", error=err)
        known = _grad_shape_mistake(op, k)
        if known:
            return Diagnosis(known.kind, known.id, {**known.params, "raised": p})
        d = _through_unbroadcast(grad_shape, expected, impl) or explain_grad_shape(
            grad_shape, expected)
        others = [j for j, a in enumerate(inputs or []) if j != k.index
                  and np.shape(a) == tuple(grad_shape)]
        try:
            full = np.broadcast_shapes(*[np.shape(a) for a in inputs or []])
        except ValueError:
            full = None
        if (d.id in GENERIC and len(inputs or []) == 2 and others and tuple(grad_shape) != full
                and not reducible(tuple(grad_shape), tuple(expected))):
            return Diagnosis("swapped-inputs", "swapped-shape", {
                **_params(op, k), "index": k.index, "other": others[0], "got": grad_shape,
                "want": expected, "raised": p})
        return Diagnosis(d.kind, d.id, {**d.params, "raised": p})
    k = Evidence(case or Case(()), list(inputs or []), stage="backward" if in_backward else stage,
                 error=err, shapes=numpy_shapes(err), code=at.get("code", ""))
    for m in _mistakes(op, "crash"):
        if m.applies is not None and m.applies(k):
            return Diagnosis(m.kind, m.id, {**_params(op, k), "raised": p,
                                            "shapes": numpy_shapes(err)})
    if getattr(err, "upstream_written", False):  # minitorch.errors.upstream_written_error
        return Diagnosis("aliasing", "upstream-written", {**p, "op": getattr(err, "op", "")})
    missing = _KEYWORD.search(str(err)) if isinstance(err, TypeError) else None
    if missing and case is not None and missing.group(1) in case.kwargs:
        return Diagnosis("crash", "missing-keyword", {
            **p, "name": missing.group(1), "value": case.kwargs[missing.group(1)],
            "method": op.method if op else ""})
    spelled = torch_spelling(err)
    if spelled:
        return Diagnosis("crash", "torch-spelling", {**p, **spelled, "backward": in_backward,
                                                      "method": op.method if op else ""})
    if case is not None and case.note == EMPTY:  # the code assumes every axis has elements
        return Diagnosis("crash", "crash-empty-axis", p)
    if isinstance(err, ValueError) and ("broadcast" in str(err) or "could not be" in str(err)):
        shapes = getattr(err, "shapes", None) or numpy_shapes(err)
        return Diagnosis("shape-error", "shape-error", {**p, "backward": in_backward,
                                                         "shapes": shapes})
    if isinstance(err, ValueError | IndexError) and type(err).__module__ == "builtins" and (
            p["frames"]) and not hasattr(err, "op"):
        return Diagnosis("crash", "numpy-crash", {
            **p, "method": op.method if op is not None else "", "backward": in_backward})
    return Diagnosis("crash", "crash", p)


_KEYWORD = re.compile(r"unexpected keyword argument '(\w+)'")
_ATTRIBUTE = re.compile(r"'numpy\.(?:ndarray|float64)' object has no attribute '(\w+)'")


def torch_spelling(err: BaseException) -> dict | None:
    """A torch spelling used on NumPy arrays (``keepdim=``, ``x.exp()``): the name and NumPy's
    word for it, read from the exception's text (NumPy's errors have no fields)."""
    text = str(err)
    m = _KEYWORD.search(text) if isinstance(err, TypeError) else None
    if m and m.group(1) in TORCH_KEYWORDS:
        return {"name": m.group(1), "numpy": TORCH_KEYWORDS[m.group(1)], "form": "keyword"}
    m = _ATTRIBUTE.search(text) if isinstance(err, AttributeError) else None
    if m and m.group(1) in TORCH_METHODS:
        return {"name": m.group(1), "numpy": m.group(1), "form": "method"}
    return None


def _grad_shape_mistake(op: Op | None, k: Evidence) -> Diagnosis | None:
    """The row's mistake that fits a gradient of shape ``k.error.grad_shape`` where the input
    has ``k.error.expected`` (a GradShapeError's fields, or a compared gradient's shapes)."""
    for m in _mistakes(op, "grad-shape"):
        if m.applies is not None and m.applies(k):
            return Diagnosis(m.kind, m.id, {**_params(op, k), "got": k.error.grad_shape,
                                            "want": k.error.expected})
    return None


def _through_unbroadcast(got: Shape, want: Shape, impl: Any) -> Diagnosis | None:
    """The engine could not reduce a (got)-shaped gradient to (want): ask the implementation's
    own ``unbroadcast`` what it makes of it, and name its mistake."""
    helper = getattr(impl, "unbroadcast", None)
    got, want = tuple(got), tuple(want)
    if helper is None or not reducible(got, want):
        return None
    grad = np.random.default_rng(0).standard_normal(got)
    try:
        result = np.asarray(helper(grad.copy(), want))
    except NotImplementedError:
        return None
    except Exception as err:
        return Diagnosis("reverse-broadcast", "unbroadcast-raised", {
            "got": got, "want": want, "error": type(err).__name__, "message": str(err)})
    if result.shape == want:
        return None
    return explain_grad_shape(result.shape, want, subject={"call": got})
