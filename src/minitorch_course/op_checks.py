"""The checks of one catalog op on one case, driven by its row: each returns an ``Outcome``.

Suites:
- ``forward``: values and shape against PyTorch float64, |mt - torch| <= 1e-7 + 1e-7·|torch|;
- ``backward``: every input's gradient against torch autograd for a random upstream gradient;
- ``gradcheck``: ``minitorch.gradcheck`` (central differences), independent of torch;
- ``broadcast``: gradients' shapes and values on the row's broadcasting pairs;
- ``property``: Hypothesis draws shapes (size-1 axes, 0-d, mutually broadcastable) and values.

A check whose op still raises NotImplementedError is ``not started``, not a crash. The
implementation is the module passed in (by ``minitorch_course.runner``, which also makes it
``minitorch.tensor`` for gradcheck). torch is imported here, lazily: never by minitorch itself.
"""

from __future__ import annotations

import sys
import traceback
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType

import numpy as np

from minitorch_course import diagnosis, oracle_cache
from minitorch_course.catalog import ENGINE_BY_NAME, Case, Op, lab_asking_for
from minitorch_course.i18n import t
from minitorch_course.outcomes import (
    FAIL,
    NOT_STARTED,
    PASS,
    SKIP,
    CheckFailed,
    Diagnosis,
    Fact,
    Outcome,
    StandIn,
)

RTOL = 1e-7  # torch.testing.assert_close's float64 defaults
ATOL = 1e-7


def current_impl() -> ModuleType:
    """The ``minitorch.tensor`` module selected by MINITORCH_IMPL (or made current)."""
    import minitorch

    return minitorch.tensor


def _torch():
    import torch

    return torch


# ---------------------------------------------------------------- running one case
@oracle_cache.cached  # inside the progress report only: answers kept from earlier runs
def run_torch(op: Op, case: Case, arrays: list[np.ndarray], upstream: np.ndarray | None):
    """torch's output and input gradients (float64) for ``upstream`` (None: forward only)."""
    torch = _torch()
    # The oracle's tensors are tiny: torch's thread pool only costs time (on a busy machine its
    # threads wait for each other: 50x the CPU); one thread here, the caller's setting restored.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        leaves = [torch.tensor(a, dtype=torch.float64, requires_grad=i not in case.constant)
                  for i, a in enumerate(arrays)]
        out = op.ref(torch, *leaves, **case.kwargs)
        grads = None
        if upstream is not None:
            if out.requires_grad:  # not when every input is a constant
                out.backward(torch.as_tensor(upstream, dtype=torch.float64))
            grads = [None if t.grad is None else t.grad.numpy() for t in leaves]
        return out.detach().numpy(), grads
    finally:
        torch.set_num_threads(threads)


def run_minitorch(op: Op, case: Case, arrays: list[np.ndarray], upstream: np.ndarray | None,
                  impl: ModuleType):
    """minitorch's output array and input gradients for ``upstream`` (None: forward only)."""
    leaves = [impl.Tensor(a, requires_grad=i not in case.constant) for i, a in enumerate(arrays)]
    out = op.fn(impl, *leaves, **case.kwargs)
    data = np.asarray(out.data)
    grads = None
    if upstream is not None:
        if len(case.constant) < len(arrays):  # every input a constant: nothing to run backward on
            out.backward(upstream)
        grads = [leaf.grad for leaf in leaves]
    return data, grads


def upstream_for(shape: tuple[int, ...], seed: int = 1) -> np.ndarray:
    """A random upstream gradient: a wrongly summed gradient cannot pass by accident."""
    return np.random.default_rng(seed).standard_normal(shape)


def _close(got: np.ndarray, want: np.ndarray) -> tuple[bool, float, tuple[int, ...]]:
    """(all within tolerance, worst |diff|, index of the worst element)."""
    with np.errstate(invalid="ignore"):  # inf - inf
        equal = (got == want) | (np.isnan(got) & np.isnan(want))  # NaN, ±inf where torch has them
        diff = np.where(equal, 0.0, np.abs(got - want))
    excess = np.where(equal, -ATOL, np.where(np.isnan(diff), np.inf,
                                             diff - (ATOL + RTOL * np.abs(want))))
    if excess.size == 0:
        return True, 0.0, ()
    j = np.unravel_index(int(np.argmax(excess)), excess.shape)
    return bool(excess[j] <= 0), float(diff[j]), tuple(int(i) for i in j)


@contextmanager
def quiet() -> Iterator[None]:
    """No RuntimeWarnings from overflowing learner code in the report: the diagnosis says it."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def crashed(op: Op, case: Case, arrays, err: Exception, stage: str,
            impl: ModuleType | None = None) -> CheckFailed:
    """A crash of the implementation as a CheckFailed with its diagnosis: raised here, or in
    the grading worker (``err`` a ``StandIn``: its frames came back, the scores of record
    classify it with this same function)."""
    d = diagnosis.explain_crash(op, err, _frames(err), case=case, inputs=arrays, stage=stage,
                                impl=impl)
    return CheckFailed(Fact("crashed", {"row": op.name, "stage": stage, "case": case.label,
                                         "error": type(err).__name__,
                                         "shapes": [np.shape(a) for a in arrays]}), d)


def _rank(d: Diagnosis | None, arrays) -> int:
    """How little a failing case tells mistakes apart (``Outcome.rank``): a generic diagnosis
    ranks last; a case with a one-element or 1-D input after one where every input is 2-D+."""
    generic = d is None or d.id in diagnosis.GENERIC
    low = any(np.ndim(a) < 2 or np.size(a) < 2 for a in arrays or [])
    return (4 * (d is not None and d.id in diagnosis.DEGENERATE) + 2 * generic + low
            + 8 * (d is not None and d.id in diagnosis.LAST_RESORT))


def not_started(err: NotImplementedError, function: str | None = None, **extra) -> Fact:
    """The stub's NotImplementedError as data: the function that raised it (``function``, or
    the traceback's deepest frame) and the lab that asks for it (the course words it in the
    learner's language), and the stub's own message."""
    if function is None:
        tb = err.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        function = tb.tb_frame.f_code.co_qualname if tb is not None else ""
    return Fact("not-started", {"message": str(err), "function": function,
                                "lab": lab_asking_for(function) or "", **extra})


def _frames(err: BaseException) -> list:
    """Where ``err`` was raised: its traceback, or a stand-in's frames (the worker's)."""
    return err.frames if isinstance(err, StandIn) else traceback.extract_tb(err.__traceback__)


def _not_started(row: str, err: NotImplementedError) -> Fact:
    """The stub's message; an engine check that reached a later lab's function (lab 01's
    unbroadcast) says so."""
    function = err.function if isinstance(err, StandIn) else None
    if row not in ENGINE_BY_NAME:
        return not_started(err, function)
    frames = _frames(err)
    raiser = ENGINE_BY_NAME.get(frames[-1].name) if frames else None
    later = raiser is not None and raiser.lab > ENGINE_BY_NAME[row].lab
    return not_started(err, function, needs=raiser.name if later else "")


def guard(row: str, suite: str, label: str, body: Callable[[], None], *, op: Op | None = None,
          case: Case | None = None, size: int = 0, arrays=None, ranked: bool = True) -> Outcome:
    """THE run-and-classify guard of a check that runs learner code (an op's suites, an engine
    case's judge): ``body`` raising NotImplementedError -> not started, CheckFailed -> fail,
    anything else -> a crash, diagnosed where it happened (a ``StandIn`` for the grading
    worker's exception, by the frames that came back). ``ranked``: the outcome's rank among
    its suite's cases (``_rank``)."""
    try:
        with quiet():
            body()
    except NotImplementedError as err:
        return Outcome(row, suite, NOT_STARTED, label, _not_started(row, err), size=size)
    except CheckFailed as err:
        return Outcome(row, suite, FAIL, label, err.fact, err.diagnosis, size,
                       _rank(err.diagnosis, arrays) if ranked else 0)
    except Exception as err:  # the learner's code crashed: say where
        d = diagnosis.explain_crash(op, err, _frames(err), case=case)
        return Outcome(row, suite, FAIL, label, None, d, size, _rank(d, arrays) if ranked else 0)
    return Outcome(row, suite, PASS, label, size=size)


def _guard(op: Op, suite: str, case: Case, body, size: int = 0, arrays=None) -> Outcome:
    """``guard`` on one case of an op."""
    return guard(op.name, suite, case.label, body, op=op, case=case, size=size, arrays=arrays)


def _size(arrays) -> int:
    return int(sum(np.size(a) for a in arrays))


def _copies(arrays) -> list[np.ndarray]:
    """The inputs for the learner's forward, which runs before torch's (an op not started costs
    no torch): a forward that writes into its inputs cannot change what torch is asked."""
    return [np.array(a, copy=True) for a in arrays]


def _run(op: Op, case: Case, arrays, upstream, impl: ModuleType, stage: str):
    """``run_minitorch``, a crash turned into a CheckFailed with its diagnosis."""
    try:
        return run_minitorch(op, case, arrays, upstream, impl)
    except (NotImplementedError, CheckFailed):
        raise
    except Exception as err:
        raise crashed(op, case, arrays, err, stage, impl) from None


# ---------------------------------------------------------------- the suites
def check_forward(op: Op, case: Case, impl: ModuleType | None = None, seed: int = 0) -> Outcome:
    """The op's output against torch's: shape, then every value to 1e-7."""
    impl = impl or current_impl()
    arrays = op.inputs(case, seed)

    def body():
        got = _run(op, case, _copies(arrays), None, impl, "forward")[0]  # not started: no torch
        want, _ = run_torch(op, case, arrays, None)
        compare_forward(op, case, arrays, got, want)

    return _guard(op, "forward", case, body, _size(arrays), arrays)


def compare_forward(op: Op, case: Case, arrays, got: np.ndarray, want: np.ndarray) -> None:
    """Raise CheckFailed naming the shapes or the worst element when ``got`` != ``want``."""
    if got.shape != want.shape:
        raise CheckFailed(
            Fact("forward-shape-mismatch", {"row": op.name, "case": case.label,
                                            "got": got.shape, "want": want.shape}),
            diagnosis.explain_forward_shape(op, case, got.shape, want.shape))
    ok, worst, j = _close(got, want)
    if not ok:
        raise CheckFailed(
            Fact("forward-values", {"row": op.name, "case": case.label, "element": j,
                                    "got": float(got[j]), "want": float(want[j]), "diff": worst,
                                    "atol": ATOL, "rtol": RTOL}),
            diagnosis.explain_forward_values(op, got, want, case, arrays))


def check_backward(op: Op, case: Case, impl: ModuleType | None = None, seed: int = 0,
                   suite: str = "backward") -> Outcome:
    """Every input's gradient against torch autograd, for a random upstream gradient."""
    impl = impl or current_impl()
    arrays = op.inputs(case, seed)

    def body():
        got_out, _ = _run(op, case, _copies(arrays), None, impl, "forward")  # not started: no torch
        want_out, _ = run_torch(op, case, arrays, None)
        upstream = upstream_for(want_out.shape, seed + 1)
        _, want = run_torch(op, case, arrays, upstream)
        compare_forward(op, case, arrays, got_out, want_out)  # a wrong forward is no backward bug
        with constant_operands(op, case), backward_checked(op, case, arrays, impl):
            _, got = _run(op, case, arrays, upstream, impl, "backward")
            compare_backward(op, case, arrays, got, want, upstream, want_out)

    return _guard(op, suite, case, body, _size(arrays), arrays)


@contextmanager
def constant_operands(op: Op, case: Case) -> Iterator[None]:
    """A backward that failed on a case with constant operands (``requires_grad=False``) is
    explained by them first (the check in process and the scores of record alike)."""
    try:
        yield
    except CheckFailed as err:
        if case.constant and (err.diagnosis is None or err.diagnosis.id not in (
                "constant-operand", "constant-got-grad", "backward-not-tuple")):
            err.diagnosis = diagnosis.explain_constant(op, case, err.fact.params.get(
                "index", 0), "constant-operand", err.diagnosis)
        raise


def oracle(op: Op, case: Case):
    """The right input gradients at other inputs or for another upstream (torch): what the
    diagnosis compares a wrong gradient with (swapped inputs, a missing upstream...)."""
    def grads(arrays, upstream):
        return run_torch(op, case, [np.asarray(a, dtype=np.float64) for a in arrays],
                         upstream)[1]

    return grads


def compare_backward(op: Op, case: Case, arrays, got, want, upstream=None,
                     output=None) -> None:
    """Raise CheckFailed with the diagnosis for the first input whose gradient is wrong."""
    for i, (x, g, w) in enumerate(zip(arrays, got, want)):
        where = {"row": op.name, "case": case.label, "index": i, "shape": x.shape}
        if w is None:
            if i in case.constant and g is not None:
                raise CheckFailed(Fact("grad-for-constant", where),
                                  diagnosis.explain_constant(op, case, i, "constant-got-grad"))
            continue

        def why(g=g, w=w, i=i, x=x):
            return diagnosis.explain_gradient(op, case, i, x, g, w, inputs=arrays,
                                              upstream=upstream, wants=list(want),
                                              output=output, oracle=oracle(op, case))

        if g is None:
            raise CheckFailed(Fact("grad-none", where), why())
        g = np.asarray(g)
        if g.shape != w.shape:
            raise CheckFailed(Fact("grad-shape-mismatch", {**where, "got": g.shape,
                                                            "want": w.shape}), why(g))
        ok, worst, j = _close(g, w)
        if not ok:
            raise CheckFailed(Fact("grad-values", {**where, "element": j, "got": float(g[j]),
                                                    "want": float(w[j]), "diff": worst}), why(g))


def backward_form(op: Op, case: Case, arrays, impl: ModuleType) -> Diagnosis | None:
    """Whether a node of ``op``'s graph on ``arrays`` returns from its ``_backward`` something
    other than a tuple (or list) of gradients, one per parent: the diagnosis when it does, else
    None. Called only once a check has failed: what the engine makes of a bare array (a row per
    parent) or a number (not iterable) hides the cause. (A tuple one gradient short leaves a
    parent without one: the missing-grad diagnosis says so.) Each node's ``_backward`` is called with
    ones on fresh inputs; anything unexpected means no claim (None)."""
    try:
        with quiet():
            leaves = [impl.Tensor(np.array(a, copy=True), requires_grad=i not in case.constant)
                      for i, a in enumerate(arrays)]
            root = op.fn(impl, *leaves, **case.kwargs)
            met, level = {id(root): root}, [root]  # the graph, a level of parents at a time
            while level:
                level = [met.setdefault(id(p), p) for node in level
                         if isinstance(node, impl.Tensor)
                         for p in tuple(node._prev or ()) if id(p) not in met]
            for node in met.values():
                parents = tuple(node._prev or ()) if isinstance(node, impl.Tensor) else ()
                if parents and callable(node._backward):
                    got = node._backward(np.ones(np.shape(node.data)))
                    if not isinstance(got, (tuple, list)):  # a short tuple: missing-grad's
                        return Diagnosis("backward-return", "backward-not-tuple", {
                            "method": op.method, "node": str(getattr(node, "_op", "") or ""),
                            "parents": len(parents), **_returned(got)})
    except Exception:  # noqa: BLE001 - a probe of learner code: no claim when it breaks
        return None
    return None


def _returned(got) -> dict:
    """What a _backward returned, as data for the diagnosis's words."""
    kind = type(got)
    name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
    if isinstance(got, np.ndarray) and got.ndim:
        return {"returned": "array", "shape": got.shape, "type": name}
    if isinstance(got, (int, float, np.number, np.ndarray)):
        return {"returned": "number", "type": name}
    return {"returned": "other", "type": name}


@contextmanager
def backward_checked(op: Op, case: Case, arrays, impl: ModuleType) -> Iterator[None]:
    """A check that failed in or after a backward: when a ``_backward`` of the op's graph does
    not return one gradient per parent, that is the diagnosis (``backward_form``)."""
    try:
        yield
    except CheckFailed as err:
        found = backward_form(op, case, arrays, impl)
        if found is not None:
            err.diagnosis = found
        raise


def _gradcheck(op: Op, case: Case, arrays, impl: ModuleType, seed: int = 0) -> None:
    """minitorch.gradcheck on one case; a failure or a crash raises CheckFailed, diagnosed."""
    from minitorch.gradcheck import gradcheck

    if sys.modules.get("minitorch.tensor") is not impl:
        raise RuntimeError("gradcheck runs minitorch.tensor: make the implementation current "
                           "with minitorch_course.runner.using(impl)")
    try:
        result = gradcheck(lambda *ts: op.fn(impl, *ts, **case.kwargs), arrays, name=op.name,
                           seed=seed, raise_exception=False)
    except NotImplementedError:
        raise
    except Exception as err:
        raise crashed(op, case, arrays, err, "gradcheck", impl) from None
    if not result.passed:
        raise gradcheck_failed(op, case, arrays, result)


def gradcheck_failed(op: Op, case: Case, arrays, result) -> CheckFailed:
    """A failed ``minitorch.gradcheck`` result (computed here, or by ``gradcheck.compare`` on
    the grading worker's data) as a CheckFailed: its fact and diagnosis."""
    i = result.failing_input if result.failing_input is not None else 0
    got = None if result.missing_grad else result.analytical[i]
    d = diagnosis.explain_gradient(op, case, i, arrays[i], got, result.numerical[i],
                                   inputs=arrays, upstream=result.upstream, rtol=1e-4, atol=1e-6,
                                   wants=list(result.numerical), oracle=oracle(op, case))
    return CheckFailed(_gradcheck_fact(op, case, arrays, result), d)


def _gradcheck_fact(op: Op, case: Case, arrays, result) -> Fact:
    """What gradcheck found, from its result's fields (the course words it, not the library)."""
    from minitorch.gradcheck import DEFAULT_ATOL, DEFAULT_EPS, DEFAULT_RTOL, tolerance

    i = result.failing_input if result.failing_input is not None else 0
    a, n = result.analytical[i], result.numerical[i]
    where = {"row": op.name, "case": case.label, "index": i, "shape": np.shape(arrays[i])}
    if result.missing_grad:
        return Fact("gradcheck-none", {**where, "biggest": float(np.abs(n).max())})
    if result.worst_index is None or np.shape(a) != np.shape(arrays[i]):
        return Fact("gradcheck-shape", {**where, "got": np.shape(a)})
    j = result.worst_index
    tol = tolerance(n)
    diff = np.abs(a - n)
    bad = int((np.where(np.isnan(diff), np.inf, diff - tol) > 0).sum())
    return Fact("gradcheck-values", {
        **where, "element": j, "numerical": float(n[j]), "analytical": float(a[j]),
        "diff": float(diff[j]), "atol": DEFAULT_ATOL, "rtol": DEFAULT_RTOL,
        "tol": float(tol[j]), "count": bad, "size": int(np.size(a)), "eps": DEFAULT_EPS,
        "random": bool(np.size(result.upstream) > 1)})


def check_gradcheck(op: Op, case: Case, impl: ModuleType | None = None,
                    seed: int = 0) -> Outcome:
    """Central differences against the op's backward (no torch involved)."""
    impl = impl or current_impl()
    arrays = op.inputs(case, seed)
    if not case.gradcheck:  # ties, huge logits: the catalog says finite differences mean nothing
        return Outcome(op.name, "gradcheck", SKIP, case.label,
                       Fact("gradcheck-skipped", {"case": case.label}))

    def body():
        with backward_checked(op, case, arrays, impl):
            _gradcheck(op, case, arrays, impl, seed)

    return _guard(op, "gradcheck", case, body, _size(arrays), arrays)


def check_broadcast(op: Op, case: Case, impl: ModuleType | None = None, seed: int = 0) -> Outcome:
    """One broadcasting pair: gradients must come back at each input's own shape, right."""
    return check_backward(op, case, impl, seed, suite="broadcast")


def check_property(op: Op, impl: ModuleType | None = None, max_examples: int = 100) -> Outcome:
    """Hypothesis: random shapes and values; forward, backward vs torch and gradcheck.

    A failure reports Hypothesis' shrunk counterexample: the smallest shapes and simplest values
    that still fail, with the diagnosis of that example.
    """
    from hypothesis import HealthCheck, Phase, given, settings

    from minitorch_course.strategies import cases_with_inputs

    impl = impl or current_impl()
    label = t("{n} random examples", n=max_examples)
    phases = [p for p in Phase if p.name != "explain"]  # shrink, but no coverage "explanation"

    @settings(max_examples=max_examples, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck), print_blob=False,
              report_multiple_bugs=False, phases=phases)
    @given(cases_with_inputs(op))
    def prop(drawn):
        case, arrays = drawn
        with quiet():
            got_out, _ = _run(op, case, _copies(arrays), None, impl, "forward")
            want_out, _ = run_torch(op, case, arrays, None)
            upstream = upstream_for(want_out.shape)
            compare_forward(op, case, arrays, got_out, want_out)
            _, want = run_torch(op, case, arrays, upstream)
            with backward_checked(op, case, arrays, impl):
                _, got = _run(op, case, arrays, upstream, impl, "backward")
                compare_backward(op, case, arrays, got, want, upstream, want_out)
                if not case.constant:  # gradcheck nudges every input
                    _gradcheck(op, case, arrays, impl)

    def body():
        try:
            prop()
        except NotImplementedError:
            raise
        except Exception as err:
            example = "\n".join(getattr(err, "__notes__", []))
            if isinstance(err, CheckFailed):
                inner, d = vars(err.fact), err.diagnosis
            else:
                inner, d = None, Diagnosis("crash")
            raise CheckFailed(Fact("property-failed", {
                "inner": inner, "raised": f"{type(err).__name__}: {err}", "example": example}),
                d) from None

    return _guard(op, "property", Case((), note=label), body)


# ---------------------------------------------------------------- whole-op reports
CHECKS = {"forward": check_forward, "backward": check_backward, "gradcheck": check_gradcheck,
          "broadcast": check_broadcast}


def check_op(op: Op, impl: ModuleType | None = None, suites=("forward", "backward", "gradcheck",
             "broadcast", "property"), max_examples: int = 100,
             gradcheck_max_size: int | None = None, seed: int = 0) -> dict[str, list[Outcome]]:
    """Every suite for one op; stops a suite at the op's first 'not started'.

    ``seed`` draws the fixed cases' input values (0: the values the notebooks always used; the
    grading seed of ``minitorch_grading.record`` reproduces a graded case).

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
            cases = list(op.broadcast_cases) if suite == "broadcast" else list(op.all_cases)
            if suite == "gradcheck" and gradcheck_max_size is not None:
                cases = [c for c in cases
                         if _size(op.inputs(c)) <= gradcheck_max_size] or cases[:1]
            for case in cases:
                outcomes.append(CHECKS[suite](op, case, impl, seed))
                if outcomes[-1].status == NOT_STARTED:
                    break
        report[suite] = outcomes
    return report


__all__ = ["FAIL", "NOT_STARTED", "PASS", "SKIP", "check_op"]
