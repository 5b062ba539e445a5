"""The course's checks, driven by the catalog: the same code behind pytest, ``make check`` and
the graded notebook cells, so all three say the same thing.

Suites, per catalog row:
- ``forward``: values and shape against PyTorch float64, |mt - torch| <= 1e-7 + 1e-7·|torch|;
- ``backward``: every input's gradient against torch autograd for a random upstream gradient;
- ``gradcheck``: ``minitorch.gradcheck`` (central differences), independent of torch;
- ``broadcast``: gradients' shapes and values on the named broadcasting pairs (binary ops, matmul);
- ``property``: Hypothesis draws shapes (size-1 axes, 0-d, mutually broadcastable) and values.

Every check returns an ``Outcome``; one whose op still raises NotImplementedError is
``not started``, not a crash. torch is imported here, lazily: never by minitorch itself.
"""

from __future__ import annotations

import gc
import linecache
import sys
import traceback
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np

from minitorch_course import diagnosis
from minitorch_course.catalog import (
    BROADCAST_PAIRS,
    MATMUL_BROADCAST_PAIRS,
    Case,
    Op,
)

# a stand-in row for crashes in engine checks (diagnosis functions take an Op)
_ENGINE_OP = Op("engine", "backward", "00-tensor-skeleton", lambda m: None, lambda t: None,
                (), (), "engine")

RTOL = 1e-7  # torch.testing.assert_close's float64 defaults
ATOL = 1e-7
SUITES = ("forward", "backward", "gradcheck", "broadcast", "property")
PASS, FAIL, NOT_STARTED, SKIP = "pass", "fail", "not started", "n/a"


@dataclass
class Outcome:
    """The verdict of one check on one case."""

    op: str
    suite: str
    status: str  # pass | fail | not started | n/a
    case: str = ""
    message: str = ""
    kind: str = ""  # the diagnosis (minitorch_course.diagnosis.KINDS) of a failure
    size: int = 0  # total number of input elements of the case: the smallest failure is shown

    @property
    def passed(self) -> bool:
        return self.status in (PASS, SKIP)

    def __str__(self) -> str:
        head = f"[{self.status}] {self.op} · {self.suite}" + (f" · {self.case}" if self.case else "")
        return head + (f"\n{self.message}" if self.message else "")


class CheckFailure(AssertionError):
    """A failed check; the message is the explanation, ``kind`` the diagnosis' keyword."""

    def __init__(self, message: str = "", kind: str = "") -> None:
        super().__init__(message)
        self.kind = kind


def _fail(head: str, d: diagnosis.Diagnosis) -> CheckFailure:
    return CheckFailure(f"{head}\nLikely mistake: {d.text}", d.kind)


# ---------------------------------------------------------------- implementation plumbing
def current_impl() -> ModuleType:
    """The ``minitorch.tensor`` module selected by MINITORCH_IMPL."""
    import minitorch

    return minitorch.tensor


@contextmanager
def using(impl: ModuleType) -> Iterator[ModuleType]:
    """Make ``impl`` THE ``minitorch.tensor``, temporarily: the module gradcheck imports, and the
    one behind ``minitorch.Tensor``, ``minitorch.unbroadcast``... (looked up at each use)."""
    import minitorch

    previous_module = sys.modules.get("minitorch.tensor")
    previous_attr = minitorch.tensor
    sys.modules["minitorch.tensor"] = impl
    minitorch.tensor = impl
    try:
        yield impl
    finally:
        if previous_module is not None:
            sys.modules["minitorch.tensor"] = previous_module
        minitorch.tensor = previous_attr


def load_impl(path: str | Path | None = None, *, source: str | None = None,
              name: str = "minitorch_impl") -> ModuleType:
    """A tensor module from a file (the stub, a learner's copy) or from source text (a mutant).

    It is not registered as ``minitorch.tensor``; wrap its use in ``using(module)``.
    """
    if source is None:
        if path is None:
            raise ValueError("load_impl needs a path or source")
        source = Path(path).read_text(encoding="utf-8")
    module = ModuleType(name)
    module.__file__ = str(path) if path is not None else f"<{name}>"
    if path is None:  # tracebacks and diagnoses can then quote the offending line
        lines = source.splitlines(keepends=True)
        linecache.cache[module.__file__] = (len(source), None, lines, module.__file__)
    sys.modules[name] = module  # dataclasses and typing look their module up here
    try:
        exec(compile(source, module.__file__, "exec"), module.__dict__)
    finally:
        sys.modules.pop(name, None)
    return module


def _torch():
    import torch

    return torch


# ---------------------------------------------------------------- running one case
def run_torch(op: Op, case: Case, arrays: list[np.ndarray], upstream: np.ndarray | None):
    """torch's output and input gradients (float64) for ``upstream`` (None: forward only)."""
    torch = _torch()
    leaves = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    out = op.ref(torch, *leaves, **case.kwargs)
    grads = None
    if upstream is not None:
        out.backward(torch.as_tensor(upstream, dtype=torch.float64))
        grads = [None if t.grad is None else t.grad.numpy() for t in leaves]
    return out.detach().numpy(), grads


def run_minitorch(op: Op, case: Case, arrays: list[np.ndarray], upstream: np.ndarray | None,
                  impl: ModuleType):
    """minitorch's output array and input gradients for ``upstream`` (None: forward only)."""
    leaves = [impl.Tensor(a, requires_grad=True) for a in arrays]
    out = op.fn(impl, *leaves, **case.kwargs)
    data = np.asarray(out.data)
    grads = None
    if upstream is not None:
        out.backward(upstream)
        grads = [leaf.grad for leaf in leaves]
    return data, grads


def upstream_for(shape: tuple[int, ...], seed: int = 1) -> np.ndarray:
    """A random upstream gradient: a wrongly summed gradient cannot pass by accident."""
    return np.random.default_rng(seed).standard_normal(shape)


def _close(got: np.ndarray, want: np.ndarray) -> tuple[bool, float, tuple[int, ...]]:
    """(all within tolerance, worst |diff|, index of the worst element)."""
    diff = np.abs(got - want)
    excess = np.where(np.isnan(diff) & ~(np.isnan(got) & np.isnan(want)), np.inf,
                      np.nan_to_num(diff - (ATOL + RTOL * np.abs(want)), nan=0.0))
    if excess.size == 0:
        return True, 0.0, ()
    j = np.unravel_index(int(np.argmax(excess)), excess.shape)
    return bool(excess[j] <= 0), float(diff[j]), tuple(int(i) for i in j)


@contextmanager
def _no_gc() -> Iterator[None]:
    """Cyclic GC off while a check builds 100,000 nodes: it would rescan them every few hundred
    allocations (seconds of overhead). Nothing is lost: collection resumes afterwards."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@contextmanager
def _quiet() -> Iterator[None]:
    """No RuntimeWarnings from overflowing learner code in the report: the diagnosis says it."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _crash(op: Op, case: Case, arrays, err: Exception, stage: str,
           impl: ModuleType | None = None) -> CheckFailure:
    """A crash of the implementation as a CheckFailure with its diagnosis."""
    d = diagnosis.explain_crash(op, err, traceback.extract_tb(err.__traceback__), case=case,
                                inputs=arrays, stage=stage, impl=impl)
    shapes = ", ".join(diagnosis.fmt(np.shape(a)) for a in arrays)
    return _fail(f"{op.name} {stage} on {case.label} raised {type(err).__name__} (input shapes "
                 f"{shapes}).", d)


def _guard(op: Op, suite: str, case: Case, body, size: int = 0) -> Outcome:
    """Run ``body``; NotImplementedError -> not started, CheckFailure -> fail, crash -> fail."""
    try:
        with _quiet():
            message = body()
    except NotImplementedError as err:
        return Outcome(op.name, suite, NOT_STARTED, case.label, str(err), size=size)
    except CheckFailure as err:
        return Outcome(op.name, suite, FAIL, case.label, str(err), err.kind, size)
    except Exception as err:  # the learner's code crashed: say where
        d = diagnosis.explain_crash(op, err, traceback.extract_tb(err.__traceback__), case=case)
        return Outcome(op.name, suite, FAIL, case.label, d.text, d.kind, size)
    return Outcome(op.name, suite, PASS, case.label, message or "", size=size)


def _size(arrays) -> int:
    return int(sum(np.size(a) for a in arrays))


# ---------------------------------------------------------------- the suites
def check_forward(op: Op, case: Case, impl: ModuleType | None = None, seed: int = 0) -> Outcome:
    """The op's output against torch's: shape, then every value to 1e-7."""
    impl = impl or current_impl()
    arrays = op.inputs(case, seed)

    def body():
        want, _ = run_torch(op, case, arrays, None)
        got = _run(op, case, arrays, None, impl, "forward")[0]
        explain_forward(op, case, arrays, got, want)

    return _guard(op, "forward", case, body, _size(arrays))


def _run(op: Op, case: Case, arrays, upstream, impl: ModuleType, stage: str):
    """``run_minitorch``, a crash turned into a CheckFailure with its diagnosis."""
    try:
        return run_minitorch(op, case, arrays, upstream, impl)
    except NotImplementedError:
        raise
    except CheckFailure:
        raise
    except Exception as err:
        raise _crash(op, case, arrays, err, stage, impl) from None


def explain_forward(op: Op, case: Case, arrays, got: np.ndarray, want: np.ndarray) -> None:
    """Raise CheckFailure naming the shapes or the worst element when ``got`` != ``want``."""
    if got.shape != want.shape:
        raise _fail(
            f"{op.name} forward on {case.label}: output shape {got.shape}, torch gives "
            f"{want.shape}.", diagnosis.explain_forward_shape(op, case, got.shape, want.shape))
    ok, worst, j = _close(got, want)
    if not ok:
        raise _fail(
            f"{op.name} forward on {case.label}: element {j}: minitorch {float(got[j]):.10g}, torch "
            f"{float(want[j]):.10g}, |difference| {worst:.3g} > {ATOL:g} + {RTOL:g}·|torch|.",
            diagnosis.explain_forward_values(op, got, want, case, arrays))


def check_backward(op: Op, case: Case, impl: ModuleType | None = None, seed: int = 0) -> Outcome:
    """Every input's gradient against torch autograd, for a random upstream gradient."""
    impl = impl or current_impl()
    arrays = op.inputs(case, seed)

    def body():
        want_out, _ = run_torch(op, case, arrays, None)
        upstream = upstream_for(want_out.shape, seed + 1)
        _, want = run_torch(op, case, arrays, upstream)
        got_out, _ = _run(op, case, arrays, None, impl, "forward")
        explain_forward(op, case, arrays, got_out, want_out)  # a wrong forward is not a backward bug
        _, got = _run(op, case, arrays, upstream, impl, "backward")
        explain_backward(op, case, arrays, got, want, upstream)

    return _guard(op, "backward", case, body, _size(arrays))


def explain_backward(op: Op, case: Case, arrays, got, want, upstream=None) -> None:
    """Raise CheckFailure with the diagnosis for the first input whose gradient is wrong."""
    for i, (x, g, w) in enumerate(zip(arrays, got, want)):
        if w is None:
            continue
        where = f"{op.name} backward on {case.label}, gradient of input {i} (shape {x.shape})"

        def why(g=g, w=w, i=i, x=x):
            return diagnosis.explain_gradient(op, case, i, x, g, w, inputs=arrays,
                                              upstream=upstream)

        if g is None:
            raise _fail(f"{where}: .grad is None.", why())
        g = np.asarray(g)
        if g.shape != w.shape:
            raise _fail(f"{where}: gradient shape {g.shape}, expected {w.shape}.", why(g))
        ok, worst, j = _close(g, w)
        if not ok:
            raise _fail(f"{where}: element {j}: minitorch {float(g[j]):.10g}, torch {float(w[j]):.10g} "
                        f"(|difference| {worst:.3g}).", why(g))


def _gradcheck(op: Op, case: Case, arrays, impl: ModuleType, seed: int = 0) -> None:
    """minitorch.gradcheck on one case; a failure or a crash raises CheckFailure, diagnosed."""
    from minitorch.gradcheck import gradcheck

    with using(impl):
        try:
            result = gradcheck(lambda *ts: op.fn(impl, *ts, **case.kwargs), arrays, name=op.name,
                               seed=seed, raise_exception=False)
        except NotImplementedError:
            raise
        except Exception as err:
            raise _crash(op, case, arrays, err, "gradcheck", impl) from None
    if result.passed:
        return
    i = result.failing_input if result.failing_input is not None else 0
    got = None if "left its .grad as None" in result.message else result.analytical[i]
    d = diagnosis.explain_gradient(op, case, i, arrays[i], got, result.numerical[i],
                                   inputs=arrays, upstream=result.upstream, rtol=1e-4, atol=1e-6)
    raise _fail(f"{result.message} (case {case.label})", d)


def check_gradcheck(op: Op, case: Case, impl: ModuleType | None = None,
                    seed: int = 0) -> Outcome:
    """Central differences against the op's backward (no torch involved)."""
    impl = impl or current_impl()
    arrays = op.inputs(case, seed)
    if case.note.startswith("logits"):  # huge logits: finite differences are meaningless there
        return Outcome(op.name, "gradcheck", SKIP, case.label, "not meaningful at logits ±1e4")
    if case.note == "ties":  # the derivative does not exist at a tie
        return Outcome(op.name, "gradcheck", SKIP, case.label, "undefined at ties")

    def body():
        _gradcheck(op, case, arrays, impl, seed)

    return _guard(op, "gradcheck", case, body, _size(arrays))


def broadcast_cases(op: Op) -> list[Case]:
    """The named broadcasting pairs this op runs (both orders for binary ops)."""
    if op.broadcasting:
        pairs = list(BROADCAST_PAIRS) + [(b, a) for a, b in BROADCAST_PAIRS]
        return [Case(pair, note="broadcast") for pair in pairs]
    if op.name == "matmul":
        return [Case(pair, note="batch broadcast") for pair in MATMUL_BROADCAST_PAIRS]
    return []


def check_broadcast(op: Op, case: Case, impl: ModuleType | None = None, seed: int = 0) -> Outcome:
    """One broadcasting pair: gradients must come back at each input's own shape, right."""
    outcome = check_backward(op, case, impl, seed)
    outcome.suite = "broadcast"
    return outcome


def check_property(op: Op, impl: ModuleType | None = None, max_examples: int = 100) -> Outcome:
    """Hypothesis: random shapes and values; forward, backward vs torch and gradcheck.

    A failure reports Hypothesis' shrunk counterexample: the smallest shapes and simplest values
    that still fail, with the diagnosis of that example.
    """
    from hypothesis import HealthCheck, Phase, given, settings

    from minitorch_course.strategies import cases_with_inputs

    impl = impl or current_impl()
    label = f"{max_examples} random examples"
    phases = [p for p in Phase if p.name != "explain"]  # shrink, but no coverage "explanation"

    @settings(max_examples=max_examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck), print_blob=False,
              report_multiple_bugs=False, phases=phases)
    @given(cases_with_inputs(op))
    def prop(drawn):
        case, arrays = drawn
        with _quiet():
            want_out, _ = run_torch(op, case, arrays, None)
            upstream = upstream_for(want_out.shape)
            got_out, _ = _run(op, case, arrays, None, impl, "forward")
            explain_forward(op, case, arrays, got_out, want_out)
            _, want = run_torch(op, case, arrays, upstream)
            _, got = _run(op, case, arrays, upstream, impl, "backward")
            explain_backward(op, case, arrays, got, want, upstream)
            _gradcheck(op, case, arrays, impl)

    def body():
        try:
            prop()
        except NotImplementedError:
            raise
        except Exception as err:
            notes = "\n".join(getattr(err, "__notes__", []))
            text = str(err) if isinstance(err, CheckFailure) else f"{type(err).__name__}: {err}"
            kind = getattr(err, "kind", "") or "crash"
            raise CheckFailure(f"{text}\nSmallest failing example found by Hypothesis "
                               f"(shrunk):\n{notes}", kind) from None

    return _guard(op, "property", Case((), note=label), body)


# ---------------------------------------------------------------- whole-op reports
def check_op(op: Op, impl: ModuleType | None = None, suites=SUITES,
             max_examples: int = 100, gradcheck_max_size: int | None = None
             ) -> dict[str, list[Outcome]]:
    """Every suite for one op; stops a suite at the op's first 'not started'.

    ``gradcheck_max_size`` (the mutant catalog's budget) skips gradcheck on cases with more
    input elements; the torch cross-check still runs them.
    """
    impl = impl or current_impl()
    report: dict[str, list[Outcome]] = {}
    for suite in suites:
        outcomes: list[Outcome] = []
        if suite == "property":
            outcomes.append(check_property(op, impl, max_examples))
        else:
            cases = broadcast_cases(op) if suite == "broadcast" else list(op.cases)
            if suite == "gradcheck" and gradcheck_max_size is not None:
                cases = [c for c in cases
                         if _size(op.inputs(c)) <= gradcheck_max_size] or cases[:1]
            fn = {"forward": check_forward, "backward": check_backward,
                  "gradcheck": check_gradcheck, "broadcast": check_broadcast}[suite]
            for case in cases:
                outcomes.append(fn(op, case, impl))
                if outcomes[-1].status == NOT_STARTED:
                    break
        report[suite] = outcomes
    return report


def summarize(outcomes: list[Outcome]) -> str:
    """pass / fail / not started / n/a for a list of outcomes."""
    if not outcomes:
        return SKIP
    if any(o.status == NOT_STARTED for o in outcomes):
        return NOT_STARTED
    return PASS if all(o.passed for o in outcomes) else FAIL



def assert_ops(names: list[str] | str, impl: ModuleType | None = None,
               suites=("forward", "backward", "gradcheck", "broadcast"),
               max_examples: int = 25) -> None:
    """Raise CheckFailure with every failing check's explanation; used by graded cells."""
    from minitorch_course.catalog import resolve

    failures = []
    for op in resolve(names):
        report = check_op(op, impl, suites, max_examples)
        failures += [o for outs in report.values() for o in outs if not o.passed]
    if failures:
        raise CheckFailure("\n\n".join(str(o) for o in failures))


def first_failure(report: dict[str, list[Outcome]]) -> Outcome | None:
    """The failure to fix first: the earliest suite's, and within it the smallest case."""
    for outcomes in report.values():
        bad = [o for o in outcomes if o.status == FAIL]
        if bad:
            return min(bad, key=lambda o: o.size)
    return None


# ---------------------------------------------------------------- engine rows (lab 00)
def check_engine_row(name: str, impl: ModuleType | None = None) -> Outcome:
    """One engine row (``catalog.ENGINE_ROWS``): every case of ``engine_checks.CHECKS[name]``,
    run against ``impl``; the first failure is diagnosed."""
    impl = impl or current_impl()
    try:
        from minitorch_course.engine_checks import CHECKS
    except ImportError as err:  # pragma: no cover - engine checks not installed
        return Outcome(name, "engine", SKIP, "", f"engine checks unavailable: {err}")
    if name not in CHECKS:
        return Outcome(name, "engine", SKIP, "", f"no engine check named {name!r}")
    with using(impl), _quiet(), _no_gc():
        try:
            cases = CHECKS[name]()
        except NotImplementedError as err:
            return Outcome(name, "engine", NOT_STARTED, "", str(err))
        for case in cases:
            label = getattr(case, "__name__", "case").replace("_", " ")
            try:
                case()
            except NotImplementedError as err:
                return Outcome(name, "engine", NOT_STARTED, label, str(err))
            except CheckFailure as err:
                d = diagnosis.explain_engine(name, label, err)
                return Outcome(name, "engine", FAIL, label, d.text, d.kind)
            except Exception as err:  # the implementation crashed inside the check
                d = diagnosis.explain_crash(_ENGINE_OP, err,
                                            traceback.extract_tb(err.__traceback__))
                return Outcome(name, "engine", FAIL, label, d.text, d.kind)
    return Outcome(name, "engine", PASS, f"{len(cases)} checks")
