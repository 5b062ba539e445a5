"""What ``bench.py`` measures besides wall-clock time, and the chart it draws.

Timing one sample with its diagnostics (minor page faults, time inside the garbage collector,
main-thread CPU time); the resident memory of a process and the memory probe that runs in a
fresh one; the threads NumPy's BLAS and PyTorch use; the bar chart of the ratios.
Nothing here knows a workload or an engine's API: ``bench.py`` passes in what to run.
"""

from __future__ import annotations

import gc
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

# A step returns (loss as a float, [gradients as float64 ndarrays]) and is timed as a whole.
Step = Callable[[], tuple[float, list[np.ndarray]]]


class GcClock:
    """Seconds spent inside the garbage collector, via ``gc.callbacks``: it explains W6."""

    seconds = 0.0
    _start = 0.0

    @classmethod
    def callback(cls, phase, info):
        if phase == "start":
            cls._start = time.perf_counter()
        else:
            cls.seconds += time.perf_counter() - cls._start


def page_faults() -> int:
    """Minor page faults so far (fresh memory from the OS); 0 where getrusage is missing."""
    try:
        import resource
    except ImportError:
        return 0
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def time_step(step: Step, inner: int) -> dict:
    """Per step, over ``inner`` steps: seconds, and for the diagnostics faults, GC seconds and
    the CPU seconds of this thread (BLAS worker threads excluded; other processes too)."""
    gc.collect()
    faults, gc_seconds = page_faults(), GcClock.seconds
    start, cpu_start = time.perf_counter(), time.thread_time()
    for _ in range(inner):
        step()
    seconds, cpu = time.perf_counter() - start, time.thread_time() - cpu_start
    return {
        "seconds": seconds / inner,
        "cpu_seconds": cpu / inner,
        "faults": (page_faults() - faults) / inner,
        "gc_seconds": (GcClock.seconds - gc_seconds) / inner,
    }


def rss_bytes() -> int:
    """Resident memory of this process (Linux /proc; elsewhere the peak, from getrusage)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def memory_probe(build_graph: Callable[[int], object], step: Step, n_ops: int) -> dict:
    """In THIS (fresh) process: memory growth per op of ``build_graph(n_ops)``, a forward chain
    whose graph is kept alive, then ``step`` timed with no other engine loaded (fewer objects
    for the garbage collector to scan)."""
    build_graph(400)  # warm up: first-call allocations are not the graph's
    gc.collect()
    before = rss_bytes()
    graph = build_graph(n_ops)
    after = rss_bytes()
    del graph
    gc.callbacks.append(GcClock.callback)
    timing = min((time_step(step, 1) for _ in range(2)), key=lambda t: t["seconds"])
    return {
        "bytes_per_op": (after - before) / n_ops,
        "n_ops": n_ops,
        "us_per_op": 1e6 * timing["seconds"] / n_ops,
        "gc_ms": 1e3 * timing["gc_seconds"],
    }


def measure_memory(script: Path, engines: list[str], n_ops: int) -> dict:
    """Run ``script --memory-probe ENGINE --ops N`` (which prints ``memory_probe``'s result as
    JSON) for each engine, each in a fresh Python process."""
    out = {}
    for engine in engines:
        cmd = [sys.executable, str(script), "--memory-probe", engine, "--ops", str(n_ops)]
        proc = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=300)
        if proc.returncode == 0:
            out[engine] = json.loads(proc.stdout.strip().splitlines()[-1])
        else:
            out[engine] = {"error": proc.stderr.strip().splitlines()[-1:]}
    return out


def thread_info(engines: list[str]) -> dict:
    """How many threads each engine's BLAS / intra-op pool uses, as far as we can tell."""
    info = {"cpus": os.cpu_count()}
    info["env"] = {
        k: os.environ[k]
        for k in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                  "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
                  "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")
        if k in os.environ
    }  # fmt: skip
    blas = numpy_blas_threads()
    for engine in engines:
        if engine in ("numpy", "minitorch", "mygrad"):
            info[engine] = f"NumPy's BLAS: {blas}"
        elif engine == "torch":
            import torch

            lib = "MKL" if torch.backends.mkl.is_available() else "its own BLAS"
            info[engine] = f"{torch.get_num_threads()} intra-op threads ({lib})"
    return info


def numpy_blas_threads() -> str:
    """The thread count of NumPy's BLAS, via threadpoolctl if installed, else OpenBLAS itself."""
    try:
        from threadpoolctl import threadpool_info

        pools = [p for p in threadpool_info() if p["user_api"] == "blas"]
        return ", ".join(f"{p['internal_api']} {p['num_threads']} threads" for p in pools)
    except ImportError:
        pass
    import ctypes

    libs = Path(np.__file__).parent.parent / "numpy.libs"  # where NumPy's wheel bundles OpenBLAS
    for lib in sorted(libs.glob("*openblas*")):
        dll = ctypes.CDLL(str(lib))
        for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads"):
            if hasattr(dll, name):
                return f"OpenBLAS {getattr(dll, name)()} threads"
    return "unknown threads"


def save_chart(results: dict, engines: list[str], goals: dict[str, float], path: Path) -> None:
    """Bars: each engine's ratio to raw NumPy, per workload (log scale; 1 = the floor), with
    ``goals`` (workload -> ratio) marked across the minitorch bars."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = [e for e in engines if e != "numpy"]
    names = list(results)
    width = 0.8 / max(len(cols), 1)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for i, engine in enumerate(cols):
        ratios = [results[w].get(engine, {}).get("ratio") or np.nan for w in names]
        xs = np.arange(len(names)) + (i - (len(cols) - 1) / 2) * width
        bars = ax.bar(xs, ratios, width, label=engine)
        labels = [f"{r:.2g}" if not math.isnan(r) else "" for r in ratios]
        ax.bar_label(bars, labels=labels, fontsize=7)
    if "minitorch" in cols:  # the goal, as a black line across the minitorch bar
        x0 = np.arange(len(names)) + (cols.index("minitorch") - (len(cols) - 1) / 2) * width
        ax.hlines([goals.get(w, np.nan) for w in names], x0 - width / 2, x0 + width / 2,
                  color="black", lw=2, zorder=3, label="minitorch goal")  # fmt: skip
    ax.axhline(1.0, color="gray", lw=0.8, ls="--")
    ax.set_yscale("log")
    ax.set_xticks(np.arange(len(names)), names)
    ax.set_ylabel("time / raw NumPy time (log)")
    ax.set_title("minitorch benchmark: ratio to hand-written NumPy (lower is better)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
