"""The MLP loss curves the course grades against, computed with PyTorch float64 and stored.

    python -m minitorch_authoring.mlp_curve           # (re)write minitorch_course/data/mlp-curve.json
    python -m minitorch_authoring.mlp_curve --check   # exit 1 if the stored curves are stale

``minitorch_course.mlp_checks.check_loss_curve`` compares the learner's first losses with these
(the right run, and the run whose gradients are never reset). They are stored rather than
computed where the checks run, so that nothing that ships holds a training loop (this PyTorch
replay of the model is one); ``tests/minitorch_course/test_mlp_checks.py`` recomputes them.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from minitorch_course import mlp_checks as mc

TOL = 1e-13  # --check: recomputed against stored (float64 round trip through JSON is exact)


def torch_curve(params0: dict, X: np.ndarray, y: np.ndarray, lr: float, steps: int,
                batches: list | None = None, zero_grad: bool = True) -> list[float]:
    """PyTorch float64's losses for the course's model, weights, rows and updates (per step,
    before its update). ``zero_grad=False`` replays the mistake of never resetting gradients."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: threads only cost time on a shared machine
    try:
        params = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
                  for k, v in params0.items()}
        Xt, yt = torch.tensor(X, dtype=torch.float64), torch.tensor(y, dtype=torch.int64)
        losses = []
        for step in range(steps):
            rows = slice(None) if batches is None else torch.as_tensor(batches[step])
            h = torch.tanh(Xt[rows] @ params["W1"] + params["b1"])
            loss = torch.nn.functional.cross_entropy(h @ params["W2"] + params["b2"], yt[rows])
            losses.append(loss.item())
            if zero_grad:
                for p in params.values():
                    p.grad = None
            loss.backward()
            with torch.no_grad():
                for p in params.values():
                    p -= lr * p.grad
        return losses
    finally:
        torch.set_num_threads(threads)


def curves(seed: int = mc.COURSE_SEED, lr: float = mc.CURVE_LR,
           steps: int = mc.CURVE_STEPS) -> dict:
    """What ``data/mlp-curve.json`` holds, computed now."""
    params0, X, y, batches = mc.course_inputs(seed)
    return {
        "seed": seed, "hidden": mc.COURSE_HIDDEN, "lr": lr, "batch": mc.BATCH_SIZE,
        "steps": steps,
        "loss": torch_curve(params0, X, y, lr, steps, batches),
        "loss_no_zero_grad": torch_curve(params0, X, y, lr, steps, batches, zero_grad=False),
    }


def stale(stored: dict, fresh: dict) -> list[str]:
    """What differs between stored and recomputed curves (empty: up to date)."""
    problems = [f"{k}: {stored.get(k)!r} != {fresh[k]!r}" for k in fresh
                if not isinstance(fresh[k], list) and stored.get(k) != fresh[k]]
    for k in ("loss", "loss_no_zero_grad"):
        got = np.asarray(stored.get(k, []), dtype=np.float64)
        if got.shape != (len(fresh[k]),) or np.abs(got - fresh[k]).max() > TOL:
            problems.append(f"{k} differs from PyTorch's")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the stored curves are stale")
    args = parser.parse_args(argv)
    fresh = curves()
    if args.check:
        problems = stale(mc.expected_curves(), fresh)
        for p in problems:
            print(p, file=sys.stderr)
        return 1 if problems else 0
    mc.CURVE_PATH.write_text(json.dumps(fresh, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {mc.CURVE_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
