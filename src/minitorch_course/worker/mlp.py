"""Lab 05's learner side: the learner's MLP trained and asked, on inputs given as data.

The one owner of running a learner's ``minitorch/mlp.py`` for the two graded properties
(``minitorch_course.mlp_checks`` builds the inputs and judges; the grading worker calls these
functions in its sandbox with inputs the instructor drew). Nothing here computes an expected
value: no dataset, no label, no curve; the answers are plain data (a finding is a dict of
``mlp_checks.Finding``'s fields).
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path
from types import ModuleType
from typing import Any

INTERFACE = ("HIDDEN", "LR", "STEPS", "init_params", "forward", "train")


def load(path: Path | str) -> ModuleType:
    """The learner's MLP file, imported from its path (a fresh module each call)."""
    path = Path(path)
    spec = importlib.util.spec_from_file_location(f"learner_mlp_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def floats(losses: Any) -> list[float]:
    """train's losses as floats; a TypeError naming what came back otherwise (a Tensor that
    requires grad, for instance: record ``loss.item()``)."""
    try:
        return [float(v) for v in losses]
    except (TypeError, ValueError) as exc:
        raise TypeError(f"train must return a list of floats (loss.item()) as its losses, "
                        f"not {type(losses).__name__} of "
                        f"{type(next(iter(losses), None)).__name__}") from exc


def missing(module: ModuleType, check: str) -> dict | None:
    """The interface finding (as a dict) when the file lacks a name of :data:`INTERFACE`."""
    absent = [name for name in INTERFACE if not hasattr(module, name)]
    return {"check": check, "kind": "interface", "detail": ", ".join(absent)} if absent else None


def error(check: str, where: str, exc: BaseException) -> dict:
    """An error finding, as a dict."""
    return {"check": check, "kind": "error", "detail": f"{where}: {type(exc).__name__}: {exc}"}


def _as_array(x: Any):
    """ndarray or minitorch Tensor -> ndarray (as ``grammar.predict`` reads scores)."""
    import numpy as np

    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "detach"):
        x = x.detach()
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


def run_curve(module: ModuleType, data: dict[str, Any]) -> dict[str, Any]:
    """Check 1's learner side: ``{"losses": [...]}`` or ``{"finding": {...}}``. ``data``:
    ``params0`` (arrays), ``X``, ``y``, ``batches``, ``lr``, ``steps``."""
    found = missing(module, "loss_curve")
    if found:
        return {"finding": found}
    try:
        _, losses = module.train({k: v.copy() for k, v in data["params0"].items()},
                                 data["X"].copy(), data["y"].copy(), lr=float(data["lr"]),
                                 steps=int(data["steps"]), batches=list(data["batches"]))
        return {"losses": floats(losses)}
    except Exception as exc:  # the learner's code: any failure is a finding, not a crash
        return {"finding": error("loss_curve", "train", exc)}


def run_accuracy(module: ModuleType, data: dict[str, Any]) -> dict[str, Any]:
    """Check 2's learner side: ``{"steps": S, "runs": [{"seed", "n_losses", "cpu",
    "predicted"}, ...]}`` or ``{"finding": {...}}``. ``data``: ``max_steps``, ``max_cpu`` and
    ``runs``, each ``{"seed", "X", "y", "X_val"}`` (the held-out targets stay with the judge)."""
    import minitorch as mt

    found = missing(module, "accuracy")
    if found:
        return {"finding": found}
    try:
        steps, lr = int(module.STEPS), float(module.LR)
    except (TypeError, ValueError) as exc:
        return {"finding": error("accuracy", "STEPS / LR", exc)}
    if steps > int(data["max_steps"]):
        return {"steps": steps, "runs": []}
    runs = []
    for given in data["runs"]:
        seed = int(given["seed"])
        try:
            params0 = module.init_params(seed)
            t0 = time.process_time()
            params, losses = module.train(params0, given["X"], given["y"], lr=lr, steps=steps)
            cpu = time.process_time() - t0
            losses = floats(losses)
        except Exception as exc:  # the learner's code: any failure is a finding, not a crash
            return {"finding": error("accuracy", "init_params / train", exc)}
        run = {"seed": seed, "n_losses": len(losses), "cpu": cpu, "predicted": None}
        runs.append(run)
        if len(losses) != steps or cpu > float(data["max_cpu"]):
            break
        try:
            with mt.no_grad():
                logits = module.forward({k: mt.Tensor(v) for k, v in params.items()},
                                        mt.Tensor(given["X_val"]))
            run["predicted"] = [int(c) for c in _as_array(logits).argmax(axis=-1)]
        except Exception as exc:
            return {"finding": error("accuracy", "forward", exc)}
    return {"steps": steps, "runs": runs}
