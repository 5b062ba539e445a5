"""Judging, in the instructor's process: the worker's answers (data) against the plan's expected
values, with the suites' own comparisons and diagnoses."""

from __future__ import annotations

import numpy as np

from minitorch.gradcheck import DEFAULT_ATOL, compare, tolerance
from minitorch_course import diagnosis, engine_checks, mlp_checks, op_checks, runner
from minitorch_course.catalog import BY_NAME
from minitorch_course.outcomes import (
    FAIL,
    SKIP,
    CheckFailed,
    Diagnosis,
    Fact,
    Outcome,
    StandIn,
)
from minitorch_grading.record.planning import Plan, Task, mlp_relabel


class _Raised(Exception):
    """Stands for the learner's exception (only its name, message, fields and frames came
    back), so the diagnosis can classify a crash as it does in the notebook."""


def raised(error: dict) -> BaseException:
    """The learner's exception as the worker sent it (its type's names, message, fields,
    frames and raising function), raised again here as a ``StandIn`` of the nearest built-in
    type: ``op_checks`` classifies it as it does an exception raised in the notebook."""
    import traceback as tb

    bases = set(error.get("bases", []))
    base = next((b for b in (RecursionError, NotImplementedError, IndexError, KeyError,
                             ValueError, TypeError, AttributeError, ZeroDivisionError)
                 if b.__name__ in bases), _Raised)
    cls = type(str(error.get("type", "Error")), (base, StandIn),
               {"__module__": str(error.get("module") or __name__)})  # builtins: NumPy's
    err = cls(error.get("message", ""))
    for name, value in (error.get("fields") or {}).items():
        try:
            setattr(err, name, value)
        except AttributeError:
            continue
    err.frames = [tb.FrameSummary(str(f["file"]), int(f["line"] or 0), str(f["function"]),
                                  line=str(f["code"])) for f in error.get("frames", [])]
    err.function = str(error.get("function") or "")
    return err


NO_ANSWER = {"type": "NoAnswer", "message": "the worker gave no answer for this case",
             "stage": "forward", "frames": []}
STAGES = ("forward", "backward", "gradcheck")  # the worker's, in the order it runs them


def judge_task(task: Task, answer: dict | None, suites: tuple[str, ...]) -> dict[str, Outcome]:
    """The outcome of each suite for one task, from the learner's answer (or its absence),
    through THE guard of the in-process checks (``op_checks.guard``): the same statuses,
    facts, diagnoses and ranks as ``make check`` gives on the same case."""
    op = BY_NAME[task.row]
    if task.error:  # torch could not run it: nobody is marked down for it
        return {s: Outcome(op.name, s, SKIP, task.case.label) for s in suites}
    answer = answer if answer is not None else {"error": NO_ANSWER}
    found: dict[str, Outcome] = {}
    for suite in suites:
        if suite == "gradcheck" and not task.gradcheck:
            found[suite] = Outcome(op.name, suite, SKIP, task.case.label,
                                   Fact("gradcheck-skipped", {"case": task.case.label}))
            continue
        found[suite] = op_checks.guard(
            op.name, suite, task.case.label, lambda suite=suite: _replay(op, task, answer, suite),
            op=op, case=task.case, size=op_checks._size(task.arrays), arrays=task.arrays)
    return found


def _replay(op, task: Task, answer: dict, suite: str) -> None:
    """One suite's check of ``task`` on the worker's answer, step by step as ``op_checks``
    runs it in a kernel: the learner's exception is raised again at the step it stopped
    (``op_checks.crashed`` makes a crash a diagnosed failure; a NotImplementedError goes to
    the guard: not started), then the same comparisons on the answer's arrays. An answer of
    the wrong kind (forged) fails as a crash without diagnosis."""
    error = answer.get("error")
    try:
        stopped = (STAGES.index(error.get("stage")) if error.get("stage") in STAGES else 0) \
            if error else len(STAGES)
        if suite == "gradcheck":  # in a kernel gradcheck runs forward and backward itself
            if stopped <= STAGES.index("gradcheck"):
                _learners(op, task, error, "gradcheck")
            _judge_gradcheck(op, task, answer.get("gradcheck"))
            return
        if stopped == STAGES.index("forward"):
            _learners(op, task, error, "forward")
        got = _as_array(answer.get("out"), "the output")
        if got is None:
            raise TypeError("no output")
        op_checks.compare_forward(op, task.case, task.arrays, got, task.want_out)
        if suite == "forward":
            return
        with op_checks.constant_operands(op, task.case):
            if stopped == STAGES.index("backward"):
                _learners(op, task, error, "backward")
            grads = answer.get("grads")
            if not isinstance(grads, list) or len(grads) != len(task.arrays):
                raise TypeError("gradients missing")
            grads = [_as_array(g, "a gradient") for g in grads]
            op_checks.compare_backward(op, task.case, task.arrays, grads, task.want_grads,
                                       task.upstream, task.want_out)
    except (CheckFailed, NotImplementedError):
        raise
    except Exception as err:  # noqa: BLE001 - an answer of the wrong kind (a forged one)
        raise CheckFailed(Fact("crashed", {"row": op.name, "stage": suite,
                                           "case": task.case.label,
                                           "error": type(err).__name__, "shapes": []}),
                          Diagnosis("crash")) from None


def _learners(op, task: Task, error: dict, stage: str) -> None:
    """Raise the learner's exception (``error``, from the worker) as ``op_checks`` raises one
    caught at ``stage`` in a kernel."""
    err = raised(error)
    if isinstance(err, NotImplementedError):
        raise err
    try:
        failed = op_checks.crashed(op, task.case, task.arrays, err, stage)
    except Exception:  # noqa: BLE001 - the stand-in lacks something: a plain crash
        failed = CheckFailed(Fact("crashed", {
            "row": op.name, "stage": stage, "case": task.case.label,
            "error": error.get("type", ""), "shapes": [np.shape(a) for a in task.arrays]}),
            Diagnosis("crash", "", {"error": error.get("type"), "message": error.get("message")}))
    raise failed


def _as_array(value, name: str):
    if value is None:
        return None
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{name} is not an array")
    return value


def _judge_gradcheck(op, task: Task, data) -> None:
    """minitorch.gradcheck's verdict (``gradcheck.compare``: the rule, fact and diagnosis of
    ``make check``'s gradcheck) on the worker's analytical and numerical gradients, then the
    analytical gradient against torch's for the same upstream (what central differences
    alone cannot catch), both here."""
    if not isinstance(data, dict):
        raise TypeError("no gradcheck data")
    analytical, numerical = data.get("analytical"), data.get("numerical")
    if not isinstance(analytical, list) or not isinstance(numerical, list) \
            or len(analytical) != len(task.arrays) or len(numerical) != len(task.arrays):
        raise TypeError("gradcheck data of the wrong form")
    analytical = [_as_array(a, "an analytical gradient") for a in analytical]
    numerical = [_as_array(n, "a numerical gradient") for n in numerical]
    if any(n is None or n.shape != x.shape for n, x in zip(numerical, task.arrays)):
        raise TypeError("numerical gradient of the wrong shape")
    result = compare(op.name, task.arrays, analytical, numerical, task.gc_upstream,
                               raise_exception=False)
    if not result.passed:
        raise op_checks.gradcheck_failed(op, task.case, task.arrays, result)
    for i, (x, a, n, t) in enumerate(zip(task.arrays, analytical, numerical, task.gc_want)):
        if t is None or (np.all(np.abs(t) <= DEFAULT_ATOL) if a is None
                         else np.all(np.abs(a - t) <= tolerance(t))):
            continue
        d = diagnosis.explain_gradient(op, task.case, i, x, a, n, inputs=task.arrays,
                                       upstream=task.gc_upstream, rtol=1e-4, atol=1e-6,
                                       wants=numerical, oracle=op_checks.oracle(op, task.case))
        raise CheckFailed(Fact("gradcheck-failed", {
            "row": op.name, "case": task.case.label, "index": i}), d)


def judge_engine(row: str, cases: list[engine_checks.EngineCase], answer) -> Outcome:
    """An engine row, judged here: what the worker's run of each case's program observed
    (data), handed to the case's own judge, as the notebook does (``runner.judge_engine_row``:
    the same facts and diagnoses); the learner's exception comes back as a stand-in."""
    if not isinstance(answer, list) or not answer:
        return Outcome(row, "engine", FAIL, "", Fact("crashed", {
            "row": row, "stage": "engine", "case": "", "error": "NoAnswer", "shapes": []}),
            Diagnosis("crash"))
    seen = []
    for case, got in zip(cases, answer + [None] * len(cases), strict=False):
        got = got if isinstance(got, dict) and got.get("name") == case.name else {
            "error": {"type": "NoAnswer", "message": "the worker gave no answer for this case",
                      "stage": "engine", "frames": []}}
        observed = engine_checks.Seen(got.get("observed") or {})
        if got.get("error"):
            observed.error = raised(got["error"])
        seen.append(observed)
    return runner.judge_engine_row(row, cases, seen)



def judge_mlp(check: str, plan_: Plan, answer) -> mlp_checks.Finding:
    """One MLP check's verdict, here: the worker's answer (data) against PyTorch's curves for
    the record's inputs, or the held-out targets drawn here from the record's seeds and
    relabelled by its permutation."""
    if not isinstance(answer, dict):
        return mlp_checks.Finding(check=check, kind="error",
                                  detail="the worker gave no answer for the MLP")
    try:
        if check == "loss_curve":
            return mlp_checks.judge_curve(answer, plan_.curves)
        task = plan_.mlp[check]
        return mlp_checks.judge_accuracy(answer, tuple(task["seeds"]), int(task["n_val"]),
                                         mlp_relabel(plan_.seed))
    except Exception as err:  # noqa: BLE001 - an answer no honest worker sends
        return mlp_checks.Finding(check=check, kind="error",
                                  detail=f"malformed answer ({type(err).__name__})")

