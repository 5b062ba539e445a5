"""The one implementation switch, MINITORCH_IMPL: learner (default) or reference; nothing copied."""

from __future__ import annotations

import os
import subprocess
import sys

from minitorch_authoring.repository import ROOT

PROBE = "import minitorch as mt; print(mt.IMPLEMENTATION, mt.TENSOR_FILE.relative_to(mt.REFERENCE_FILE.parents[1]))"


def probe(value: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "MINITORCH_IMPL"}
    if value is not None:
        env["MINITORCH_IMPL"] = value
    return subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env,
                          cwd=ROOT)


def test_default_is_the_learners_file():
    out = probe(None)
    assert out.stdout.split() == ["learner", "src/minitorch/tensor.py"], out.stderr


def test_reference_is_loaded_from_solutions():
    out = probe("reference")
    assert out.stdout.split() == ["reference", "solutions/tensor.py"], out.stderr


def test_an_unknown_value_is_an_error():
    out = probe("mine")
    assert out.returncode != 0 and "expected one of learner, reference" in out.stderr


def test_the_library_never_imports_torch():
    code = "import sys, minitorch as mt; mt.Tensor([1.0]).exp(); print('torch' in sys.modules)"
    env = {**os.environ, "MINITORCH_IMPL": "reference"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.stdout.strip() == "False", out.stderr


def test_no_library_file_imports_torch():
    import ast

    files = sorted((ROOT / "src" / "minitorch").glob("*.py")) + [ROOT / "solutions" / "tensor.py"]
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.split(".")[0] == "torch" for n in names), (path.name, names)
