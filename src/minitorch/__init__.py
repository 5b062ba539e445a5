"""minitorch: reverse-mode automatic differentiation on NumPy tensors.

Which implementation of ``minitorch.tensor`` is loaded is chosen by ONE switch, the
environment variable ``MINITORCH_IMPL``, read once at import:

- ``learner`` (the default): ``src/minitorch/tensor.py``, the file the learner fills in;
- ``reference``: ``solutions/tensor.py`` of this repository, loaded in its place under the same
  module name. ``make test`` uses it. Nothing is copied to switch.

The same switch chooses lab 05's MLP file, ``minitorch.mlp``: the learner's
``src/minitorch/mlp.py``, or ``solutions/mlp.py`` under the reference.

``minitorch.IMPLEMENTATION`` says which one is loaded and ``minitorch.TENSOR_FILE`` its path.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

IMPLEMENTATIONS = ("learner", "reference")
IMPLEMENTATION = os.environ.get("MINITORCH_IMPL", "learner").strip().lower() or "learner"
REFERENCE_FILE = Path(__file__).resolve().parents[2] / "solutions" / "tensor.py"
REFERENCE_MLP_FILE = REFERENCE_FILE.with_name("mlp.py")

if IMPLEMENTATION not in IMPLEMENTATIONS:
    raise ImportError(
        f"MINITORCH_IMPL={IMPLEMENTATION!r}: expected one of {', '.join(IMPLEMENTATIONS)}"
    )

if IMPLEMENTATION == "reference":
    if not REFERENCE_FILE.is_file():
        raise ImportError(
            f"MINITORCH_IMPL=reference but the reference implementation {REFERENCE_FILE} is "
            "missing (it exists only in the course repository, not in a learner's copy)"
        )
    _spec = importlib.util.spec_from_file_location("minitorch.tensor", REFERENCE_FILE)
    assert _spec is not None and _spec.loader is not None
    tensor = importlib.util.module_from_spec(_spec)
    sys.modules["minitorch.tensor"] = tensor
    _spec.loader.exec_module(tensor)
else:
    from minitorch import tensor

TENSOR_FILE = Path(tensor.__file__).resolve()

from minitorch.errors import BackwardError, GradShapeError, ShapeError  # noqa: E402
from minitorch.gradcheck import (  # noqa: E402
    EpsSweep,
    GradcheckError,
    GradcheckResult,
    eps_sweep,
    gradcheck,
)

# The names below are looked up in ``minitorch.tensor`` at each use instead of being bound once
# here: after ``%autoreload`` re-executes an edited tensor.py, ``mt.Tensor`` is the new class.
_TENSOR_NAMES = frozenset(
    {"Tensor", "cat", "cross_entropy", "is_grad_enabled", "no_grad", "stack", "unbroadcast"}
)


def __getattr__(name: str):
    if name in _TENSOR_NAMES:
        return getattr(tensor, name)
    raise AttributeError(f"module 'minitorch' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _TENSOR_NAMES)


if IMPLEMENTATION == "reference" and REFERENCE_MLP_FILE.is_file():
    # lab 05's MLP file follows the switch too: `from minitorch import mlp` and `import
    # minitorch.mlp` both find the reference (registered before anything imports the submodule)
    _spec = importlib.util.spec_from_file_location("minitorch.mlp", REFERENCE_MLP_FILE)
    assert _spec is not None and _spec.loader is not None
    mlp = importlib.util.module_from_spec(_spec)
    sys.modules["minitorch.mlp"] = mlp
    _spec.loader.exec_module(mlp)

__all__ = [
    "IMPLEMENTATION",
    "TENSOR_FILE",
    "BackwardError",
    "EpsSweep",
    "GradShapeError",
    "GradcheckError",
    "GradcheckResult",
    "ShapeError",
    "Tensor",
    "cat",
    "cross_entropy",
    "eps_sweep",
    "gradcheck",
    "is_grad_enabled",
    "no_grad",
    "stack",
    "unbroadcast",
]
