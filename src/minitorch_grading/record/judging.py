"""Judging, in the instructor's process: the worker's answers (data) against the plan's expected
values, with the suites' own comparisons and diagnoses."""

from __future__ import annotations

import numpy as np

from minitorch.gradcheck import DEFAULT_ATOL, tolerance
from minitorch_course import diagnosis, engine_checks, mlp_checks, op_checks, runner
from minitorch_course.catalog import BY_NAME
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
from minitorch_grading.record.planning import Plan, Task


class _Raised(Exception):
    """Stands for the learner's exception (only its name, message, fields and frames came
    back), so the diagnosis can classify a crash as it does in the notebook."""


def _surrogate(error: dict) -> tuple[BaseException, list]:
    import traceback as tb

    bases = set(error.get("bases", []))
    base = next((b for b in (RecursionError, NotImplementedError, IndexError, KeyError,
                             ValueError, TypeError, AttributeError, ZeroDivisionError)
                 if b.__name__ in bases), _Raised)
    cls = type(str(error.get("type", "Error")), (base, StandIn), {})
    err = cls(error.get("message", ""))
    for name, value in (error.get("fields") or {}).items():
        try:
            setattr(err, name, value)
        except AttributeError:
            continue
    frames = [tb.FrameSummary(str(f["file"]), int(f["line"] or 0), str(f["function"]),
                              line=str(f["code"])) for f in error.get("frames", [])]
    err.frames, err.function = frames, str(error.get("function") or "")
    return err, frames


def _crashed(op, task: Task, suite: str, error: dict) -> Outcome:
    if error.get("not_started"):
        return Outcome(op.name, suite, NOT_STARTED, task.case.label,
                       Fact("not-started", {"message": error.get("message", "")}))
    err, frames = _surrogate(error)
    try:
        d = diagnosis.explain_crash(op, err, frames, case=task.case, inputs=task.arrays,
                                    stage=error.get("stage", ""))
    except Exception:  # noqa: BLE001 - the surrogate lacks something: a plain crash
        d = Diagnosis("crash", "", {"error": error.get("type"), "message": error.get("message")})
    return Outcome(op.name, suite, FAIL, task.case.label, Fact("crashed", {
        "row": op.name, "stage": error.get("stage", ""), "case": task.case.label,
        "error": error.get("type", ""), "shapes": [np.shape(a) for a in task.arrays]}), d,
        op_checks._size(task.arrays))


def _judge(body, op, task: Task, suite: str) -> Outcome:
    size = op_checks._size(task.arrays)
    try:
        with op_checks.quiet():
            body()
    except CheckFailed as err:
        return Outcome(op.name, suite, FAIL, task.case.label, err.fact, err.diagnosis, size,
                       op_checks._rank(err.diagnosis, task.arrays))
    except Exception as err:  # noqa: BLE001 - an answer of the wrong kind (a forged one)
        return Outcome(op.name, suite, FAIL, task.case.label,
                       Fact("crashed", {"row": op.name, "stage": suite, "case": task.case.label,
                                        "error": type(err).__name__, "shapes": []}),
                       Diagnosis("crash"), size)
    return Outcome(op.name, suite, PASS, task.case.label, size=size)


def _as_array(value, name: str):
    if value is None:
        return None
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{name} is not an array")
    return value


def judge_task(task: Task, answer: dict | None, suites: tuple[str, ...]) -> dict[str, Outcome]:
    """The outcome of each suite for one task, from the learner's answer (or its absence)."""
    op = BY_NAME[task.row]
    found: dict[str, Outcome] = {}
    if task.error:  # torch could not run it: nobody is marked down for it
        return {s: Outcome(op.name, s, SKIP, task.case.label) for s in suites}
    if answer is None:
        missing = {"type": "NoAnswer", "message": "the worker gave no answer for this case",
                   "stage": "forward", "frames": []}
        return {s: _crashed(op, task, s, missing) for s in suites}
    error = answer.get("error")
    stage_order = {"forward": 0, "backward": 1, "gradcheck": 2}
    failed_at = stage_order.get(error.get("stage"), 0) if error else 99
    for suite in suites:
        need = {"forward": 0, "backward": 1, "broadcast": 1, "gradcheck": 2}[suite]
        if suite == "gradcheck" and not task.gradcheck:
            found[suite] = Outcome(op.name, suite, SKIP, task.case.label,
                                   Fact("gradcheck-skipped", {"case": task.case.label}))
            continue
        if error and failed_at <= need:
            found[suite] = _crashed(op, task, suite, error)
            continue
        if suite == "forward":
            def body():
                got = _as_array(answer.get("out"), "the output")
                if got is None:
                    raise TypeError("no output")
                op_checks.compare_forward(op, task.case, task.arrays, got, task.want_out)
        elif suite in ("backward", "broadcast"):
            def body():
                got = _as_array(answer.get("out"), "the output")
                if got is None:
                    raise TypeError("no output")
                op_checks.compare_forward(op, task.case, task.arrays, got, task.want_out)
                grads = answer.get("grads")
                if not isinstance(grads, list) or len(grads) != len(task.arrays):
                    raise TypeError("gradients missing")
                grads = [_as_array(g, "a gradient") for g in grads]
                op_checks.compare_backward(op, task.case, task.arrays, grads,
                                           task.want_grads, task.upstream, task.want_out)
        else:
            def body():
                _judge_gradcheck(op, task, answer.get("gradcheck"))
        found[suite] = _judge(body, op, task, suite)
    return found


def _judge_gradcheck(op, task: Task, data) -> None:
    """minitorch.gradcheck's rule (|analytical - numerical| <= atol + rtol|numerical|), and the
    analytical gradient against torch's for the same upstream, both here."""
    if not isinstance(data, dict):
        raise TypeError("no gradcheck data")
    analytical, numerical = data.get("analytical"), data.get("numerical")
    if not isinstance(analytical, list) or not isinstance(numerical, list) \
            or len(analytical) != len(task.arrays) or len(numerical) != len(task.arrays):
        raise TypeError("gradcheck data of the wrong form")
    for i, (x, a, n, t) in enumerate(zip(task.arrays, analytical, numerical, task.gc_want)):
        n = _as_array(n, "a numerical gradient")
        a = _as_array(a, "an analytical gradient")
        if n is None or n.shape != x.shape:
            raise TypeError("numerical gradient of the wrong shape")
        if a is None:
            if np.all(np.abs(n) <= DEFAULT_ATOL) and (t is None or np.all(np.abs(t) <= DEFAULT_ATOL)):
                continue
        ok = a is not None and a.shape == x.shape
        if ok:
            ok = bool(np.all(np.abs(a - n) <= tolerance(n)))
        if ok and t is not None:
            ok = bool(np.all(np.abs(a - t) <= tolerance(t)))
        if not ok:
            d = diagnosis.explain_gradient(op, task.case, i, x, a, n, inputs=task.arrays,
                                           upstream=task.gc_upstream, rtol=1e-4, atol=1e-6,
                                           wants=list(numerical),
                                           oracle=op_checks.oracle(op, task.case))
            raise CheckFailed(Fact("gradcheck-failed", {
                "row": op.name, "case": task.case.label, "index": i}), d)


def judge_engine(row: str, cases: list[engine_checks.EngineCase], answer) -> Outcome:
    """An engine row, judged here: what the worker's run of each case's program observed
    (data), handed to the case's own judge, as the notebook does (``runner.judge_engine_row``:
    the same facts and diagnoses); the learner's exception comes back as a stand-in."""
    if not isinstance(answer, list) or not answer:
        return Outcome(row, "engine", FAIL, "", Fact("crashed", {"error": "NoAnswer"}),
                       Diagnosis("crash"))
    seen = []
    for case, got in zip(cases, answer + [None] * len(cases), strict=False):
        got = got if isinstance(got, dict) and got.get("name") == case.name else {
            "error": {"type": "NoAnswer", "message": "the worker gave no answer for this case",
                      "stage": "engine", "frames": []}}
        observed = engine_checks.Seen(got.get("observed") or {})
        if got.get("error"):
            observed.error, _ = _surrogate(got["error"])
        seen.append(observed)
    return runner.judge_engine_row(row, cases, seen)



def judge_mlp(check: str, plan_: Plan, answer) -> mlp_checks.Finding:
    """One MLP check's verdict, here: the worker's answer (data) against the stored PyTorch
    curves, or the held-out targets drawn here from the record's seeds."""
    if not isinstance(answer, dict):
        return mlp_checks.Finding(check=check, kind="error",
                                  detail="the worker gave no answer for the MLP")
    try:
        if check == "loss_curve":
            return mlp_checks.judge_curve(answer, plan_.curves)
        task = plan_.mlp[check]
        return mlp_checks.judge_accuracy(answer, tuple(task["seeds"]), int(task["n_val"]))
    except Exception as err:  # noqa: BLE001 - an answer no honest worker sends
        return mlp_checks.Finding(check=check, kind="error",
                                  detail=f"malformed answer ({type(err).__name__})")

