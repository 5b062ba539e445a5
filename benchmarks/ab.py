"""Two versions of the engine side by side, in one process: before/after figures on a busy machine.

    MINITORCH_IMPL=reference python benchmarks/ab.py OLD_SRC NEW_SRC [--only W1,W6] [--reps 9]

OLD_SRC and NEW_SRC are ``src/`` folders of two checkouts (e.g. a worktree of main and yours).
Each is imported in turn as ``minitorch`` (with ``MINITORCH_IMPL=reference``, each checkout's
own ``solutions/tensor.py``); ``bench.py``'s workloads then run on both and on raw NumPy,
repetition by repetition in alternating order, and the main-thread CPU-time medians are printed
as ratios to raw NumPy and new / old. Noise from other processes hits both versions alike,
which separate ``make bench`` runs cannot promise. W6 runs 20,000 ops deep (``--w6-ops``).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
INNER = {"W1": 10, "W2": 10, "W3": 2, "W4": 1, "W5": 20, "W6": 1}


def load(src: str):
    """``bench`` and the minitorch adapter, with ``src``'s minitorch imported afresh."""
    for name in list(sys.modules):
        if name == "minitorch" or name.startswith("minitorch.") or name in (
                "bench", "engines", "probes"):
            del sys.modules[name]
    sys.path[:0] = [src, str(HERE)]
    try:
        bench = importlib.import_module("bench")
        engines = importlib.import_module("engines")
        minitorch = importlib.import_module("minitorch")
    finally:
        del sys.path[:2]
    print(f"loaded {minitorch.__file__} ({minitorch.TENSOR_FILE})", file=sys.stderr)
    return bench, engines.adapter("minitorch")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--only", default="W1,W2,W5,W6")
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--w6-ops", type=int, default=20_000)
    args = parser.parse_args(argv)
    versions = {"old": load(args.old), "new": load(args.new)}
    for w_name in args.only.upper().split(","):
        steps = {}
        for label, (bench, adapter) in versions.items():
            w = bench.WORKLOADS[w_name]
            size = {**w.size, **({"n_ops": args.w6_ops} if w_name == "W6" else {})}
            inputs = w.make_inputs(np.random.default_rng(0), **size)
            steps[label], steps["numpy"] = w.graph(adapter, inputs), w.numpy(inputs)
        samples: dict[str, list[float]] = {label: [] for label in steps}
        for rep in range(args.reps + 1):  # the first repetition is the warm-up
            for label in (["old", "new", "numpy"] if rep % 2 else ["numpy", "new", "old"]):
                gc.collect()
                start = time.thread_time()
                for _ in range(INNER[w_name]):
                    steps[label]()
                if rep:
                    samples[label].append((time.thread_time() - start) / INNER[w_name])
        med = {label: statistics.median(s) for label, s in samples.items()}
        print(f"{w_name}: old {med['old'] / med['numpy']:.2f}x  new {med['new'] / med['numpy']:.2f}x"
              f"  new/old {med['new'] / med['old']:.3f}  load {os.getloadavg()[0]:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
